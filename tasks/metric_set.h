#pragma once
// A task's official metric set as data: each entry names a metric of the registry
// (metrics/protocol.h) with its option values, the fields of the JSON it emits that become the
// task's scores, and the signature the result records. The adapter reads and prepares the data
// (tasks/<task>.cc); scoring, serialising and resampling are the protocol's, the same code as
// `unieval score --metric NAME --json`.
//
//   TaskMetric bleu;
//   bleu.id = "bleu-coco";  bleu.call = {"bleu-coco", {}};
//   bleu.signature = "bleu-coco|n:4|option:closest";
//   bleu.scores = {{"bleu4", "/Bleu_4", "fraction", "Bleu_4"}};   // CI from the Bleu_4 resample
//   score_task_metric(out, bleu, hyps, refs_by_segment, req);       // -> out.result, out.resampled
//
// Resources (the one policy, metrics/protocol.h): check_task_metric() runs the metric's resource
// check with the task's spelling of the flags (TaskMetric::hints) and `--skip-metric NAME` as the
// opt-out; a metric the user skipped (EvalRequest::skip_metrics) is neither checked nor scored,
// and skip_note() says so in the result.
//
// Fields: `pointer` is a JSON pointer into the metric's first emitted object ("/Bleu_4",
// "/nist_cum/3"); a null value makes the score NaN; METEOR's "NaN"/"Infinity" strings are read
// as numbers.
#include <string>
#include <vector>

#include "core/io.h"
#include "metrics/protocol.h"
#include "tasks/task.h"

namespace unieval::tasks {

// ScoreField and TaskMetric are declared in tasks/task.h.

// True when the user asked to leave `m` out (--skip-metric m.call.metric).
bool skipped(const EvalRequest& req, const TaskMetric& m);
// The note a skipped metric leaves in the result.
std::string skip_note(const TaskMetric& m);
// The metric's resource check (InputError naming what to set, and --skip-metric as the opt-out).
void check_task_metric(const TaskMetric& m);

// Scores m on hyps / per-segment references (or reference streams), appends its signature and
// scores to out.result and its resampling to out.resampled (when req.bootstrap > 0); returns the
// protocol's MetricRun (warnings, per-segment values).
metrics::MetricRun score_task_metric(TaskOutput& out, const TaskMetric& m,
                                     const std::vector<std::string>& hyps,
                                     const std::vector<std::vector<std::string>>& refs_by_segment,
                                     const EvalRequest& req);
metrics::MetricRun score_task_metric(TaskOutput& out, const TaskMetric& m,
                                     const core::Corpus& corpus, const EvalRequest& req);

// A number of a metric's JSON (null -> NaN, "NaN" / "Infinity" / "-Infinity" strings as numbers).
double json_number(const nlohmann::ordered_json& v);

}  // namespace unieval::tasks
