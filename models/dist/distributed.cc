#include "models/dist/distributed.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "core/error.h"
#ifdef UNIEVAL_HAVE_C10D
#include "models/dist/dist_compat.h"
#endif

namespace unieval::models::dist {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || x < 0 || x > 1 << 30)
    throw InputError(std::string("environment variable ") + name + "='" + v +
                     "' is not a non-negative integer");
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
      throw InputError(std::string("UNIEVAL_DIST_TIMEOUT_S='") + t +
                       "' is not a positive number of seconds");
  }
  if (e.world_size < 1) throw InputError("WORLD_SIZE must be at least 1");
  if (e.rank >= e.world_size)
    throw InputError("RANK=" + std::to_string(e.rank) +
                     " is not below WORLD_SIZE=" + std::to_string(e.world_size));
  if (e.master_port < 1 || e.master_port > 65535)
    throw InputError("MASTER_PORT=" + std::to_string(e.master_port) + " is not a TCP port");
  if (e.world_size > 1)
    (void)bucket_bytes_from_env();  // refused here, before a run writes anything
  return e;
}

bool launched_as_worker() {
  const char* v = std::getenv("WORLD_SIZE");
  return v && *v;
}

#ifdef UNIEVAL_HAVE_C10D
constexpr bool kHaveGloo = compat::kHaveGloo;
constexpr bool kHaveNccl = compat::kHaveNccl;
bool have_c10d() { return true; }
#else
constexpr bool kHaveGloo = false;
constexpr bool kHaveNccl = false;
bool have_c10d() { return false; }
#endif
bool have_gloo() { return kHaveGloo; }
bool have_nccl() { return kHaveNccl; }

std::string resolve_backend(const std::string& backend, const torch::Device& device) {
  if (backend.empty()) {
    if (device.is_cuda() && kHaveNccl) return "nccl";
    if (kHaveGloo || !have_c10d()) return "gloo";  // (without c10d the group itself is the error)
    throw InputError(
        std::string("this build of unieval has no Gloo, and NCCL needs --device cuda") +
        (kHaveNccl ? "" : " and a build with NCCL"));
  }
  if (backend == "gloo") {
    if (have_c10d() && !kHaveGloo)
      throw InputError(
          "--backend gloo: this build of unieval has no Gloo (its headers were not found at "
          "configure "
          "time; use nccl)");
    return backend;
  }
  if (backend == "nccl") {
    if (!kHaveNccl)
      throw InputError("--backend nccl: this build of unieval has no NCCL (use gloo)");
    if (!device.is_cuda()) throw InputError("--backend nccl needs --device cuda");
    return backend;
  }
  throw InputError("--backend must be gloo or nccl, not '" + backend + "'");
}

#ifdef UNIEVAL_HAVE_C10D
struct ProcessGroup::Impl {
  c10::intrusive_ptr<compat::Group> pg;
};

