// Follows HF transformers (Apache-2.0) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
#include "models/attention.h"

#include <cmath>

#include "core/error.h"
#include "models/dropout.h"
#include "models/torch_compat.h"

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

torch::Tensor explicit_attention(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v, const torch::Tensor& bias,
                                 double dropout_p, bool training) {
  // HF modeling_bert.py BertSelfAttention.forward (v4.30.2), absolute positions.
  auto scores = torch::matmul(q, k.transpose(-1, -2));
  scores = scores / std::sqrt(static_cast<double>(q.size(-1)));
  if (bias.defined()) scores = scores + bias;
  auto probs = torch::softmax(scores, -1);
  if (training && dropout_p > 0) probs = apply_dropout(probs, dropout_p, /*training=*/true);
  return torch::matmul(probs, v);
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
