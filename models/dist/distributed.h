#pragma once
// Data parallelism on torch.distributed's c10d (Gloo on CPU, NCCL on CUDA when built with it):
// the process group of a run, the gradient all-reduce of the training loop, and the local
// launcher behind `--nproc N`.
//
// A worker learns its place from the environment variables torchrun, Slurm wrappers and
// Kubernetes operators set:
//
// | variable    | default   | meaning                                                        |
// |-------------|-----------|----------------------------------------------------------------|
// | WORLD_SIZE  | 1         | number of processes; unset or 1: no process group at all       |
// | RANK        | 0         | this process, 0 … WORLD_SIZE-1; rank 0 hosts the TCPStore      |
// | LOCAL_RANK  | RANK      | index on this machine (selects cuda:LOCAL_RANK with --device cuda) |
// | MASTER_ADDR | 127.0.0.1 | address of rank 0's TCPStore (the rendezvous)                  |
// | MASTER_PORT | 29500     | its port                                                       |
// | UNIEVAL_DIST_TIMEOUT_S | 1800 | rendezvous and collective timeout in seconds           |
// | UNIEVAL_DIST_BUCKET_MB | 25   | gradient all-reduce bucket size (GradientBuckets)       |
// | GLOO_SOCKET_IFNAME | | network interface for Gloo (default: loopback when MASTER_ADDR is local) |
//
//   dist::ProcessGroup* g = dist::init_from_env("", device);   // null when WORLD_SIZE is 1
//   GradientBuckets b(*g, params, bucket_bytes_from_env());       // the gradient sums (below)
//
// The group is the process's default group, as in torch.distributed: pipelines create it once
// (init_from_env), the training loop and the trainers ask for it (default_group()). World size 1
// creates nothing, so a one-process run is exactly what it was before this file existed.
//
// Equivalence (models/training/train_loop.h, models/training/trainer.h): the micro-batches of an optimizer step are
// a function of (seed, step) only; rank r computes micro-batches j ≡ r (mod N), each weighted by
// its share of the step's global token count; the gradients are summed (all-reduce SUM). So N
// ranks reproduce one rank with the same --accum up to floating-point summation order, and a run
// can be resumed with any N.
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace unieval::models::dist {

// The launch environment (table above).
struct DistEnv {
  int rank = 0;                           // RANK
  int world_size = 1;                     // WORLD_SIZE
  int local_rank = 0;                     // LOCAL_RANK
  std::string master_addr = "127.0.0.1";  // MASTER_ADDR
  int master_port = 29500;                // MASTER_PORT
  double timeout_s = 1800;                // UNIEVAL_DIST_TIMEOUT_S
};
// Reads the variables; InputError naming the variable when one is malformed.
DistEnv env_from_environment();
// True when WORLD_SIZE is set in the environment (the process is one worker of a launch).
bool launched_as_worker();
// True when this build has c10d with at least one backend (else a process group is an InputError).
bool have_c10d();
bool have_gloo();  // process groups may use Gloo (CPU tensors)
bool have_nccl();  // process groups may use NCCL (CUDA tensors; -DUNIEVAL_C10D_NCCL=ON)

// An all-reduce in flight (ProcessGroup::all_reduce_sum_async); wait() completes it in place.
class PendingReduce {
 public:
  PendingReduce();
  ~PendingReduce();
  PendingReduce(PendingReduce&&) noexcept;
  PendingReduce& operator=(PendingReduce&&) noexcept;
  bool active() const;
  void wait();  // no-op when not active

 private:
  friend class ProcessGroup;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One c10d process group. All calls are collective: every rank must make them in the same order.
class ProcessGroup {
 public:
  ProcessGroup(const DistEnv& env, const std::string& backend, const torch::Device& device);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& backend() const { return backend_; }
  // Where the group's collectives run: CUDA for NCCL (tensors must live there), else the CPU.
  const torch::Device& device() const { return device_; }

  void all_reduce_sum(torch::Tensor& t);                 // in place
  PendingReduce all_reduce_sum_async(torch::Tensor& t);  // in place once waited for
  void broadcast(torch::Tensor& t, int root);            // in place
  void barrier();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0;
  int size_ = 1;
  std::string backend_;
  torch::Device device_ = torch::kCPU;
};

// "gloo" | "nccl" | "" (auto: nccl on CUDA when the build has it, else gloo); InputError for others.
std::string resolve_backend(const std::string& backend, const torch::Device& device);

// Creates the default group from the environment (once; later calls return it). Null when the
// world size is 1. InputError when the rendezvous fails (port in use, rank 0 unreachable).
ProcessGroup* init_from_env(const std::string& backend, const torch::Device& device);
// The default group, or null.
ProcessGroup* default_group();
int rank();        // of the default group; 0 without one
int world_size();  // 1 without one

// The gradient all-reduce of the training loop, in buckets that overlap the backward pass (the
// scheme of torch's DistributedDataParallel). The parameters are grouped, last first (the order in
// which backward produces their gradients), into buckets of about `bucket_bytes` of float32. While
// armed, a post-hook on each parameter's gradient accumulator counts it ready; a bucket whose
// parameters are all ready is all-reduced asynchronously once every bucket before it has been
// started. arm(loss) first walks the loss's graph: a parameter it cannot reach (a head this
// step does not use) is ready at once, as with DDP's find_unused_parameters. finish() starts the buckets still waiting (a parameter this backward did not reach: its
// gradient counts as zeros and is defined afterwards), waits for all of them and writes the sums
// back into the gradients. Every rank starts the buckets in the same order, whatever the timing, so
// the collectives always match; the sums are element for element those of one flat all-reduce.
//
//   GradientBuckets b(group, optimizer.params(), bucket_bytes_from_env());
//   ... micro-batches ...;  b.arm(last_loss);  last_loss.backward();   // overlaps
//   double waited_s = b.finish();
class GradientBuckets {
 public:
  GradientBuckets(ProcessGroup& group, std::vector<torch::Tensor> params, int64_t bucket_bytes);
  ~GradientBuckets();  // removes the hooks
  GradientBuckets(const GradientBuckets&) = delete;
  GradientBuckets& operator=(const GradientBuckets&) = delete;

  // The next backward (of `loss`) completes this rank's gradients of the step: start buckets as
  // they fill. An undefined loss: no graph walk (every parameter waits for its hook).
  void arm(const torch::Tensor& loss = {});
  // Starts the rest, waits, writes the sums into the gradients; disarms. Returns the seconds spent
  // here (the all-reduce time that did not overlap the backward).
  double finish();
  size_t buckets() const;
  // The buckets started during the backward since the last finish() (the others start in finish()).
  size_t started_early() const { return started_early_; }

 private:
  struct Bucket;
  void on_ready(size_t param);
  void start_full_buckets();  // in order, while the next one is full
  void start(size_t bucket);
  ProcessGroup& group_;
  std::vector<torch::Tensor> params_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;             // param → bucket
  std::vector<const void*> accumulator_of_;   // param → its gradient accumulator (null: none)
  std::vector<std::shared_ptr<void>> hooks_;  // removes a hook when released
  bool armed_ = false;
  size_t next_ = 0;  // the next bucket to start
  size_t started_early_ = 0;
};
// UNIEVAL_DIST_BUCKET_MB (default 25, torch DDP's bucket_cap_mb) in bytes; InputError when it is
// not a positive number.
int64_t bucket_bytes_from_env();
// Sums the values over the ranks (float64).
void all_reduce_sum(ProcessGroup& group, std::vector<double>& values);
// Copies rank `root`'s parameters to every rank.
void broadcast_parameters(ProcessGroup& group, torch::nn::Module& model, int root = 0);

// ---- ports for a local launch (`--nproc N`, apps/unieval/torch/launch_local.h) -----------

// A free TCP port of 127.0.0.1 (bound and released).
int free_port();
// True when `port` of 127.0.0.1 can be bound now.
bool port_available(int port);

}  // namespace unieval::models::dist
