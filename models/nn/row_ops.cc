#include "models/nn/row_ops.h"

#include <ATen/Parallel.h>

#include <limits>

namespace unieval::models {

namespace {

bool cpu_float(const torch::Tensor& x) {
  return x.defined() && x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.numel() > 0;
}

// LibTorch 1.13 (aten/src/ATen/native/cpu/SoftMaxKernel.cpp) parallelises the last-dimension
// kernel over chunks of this many rows; fewer run on the calling thread.
constexpr int64_t kLogSoftmaxSerialRows = 256;

}  // namespace

torch::Tensor log_softmax_last_dim(const torch::Tensor& x) {
  if (!cpu_float(x) || x.dim() < 1 || (x.requires_grad() && torch::GradMode::is_enabled()) ||
      at::get_num_threads() < 2)
    return torch::log_softmax(x, -1);
  const torch::Tensor xc = x.contiguous();
  const int64_t V = xc.size(-1), R = xc.numel() / V;
  if (R < 2 || R >= kLogSoftmaxSerialRows) return torch::log_softmax(xc, -1);
  const torch::Tensor x2 = xc.view({R, V});
  torch::Tensor out = torch::empty_like(x2);
  at::parallel_for(0, R, 1, [&](int64_t begin, int64_t end) {
    torch::Tensor block = out.narrow(0, begin, end - begin);
    at::_log_softmax_out(block, x2.narrow(0, begin, end - begin), 1, /*half_to_float=*/false);
  });
  return out.view(xc.sizes());
}

torch::Tensor nan_to_neg_inf(const torch::Tensor& x) {
  const double inf = std::numeric_limits<double>::infinity();
  if (!cpu_float(x)) return torch::nan_to_num(x, -inf, inf, -inf);
  const torch::Tensor xc = x.contiguous();
  torch::Tensor out = torch::empty_like(xc, torch::MemoryFormat::Contiguous);
  const float* src = xc.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const float neg_inf = -std::numeric_limits<float>::infinity();
  at::parallel_for(0, xc.numel(), int64_t{1} << 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = src[i] != src[i] ? neg_inf : src[i];
  });
  return out;
}

}  // namespace unieval::models
