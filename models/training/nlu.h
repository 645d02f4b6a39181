#pragma once
// Follows google-research/bert (Apache-2.0) run_classifier.py / run_squad.py and HF transformers
// (Apache-2.0) BertForSequenceClassification / BertForQuestionAnswering behaviour; no code copied;
// see THIRD_PARTY_NOTICES.md.
// Understanding heads of the UniLM encoder (UniLM §3.2 extractive QA, §3.5 GLUE): the network
// runs bidirectionally (a padding mask only) and a head on top gives the loss and the prediction.
// This file knows no task and no metric: a task is a list of NluFeature rows built by pipelines/.
//
//   using namespace unieval::models;
//   UnilmModel model(cfg, nlu_heads(NluHead::kClassify, /*num_labels=*/2));
//   TrainResult r = train_nlu(model, features, NluHead::kClassify, opts, &run, /*resume=*/false);
//   std::vector<NluPrediction> p = predict_nlu(model, features, NluHead::kClassify, {.batch_size = 64});
//   int label = argmax(p[0].logits);
//
// | head        | model parts                   | loss (per example, mean over the batch)       |
// |-------------|-------------------------------|-----------------------------------------------|
// | kClassify   | classifier (num_labels) on    | cross-entropy of softmax(classifier(pooled))  |
// |             | the pooled [CLS]              | (HF BertForSequenceClassification, GLUE)      |
// | kRegress    | classifier (1 output) on the  | MSE (HF, num_labels == 1; GLUE STS-B)         |
// |             | pooled [CLS]                  |                                               |
// | kSpan       | qa_outputs on every token     | (CE(start) + CE(end)) / 2 over the positions  |
// |             |                               | (BERT run_squad); target (0, 0) = the [CLS]   |
// |             |                               | span = no answer in this window (SQuAD 2.0)   |
// | kSpanClass  | qa_outputs + classifier       | span loss + CE of the answer class on the     |
// |             | (num_labels classes) on the   | pooled [CLS] (class 0 = "the answer is a      |
// |             | pooled [CLS]                  | span"; CoQA: 1 yes, 2 no, 3 unknown)          |
//
// Differences from BERT / HF, stated: padding positions are excluded from the span softmax
// (their logits set to -inf; BERT pads with zero-id tokens that stay in the softmax; no effect on
// the argmax of real positions, a small effect on the loss). Prediction does keep them where BERT's
// decoding sees them: with PredictOptions::pad_to, span logits come for every position up to
// pad_to (run_squad.py pads each window to max_seq_length, and its n-best start/end search ranks
// the padding positions too, which then fail the validity filter; see best_spans). The answer-class head of kSpanClass
// is ours: UniLM §3.2 says only that CoQA is fine-tuned "as BERT_LARGE" in the extractive
// setting; published BERT CoQA systems add yes/no/unknown logits on [CLS] in the same way.
//
// Training (train_nlu) uses the optimizer, schedule, clipping, batching (token budget + example
// cap, shuffled per epoch from (seed, epoch)), run directory, checkpoints, logging and resume of
// models/training/trainer.h; TrainOptions fields that only concern seq2seq masking are ignored. Dropout is
// re-seeded per step from (seed, step), so a resumed run continues bit-identically.
//
// Prediction (predict_nlu): eval mode, no gradient; features sorted by length and batched so that
// no batch is padded beyond its longest row (batch_size examples and batch_tokens tokens at most);
// results come back in the input order.
//
// Span decoding (best_spans): BERT's _get_best_indexes + candidate filter: the n_best highest start
// and end logits over all the positions given (padding ones included when the logits are padded,
// as run_squad.py's are), pairs with allowed start/end, end >= start and end - start + 1 <=
// max_answer_len, scored start + end, best first. null_score() is start[0] + end[0] (the [CLS] span).
#include <torch/torch.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/nn/transformer.h"
#include "models/training/pretrain_data.h"
#include "models/training/trainer.h"

