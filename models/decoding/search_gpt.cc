// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// GptScorer: GPT's next-token scorer for models/decoding/search.h (models/decoding/search_gpt.h).
#include "models/decoding/search_gpt.h"

#include <string>
#include <utility>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/nn/row_ops.h"
#include "models/training/gpt_finetune.h"

namespace unieval::models {

GptScorer::GptScorer(GptModel& model, std::vector<std::vector<int32_t>> prompts,
                     int64_t max_new_tokens)
    : model_(model), prompts_(std::move(prompts)) {
  const int64_t room = model_->config().n_positions - max_new_tokens;
  if (room < 1)
    throw InputError("--max-len " + std::to_string(max_new_tokens) +
                     " leaves no room for a prompt within n_positions " +
                     std::to_string(model_->config().n_positions));
  for (auto& p : prompts_) {
    if (p.empty()) throw InputError("an empty GPT prompt (give at least one token)");
    if (static_cast<int64_t>(p.size()) > room) p.erase(p.begin(), p.end() - room);
  }
}

torch::Tensor GptScorer::step(const StepRequest& req) {
  std::vector<std::vector<int32_t>> next;
  next.reserve(req.example.size());
  for (size_t r = 0; r < req.example.size(); ++r) {
    if (req.step == 0) {
      next.push_back(prompts_.at(static_cast<size_t>(req.example[r])));
    } else {
      next.push_back(rows_.at(static_cast<size_t>(req.parent[r])));
      next.back().push_back(static_cast<int32_t>(req.last_token[r]));
    }
  }
  rows_ = std::move(next);
  std::vector<GptFeature> fs;
  std::vector<size_t> idx;
  for (const auto& s : rows_) {
    fs.push_back(GptFeature{{s}});
    idx.push_back(idx.size());
  }
  model_->eval();
  torch::NoGradGuard ng;
  const torch::Device device = device_of(*model_);
  GptBatch b = make_gpt_batch(fs, idx);
  const torch::Tensor ids = b.input_ids.to(device), mask = b.attention_mask.to(device);
  const torch::Tensor last = b.last.to(device);
  torch::Tensor h =
      GptModelImpl::gather_positions(model_->forward(ids, mask).last_hidden_state, last);
  return log_softmax_last_dim(model_->lm_logits(h).to(torch::kFloat));
}

}  // namespace unieval::models
