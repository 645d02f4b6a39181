// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "models/nn/attention.h"

#include <ATen/Parallel.h>

#include <cmath>

#include "core/error.h"
#include "models/nn/dropout.h"
#include "models/nn/torch_compat.h"

namespace unieval::models {

bool fused_attention_available() { return compat::kHaveFusedSdpa; }

std::string attention_path_name(AttentionPath path) {
  if (path == AttentionPath::kExplicit) return "explicit";
  if (path == AttentionPath::kFused) return "fused-sdpa";
  return fused_attention_available() ? "fused-sdpa" : "explicit";
}

namespace {

torch::Tensor bias_in_dtype(const torch::Tensor& bias, torch::ScalarType dtype) {
  if (!bias.defined() || bias.scalar_type() == dtype) return bias;
  // finfo(fp32).min is -inf in fp16: clamp first so that a fully masked row stays uniform
  // (as in HF) instead of turning into NaN.
  if (dtype != torch::kHalf && dtype != torch::kBFloat16) return bias.to(dtype);
  const double lo = dtype == torch::kHalf ? -65504.0 : -3.3895313892515355e38;
  return bias.clamp_min(lo).to(dtype);
}

// ---- the two products of a decoding step, without bmm ----
// A beam-search step has 1-2 query positions per (batch, head): LibTorch 1.13's bmm makes one BLAS
// call per (batch, head) for those 1×d·d×T products, and on 2 cores those calls were 45% of a beam-5
// decode. Here each (batch, head) is a few hundred multiply-adds, all (batch, head)s in one parallel
// loop. Each output element is one fused multiply-add chain over the contraction index in order,
// from 0, which is how OpenBLAS's sgemm micro-kernels accumulate an element of C when C has at
// most 3 rows: on this project's machines (OpenBLAS 0.3.21, Zen kernels) the values are bit-equal
// to bmm's, so beam search returns the same bytes as before (tests/models/attention_test.cc; with
// 4+ rows, or under ATen's 400-multiply-add cut-off below which bmm does not call BLAS, they
// differ in the last bit, so those stay on bmm). Other BLAS builds may round differently: the
// test then only holds them to float rounding.

constexpr int64_t kMaxStepQueries = 3;     // more query positions: bmm (a prefix, training)
constexpr int64_t kMinStepProducts = 400;  // ATen's bmm below this: its own loops

#if defined(__x86_64__) && defined(__GNUC__)
#define UNIEVAL_STEP_ATTENTION_FMA 1
bool cpu_has_fma() {
  static const bool yes = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  return yes;
}

// out[bh, i, j] = Σ_c q[bh, i, c] · k[bh, j, c]
__attribute__((target("avx2,fma"))) void step_scores(const float* q, const float* k, float* out,
                                                     int64_t BH, int64_t H, int64_t Tq, int64_t T,
                                                     int64_t d, const int64_t* qs,
                                                     const int64_t* ks) {
  at::parallel_for(0, BH, 8, [&](int64_t b0, int64_t b1) {
    for (int64_t bh = b0; bh < b1; ++bh) {
      const float* qb = q + (bh / H) * qs[0] + (bh % H) * qs[1];
      const float* kb = k + (bh / H) * ks[0] + (bh % H) * ks[1];
      float* ob = out + bh * Tq * T;
      for (int64_t i = 0; i < Tq; ++i) {
        const float* qi = qb + i * qs[2];
        int64_t j = 0;
        for (; j + 8 <= T; j += 8) {  // eight independent chains
          float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          for (int64_t c = 0; c < d; ++c) {
            const float a = qi[c];
            for (int l = 0; l < 8; ++l) acc[l] = __builtin_fmaf(a, kb[(j + l) * ks[2] + c], acc[l]);
          }
          for (int l = 0; l < 8; ++l) ob[i * T + j + l] = acc[l];
        }
        for (; j < T; ++j) {
          float acc = 0;
          for (int64_t c = 0; c < d; ++c) acc = __builtin_fmaf(qi[c], kb[j * ks[2] + c], acc);
          ob[i * T + j] = acc;
        }
      }
    }
  });
}

// out[bh, i, c] = Σ_j p[bh, i, j] · v[bh, j, c]
__attribute__((target("avx2,fma"))) void step_context(const float* p, const float* v, float* out,
                                                      int64_t BH, int64_t H, int64_t Tq, int64_t T,
                                                      int64_t d, const int64_t* vs) {
  at::parallel_for(0, BH, 8, [&](int64_t b0, int64_t b1) {
    for (int64_t bh = b0; bh < b1; ++bh) {
      const float* vb = v + (bh / H) * vs[0] + (bh % H) * vs[1];
      for (int64_t i = 0; i < Tq; ++i) {
        const float* pi = p + (bh * Tq + i) * T;
        float* oi = out + (bh * Tq + i) * d;
        for (int64_t c = 0; c < d; ++c) oi[c] = 0.0f;
        for (int64_t j = 0; j < T; ++j) {
          const float a = pi[j];
          const float* vj = vb + j * vs[2];
          for (int64_t c = 0; c < d; ++c) oi[c] = __builtin_fmaf(a, vj[c], oi[c]);
        }
      }
    }
  });
}
#endif

// A step's products can take the loops above: CPU float32 without autograd, few query positions,
// rows of k and v contiguous.
bool step_products_apply(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
#if defined(UNIEVAL_STEP_ATTENTION_FMA)
  if (!cpu_has_fma()) return false;
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return false;
  if (q.size(2) > kMaxStepQueries || q.size(2) * k.size(2) * q.size(3) < kMinStepProducts)
    return false;
  for (const auto* t : {&q, &k, &v}) {
    if (!t->device().is_cpu() || t->scalar_type() != torch::kFloat || t->stride(3) != 1)
      return false;
    if (t->requires_grad() && torch::GradMode::is_enabled()) return false;
  }
  return k.sizes() == v.sizes() && q.size(0) == k.size(0) && q.size(1) == k.size(1) &&
         q.size(3) == k.size(3);
#else
  (void)q, (void)k, (void)v;
  return false;
#endif
}

torch::Tensor step_qk(const torch::Tensor& q, const torch::Tensor& k) {
  const int64_t B = q.size(0), H = q.size(1), Tq = q.size(2), d = q.size(3), T = k.size(2);
  torch::Tensor out = torch::empty({B, H, Tq, T}, q.options());
#if defined(UNIEVAL_STEP_ATTENTION_FMA)
  const int64_t qs[3] = {q.stride(0), q.stride(1), q.stride(2)},
                ks[3] = {k.stride(0), k.stride(1), k.stride(2)};
  step_scores(q.data_ptr<float>(), k.data_ptr<float>(), out.data_ptr<float>(), B * H, H, Tq, T, d,
              qs, ks);
#endif
  return out;
}

torch::Tensor step_pv(const torch::Tensor& probs, const torch::Tensor& v) {
  const int64_t B = v.size(0), H = v.size(1), Tq = probs.size(2), T = v.size(2), d = v.size(3);
  const torch::Tensor p = probs.contiguous();
  torch::Tensor out = torch::empty({B, H, Tq, d}, v.options());
#if defined(UNIEVAL_STEP_ATTENTION_FMA)
  const int64_t vs[3] = {v.stride(0), v.stride(1), v.stride(2)};
  step_context(p.data_ptr<float>(), v.data_ptr<float>(), out.data_ptr<float>(), B * H, H, Tq, T, d,
               vs);
#endif
  return out;
}

torch::Tensor explicit_attention(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v, const torch::Tensor& bias,
                                 double dropout_p, bool training) {
  // HF modeling_bert.py BertSelfAttention.forward (v4.30.2), absolute positions.
  const bool step = !(training && dropout_p > 0) && step_products_apply(q, k, v);
  auto scores = step ? step_qk(q, k) : torch::matmul(q, k.transpose(-1, -2));
  scores = scores / std::sqrt(static_cast<double>(q.size(-1)));
  if (bias.defined()) scores = scores + bias;
  auto probs = torch::softmax(scores, -1);
  if (training && dropout_p > 0) probs = apply_dropout(probs, dropout_p, /*training=*/true);
  return step ? step_pv(probs, v) : torch::matmul(probs, v);
}

}  // namespace

torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& bias, double dropout_p, bool training,
                        AttentionPath path) {
  const auto b = bias_in_dtype(bias, q.scalar_type());
  const double p = training ? dropout_p : 0.0;
  if (path == AttentionPath::kFused && !fused_attention_available()) {
    throw InputError("fused attention needs LibTorch >= 2.0; this build has " +
                     compat::torch_version());
  }
  if (path == AttentionPath::kExplicit || !fused_attention_available()) {
    return explicit_attention(q, k, v, b, p, training);
  }
  // The fused kernels want a bias that is expanded over heads where the batch differs; expand
  // is free (a view).
  auto eb = b.defined() ? b.expand({q.size(0), q.size(1), q.size(2), k.size(2)}) : b;
  return compat::fused_sdpa(q, k, v, eb, p);
}

}  // namespace unieval::models
