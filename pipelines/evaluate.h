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
#include "results/run_result.h"
#include "tasks/task.h"

namespace unieval::pipelines {

// Runs the task: validates options, runs the adapter, fills provenance, timings and
// (req.bootstrap > 0) CIs; the options given are kept in the result's "eval_options" (read by
// `reproduce` to refuse results scored under other metric settings than a paper's). InputError for an unknown task, an unknown option or a missing file.
results::RunResult evaluate(const tasks::EvalRequest& req);

// The CI of a mean-decomposable score (TaskOutput::mean_decomposable): the percentile interval of
// the resampled means times `scale` (100 for percent scores of 0/1 values), from the one bootstrap
// (metrics/bootstrap.h, BootstrapDraw::kUniformInt, std::mt19937_64 seeded with `seed`). Empty
// values or resamples <= 0 leave low/high at 0 (method, level, resamples and seed still set).
results::ConfidenceInterval bootstrap_mean_ci(const std::vector<double>& values, int resamples,
                                              unsigned long long seed, double level, double scale);

}  // namespace unieval::pipelines
