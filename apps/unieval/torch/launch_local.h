#pragma once
// `--nproc N` of the LibTorch subcommands (finetune, decode, run): starts N copies of this
// executable as the ranks of one process group on this machine and waits for them.
//
//   LaunchOptions o;  o.nproc = 2;  o.command = "finetune";  o.args = {"--data", "d", ...};
//   return launch_local(o);  // 0 when every rank succeeded
#include <string>
#include <vector>

namespace unieval::cli {

struct LaunchOptions {
  int nproc = 1;        // workers to start
  int master_port = 0;  // 0: a free port of 127.0.0.1
  std::string command;  // the unieval-model command the workers run ("finetune", "decode")
  std::vector<std::string>
      args;               // its arguments (unchanged: workers see WORLD_SIZE and do not launch)
  double grace_s = 10.0;  // after a worker fails: SIGTERM to the others, SIGKILL after this
};

// Starts nproc copies of this executable (/proc/self/exe COMMAND ARGS...) with RANK, LOCAL_RANK,
// WORLD_SIZE, MASTER_ADDR=127.0.0.1 and MASTER_PORT set, waits for all of them and returns 0 when
// all succeeded. When one fails, the others are stopped (SIGTERM, then SIGKILL after grace_s), a
// line naming the rank and how it ended goes to stderr, and its exit status is returned (3 for a
// signal). InputError when the given port is in use.
int launch_local(const LaunchOptions& opts);

}  // namespace unieval::cli
