#pragma once
// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Masked multi-head scaled dot-product attention behind one function, computed by the fastest
// path the LibTorch in use offers:
//   * LibTorch 2.x: the fused at::scaled_dot_product_attention (flash / memory-efficient / math
//     kernels chosen by LibTorch), via models/nn/torch_compat.h;
//   * LibTorch 1.13: explicit softmax(q kᵀ/√d + bias) v, exactly HF BertSelfAttention's order of
//     operations (scores = q·kᵀ; scores /= √d; scores += bias; softmax; dropout; ·v).
// Both agree to ≤ 1e-5 in fp32 (tests/models/attention_test.cc).
//
//   auto bias = additive_attention_mask(mask01, q.scalar_type());   // models/nn/transformer.h
//   auto ctx = attention(q, k, v, bias, /*dropout_p=*/0.1, is_training());
//
// | argument  | meaning                                                                        |
// |-----------|--------------------------------------------------------------------------------|
// | q         | [B, heads, Tq, d]                                                              |
// | k, v      | [B, heads, Tk, d]                                                              |
// | bias      | additive, broadcastable to [B, heads, Tq, Tk], or undefined (no mask). Another  |
// |           | dtype than q's is clamped to q's dtype range and cast (so finfo(fp32).min stays |
// |           | finite under fp16 autocast).                                                    |
// | dropout_p | dropout on the attention probabilities, applied only when `training`           |
// | path      | kAuto (fused where available), kExplicit, kFused (InputError if unavailable)    |
// Returns [B, heads, Tq, d].
#include <torch/torch.h>

#include <string>

namespace unieval::models {

enum class AttentionPath { kAuto, kExplicit, kFused };

// True when this build's LibTorch has the fused kernel (2.x).
bool fused_attention_available();
// "fused-sdpa" or "explicit": what kAuto resolves to in this build.
std::string attention_path_name(AttentionPath path = AttentionPath::kAuto);

torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& bias, double dropout_p = 0.0, bool training = false,
                        AttentionPath path = AttentionPath::kAuto);

}  // namespace unieval::models
