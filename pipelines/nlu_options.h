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
// | predict_batch       | 64      | examples per inference batch                                  |
#include <optional>

#include <nlohmann/json.hpp>

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
  int64_t predict_batch = 64;                // inference batch

  nlohmann::ordered_json to_json() const {
    nlohmann::ordered_json j;
    j["max_seq_len"] = max_seq_len;
    j["doc_stride"] = doc_stride;
    j["max_query_len"] = max_query_len;
    j["max_answer_len"] = max_answer_len;
    j["n_best"] = n_best;
    j["history_turns"] = history_turns;
    j["na_threshold"] = na_threshold ? nlohmann::ordered_json(*na_threshold) : nlohmann::ordered_json();
    j["classifier_dropout"] = classifier_dropout ? nlohmann::ordered_json(*classifier_dropout) : nlohmann::ordered_json();
    return j;
  }
  // Keys present in j (a preset's "train" object) replace the fields; others are ignored.
  void update_from_json(const nlohmann::json& j) {
    auto num = [&](const char* k, auto& f) {
      if (j.contains(k) && j.at(k).is_number()) f = j.at(k).get<std::decay_t<decltype(f)>>();
    };
    num("max_seq_len", max_seq_len);
    num("doc_stride", doc_stride);
    num("max_query_len", max_query_len);
    num("max_answer_len", max_answer_len);
    num("n_best", n_best);
    num("history_turns", history_turns);
    if (j.contains("classifier_dropout") && j.at("classifier_dropout").is_number())
      classifier_dropout = j.at("classifier_dropout").get<double>();
  }
};

}  // namespace unieval::pipelines
