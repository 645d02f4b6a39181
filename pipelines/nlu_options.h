#pragma once
// The understanding-task options of `unieval run` (pipelines/run_nlu.h): featurisation (BERT
// run_classifier / run_squad parameters), answer decoding and the no-answer threshold. Plain data
// so that pipelines/run.h can hold them without the NLU pipeline's headers.
//
// | NluRunOptions field | default | meaning                                                      |
// |---------------------|---------|--------------------------------------------------------------|
// | max_seq_len         | 128     | tokens per model input ([CLS] and [SEP] included)            |
// | doc_stride          | 128     | SQuAD/CoQA: step between document windows (BERT doc_stride)   |
// | max_query_len       | 64      | SQuAD/CoQA: question (+ history) tokens kept (CoQA: the last) |
// | max_answer_len      | 30      | longest answer in tokens (BERT max_answer_length)             |
// | n_best              | 20      | start/end candidates per window (BERT n_best_size)            |
// | history_turns       | 2       | CoQA: previous question/answer pairs before the question      |
// | na_threshold        | unset   | SQuAD 2.0: fixed null-score threshold; unset = tuned on dev   |
// | classifier_dropout  | unset   | dropout of the task layer (unset: the model's hidden dropout) |
// | token_dropout       | 0       | training rows' tokens replaced by [MASK] with this probability |
// |                     |         | (word dropout, models/training/nlu.h TokenDropout; 0 = off)   |
// | mlm_aux             | 0       | weight of a masked-LM loss on the training rows added to the  |
// |                     |         | task loss (models/training/nlu.h MlmAux; 0 = off)             |
// | predict_batch       | 64      | examples per inference batch                                  |
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "core/fields.h"

namespace unieval::pipelines {

struct NluRunOptions {
  int max_seq_len = 128;                     // model input length
  int doc_stride = 128;                      // window step
  int max_query_len = 64;                    // question tokens
  int max_answer_len = 30;                   // answer tokens
  int n_best = 20;                           // candidates
  int history_turns = 2;                     // CoQA history
  std::optional<double> na_threshold;        // SQuAD 2.0 fixed threshold
  std::optional<double> classifier_dropout;  // task-layer dropout
  double token_dropout = 0.0;                // word dropout in training
  double mlm_aux = 0.0;                      // masked-LM auxiliary loss weight in training
  int64_t predict_batch = 64;                // inference batch

  // The options' one declaration (core/fields.h): request keys, presets' keys and the flags of
  // `unieval run`. predict_batch is a run-time choice: neither in request.json nor in presets.
  template <class S, class V>
  static void fields(S& s, V&& v) {
    using unieval::fields::Field;
    v(Field("max_seq_len", "understanding tasks: tokens per input (preset; default 128)"),
      s.max_seq_len);
    v(Field("doc_stride", "squad/coqa: step between document windows (default 128)"), s.doc_stride);
    v(Field("max_query_len", "squad/coqa: question tokens kept (default 64)"), s.max_query_len);
    v(Field("max_answer_len", "squad/coqa: longest answer in tokens (default 30)"),
      s.max_answer_len);
    v(Field("n_best", "squad/coqa: start/end candidates per window (default 20)"), s.n_best);
    v(Field("history_turns",
            "coqa: previous question/answer pairs before the question (default 2)"),
      s.history_turns);
    v(Field("na_threshold",
            "squad-v2: fixed no-answer threshold on null - best span score (default: chosen on "
            "dev, official best_f1_thresh)"),
      s.na_threshold);
    v(Field("classifier_dropout", "understanding tasks: dropout of the task layer"),
      s.classifier_dropout);
    v(Field("token_dropout",
            "understanding tasks: word dropout, each training token other than [CLS]/[SEP] "
            "replaced by [MASK] with this probability (default 0)")
          .unless_default(),
      s.token_dropout);
    v(Field("mlm_aux",
            "understanding tasks: weight of a masked-LM loss on the training rows (15% cloze "
            "masking, a second encoder pass) added to the task loss, after TLM (default 0 = off)")
          .unless_default(),
      s.mlm_aux);
  }
  nlohmann::ordered_json to_json() const { return unieval::fields::to_json(*this); }
  // Keys of j (a preset's "train" object, which TrainOptions also reads: `also_allowed`) replace
  // the fields; a key neither reads is an InputError naming `source`.
  void update_from_json(const nlohmann::json& j, const std::string& source = "preset",
                        const std::set<std::string>& also_allowed = {}) {
    unieval::fields::from_json(j, *this, source, also_allowed);
  }
};

}  // namespace unieval::pipelines