ProcessGroup::ProcessGroup(const DistEnv& env, const std::string& backend,
                           const torch::Device& device)
    : impl_(std::make_unique<Impl>()),
      rank_(env.rank),
      size_(env.world_size),
      backend_(resolve_backend(backend, device)) {
  if (backend_ == "nccl")
    device_ = device.has_index()
                  ? device
                  : torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.local_rank));
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
    throw InputError("rank " + std::to_string(env.rank) + " cannot reach the rendezvous at " +
                     where + " within " + std::to_string(static_cast<int>(env.timeout_s)) +
                     " s: " + compat::first_line(e.what()));
  }
  try {
    impl_->pg =
        compat::make_group(store, env.rank, env.world_size, backend_, env.master_addr, timeout);
  } catch (const std::exception& e) {
    throw InputError("rank " + std::to_string(env.rank) + ": creating the " + backend_ +
                     " process group of " + std::to_string(env.world_size) + " ranks at " + where +
                     " failed: " + compat::first_line(e.what()));
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

void ProcessGroup::barrier() {
  c10d::BarrierOptions o;
  if (device_.is_cuda()) o.device_ids = {device_.index()};  // NCCL would guess rank % GPUs
  impl_->pg->barrier(o)->wait();
}

struct PendingReduce::Impl {
  c10::intrusive_ptr<c10d::Work> work;
};

PendingReduce ProcessGroup::all_reduce_sum_async(torch::Tensor& t) {
  std::vector<at::Tensor> v{t};
  c10d::AllreduceOptions o;
  o.reduceOp = c10d::ReduceOp::SUM;
  PendingReduce p;
  p.impl_ = std::make_unique<PendingReduce::Impl>();
  p.impl_->work = impl_->pg->allreduce(v, o);
  return p;
}

void PendingReduce::wait() {
  if (!impl_) return;
  impl_->work->wait();
  impl_.reset();
}
#else
struct ProcessGroup::Impl {};

ProcessGroup::ProcessGroup(const DistEnv& env, const std::string& backend,
                           const torch::Device& device)
    : rank_(env.rank), size_(env.world_size), backend_(resolve_backend(backend, device)) {
  throw InputError(
      "WORLD_SIZE=" + std::to_string(env.world_size) +
      ": this build of unieval has no c10d (LibTorch's distributed headers, or Gloo's, were not "
      "found at configure time, and NCCL was not enabled); run in one process");
}
ProcessGroup::~ProcessGroup() = default;
void ProcessGroup::all_reduce_sum(torch::Tensor&) {}
void ProcessGroup::broadcast(torch::Tensor&, int) {}
void ProcessGroup::barrier() {}
struct PendingReduce::Impl {};
PendingReduce ProcessGroup::all_reduce_sum_async(torch::Tensor&) { return {}; }
void PendingReduce::wait() { impl_.reset(); }
#endif

PendingReduce::PendingReduce() = default;
PendingReduce::~PendingReduce() = default;
PendingReduce::PendingReduce(PendingReduce&&) noexcept = default;
PendingReduce& PendingReduce::operator=(PendingReduce&&) noexcept = default;
bool PendingReduce::active() const { return impl_ != nullptr; }

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

// ---- gradient buckets ----------------------------------------------------------------------------

namespace {

// Runs a callback after a gradient accumulator has run (FunctionPostHook's call has had this
// signature from LibTorch 1.x to 2.x; utils::LambdaPostHook's constructor has not).
class ReadyHook : public torch::autograd::FunctionPostHook {
 public:
  explicit ReadyHook(std::function<void()> fn) : fn_(std::move(fn)) {}
  torch::autograd::variable_list operator()(
      const torch::autograd::variable_list& outputs,
      const torch::autograd::variable_list& /*inputs*/) override {
    fn_();
    return outputs;
  }

 private:
  std::function<void()> fn_;
};

}  // namespace

struct GradientBuckets::Bucket {
  std::vector<size_t> params;  // indices into params_
  int64_t numel = 0;
  size_t ready = 0;      // parameters whose gradient this armed backward has produced
  torch::Tensor buffer;  // float32, the bucket's gradients end to end
  PendingReduce pending;
};

GradientBuckets::GradientBuckets(ProcessGroup& group, std::vector<torch::Tensor> params,
                                 int64_t bucket_bytes)
    : group_(group),
      params_(std::move(params)),
      bucket_of_(params_.size(), 0),
      accumulator_of_(params_.size(), nullptr) {
  if (bucket_bytes < 1)
    throw std::invalid_argument("GradientBuckets: bucket_bytes must be positive");
  for (size_t k = params_.size(); k-- > 0;) {  // last first
    if (buckets_.empty() || buckets_.back().numel * 4 >= bucket_bytes) buckets_.emplace_back();
    buckets_.back().params.push_back(k);
    buckets_.back().numel += params_[k].numel();
    bucket_of_[k] = buckets_.size() - 1;
  }
  for (size_t k = 0; k < params_.size(); ++k) {
    if (!params_[k].requires_grad()) continue;  // never ready: its bucket starts in finish()
    std::shared_ptr<torch::autograd::Node> acc =
        torch::autograd::impl::grad_accumulator(params_[k]);
    if (!acc) continue;
    accumulator_of_[k] = acc.get();
    const auto key = acc->add_post_hook(std::make_unique<ReadyHook>([this, k] { on_ready(k); }));
    // Holding the accumulator keeps the hook across steps (the graph only holds it during one).
    hooks_.emplace_back(static_cast<void*>(nullptr),
                        [acc, key](void*) { acc->del_post_hook(key); });
  }
}

GradientBuckets::~GradientBuckets() {
  for (auto& b : buckets_) {
    try {
      b.pending.wait();
    } catch (...) {  // a failed collective is reported by finish(); the destructor only cleans up
    }
  }
}

size_t GradientBuckets::buckets() const { return buckets_.size(); }

void GradientBuckets::arm(const torch::Tensor& loss) {
  for (auto& b : buckets_) b.ready = 0;
  next_ = 0;
  started_early_ = 0;
  armed_ = true;
  if (!loss.defined()) return;
  // The accumulators the backward of `loss` reaches; the other parameters are ready now.
  std::unordered_set<const void*> reached;
  std::vector<torch::autograd::Node*> stack;
  if (loss.grad_fn()) stack.push_back(loss.grad_fn().get());
  while (!stack.empty()) {
    torch::autograd::Node* node = stack.back();
    stack.pop_back();
    for (const auto& edge : node->next_edges())
      if (edge.function && reached.insert(edge.function.get()).second)
        stack.push_back(edge.function.get());
  }
  for (size_t k = 0; k < params_.size(); ++k)
    if (!accumulator_of_[k] || !reached.count(accumulator_of_[k])) ++buckets_[bucket_of_[k]].ready;
  start_full_buckets();
}

void GradientBuckets::on_ready(size_t param) {
  if (!armed_) return;
  ++buckets_[bucket_of_[param]].ready;
  start_full_buckets();
}

void GradientBuckets::start_full_buckets() {
  while (next_ < buckets_.size() && buckets_[next_].ready == buckets_[next_].params.size()) {
    start(next_++);
    ++started_early_;
  }
}

void GradientBuckets::start(size_t index) {
  torch::NoGradGuard no_grad;
  Bucket& b = buckets_[index];
  std::vector<torch::Tensor> flat;
  flat.reserve(b.params.size());
  for (size_t k : b.params) {
    const torch::Tensor& p = params_[k];
    const torch::Tensor g = p.grad();
    flat.push_back(g.defined() ? g.reshape({-1}).to(torch::kFloat)
                               : torch::zeros({p.numel()}, p.options().dtype(torch::kFloat)));
  }
  b.buffer = torch::cat(flat);
  b.pending = group_.all_reduce_sum_async(b.buffer);
}

double GradientBuckets::finish() {
  const auto t0 = std::chrono::steady_clock::now();
  armed_ = false;
  while (next_ < buckets_.size()) start(next_++);
  next_ = 0;
  torch::NoGradGuard no_grad;
  for (auto& b : buckets_) {
    b.pending.wait();
    int64_t offset = 0;
    for (size_t k : b.params) {
      torch::Tensor& p = params_[k];
      const int64_t n = p.numel();
      torch::Tensor part = b.buffer.narrow(0, offset, n).view(p.sizes());
      offset += n;
      torch::Tensor g = p.grad();
      if (g.defined())
        g.copy_(part);
      else
        p.mutable_grad() = part.to(p.dtype()).clone();
    }
    b.buffer = torch::Tensor();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int64_t bucket_bytes_from_env() {
  const char* v = std::getenv("UNIEVAL_DIST_BUCKET_MB");
  if (!v || !*v) return int64_t{25} << 20;
  char* end = nullptr;
  const double mb = std::strtod(v, &end);
  if (*end != '\0' || !(mb > 0) || mb > 1e6)
    throw InputError(std::string("UNIEVAL_DIST_BUCKET_MB='") + v +
                     "' is not a positive number of MiB");
  return std::max<int64_t>(1, static_cast<int64_t>(mb * 1024 * 1024));
}

void all_reduce_sum(ProcessGroup& group, std::vector<double>& values) {
  if (values.empty()) return;
  torch::Tensor t =
      torch::tensor(values, torch::kDouble).to(group.device());  // NCCL reduces CUDA tensors only
  group.all_reduce_sum(t);
  t = t.to(torch::kCPU).contiguous();
  const double* sum = t.data_ptr<double>();
  std::copy(sum, sum + values.size(), values.begin());
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

}  // namespace

int free_port() {
  const int fd = bind_loopback(0);
  if (fd < 0)
    throw InputError(std::string("cannot bind a port of 127.0.0.1: ") + std::strerror(errno));
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

}  // namespace unieval::models::dist
