#include "models/nn/device.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>

#include "core/error.h"
#include "models/dist/distributed.h"
#include "models/nn/attention.h"
#include "models/nn/gemm.h"
#include "models/nn/torch_compat.h"

namespace unieval::models {

Precision parse_precision(const std::string& name) {
  if (name == "auto") return Precision::kAuto;
  if (name == "fp32" || name == "float32") return Precision::kFloat32;
  if (name == "bf16" || name == "bfloat16") return Precision::kBFloat16;
  if (name == "fp16" || name == "float16" || name == "half") return Precision::kFloat16;
  throw InputError("--precision: unknown value '" + name + "' (expected auto, fp32, bf16 or fp16)");
}

std::string to_string(Precision p) {
  switch (p) {
    case Precision::kAuto:
      return "auto";
    case Precision::kFloat32:
      return "fp32";
    case Precision::kBFloat16:
      return "bf16";
    case Precision::kFloat16:
      return "fp16";
  }
  return "fp32";
}

bool cuda_available() { return torch::cuda::is_available(); }

torch::Device parse_device(const std::string& spec) {
  if (spec == "cpu") return torch::Device(torch::kCPU);
  int index = -1;
  if (spec == "cuda") {
    // One worker of a data-parallel launch takes its own GPU (models/dist/distributed.h).
    index = dist::launched_as_worker() ? dist::env_from_environment().local_rank : 0;
  } else if (spec.rfind("cuda:", 0) == 0 && spec.size() > 5) {
    index = 0;
    for (size_t i = 5; i < spec.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(spec[i])) || index > 1000) {
        throw InputError("--device: unknown device '" + spec + "' (expected cpu, cuda or cuda:N)");
      }
      index = index * 10 + (spec[i] - '0');
    }
  } else {
    throw InputError("--device: unknown device '" + spec + "' (expected cpu, cuda or cuda:N)");
  }
  if (!cuda_available()) {
    throw InputError("--device " + spec + ": CUDA is not available (this LibTorch " +
                     compat::torch_version() +
                     " build has no CUDA support or no GPU is visible); use --device cpu");
  }
  const auto count = static_cast<int>(torch::cuda::device_count());
  if (index >= count) {
    throw InputError("--device " + spec + ": only " + std::to_string(count) +
                     " CUDA device(s) visible");
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

Precision resolve_precision(Precision requested, const torch::Device& device) {
  if (device.is_cpu()) {
    if (requested == Precision::kBFloat16 || requested == Precision::kFloat16) {
      throw InputError("--precision " + to_string(requested) +
                       " needs --device cuda; on CPU only fp32 is supported");
    }
    return Precision::kFloat32;
  }
  return requested == Precision::kAuto ? Precision::kBFloat16 : requested;
}

namespace {

// OpenBLAS's thread-count functions, resolved at run time (see the header); null in MKL builds.
using SetFn = void (*)(int);
using GetFn = int (*)();
SetFn openblas_set() {
  return reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
}
GetFn openblas_get() {
  return reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
}

}  // namespace

void set_threads(int n) {
  if (n < 0) throw InputError("--threads must be >= 0, got " + std::to_string(n));
  if (n == 0) return;  // the defaults: see the header
  torch::set_num_threads(n);
  if (SetFn fn = openblas_set()) fn(n);
}

int blas_threads() {
  GetFn fn = openblas_get();
  return fn ? fn() : 0;
}

torch::ScalarType Runtime::compute_dtype() const {
  switch (precision) {
    case Precision::kBFloat16:
      return torch::kBFloat16;
    case Precision::kFloat16:
      return torch::kHalf;
    default:
      return torch::kFloat;
  }
}

std::string Runtime::describe() const {
  std::string s = device.str() + " " + to_string(precision);
  s += " (threads " + (threads > 0 ? std::to_string(threads) : std::string("default")) +
       ", LibTorch " + compat::torch_version() + ", attention " + attention_path_name();
  if (device.is_cpu()) {
    // The thread set-up that decides CPU speed (#24), recorded with every run.
    s += ", intra-op " + std::to_string(torch::get_num_threads());
    if (const int b = blas_threads(); b > 0) s += ", OpenBLAS " + std::to_string(b);
    const char* policy = std::getenv("OMP_WAIT_POLICY");
    s += std::string(", OMP_WAIT_POLICY ") + (policy && *policy ? policy : "unset");
    if (gemm_path() == GemmPath::kOneDnn) s += ", GEMM oneDNN";
  }
  s += ")";
  return s;
}

Runtime configure_runtime(const DeviceOptions& options) {
  Runtime rt;
  rt.device = parse_device(options.device);
  rt.precision = resolve_precision(parse_precision(options.precision), rt.device);
  const GemmPath gemm = parse_gemm_path(options.gemm);
  if (gemm == GemmPath::kOneDnn && !rt.device.is_cpu())
    throw InputError("--gemm onednn runs on the CPU; --device " + options.device +
                     " computes its products in LibTorch (use --gemm libtorch)");
  set_gemm_path(gemm);
  set_threads(options.threads);
  rt.threads = options.threads;
  if (rt.device.is_cuda()) compat::set_allow_tf32(options.allow_tf32);
  return rt;
}

AutocastScope::AutocastScope(const Runtime& rt) {
  if (!rt.device.is_cuda() || rt.precision == Precision::kFloat32) return;
  active_ = true;
  prev_enabled_ = compat::cuda_autocast_enabled();
  prev_dtype_ = compat::cuda_autocast_dtype();
  compat::autocast_region_enter();
  compat::set_cuda_autocast(true, rt.compute_dtype());
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  compat::set_cuda_autocast(prev_enabled_, prev_dtype_);
  compat::autocast_region_exit();
}

torch::Device device_of(const torch::nn::Module& module) {
  for (const auto& p : module.parameters()) return p.device();
  return torch::Device(torch::kCPU);
}

}  // namespace unieval::models
