#include "models/distributed.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "core/error.h"
#ifdef UNIEVAL_HAVE_C10D
#include "models/dist_compat.h"
#endif

extern char** environ;

namespace unieval::models::dist {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || x < 0 || x > 1 << 30)
    throw InputError(std::string("environment variable ") + name + "='" + v + "' is not a non-negative integer");
  return static_cast<int>(x);
}

std::unique_ptr<ProcessGroup>& default_slot() {
  static std::unique_ptr<ProcessGroup> group;
  return group;
}

}  // namespace

DistEnv env_from_environment() {
  DistEnv e;
  e.world_size = env_int("WORLD_SIZE", 1);
  e.rank = env_int("RANK", 0);
  e.local_rank = env_int("LOCAL_RANK", e.rank);
  if (const char* a = std::getenv("MASTER_ADDR"); a && *a) e.master_addr = a;
  e.master_port = env_int("MASTER_PORT", e.master_port);
  if (const char* t = std::getenv("UNIEVAL_DIST_TIMEOUT_S"); t && *t) {
    char* end = nullptr;
    e.timeout_s = std::strtod(t, &end);
    if (*end != '\0' || !(e.timeout_s > 0))
      throw InputError(std::string("UNIEVAL_DIST_TIMEOUT_S='") + t + "' is not a positive number of seconds");
  }
  if (e.world_size < 1) throw InputError("WORLD_SIZE must be at least 1");
  if (e.rank >= e.world_size)
    throw InputError("RANK=" + std::to_string(e.rank) + " is not below WORLD_SIZE=" + std::to_string(e.world_size));
  if (e.master_port < 1 || e.master_port > 65535)
    throw InputError("MASTER_PORT=" + std::to_string(e.master_port) + " is not a TCP port");
  return e;
}

bool launched_as_worker() {
  const char* v = std::getenv("WORLD_SIZE");
  return v && *v;
}

#ifdef UNIEVAL_HAVE_C10D
constexpr bool kHaveNccl = compat::kHaveNccl;
#else
constexpr bool kHaveNccl = false;
#endif

std::string resolve_backend(const std::string& backend, const torch::Device& device) {
  if (backend.empty()) return device.is_cuda() && kHaveNccl ? "nccl" : "gloo";
  if (backend == "gloo") return backend;
  if (backend == "nccl") {
    if (!kHaveNccl) throw InputError("--backend nccl: this build of unieval has no NCCL (use gloo)");
    if (!device.is_cuda()) throw InputError("--backend nccl needs --device cuda");
    return backend;
  }
  throw InputError("--backend must be gloo or nccl, not '" + backend + "'");
}

#ifdef UNIEVAL_HAVE_C10D
struct ProcessGroup::Impl {
  c10::intrusive_ptr<compat::Group> pg;
};

ProcessGroup::ProcessGroup(const DistEnv& env, const std::string& backend, const torch::Device& device)
    : impl_(std::make_unique<Impl>()), rank_(env.rank), size_(env.world_size), backend_(resolve_backend(backend, device)) {
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(env.timeout_s * 1000));
  const std::string where = env.master_addr + ":" + std::to_string(env.master_port);
  c10::intrusive_ptr<c10d::Store> store;
  try {
    c10d::TCPStoreOptions o;
    o.port = static_cast<uint16_t>(env.master_port);
    o.isServer = env.rank == 0;
    o.numWorkers = env.world_size;
    o.waitWorkers = false;
    o.timeout = timeout;
    store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, o);
  } catch (const std::exception& e) {
    if (env.rank == 0)
      throw InputError("rank 0 cannot listen on MASTER_ADDR:MASTER_PORT = " + where +
                       " (is the port in use? choose another with --master-port or MASTER_PORT): " +
                       compat::first_line(e.what()));
    throw InputError("rank " + std::to_string(env.rank) + " cannot reach the rendezvous at " + where + " within " +
                     std::to_string(static_cast<int>(env.timeout_s)) + " s: " + compat::first_line(e.what()));
  }
  try {
    impl_->pg = compat::make_group(store, env.rank, env.world_size, backend_, env.master_addr, timeout);
  } catch (const std::exception& e) {
    throw InputError("rank " + std::to_string(env.rank) + ": creating the " + backend_ + " process group of " +
                     std::to_string(env.world_size) + " ranks at " + where + " failed: " + compat::first_line(e.what()));
  }
}

ProcessGroup::~ProcessGroup() = default;

void ProcessGroup::all_reduce_sum(torch::Tensor& t) {
  std::vector<at::Tensor> v{t};
  c10d::AllreduceOptions o;
  o.reduceOp = c10d::ReduceOp::SUM;
  impl_->pg->allreduce(v, o)->wait();
}

void ProcessGroup::broadcast(torch::Tensor& t, int root) {
  std::vector<at::Tensor> v{t};
  c10d::BroadcastOptions o;
  o.rootRank = root;
  impl_->pg->broadcast(v, o)->wait();
}