namespace unieval::models {

enum class NluHead { kClassify, kRegress, kSpan, kSpanClass };
const char* to_string(NluHead head);

// The model parts a head needs: pooler; classifier with num_labels (kRegress: 1); qa_outputs for
// the span heads; the MLM head only with `mlm` (the masked-LM auxiliary loss, MlmAux below).
UnilmHeads nlu_heads(NluHead head, int64_t num_labels, bool mlm = false);

// One model input row. ids start with [CLS]; types are the segment ids.
struct NluFeature {
  std::vector<int32_t> ids;    // token ids ([CLS] a [SEP] b [SEP])
  std::vector<int32_t> types;  // segment ids, same length
  int64_t label = 0;           // kClassify / kSpanClass: the class
  float target = 0.0f;         // kRegress: the target value
  int64_t start = 0, end = 0;  // span heads: target token positions (0, 0 = [CLS] = no answer)
};

// A padded batch: ids/types/mask [B,T] (T = the longest row), labels/targets/starts/ends [B].
struct NluBatch {
  torch::Tensor input_ids, token_type_ids, attention_mask;
  torch::Tensor labels, targets, starts, ends;
  int64_t tokens = 0;  // non-padding tokens
};
// min_len: pad to at least this many positions (0 = the longest row).
NluBatch make_nlu_batch(const std::vector<NluFeature>& features, const std::vector<size_t>& idx,
                        int64_t pad_id, int64_t min_len = 0);

// The head's loss on a batch (model mode as set by the caller). Batch tensors must be on the
// model's device.
torch::Tensor nlu_loss(UnilmModel& model, const NluBatch& batch, NluHead head);

struct NluPrediction {
  std::vector<float> logits;      // class logits (kClassify, kSpanClass) or {value} (kRegress)
  std::vector<float> start, end;  // span heads: per position of the feature (and of the padding
                                  // up to PredictOptions::pad_to)
};

struct PredictOptions {
  int64_t batch_size = 64;       // examples per batch at most
  int64_t batch_tokens = 16384;  // examples × longest at most (a longer row gets its own batch)
  int64_t pad_id = 0;            // [PAD]
  int64_t pad_to = 0;            // rows padded to at least this length; span logits returned for
                                 // all of its positions (run_squad's max_seq_length; 0 = none)
  bool progress = false;         // progress lines on stderr
};
std::vector<NluPrediction> predict_nlu(UnilmModel& model, const std::vector<NluFeature>& features,
                                       NluHead head, const PredictOptions& opts);

// Word dropout in training (ours; Iyyer et al. 2015 drop words from a bag-of-words average): each
// token of a training row other than those in `keep` ([CLS], [SEP], padding) is replaced by
// `replacement` ([MASK] or [UNK]) with probability `prob`, drawn from the run's fine-tuning data
// stream (models/training/train_util.h: seed, step, micro-batch), so a resumed run draws the same.
// Positions do not move, so span targets stay valid. 0 = off.
struct TokenDropout {
  double prob = 0.0;          // in [0, 1)
  int64_t replacement = -1;   // token id written in place of a dropped token
  std::vector<int64_t> keep;  // token ids never dropped
};
// Applies `td` to the [B,T] ids of `batch` (on the CPU) with the given generator; returns the
// number of tokens replaced.
int64_t drop_tokens(NluBatch& batch, const TokenDropout& td, std::mt19937_64& rng);

// Masked-LM auxiliary loss in fine-tuning (ours; after TLM, Yao et al. 2021, "NLP From Scratch
// Without Large-Scale Pretraining", which trains the task loss jointly with a masked-LM loss on the
// task's own text): each micro-batch's rows are cloze-masked again (models/training/pretrain_data.h
// cloze_mask: `masking`'s mask_prob, max_pred, spans and 80/10/10; positions holding a `keep` id
// never masked) and run through the encoder a second time; the micro-batch's loss is the head's
// loss + weight x the mean NLL of the masked tokens. The masks are drawn from the run's
// fine-tuning data stream after word dropout's draws, so a resumed run draws the same. The model
// needs the MLM head (nlu_heads(..., mlm = true)). weight 0 = off: no second pass, no draw.
struct MlmAux {
  double weight = 0.0;          // >= 0
  PretrainDataOptions masking;  // mask_prob, max_pred, span_prob, max_span
  SpecialIds ids;               // [MASK] and the range of random replacements
  std::vector<int64_t> keep;    // token ids never masked ([CLS], [SEP], padding)
};
// Cloze-masks the non-padding positions of `batch` (CPU) that hold no `aux.keep` id: returns the
// masked copy of the ids, and sets masked_index (flat b*T + t) and labels (original ids).
torch::Tensor mlm_aux_inputs(const NluBatch& batch, const MlmAux& aux, std::mt19937_64& rng,
                             torch::Tensor& masked_index, torch::Tensor& labels);

// Trains model on features (see above); run == nullptr writes nothing. Throws InputError on empty
// input, targets outside the rows, a token dropout outside [0, 1) / without a replacement id, or a
// negative or non-finite MLM weight / one on a model without the MLM head. With the auxiliary loss
// the log has "task_loss" and "mlm_loss" (mean NLL per masked token) besides "loss".
TrainResult train_nlu(UnilmModel& model, const std::vector<NluFeature>& features, NluHead head,
                      const TrainOptions& opts, RunDir* run, bool resume, int64_t pad_id = 0,
                      const TokenDropout& token_dropout = {}, const MlmAux& mlm_aux = {});

struct SpanCandidate {
  int64_t start = 0, end = 0;  // token positions (inclusive)
  double score = 0.0;          // start_logit + end_logit
};
// allowed_start / allowed_end: positions that may begin / end an answer (same length as the
// logits; empty = every position but 0).
std::vector<SpanCandidate> best_spans(const std::vector<float>& start,
                                      const std::vector<float>& end,
                                      const std::vector<char>& allowed_start,
                                      const std::vector<char>& allowed_end, int64_t n_best,
                                      int64_t max_answer_len);
inline double null_score(const NluPrediction& p) {
  return double(p.start.at(0)) + double(p.end.at(0));
}

}  // namespace unieval::models
