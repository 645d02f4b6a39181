#pragma once
// The vocabulary limit of decoding: a checkpoint whose config
// vocab_size is larger than its vocab.txt (HF checkpoints often pad the embedding matrix, e.g. to
// a multiple of 8) has output rows for ids that no vocabulary line names. Their log-probabilities
// are set to -inf at every step, so no search (beam, "unilm" beam, greedy, sampling) can pick them;
// generate applies it as the VocabLimit constraint of its step list (models/decoding/search_constraints.h)
// when given a VocabMask, and VocabLimitScorer applies the same constraint as a StepScorer wrapper;
// the others are left as they are (not renormalised), as HF transformers' logits processors mask
// banned tokens. Decoding chose masking over refusing such checkpoints because the padded rows are
// legitimate in published checkpoints. A vocabulary LARGER than vocab_size is refused instead,
// by check_vocab_fits below (its ids would index past the embedding matrix).
// Both decoders pass the mask to generate: `decode --run` (UniLM, vocab.txt entries and
// --not-predict ids) and `decode --model` (GPT, BpeTokenizer::size(): the encoder's entries and
// the three special tokens).
//
//   UnilmStepScorer scorer(model, sources, ids, types);
//   auto nbest = generate(scorer, example_ids, ids.sep, search, ids.pad,
//                         VocabMask{tok.vocab().size(), search.not_predict});  // never come out
//   VocabLimitScorer masked(scorer, tok.vocab().size());  // the masked distribution itself
//
// check_vocab_fits is the one check that a tokenizer's vocabulary fits a model's embedding table,
// for every command that loads the two together (finetune, decode and its GPT path, pretrain
// --resume): more entries than the config's vocab_size is an InputError on the vocabulary file
// that names the config file too; fewer are accepted (and masked as above). GPT passes the BPE
// encoder's entries (its three special tokens are rows that fine-tuning appends).
//
//   check_vocab_fits(tok.vocab().size(), "ckpt/vocab.txt", cfg.vocab_size, "ckpt/config.json");
//   // ckpt/vocab.txt: has 30600 entries, more than the vocab_size 30522 of ckpt/config.json ...
//
// | argument      | meaning                                                                  |
// |---------------|--------------------------------------------------------------------------|
// | inner         | the model's scorer (not owned; must outlive this one)                    |
// | vocab_entries | number of ids with a vocabulary entry: ids [vocab_entries, V) are masked |
// | banned        | further ids masked the same way (SearchOptions::not_predict: special     |
// |               | tokens a from-scratch model must not print, UniLM's --not_predict_token) |
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/decoding/search.h"
#include "models/decoding/search_constraints.h"

namespace unieval::models {

class VocabLimitScorer : public StepScorer {
 public:
  // vocab_entries < 1 is a programmer error: std::invalid_argument.
  // banned ids outside [0, vocab_entries) are a programmer error too.
  VocabLimitScorer(StepScorer& inner, int64_t vocab_entries, std::vector<int64_t> banned = {});
  // inner.step(req) with columns [vocab_entries, V) and the banned ones at -inf (a copy; the
  // inner tensor itself when there is nothing to mask).
  torch::Tensor step(const StepRequest& req) override;

 private:
  StepScorer& inner_;
  VocabLimit limit_;
};

// InputError(vocab_path, 0, ...) naming config_path when vocab_entries > vocab_size.
void check_vocab_fits(int64_t vocab_entries, const std::string& vocab_path, int64_t vocab_size,
                      const std::string& config_path);

}  // namespace unieval::models