void ProcessGroup::barrier() { impl_->pg->barrier()->wait(); }
#else
struct ProcessGroup::Impl {};

ProcessGroup::ProcessGroup(const DistEnv& env, const std::string& backend, const torch::Device& device)
    : rank_(env.rank), size_(env.world_size), backend_(resolve_backend(backend, device)) {
  throw InputError("WORLD_SIZE=" + std::to_string(env.world_size) +
                   ": this build of unieval has no c10d/Gloo (LibTorch's distributed or Gloo's headers were not "
                   "found at configure time); run in one process");
}
ProcessGroup::~ProcessGroup() = default;
void ProcessGroup::all_reduce_sum(torch::Tensor&) {}
void ProcessGroup::broadcast(torch::Tensor&, int) {}
void ProcessGroup::barrier() {}
#endif

ProcessGroup* init_from_env(const std::string& backend, const torch::Device& device) {
  auto& slot = default_slot();
  if (slot) return slot.get();
  const DistEnv env = env_from_environment();
  if (env.world_size == 1) return nullptr;
  slot = std::make_unique<ProcessGroup>(env, backend, device);
  return slot.get();
}

ProcessGroup* default_group() { return default_slot().get(); }
int rank() { return default_group() ? default_group()->rank() : 0; }
int world_size() { return default_group() ? default_group()->size() : 1; }

double all_reduce_gradients(ProcessGroup& group, const std::vector<torch::Tensor>& params) {
  if (params.empty()) return 0.0;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat;
  flat.reserve(params.size());
  for (const auto& p : params) {
    const torch::Tensor g = p.grad();
    flat.push_back(g.defined() ? g.reshape({-1}).to(torch::kFloat) : torch::zeros({p.numel()}, p.options().dtype(torch::kFloat)));
  }
  torch::Tensor buffer = torch::cat(flat);
  const auto t0 = std::chrono::steady_clock::now();
  group.all_reduce_sum(buffer);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t offset = 0;
  for (const auto& p : params) {
    const int64_t n = p.numel();
    torch::Tensor part = buffer.narrow(0, offset, n).view(p.sizes());
    offset += n;
    torch::Tensor g = p.grad();
    if (g.defined()) g.copy_(part);
    else p.mutable_grad() = part.to(p.dtype()).clone();
  }
  return seconds;
}

void all_reduce_sum(ProcessGroup& group, std::vector<double>& values) {
  if (values.empty()) return;
  torch::Tensor t = torch::tensor(values, torch::kDouble);
  group.all_reduce_sum(t);
  for (size_t i = 0; i < values.size(); ++i) values[i] = t[static_cast<int64_t>(i)].item<double>();
}

void broadcast_parameters(ProcessGroup& group, torch::nn::Module& model, int root) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params = model.parameters();
  if (params.empty()) return;
  std::vector<torch::Tensor> flat;
  for (const auto& p : params) flat.push_back(p.detach().reshape({-1}).to(torch::kFloat));
  torch::Tensor buffer = torch::cat(flat);
  group.broadcast(buffer, root);
  int64_t offset = 0;
  for (auto& p : params) {
    const int64_t n = p.numel();
    p.copy_(buffer.narrow(0, offset, n).view(p.sizes()));
    offset += n;
  }
}

// ---- local launch ------------------------------------------------------------------------------

namespace {

int bind_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
  }
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

int free_port() {
  const int fd = bind_loopback(0);
  if (fd < 0) throw InputError(std::string("cannot bind a port of 127.0.0.1: ") + std::strerror(errno));
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

bool port_available(int port) {
  const int fd = bind_loopback(port);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

int launch_local(const LaunchOptions& opts) {
  if (opts.nproc < 1) throw InputError("--nproc must be at least 1");
  if (opts.master_port < 0 || opts.master_port > 65535)
    throw InputError("--master-port " + std::to_string(opts.master_port) + " is not a TCP port");
  int port = opts.master_port;
  if (port == 0) {
    port = free_port();
  } else if (!port_available(port)) {
    throw InputError("--master-port " + std::to_string(port) + ": the port of 127.0.0.1 is in use (choose another, or "
                     "leave --master-port out for a free one)");
  }
  // Everything the children need is built before fork: between fork and exec only execve runs.
  std::string exe = "/proc/self/exe";
  std::vector<std::string> argv_s{exe, opts.command};
  argv_s.insert(argv_s.end(), opts.args.begin(), opts.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  static const char* kOwn[] = {"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT="};
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
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opts.grace_s);
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
  std::cerr << "unieval " << opts.command << ": error: rank " << failed_rank << " of " << opts.nproc << " "
            << describe_status(failed_status) << "; the other ranks were stopped\n";
  if (WIFEXITED(failed_status)) {
    const int code = WEXITSTATUS(failed_status);
    return code == 1 || code == 2 ? code : 3;
  }
  return 3;
}

}  // namespace unieval::models::dist
