#pragma once
// Follows HF transformers (Apache-2.0) OpenAIGPTLMHeadModel generation behaviour; no code copied;
// see THIRD_PARTY_NOTICES.md.
// Generation (`unieval decode --model GPT`): the next-token scorer of models/decoding/search.h over a GPT
// LM (models/nn/gpt.h), beside UniLM's in models/decoding/search_unilm.h. Row r of a step is its parent row
// plus the token it appended; each step re-runs the whole sequence (GPT-1 has no key/value cache
// in HF either), right-padded, and returns the log-softmax of each row's last real position,
// [rows, V]. Prompts longer than n_positions - max_new_tokens keep their last tokens; an empty
// prompt, or max_new_tokens leaving no room for one, is an InputError.
//
//   GptScorer scorer(model, prompts, opts.max_len);
//   auto nbest = generate(scorer, example_ids, eos, opts, /*pad=*/-1, VocabMask{tok.size(), {}});
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/decoding/search.h"
#include "models/nn/gpt.h"

namespace unieval::models {

class GptScorer : public StepScorer {
 public:
  GptScorer(GptModel& model, std::vector<std::vector<int32_t>> prompts, int64_t max_new_tokens);
  torch::Tensor step(const StepRequest& req) override;

 private:
  GptModel& model_;
  std::vector<std::vector<int32_t>> prompts_, rows_;
};

}  // namespace unieval::models
