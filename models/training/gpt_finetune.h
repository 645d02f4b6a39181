#pragma once
// Follows openai/finetune-transformer-lm (MIT) and HF transformers (Apache-2.0)
// OpenAIGPTDoubleHeadsModel behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// GPT fine-tuning (Radford et al. 2018 §3.2-3.3) on top of models/nn/gpt.h: a linear head on the
// final state of the extract token, the auxiliary language-modelling loss, and the model side of
// the zero-shot heuristics of §5 (token log-probabilities). Knows no task and no metric: a task is
// a list of GptFeature rows built by pipelines/ with the input transformations of Figure 1:
//
//   classification  [start] text [extract]                                    1 sequence
//   entailment      [start] premise [delim] hypothesis [extract]              1 sequence
//   similarity      [start] a [delim] b [extract] and [start] b [delim] a [extract]: 2 sequences,
//                   their final extract states added element-wise before the head
//   multiple choice [start] context [delim] answer_k [extract] for each k: K sequences, each
//                   scored by a linear layer, softmax over k
//
// | head             | model part (models/nn/gpt.h)      | task loss L2                               |
// |------------------|--------------------------------|--------------------------------------------|
// | kClassify        | classifier Linear(E → K) on the | cross-entropy (the sum of the extract      |
// |                  | (summed) extract state          | states of the example's sequences)         |
// | kRegress         | classifier Linear(E → 1)        | MSE (STS-B)                                |
// | kMultipleChoice  | multiple_choice_head Linear(E→1)| cross-entropy over the K choice scores     |
//
// Loss (§3.2 eq. 3): L3 = L2 + λ·L1, L1 the next-token negative log-likelihood over every real
// position of every sequence of the batch (the token after the last one has no target), averaged
// over those tokens (HF's DoubleHeads lm_loss; the release averaged per sequence first). λ =
// lm_coef (0.5 in §4.1; 0 turns the auxiliary objective off and skips the LM logits). The loop,
// optimizer, schedule, checkpoints and resume are models/training/train_loop.h's; each log line holds
// "loss" (L3), "task_loss" (L2) and "lm_loss" (L1, also when λ = 0 it is omitted).
// Dropout is re-seeded per micro-batch from (seed, step, j), as the other fine-tuning loops.
// Checked (tests/models/gpt_double_heads_parity_test.cc) against HF v4.30.2
// OpenAIGPTDoubleHeadsModel (losses, mc logits, gradients) and the release's transform_roc.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/nn/gpt.h"
#include "models/training/trainer.h"

namespace unieval::models {

enum class GptHead { kClassify, kRegress, kMultipleChoice };
const char* to_string(GptHead head);

// The heads a task needs (kClassify: num_labels ≥ 2; kRegress: 1; kMultipleChoice: the MC head).
GptHeads gpt_heads(GptHead head, int64_t num_labels);

// One example: its transformed sequences (each non-empty, ending with the extract token), and
// its label (class / correct choice) or regression target.
struct GptFeature {
  std::vector<std::vector<int32_t>> seqs;
  int64_t label = 0;
  float target = 0.0f;
};

// Figure 1's multiple-choice transformation on token ids: one sequence per choice,
// [start] context [delimiter] choice_k [extract], context = document ++ question. The cut that
// keeps every sequence within max_len tokens:
//   kPerText        openai/finetune-transformer-lm train.py transform_roc (ROCStories, the only
//                   task of the released code; HF run_openai_gpt.py ports it): the context and each
//                   choice cut to their first max_len/2 − 2 tokens (its max_len = n_ctx//2 − 2),
//                   so a sequence has at most max_len − 1 tokens
//   kDocumentFirst  ours (the release has no code for longer documents, e.g. RACE): the document
//                   cut at its end first, then the longer of choice and question, until context +
//                   choice ≤ max_len − 3 (the question is kept)
// The release's positions (ids n_vocab + n_special + t in its one embedding table) are the rows t
// of positions_embed here; its mask is attention_mask, its pool_idx (first extract token) `last`.
enum class GptChoiceCut { kPerText, kDocumentFirst };
struct GptSpecialIds {
  int32_t start = 0, delimiter = 0, extract = 0;
};
GptFeature gpt_choice_feature(const std::vector<int32_t>& document,
                              const std::vector<int32_t>& question,
                              const std::vector<std::vector<int32_t>>& choices, int64_t label,
                              int64_t max_len, GptChoiceCut cut, const GptSpecialIds& ids);

// A padded batch of B examples with N sequences each: ids/mask [B·N, T], last [B·N] (index of each
// extract token), labels/targets [B].
struct GptBatch {
  torch::Tensor input_ids, attention_mask, last, labels, targets;
  int64_t examples = 0, per_example = 0, tokens = 0;
};
GptBatch make_gpt_batch(const std::vector<GptFeature>& features, const std::vector<size_t>& idx,
                        int64_t pad_id = 0);

struct GptLoss {
  torch::Tensor total, task, lm;  // lm undefined when lm_coef == 0
};
// The losses of a batch (on the model's device; model mode set by the caller).
GptLoss gpt_loss(GptModel& model, const GptBatch& batch, GptHead head, double lm_coef);

// Head outputs per example: class logits [K], {value}, or choice scores [N].
std::vector<std::vector<float>> predict_gpt(GptModel& model,
                                            const std::vector<GptFeature>& features, GptHead head,
                                            int64_t batch_size = 32, bool progress = false);

// Trains with run_train_loop (models/training/train_loop.h). Throws InputError on empty input, an empty
// sequence, sequences longer than n_positions, labels outside the head, or examples of one task
// with different sequence counts.
TrainResult train_gpt(GptModel& model, const std::vector<GptFeature>& features, GptHead head,
                      const TrainOptions& opts, double lm_coef, RunDir* run, bool resume);

// Zero-shot scoring (§5): for each sequence, the sum and count of log p(token_t | tokens_<t) over
// the positions t ≥ from[i] (from ≥ 1; the first token has no prediction). Eval mode, no gradient.
struct SpanLogProb {
  double sum = 0.0;
  int64_t count = 0;
  double mean() const { return count > 0 ? sum / double(count) : 0.0; }
};
std::vector<SpanLogProb> score_continuations(GptModel& model,
                                             const std::vector<std::vector<int32_t>>& seqs,
                                             const std::vector<int64_t>& from,
                                             int64_t batch_size = 16);
// log p(next token = c | prefix) for each candidate c, per prefix: [prefixes][candidates].
std::vector<std::vector<double>> next_token_logprobs(
    GptModel& model, const std::vector<std::vector<int32_t>>& prefixes,
    const std::vector<int32_t>& candidates, int64_t batch_size = 16);

}  // namespace unieval::models
