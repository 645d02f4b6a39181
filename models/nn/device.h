#pragma once
// Where and in which precision the model runs: the `--device`, `--threads` and `--precision`
// flags of the LibTorch subcommands (finetune, decode, encode, demo) map onto DeviceOptions.
//
//   DeviceOptions opt{.device = "cuda", .precision = "auto"};
//   Runtime rt = configure_runtime(opt);       // InputError if CUDA is absent in this build/machine
//   model->to(rt.device);
//   { AutocastScope amp(rt); auto out = model->forward(ids.to(rt.device), ...); }
//
// | field      | default | meaning                                                                 |
// |------------|---------|-------------------------------------------------------------------------|
// | device     | "cpu"   | "cpu", "cuda" or "cuda:N"; "cuda" in a worker of a data-parallel launch  |
// |            |         | (WORLD_SIZE set) is cuda:LOCAL_RANK (models/dist/distributed.h)              |
// | threads    | 0       | CPU intra-op threads; 0 = LibTorch's default (one per core)             |
// | precision  | "auto"  | "auto" (fp32 on CPU, bf16 autocast on CUDA), "fp32", "bf16", "fp16"     |
// | allow_tf32 | false   | CUDA only: TF32 matmuls for fp32 (faster, ~1e-3 relative error)          |
// | gemm       | "libtorch" | CPU fp32 linear layers: "libtorch" or "onednn" (models/nn/gemm.h)     |
//
// Precision: parameters stay fp32 (the master weights); bf16/fp16 are autocast regions
// (AutocastScope), as torch.autocast in the Python recipes. Reduced precision is CUDA-only: on
// CPU fp32 is the only choice (bf16/fp16 there is an InputError, not a silent fallback).
//
// Threads (set_threads): LibTorch's CPU kernels run on an OpenMP pool (torch::set_num_threads).
// Debian's LibTorch 1.13 also calls OpenBLAS for matmuls, and OpenBLAS keeps its own thread pool
// (pthreads build) sized from OPENBLAS_NUM_THREADS or the core count. Two pools of N threads each
// oversubscribe the cores, so set_threads(N) also sets OpenBLAS to N when the process has
// OpenBLAS loaded (looked up at run time: openblas_set_num_threads, no link-time dependency).
// With threads 0 both keep their defaults: LibTorch's pool one thread per physical core
// (OMP_NUM_THREADS overrides), OpenBLAS's one per logical CPU (OPENBLAS_NUM_THREADS overrides).
// Neither pool is then larger than the logical CPUs, both count the calling thread, and idle
// OpenMP workers sleep under the passive wait policy below. Sizing OpenBLAS like LibTorch's
// smaller default would halve the BLAS threads where a core has two hyperthreads (this
// project's 2-vCPU VMs run with intra-op 1, OpenBLAS 2 by default).
// The OpenMP wait policy is read by libgomp at load time, so it cannot be set from here: `unieval`
// starts `unieval-model` with OMP_WAIT_POLICY=PASSIVE unless the user set it (apps/unieval/main.cc;
// spinning OpenMP workers took the cores the BLAS threads needed: #24). Runtime::describe()
// records intra-op and OpenBLAS threads and the wait policy in every run's provenance.
#include <torch/torch.h>

#include <string>

namespace unieval::models {

enum class Precision { kAuto, kFloat32, kBFloat16, kFloat16 };

// "auto" | "fp32"/"float32" | "bf16"/"bfloat16" | "fp16"/"float16"/"half"; InputError otherwise.
Precision parse_precision(const std::string& name);
std::string to_string(Precision p);

struct DeviceOptions {
  std::string device = "cpu";      // cpu | cuda | cuda:N
  int threads = 0;                 // CPU threads; 0 = default
  std::string precision = "auto";  // auto | fp32 | bf16 | fp16
  bool allow_tf32 = false;         // CUDA fp32 matmuls in TF32
  std::string gemm = "libtorch";   // libtorch | onednn (CPU only; models/nn/gemm.h)
};

// Parses "cpu", "cuda" (cuda:LOCAL_RANK in a launched worker), "cuda:N". InputError for anything else, and for CUDA when this LibTorch
// has no CUDA or no GPU is visible ("--device cuda: CUDA is not available (...)").
torch::Device parse_device(const std::string& spec);

// True when this LibTorch build can run on a GPU right now.
bool cuda_available();

// kAuto → fp32 on CPU, bf16 on CUDA. Reduced precision on CPU → InputError.
Precision resolve_precision(Precision requested, const torch::Device& device);

// The device of a module's parameters (CPU for a module without parameters).
torch::Device device_of(const torch::nn::Module& module);

// Sets LibTorch's intra-op threads (and OpenBLAS's, when loaded) to n >= 1; InputError if n < 0;
// 0 leaves the defaults.
void set_threads(int n);
// OpenBLAS's pool size (0 when OpenBLAS is not loaded).
int blas_threads();

struct Runtime {
  torch::Device device = torch::kCPU;
  Precision precision = Precision::kFloat32;  // never kAuto
  int threads = 0;                            // as requested (0 = default)
  // The autocast dtype (kBFloat16 / kHalf) or kFloat for fp32.
  torch::ScalarType compute_dtype() const;
  // "cpu fp32 (threads 2, LibTorch 1.13.0, attention explicit, intra-op 2, OpenBLAS 2,
  // OMP_WAIT_POLICY PASSIVE)" for logs and result provenance (the last three on CPU only;
  // ", GEMM oneDNN" follows them when --gemm onednn is in force).
  std::string describe() const;
};

// Validates and applies DeviceOptions (threads, TF32, GEMM path). InputError on bad values.
Runtime configure_runtime(const DeviceOptions& options);

// RAII: CUDA autocast in rt.compute_dtype() for the calling thread while alive; no-op for fp32.
// Restores the previous autocast state on exit and clears the autocast weight cache when the
// outermost scope ends.
class AutocastScope {
 public:
  explicit AutocastScope(const Runtime& rt);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  bool prev_enabled_ = false;
  torch::ScalarType prev_dtype_ = torch::kHalf;
};

}  // namespace unieval::models
