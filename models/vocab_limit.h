#pragma once
// A StepScorer wrapper that keeps decoding inside the vocabulary: a checkpoint whose config
// vocab_size is larger than its vocab.txt (HF checkpoints often pad the embedding matrix, e.g. to
// a multiple of 8) has output rows for ids that no vocabulary line names. Their log-probabilities
// are set to -inf at every step, so no search (beam, "unilm" beam, greedy, sampling) can pick them;
// the others are left as they are (not renormalised), as HF transformers' logits processors mask
// banned tokens. Decoding chose masking over refusing such checkpoints because the padded rows are
// legitimate in published checkpoints; a vocabulary LARGER than vocab_size is refused elsewhere
// (its ids would index past the embedding matrix).
//
//   UnilmStepScorer inner(model, sources, ids, types);
//   VocabLimitScorer scorer(inner, tok.vocab().size());   // ids >= vocab size never come out
//   auto nbest = generate(scorer, example_ids, ids.sep, search);
//
// | argument      | meaning                                                                  |
// |---------------|--------------------------------------------------------------------------|
// | inner         | the model's scorer (not owned; must outlive this one)                    |
// | vocab_entries | number of ids with a vocabulary entry: ids [vocab_entries, V) are masked |
#include <torch/torch.h>

#include <cstdint>

#include "models/search.h"

namespace unieval::models {

class VocabLimitScorer : public StepScorer {
 public:
  // vocab_entries < 1 is a programmer error: std::invalid_argument.
  VocabLimitScorer(StepScorer& inner, int64_t vocab_entries);
  // inner.step(req) with columns [vocab_entries, V) at -inf (a copy; unchanged when V <= entries).
  torch::Tensor step(const StepRequest& req) override;

 private:
  StepScorer& inner_;
  int64_t vocab_entries_;
};

}  // namespace unieval::models
