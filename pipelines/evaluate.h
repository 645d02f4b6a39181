#pragma once
// evaluate(): a task + a dataset in its distribution format + a file of system outputs -> the
// task's official metric set as a RunResult, with provenance (tool, commit, data and prediction
// sha256), timings and, on request, bootstrap confidence intervals (metrics/bootstrap.h). `unieval eval` is a thin
// shell over it; `unieval run` calls it on its decoded outputs.
//
//   unieval::tasks::EvalRequest req;
//   req.task = "squad-v2";  req.data = "dev-v2.0.json";  req.pred = "predictions.json";
//   unieval::results::RunResult r = unieval::pipelines::evaluate(req);
//   r.score("f1")->value;   // 81.775... for BERT-large's published predictions
//
// The task adapters themselves (readers, metric sets, options) are in tasks/ (tasks/task.h).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/run_result.h"
#include "tasks/task.h"

namespace unieval::pipelines {

// Runs the task: validates options, checks resources (check_eval_resources), runs the adapter,
// fills provenance, timings and (req.bootstrap > 0) CIs. InputError for an unknown task, an
// unknown option, a missing file or a missing resource.
//
// CIs (req.bootstrap resamples, req.seed, req.ci_level; percentile intervals from the one
// bootstrap, metrics/bootstrap.h, BootstrapDraw::kUniformInt): mean scores from their per-example
// values (TaskOutput::mean_decomposable: SQuAD, CoQA, GLUE accuracy, ...), corpus scores of
// decomposable metrics from the metric's own resampling function (TaskOutput::resampled: coco
// BLEU-1..4 and METEOR of squad-qg, resampled over the source keys; coco ROUGE-L is a mean). ROUGE-1.5.5 keeps its own published
// bootstrap. The options given are kept in the result's "eval_options" (read by `reproduce` to
// refuse results scored under other metric settings than a paper's).
//
// Paired significance (req.paired_pred, needs req.bootstrap > 0): the same task on a baseline's
// outputs, then every score that has a CI is resampled for both systems on the same indices
// (metrics/bootstrap.h paired_bootstrap: sacreBLEU's paired bootstrap, Koehn 2004); the result
// gets "paired_bootstrap": {baseline, baseline_pred, baseline_sha256, resamples, seed, method,
// scores: [{score, system, baseline, delta, p_value}]}.
//
// Generation tasks (the adapter fills TaskOutput::hypotheses): the result gets "diagnostics"
// (tasks/diagnostics.h: hypotheses, empty, repeated, distinct, most_common, mean_hyp_words,
// mean_ref_words, length_ratio, over the text as scored) and each of its warnings as a note.
results::RunResult evaluate(const tasks::EvalRequest& req);

// A baseline's predictions for the data of a request (evaluate_baselines).
struct BaselinePred {
  std::string name;         // "constant", "copy-source", "majority", "first-window"
  std::string description;  // one line: what it predicts, from what
  std::string pred;         // its prediction file, in the task's prediction format
  std::optional<std::map<std::string, std::string>> options;  // adapter options for it (unset:
                                                              // the request's; squad-v2 drops
                                                              // the system's na_prob_file)
};

// Scores every baseline with the request's task adapter and metric set (req.skip_metrics too)
// and tests the system, req.pred, against each with the paired bootstrap of evaluate()
// (req.bootstrap resamples, req.seed; none when req.bootstrap is 0) on every score that has one.
// The system is run once; each baseline once. Returns the array `unieval run` writes as the
// result's "baselines": [{name, description, pred, summary: {score: value}, paired_bootstrap:
// {baseline, baseline_pred, baseline_sha256, resamples, seed, method, scores: [{score, system,
// baseline, delta, p_value}]}}] (a NaN value, e.g. Pearson of a constant, is null).
// InputError as evaluate() for a missing file or an unknown task or option.
nlohmann::ordered_json evaluate_baselines(const tasks::EvalRequest& req,
                                          const std::vector<BaselinePred>& baselines);

// The significance level of baseline_warnings().
constexpr double kBaselineAlpha = 0.05;

// One line per baseline of r.extra["baselines"] that the system does not beat on every score
// with a paired test (better in the score's direction with p < kBaselineAlpha), naming the
// scores; empty when there are none.
std::vector<std::string> baseline_warnings(const results::RunResult& r);

// Every warning a result carries, recomputed from its JSON (so that a result read back warns as
// it did when written): its diagnostics' (tasks/diagnostic_warnings) and baseline_warnings().
// The CLI prints each as "warning: ..." on stderr; the same lines are in the result's notes.
std::vector<std::string> result_warnings(const results::RunResult& r);

// The one resource policy before any data is read (`unieval run` calls it at its data stage,
// before training): the task and its options are known, req.skip_metrics names metrics of the
// task's set, and every other metric of the set finds its resources (METEOR data, paraphrase
// table, ...). InputError naming what to set (`--option meteor_data=DIR`, $UNIEVAL_METEOR_DATA)
// and the opt-out (`--skip-metric meteor`). req.data may be empty: the metric set with references.
void check_eval_resources(const tasks::EvalRequest& req);

// The CI of a mean-decomposable score (TaskOutput::mean_decomposable): the percentile interval of
// the resampled means times `scale` (100 for percent scores of 0/1 values), from the one bootstrap
// (metrics/bootstrap.h, BootstrapDraw::kUniformInt, std::mt19937_64 seeded with `seed`). Empty
// values or resamples <= 0 leave low/high at 0 (method, level, resamples and seed still set).
results::ConfidenceInterval bootstrap_mean_ci(const std::vector<double>& values, int resamples,
                                              unsigned long long seed, double level, double scale);

}  // namespace unieval::pipelines
