#include "models/nn/copy_head.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace unieval::models {

CopySource CopySource::select(const torch::Tensor& rows) const {
  return {hidden.index_select(0, rows), ids.index_select(0, rows), valid.index_select(0, rows),
          keys.defined() ? keys.index_select(0, rows) : torch::Tensor()};
}

CopySource packed_copy_source(const torch::Tensor& hidden, const torch::Tensor& ids,
                              const std::vector<int64_t>& source_len) {
  const int64_t B = hidden.size(0);
  if (static_cast<int64_t>(source_len.size()) != B || ids.size(0) != B)
    throw InputError("packed_copy_source: " + std::to_string(source_len.size()) +
                     " source lengths for " + std::to_string(B) + " rows");
  const int64_t longest =
      source_len.empty() ? 0 : *std::max_element(source_len.begin(), source_len.end());
  const int64_t S = std::min<int64_t>(longest + 1, hidden.size(1));
  torch::Tensor valid = torch::zeros({B, S}, torch::kBool);
  auto v = valid.accessor<bool, 2>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 1; j <= source_len[b] && j < S; ++j) v[b][j] = true;
  return {hidden.narrow(1, 0, S), ids.narrow(1, 0, S), valid.to(hidden.device()), torch::Tensor()};
}

CopyHeadImpl::CopyHeadImpl(const BertConfig& cfg) {
  const int64_t H = cfg.hidden_size;
  query = register_module("query", torch::nn::Linear(H, H));
  key = register_module("key", torch::nn::Linear(H, H));
  gate = register_module("gate", torch::nn::Linear(2 * H, 1));
}

std::pair<torch::Tensor, torch::Tensor> CopyHeadImpl::forward(const torch::Tensor& q,
                                                              const CopySource& src) {
  const int64_t H = q.size(-1);
  const torch::Tensor qf = query(q).to(torch::kFloat);  // [B,Tq,H]
  const torch::Tensor kf = src.keys.defined() ? src.keys : key(src.hidden).to(torch::kFloat);
  torch::Tensor scores = torch::matmul(qf, kf.transpose(1, 2)) / std::sqrt(double(H));
  const torch::Tensor valid = src.valid.unsqueeze(1);  // [B,1,S]
  scores = scores.masked_fill(valid.logical_not(), -std::numeric_limits<float>::infinity());
  const torch::Tensor has = src.valid.any(1).unsqueeze(1);  // [B,1]
  // A row without copyable positions: all scores -inf; softmax of zeros instead, then zeroed.
  scores = torch::where(has.unsqueeze(2), scores, torch::zeros_like(scores));
  torch::Tensor attn = torch::softmax(scores, -1) * valid.to(torch::kFloat);  // [B,Tq,S]
  const torch::Tensor context = torch::matmul(attn.to(src.hidden.dtype()), src.hidden);
  torch::Tensor z = gate(torch::cat({q, context}, -1)).squeeze(-1).to(torch::kFloat);  // [B,Tq]
  z = torch::where(has, z, torch::full_like(z, std::numeric_limits<float>::infinity()));
  return {attn, z};
}

CopySource CopyHeadImpl::with_keys(CopySource src) {
  src.keys = key(src.hidden).to(torch::kFloat);  // [B,S,H]
  return src;
}

torch::Tensor mix_copy_log_probs(const torch::Tensor& logits, const torch::Tensor& attn,
                                 const torch::Tensor& gate_logit, const torch::Tensor& ids) {
  const torch::Tensor g = torch::sigmoid(gate_logit.to(torch::kFloat)).unsqueeze(1);  // [N,1]
  const torch::Tensor vocab = torch::softmax(logits.to(torch::kFloat), -1);
  const torch::Tensor copy = torch::zeros_like(vocab).scatter_add(1, ids, attn.to(torch::kFloat));
  return torch::log((g * vocab + (1.0 - g) * copy).clamp_min(1e-30));
}

}  // namespace unieval::models
