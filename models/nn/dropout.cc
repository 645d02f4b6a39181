// Follows PyTorch (BSD-3-Clause) dropout semantics and Random123's Philox4x32-10 (BSD-3-Clause); no
// code copied; see THIRD_PARTY_NOTICES.md.
#include "models/nn/dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <mutex>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define UNIEVAL_PHILOX_AVX2 1
#endif

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

// ---- eight Philox blocks at once ----
// The scalar rounds and element loops were 11% of a 4 x 256 pre-training step on one core (perf,
// session 41). With AVX2 the rounds run on eight counters side by side, each 32 x 32 -> 64-bit
// product split into its high and low words as the scalar code does, so every word is
// bit-identical to philox4x32_10; float masks and values are formed eight at a time with the
// scalar code's arithmetic (x · scale or x · 0, so a dropped NaN stays NaN). The masks are checked
// against philox4x32_10 in tests/models/dropout_test.cc.
constexpr int64_t kPhiloxLanes = 8;

#ifdef UNIEVAL_PHILOX_AVX2
bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// The high and low words of m · c for each 32-bit lane: _mm256_mul_epu32 multiplies the even
// lanes; the odd lanes, shifted down, make the second product.
__attribute__((target("avx2"))) inline void mul_hi_lo(__m256i m, __m256i c, __m256i* hi_words,
                                                      __m256i* lo_words) {
  const __m256i even = _mm256_mul_epu32(m, c);
  const __m256i odd = _mm256_mul_epu32(m, _mm256_srli_epi64(c, 32));
  *hi_words = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  *lo_words = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// The 32 words of blocks first .. first+7 in element order: out[k] holds the words of elements
// 4·first + 8k .. 4·first + 8k + 7 (block first + 2k, then first + 2k + 1).
__attribute__((target("avx2"))) inline void philox_words_x8(uint64_t first, uint32_t k0,
                                                            uint32_t k1, __m256i out[4]) {
  alignas(32) uint32_t lo[kPhiloxLanes], hi[kPhiloxLanes];
  for (int l = 0; l < kPhiloxLanes; ++l) {
    const uint64_t b = first + static_cast<uint64_t>(l);
    lo[l] = static_cast<uint32_t>(b);
    hi[l] = static_cast<uint32_t>(b >> 32);
  }
  __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
  __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
  __m256i c2 = _mm256_setzero_si256(), c3 = _mm256_setzero_si256();
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kPhiloxM0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(kPhiloxM1));
  const __m256i w0 = _mm256_set1_epi32(static_cast<int>(kPhiloxW0));
  const __m256i w1 = _mm256_set1_epi32(static_cast<int>(kPhiloxW1));
  __m256i key0 = _mm256_set1_epi32(static_cast<int>(k0));
  __m256i key1 = _mm256_set1_epi32(static_cast<int>(k1));
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key0 = _mm256_add_epi32(key0, w0);
      key1 = _mm256_add_epi32(key1, w1);
    }
    __m256i hi0, lo0, hi1, lo1;
    mul_hi_lo(m0, c0, &hi0, &lo0);
    mul_hi_lo(m1, c2, &hi1, &lo1);
    const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), key0);
    const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), key1);
    c1 = lo1;
    c3 = lo0;
    c0 = n0;
    c2 = n2;
  }
  // Lane l of c_j is word j of block first + l; transpose to word j of block l at 4l + j.
  const __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
  const __m256i t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
  const __m256i b04 = _mm256_unpacklo_epi64(t0, t2), b15 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i b26 = _mm256_unpacklo_epi64(t1, t3), b37 = _mm256_unpackhi_epi64(t1, t3);
  out[0] = _mm256_permute2x128_si256(b04, b15, 0x20);
  out[1] = _mm256_permute2x128_si256(b26, b37, 0x20);
  out[2] = _mm256_permute2x128_si256(b04, b15, 0x31);
  out[3] = _mm256_permute2x128_si256(b26, b37, 0x31);
}

// all ones where the word is below the threshold (an unsigned compare, by flipping the sign bits)
__attribute__((target("avx2"))) inline __m256i below(__m256i words, __m256i threshold_flipped) {
  const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  return _mm256_cmpgt_epi32(threshold_flipped, _mm256_xor_si256(words, sign));
}

