#include "apps/unieval/torch/launch_local.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "models/dist/distributed.h"

extern char** environ;

namespace unieval::cli {

namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) +
           (name ? std::string(" (") + name + ")" : std::string());
  }
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

int launch_local(const LaunchOptions& opts) {
  if (opts.nproc < 1) throw InputError("--nproc must be at least 1");
  if (opts.master_port < 0 || opts.master_port > 65535)
    throw InputError("--master-port " + std::to_string(opts.master_port) + " is not a TCP port");
  int port = opts.master_port;
  if (port == 0) {
    port = models::dist::free_port();
  } else if (!models::dist::port_available(port)) {
    throw InputError("--master-port " + std::to_string(port) +
                     ": the port of 127.0.0.1 is in use (choose another, or "
                     "leave --master-port out for a free one)");
  }
  // Everything the children need is built before fork: between fork and exec only execve runs.
  std::string exe = "/proc/self/exe";
  std::vector<std::string> argv_s{exe, opts.command};
  argv_s.insert(argv_s.end(), opts.args.begin(), opts.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  static const char* kOwn[] = {
      "RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT="};
  std::vector<std::string> base_env;
  for (char** e = environ; *e; ++e) {
    bool own = false;
    for (const char* k : kOwn) own = own || std::strncmp(*e, k, std::strlen(k)) == 0;
    if (!own) base_env.emplace_back(*e);
  }
  std::vector<pid_t> pids(opts.nproc, -1);
  std::vector<std::vector<std::string>> envs(opts.nproc, base_env);
  std::vector<std::vector<char*>> envps(opts.nproc);
  for (int r = 0; r < opts.nproc; ++r) {
    auto& env = envs[r];
    env.push_back("RANK=" + std::to_string(r));
    env.push_back("LOCAL_RANK=" + std::to_string(r));
    env.push_back("WORLD_SIZE=" + std::to_string(opts.nproc));
    env.push_back("MASTER_ADDR=127.0.0.1");
    env.push_back("MASTER_PORT=" + std::to_string(port));
    for (auto& s : env) envps[r].push_back(s.data());
    envps[r].push_back(nullptr);
  }
  std::cout.flush();
  std::cerr.flush();
  auto stop_all = [&](int sig) {
    for (pid_t p : pids)
      if (p > 0) ::kill(p, sig);
  };
  for (int r = 0; r < opts.nproc; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int err = errno;
      stop_all(SIGKILL);
      for (pid_t p : pids)
        if (p > 0) ::waitpid(p, nullptr, 0);
      throw std::runtime_error(std::string("fork failed: ") + std::strerror(err));
    }
    if (pid == 0) {
      ::execve(exe.c_str(), argv.data(), envps[r].data());
      _exit(127);
    }
    pids[r] = pid;
  }
  int remaining = opts.nproc;
  int failed_rank = -1;
  int failed_status = 0;
  auto reap = [&](pid_t pid, int status) {
    for (int r = 0; r < opts.nproc; ++r) {
      if (pids[r] != pid) continue;
      pids[r] = -1;
      --remaining;
      const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok && failed_rank < 0) {
        failed_rank = r;
        failed_status = status;
      }
    }
  };
  while (remaining > 0 && failed_rank < 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    reap(pid, status);
  }
  if (failed_rank >= 0 && remaining > 0) {
    // The others would notice through Gloo (a closed connection) or its timeout; do not wait.
    stop_all(SIGTERM);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(opts.grace_s);
    bool killed = false;
    while (remaining > 0) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid > 0) {
        reap(pid, status);
        continue;
      }
      if (pid < 0 && errno != EINTR) break;
      if (!killed && std::chrono::steady_clock::now() > deadline) {
        stop_all(SIGKILL);
        killed = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (failed_rank < 0) return 0;
  std::cerr << "unieval " << opts.command << ": error: rank " << failed_rank << " of " << opts.nproc
            << " " << describe_status(failed_status) << "; the other ranks were stopped\n";
  if (WIFEXITED(failed_status)) {
    const int code = WEXITSTATUS(failed_status);
    return code == 1 || code == 2 ? code : 3;
  }
  return 3;
}

}  // namespace unieval::cli
