#pragma once
// The one place that knows which LibTorch we compile against. CI builds with Debian's LibTorch
// 1.13 (CPU only); the GPU machine has LibTorch 2.x with CUDA. Everything else in the project
// calls these wrappers and never tests TORCH_VERSION_* itself.
//
// | wrapper                         | LibTorch 1.13                       | LibTorch 2.x                          |
// |---------------------------------|-------------------------------------|---------------------------------------|
// | kHaveFusedSdpa                  | false                               | true                                  |
// | fused_sdpa(q,k,v,bias,p)        | throws (never called: see attention.cc) | at::scaled_dot_product_attention   |
// | set_cuda_autocast(on, dtype)    | at::autocast::set_enabled + set_autocast_gpu_dtype | 2.4+: set_autocast_enabled(kCUDA) + set_autocast_dtype(kCUDA) |
// | cuda_autocast_enabled()         | at::autocast::is_enabled()          | 2.4+: is_autocast_enabled(kCUDA)      |
// | cuda_autocast_dtype()           | at::autocast::get_autocast_gpu_dtype() | 2.4+: get_autocast_dtype(kCUDA)   |
// | set_allow_tf32(bool)            | Context float32 matmul precision + cuDNN TF32 (same API in both) |  |
//
// The `scale` argument of scaled_dot_product_attention appeared in 2.1; with 2.0 the default
// 1/√d is the one BERT uses anyway, so it is not passed.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <stdexcept>
#include <string>

#if TORCH_VERSION_MAJOR >= 2
#define UNIEVAL_TORCH_HAVE_SDPA 1
#else
#define UNIEVAL_TORCH_HAVE_SDPA 0
#endif

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define UNIEVAL_TORCH_DEVICE_AUTOCAST_API 1
#else
#define UNIEVAL_TORCH_DEVICE_AUTOCAST_API 0
#endif

namespace unieval::models::compat {

// "MAJOR.MINOR.PATCH" of the LibTorch headers we compiled against.
inline std::string torch_version() { return TORCH_VERSION; }

inline constexpr bool kHaveFusedSdpa = UNIEVAL_TORCH_HAVE_SDPA != 0;

// Fused attention softmax(q kᵀ/√d + bias) v; q [B,h,Tq,d], k/v [B,h,Tk,d], bias additive
// (broadcastable to [B,h,Tq,Tk], same dtype as q) or undefined. dropout_p applies as given (the
// caller passes 0 in eval mode).
inline torch::Tensor fused_sdpa(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, const torch::Tensor& bias,
                                double dropout_p) {
#if UNIEVAL_TORCH_HAVE_SDPA
  c10::optional<at::Tensor> mask;
  if (bias.defined()) mask = bias;
  return at::scaled_dot_product_attention(q, k, v, mask, dropout_p, /*is_causal=*/false);
#else
  (void)q, (void)k, (void)v, (void)bias, (void)dropout_p;
  throw std::logic_error("fused scaled_dot_product_attention needs LibTorch >= 2.0 (have " +
                         torch_version() + ")");
#endif
}

// Turns CUDA autocast on (with `dtype`, kHalf or kBFloat16) or off, for the calling thread.
inline void set_cuda_autocast(bool enabled, at::ScalarType dtype) {
#if UNIEVAL_TORCH_DEVICE_AUTOCAST_API
  at::autocast::set_autocast_dtype(at::kCUDA, dtype);
  at::autocast::set_autocast_enabled(at::kCUDA, enabled);
#else
  at::autocast::set_autocast_gpu_dtype(dtype);
  at::autocast::set_enabled(enabled);
#endif
}

inline bool cuda_autocast_enabled() {
#if UNIEVAL_TORCH_DEVICE_AUTOCAST_API
  return at::autocast::is_autocast_enabled(at::kCUDA);
#else
  return at::autocast::is_enabled();
#endif
}

inline at::ScalarType cuda_autocast_dtype() {
#if UNIEVAL_TORCH_DEVICE_AUTOCAST_API
  return at::autocast::get_autocast_dtype(at::kCUDA);
#else
  return at::autocast::get_autocast_gpu_dtype();
#endif
}

// Autocast caches fp16/bf16 copies of weights while enabled; the cache must be cleared when the
// outermost autocast region ends (what torch.autocast.__exit__ does).
inline void autocast_region_enter() { at::autocast::increment_nesting(); }
inline void autocast_region_exit() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
}

// TF32 for fp32 matmuls/convolutions on Ampere+ GPUs (coarser rounding; off for parity runs).
// setFloat32MatmulPrecision("highest"|"high") exists from 1.12 on and also governs cuBLAS TF32.
inline void set_allow_tf32(bool allow) {
  at::globalContext().setFloat32MatmulPrecision(allow ? "high" : "highest");
  at::globalContext().setAllowTF32CuDNN(allow);
}

}  // namespace unieval::models::compat