// Blocks b0 .. (a whole number of eight-block groups whose elements all exist); returns the first
// block left for the scalar loop. `threshold` < 2³².
template <typename T>
__attribute__((target("avx2"))) int64_t dropout_forward_avx2(const T* x, T* y, bool* keep,
                                                             int64_t b0, int64_t b1, int64_t n,
                                                             uint32_t k0, uint32_t k1,
                                                             uint32_t threshold, T scale) {
  const __m256i thr = _mm256_set1_epi32(static_cast<int>(threshold ^ 0x80000000u));
  int64_t b = b0;
  for (; b + kPhiloxLanes <= b1 && 4 * (b + kPhiloxLanes) <= n; b += kPhiloxLanes) {
    __m256i words[4];
    philox_words_x8(static_cast<uint64_t>(b), k0, k1, words);
    const int64_t base = 4 * b;
    __m256i kept[4];
    for (int k = 0; k < 4; ++k) kept[k] = below(words[k], thr);
    // 32 bytes of 0/1 in element order: packs interleave the 128-bit halves; a dword permutation
    // puts them back.
    const __m256i p16a = _mm256_packs_epi32(kept[0], kept[1]);
    const __m256i p16b = _mm256_packs_epi32(kept[2], kept[3]);
    const __m256i p8 = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(p16a, p16b),
                                                   _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(keep + base),
                        _mm256_and_si256(p8, _mm256_set1_epi8(1)));
    if constexpr (std::is_same_v<T, float>) {
      const __m256 s = _mm256_set1_ps(scale), zero = _mm256_setzero_ps();
      for (int k = 0; k < 4; ++k) {
        const __m256 factor = _mm256_blendv_ps(zero, s, _mm256_castsi256_ps(kept[k]));
        _mm256_storeu_ps(y + base + 8 * k,
                         _mm256_mul_ps(_mm256_loadu_ps(x + base + 8 * k), factor));
      }
    } else {
      for (int64_t i = base; i < base + 4 * kPhiloxLanes; ++i)
        y[i] = x[i] * (keep[i] ? scale : T(0));
    }
  }
  return b;
}

__attribute__((target("avx2"))) int64_t dropout_backward_avx2(const float* gy, const bool* keep,
                                                              float* gx, int64_t i0, int64_t i1,
                                                              float scale) {
  const __m256 s = _mm256_set1_ps(scale), zero = _mm256_setzero_ps();
  int64_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m256i k8 =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(keep + i)));
    const __m256 kept = _mm256_castsi256_ps(_mm256_cmpgt_epi32(k8, _mm256_setzero_si256()));
    _mm256_storeu_ps(gx + i,
                     _mm256_mul_ps(_mm256_loadu_ps(gy + i), _mm256_blendv_ps(zero, s, kept)));
  }
  return i;
}
#endif

template <typename T>
void dropout_forward_cpu(const T* x, T* y, bool* keep, int64_t n, uint64_t key, uint64_t threshold,
                         T scale) {
  const int64_t blocks = (n + 3) / 4;  // Philox block b covers elements 4b .. 4b+3
  at::parallel_for(0, blocks, kDropoutGrain / 4, [&](int64_t b0, int64_t b1) {
    const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
    int64_t b = b0;
#ifdef UNIEVAL_PHILOX_AVX2
    if (cpu_has_avx2() && threshold <= 0xFFFFFFFFu)
      b = dropout_forward_avx2<T>(x, y, keep, b0, b1, n, k0, k1, static_cast<uint32_t>(threshold),
                                  scale);
#endif
    for (; b < b1; ++b) {
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
    int64_t i = i0;
#ifdef UNIEVAL_PHILOX_AVX2
    if constexpr (std::is_same_v<T, float>) {
      if (cpu_has_avx2()) i = dropout_backward_avx2(gy, keep, gx, i0, i1, scale);
    }
#endif
    for (; i < i1; ++i) gx[i] = gy[i] * (keep[i] ? scale : T(0));
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
