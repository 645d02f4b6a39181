#pragma once
// Follows HF transformers (Apache-2.0), scikit-learn (BSD-3-Clause) and SciPy (BSD-3-Clause)
// behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// GLUE task metrics with the semantics of HF transformers `glue_compute_metrics`
// (scikit-learn 1.2 / scipy 1.10 underneath), and the GLUE benchmark average.
//
//   | task                         | fields                                        |
//   | cola, ax                     | accuracy, matthews_corrcoef                   |
//   | sst2, mnli, mnli-mm, qnli,   | accuracy                                      |
//   |   rte, wnli                  |                                               |
//   | mrpc, qqp                    | accuracy, f1 (positive class 1), acc_and_f1   |
//   | stsb                         | pearson, spearmanr, corr (= mean of the two)  |
//
// Edge semantics as the reference libraries: MCC 0.0 when its denominator is 0 (constant
// labels or predictions; sklearn matthews_corrcoef); F1 0.0 when there is no true and no
// predicted positive (sklearn zero_division="warn" -> 0 plus a warning); Pearson/Spearman NaN
// (reported as null, with a warning) on constant input (scipy ConstantInputWarning); Spearman =
// Pearson (np.corrcoef) of average ranks (ties share the mean rank, rankdata 'average').
//
//   auto gold = unieval::metrics::read_glue_labels("RTE/dev.tsv", GlueTask::kRte, true);
//   auto pred = unieval::metrics::read_glue_labels("rte.pred", GlueTask::kRte, false);
//   auto r = unieval::metrics::glue_compute_metrics(GlueTask::kRte, gold, pred);
//
// GLUE score (glue_score): per task the mean of its metrics (MRPC, QQP: F1 and accuracy;
// STS-B: Pearson and Spearman), then the unweighted mean over the nine tasks CoLA, SST-2, MRPC,
// STS-B, QQP, MNLI, QNLI, RTE, WNLI. MNLI convention (GlueScoreOptions::mnli): kAverage (the
// default) takes MNLI = mean(MNLI-m, MNLI-mm) as one task, which is what the GLUE leaderboard's
// "Score" column does (checked: BERT-large 80.5 recomputes only this way); kMatchedOnly takes
// MNLI-m. AX (diagnostic) is never averaged.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace unieval::metrics {

enum class GlueTask { kCola, kSst2, kMrpc, kStsb, kQqp, kMnli, kMnliMm, kQnli, kRte, kWnli, kAx };

GlueTask parse_glue_task(const std::string& name);  // "cola", "sst2" / "sst-2", "mnli-mm", ...
const char* glue_task_name(GlueTask t);

// The task's label names in index order (empty for STS-B, a regression task):
// MNLI/AX: contradiction, entailment, neutral; QNLI/RTE: entailment, not_entailment; others 0, 1.
std::vector<std::string> glue_label_names(GlueTask t);

// Reads labels: a GLUE TSV of the task (its distributed column layout: CoLA without header,
// label in column 2; the others by header name: label, gold_label, Label, Quality,
// is_duplicate, score; also the HF-datasets export `sentence1 sentence2 label idx`), a GLUE
// submission file (`index<TAB>prediction`), or a plain file with one label per line. Labels
// may be names or numbers. InputError names the file and line of a bad label.
std::vector<double> read_glue_labels(const std::string& path, GlueTask task);
std::vector<double> parse_glue_labels(const std::string& text, const std::string& source,
                                      GlueTask task);

// The individual functions (sklearn / scipy argument order as HF: f1(labels, preds), ...).
double glue_accuracy(const std::vector<double>& labels, const std::vector<double>& preds);
double glue_f1(const std::vector<double>& labels, const std::vector<double>& preds,
               bool* ill_defined = nullptr);
double matthews_corrcoef(const std::vector<double>& labels, const std::vector<double>& preds);
double pearson_r(const std::vector<double>& x, const std::vector<double>& y);   // NaN if constant
double spearman_r(const std::vector<double>& x, const std::vector<double>& y);  // NaN if constant

struct GlueResult {
  GlueTask task = GlueTask::kSst2;
  std::optional<double> accuracy, f1, acc_and_f1, matthews_corrcoef, pearson, spearmanr, corr;
  std::vector<std::string> warnings;
  std::string signature;
  nlohmann::ordered_json to_json() const;  // fields of the task; NaN -> null
};

// Labels and predictions must have the same length (InputError otherwise).
GlueResult glue_compute_metrics(GlueTask task, const std::vector<double>& labels,
                                const std::vector<double>& preds);

enum class GlueMnliConvention { kAverage, kMatchedOnly };
struct GlueScoreOptions {
  GlueMnliConvention mnli = GlueMnliConvention::kAverage;  // how MNLI enters the average
};
struct GlueScore {
  double score = 0;                                      // under the chosen convention
  double score_mnli_avg = 0;                             // MNLI = mean(m, mm), 9 tasks
  double score_mnli_m_only = 0;                          // MNLI = MNLI-m, 9 tasks
  std::vector<std::pair<std::string, double>> per_task;  // task -> mean of its metrics
  std::string signature;
  nlohmann::ordered_json to_json() const;
};
// task_metrics: {"CoLA": {"mcc": 60.5}, "MRPC": {"f1": 89.3, "acc": 85.4}, ...}; task names as
// the leaderboard (CoLA, SST-2, MRPC, STS-B, QQP, MNLI-m, MNLI-mm, QNLI, RTE, WNLI, AX) or as
// --task (cola, sst2, ...); metric names short (mcc, acc, f1, pearson, spearman) or as
// `unieval score --metric glue --json` writes them. Missing tasks -> InputError naming them.
GlueScore glue_score(const nlohmann::json& task_metrics, const GlueScoreOptions& opts,
                     const std::string& source = "");

}  // namespace unieval::metrics
