// Follows PyTorch (BSD-3-Clause) dropout semantics and Random123's Philox4x32-10 (BSD-3-Clause); no
// code copied; see THIRD_PARTY_NOTICES.md.
#include "models/nn/dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <mutex>

namespace unieval::models {

namespace {

// Random123 philox.h constants: the round multipliers and the Weyl key increments.
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;

inline void philox_rounds(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kPhiloxW0;
      k1 += kPhiloxW1;
    }
    const uint64_t p0 = uint64_t{kPhiloxM0} * c[0];
    const uint64_t p1 = uint64_t{kPhiloxM1} * c[2];
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1;
    c[1] = static_cast<uint32_t>(p1);
    c[3] = static_cast<uint32_t>(p0);
    c[0] = n0;
    c[2] = n2;
  }
}

// Elements per parallel chunk: enough work (≈ 30 µs) to amortise a task hand-off.
constexpr int64_t kDropoutGrain = 1 << 15;

template <typename T>
void dropout_forward_cpu(const T* x, T* y, bool* keep, int64_t n, uint64_t key, uint64_t threshold,
                         T scale) {
  const int64_t blocks = (n + 3) / 4;  // Philox block b covers elements 4b .. 4b+3
  at::parallel_for(0, blocks, kDropoutGrain / 4, [&](int64_t b0, int64_t b1) {
    const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
    for (int64_t b = b0; b < b1; ++b) {
      uint32_t r[4] = {static_cast<uint32_t>(b),
                       static_cast<uint32_t>(static_cast<uint64_t>(b) >> 32), 0, 0};
      philox_rounds(r, k0, k1);
      const int64_t base = 4 * b;
      const int m = static_cast<int>(std::min<int64_t>(4, n - base));
      for (int j = 0; j < m; ++j) {
        const bool kept = r[j] < threshold;
        keep[base + j] = kept;
        y[base + j] = x[base + j] * (kept ? scale : T(0));  // torch: input * noise (NaN stays NaN)
      }
    }
  });
}

template <typename T>
void dropout_backward_cpu(const T* gy, const bool* keep, T* gx, int64_t n, T scale) {
  at::parallel_for(0, n, kDropoutGrain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) gx[i] = gy[i] * (keep[i] ? scale : T(0));
  });
}

uint64_t draw_key() {
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get<at::CPUGeneratorImpl>()->random64();
}

class PhiloxDropout : public torch::autograd::Function<PhiloxDropout> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               double p) {
    const torch::Tensor x = input.contiguous();
    torch::Tensor y = torch::empty_like(x, torch::MemoryFormat::Contiguous);
    torch::Tensor keep = torch::empty(x.sizes(), x.options().dtype(torch::kBool));
    const uint64_t key = draw_key();
    // Keep an element when its 32-bit word is below (1 − p)·2³².
    const auto threshold = static_cast<uint64_t>((1.0 - p) * 4294967296.0);
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "philox_dropout", [&] {
      const scalar_t scale = scalar_t(1) / static_cast<scalar_t>(1.0 - p);
      dropout_forward_cpu<scalar_t>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
                                    keep.data_ptr<bool>(), x.numel(), key, threshold, scale);
    });
    ctx->save_for_backward({keep});
    ctx->saved_data["p"] = p;
    return y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const torch::Tensor keep = ctx->get_saved_variables().at(0);
    const double p = ctx->saved_data["p"].toDouble();
    const torch::Tensor gy = grads.at(0).contiguous();
    torch::Tensor gx = torch::empty_like(gy, torch::MemoryFormat::Contiguous);
    AT_DISPATCH_FLOATING_TYPES(gy.scalar_type(), "philox_dropout_backward", [&] {
      const scalar_t scale = scalar_t(1) / static_cast<scalar_t>(1.0 - p);
      dropout_backward_cpu<scalar_t>(gy.data_ptr<scalar_t>(), keep.data_ptr<bool>(),
                                     gx.data_ptr<scalar_t>(), gy.numel(), scale);
    });
    return {gx, torch::Tensor()};
  }
};

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                      std::array<uint32_t, 2> key) {
  philox_rounds(counter.data(), key[0], key[1]);
  return counter;
}

torch::Tensor apply_dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p <= 0.0) return x;
  const bool cpu_float = x.device().is_cpu() &&
                         (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kDouble);
  if (!cpu_float || p >= 1.0 || x.numel() == 0) return torch::dropout(x, p, /*train=*/true);
  return PhiloxDropout::apply(x, p);
}

DropoutImpl::DropoutImpl(double p) : p_(p) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "dropout probability must be in [0, 1], got ", p);
}

torch::Tensor DropoutImpl::forward(const torch::Tensor& x) {
  return apply_dropout(x, p_, is_training());
}

}  // namespace unieval::models
