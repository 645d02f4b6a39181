#pragma once
// Task adapters: a dataset in its original distribution format + a file of system outputs ->
// the task's official metric set, computed the way the papers' authors computed it, as a
// RunResult (results/run_result.h). pipelines::evaluate() (pipelines/evaluate.h) runs an adapter
// with provenance and CIs; `unieval eval --task T --data PATH --pred FILE` is a thin shell over it.
//
//   unieval::tasks::EvalRequest req;
//   req.task = "squad-v2";
//   req.data = "dev-v2.0.json";          // official JSON (.gz ok)
//   req.pred = "predictions.json";       // {"qid": "answer", ...}
//   unieval::results::RunResult r = unieval::pipelines::evaluate(req);
//   r.score("f1")->value;                // 81.775... for BERT-large's published predictions
//
// Each adapter documents (TaskInfo) the data and prediction formats it reads, its metric set and
// the options it accepts (EvalRequest::options, `--option KEY=VALUE` on the command line).
// Malformed input (bad JSON, wrong column count, missing ids, predictions for unknown ids,
// missing predictions) is an InputError naming the file, the line or id, and the problem.
//
// The registered tasks (task_registry()) and what they compute:
//   squad-v1.1, squad-v2      official evaluate-v1.1.py / evaluate-v2.0.py EM and F1 (tasks/squad.h)
//   dstc7                     DSTC7 task 2 dstc.py: NIST, BLEU, METEOR, entropy, div, length (tasks/dstc7.h)
//   coqa, coqa-gen            official CoQA evaluate-v1.0 F1/EM (tasks/coqa.h)
//   glue-*                    GLUE metric of each task (tasks/glue.h)
//   personachat               ERNIE-GEN/PLATO BLEU-1/2, Distinct-1/2 (tasks/personachat.h)
//   cnndm, gigaword(-10k)     ROUGE-1.5.5 F1 of R-1/2/L; UniLM cnndm post-processing (tasks/summarization.h)
//   squad-qg(-reversed)       nqg/UniLM qg/eval.py: coco BLEU-4, METEOR, coco ROUGE-L (tasks/squad_qg.h)
//   snli, scitail, race(-m/-h), story-cloze   accuracy (tasks/gpt_tasks.h)
// (see task_registry() for the list compiled into this build)
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "metrics/bootstrap.h"
#include "metrics/protocol.h"
#include "results/run_result.h"

namespace unieval::tasks {

struct EvalRequest {
  std::string task;                            // task key ("squad-v2")
  std::string data;                            // dataset file or directory, original format
  std::string pred;                            // system output file
  std::string split;                           // "" = the task's default / guessed from data
  std::string system;                          // "" = the prediction file's name without extension
  std::map<std::string, std::string> options;  // task-specific options (TaskInfo::options)
  bool per_example = false;                    // keep per-example scores in the result
  std::vector<std::string> skip_metrics;       // metrics left out on request (--skip-metric meteor)
  int bootstrap = 0;                           // resamples for percentile-bootstrap CIs (0 = none)
  unsigned long long seed = 12345;             // bootstrap RNG seed
  double ci_level = 0.95;                      // CI coverage
  std::string paired_pred;    // a baseline's outputs: paired bootstrap of pred vs it
  std::string paired_system;  // the baseline's name ("" = its file name)
};

struct TaskInfo {
  std::string name;         // task key
  std::string summary;      // one line
  std::string data_format;  // what --data must be
  std::string pred_format;  // what --pred must be
  std::string metrics;      // the official metric set and the script it follows
  std::string default_split;
  std::vector<std::pair<std::string, std::string>> options;  // KEY -> help (with default)
};

// A decomposable metric's resampling: fn gives its values on a resample of `items` items;
// scores maps a score name to the index of its value.
struct ResampledScores {
  size_t items = 0;
  metrics::ScoreFn fn;
  std::map<std::string, size_t> scores;
};

// What an adapter returns: scores and signatures; pipelines::evaluate() adds provenance and timings.
struct TaskOutput {
  results::RunResult result;  // task/metrics/scores/examples/per_example/notes filled
  // Per-example values of scores that are plain means over examples (SQuAD EM/F1, accuracy):
  // score name -> one value per example; pipelines::evaluate() bootstraps their CIs
  // (pipelines::bootstrap_mean_ci, the one bootstrap of metrics/bootstrap.h).
  std::map<std::string, std::vector<double>> mean_decomposable;
  // Corpus scores of decomposable metrics scored through the protocol (tasks/metric_set.h):
  // pipelines::evaluate() bootstraps their CIs from the metric's own resampling function.
  std::vector<ResampledScores> resampled;
  // Generation tasks: the hypotheses as the metrics score them (after the adapter's own
  // post-processing) and the first reference of each (empty: the task scores without
  // references); pipelines::evaluate() computes the output diagnostics from them
  // (tasks/diagnostics.h: the result's "diagnostics" and warnings in its notes). Empty for tasks
  // whose outputs are labels, choices or extracted spans.
  std::vector<std::string> hypotheses;
  std::vector<std::string> first_references;
};

// One metric of a task's official set, as data (tasks/metric_set.h scores it).
struct ScoreField {
  ScoreField(std::string n, std::string p, std::string u, std::string r = "", std::string c = "")
      : name(std::move(n)),
        pointer(std::move(p)),
        unit(std::move(u)),
        resample(std::move(r)),
        ci(std::move(c)) {}
  std::string name;     // score key in the result ("bleu4")
  std::string pointer;  // JSON pointer into the metric's object ("/Bleu_4")
  std::string unit;     // results::Score::unit ("fraction", "raw", "nats", "tokens", "percent")
  std::string
      resample;    // value name of the metric's resampling whose CI the score takes ("" = none)
  std::string ci;  // JSON pointer to the metric's own [low, high] of the score ("" = none)
};

struct TaskMetric {
  std::string id;                  // results::MetricSignature::id ("bleu-coco", "mteval")
  metrics::MetricCall call;        // registry metric and option values
  std::vector<ScoreField> scores;  // in the task's official order
  std::string signature;         // the recorded signature; "" = the metric's own "signature" field
  std::string signature_suffix;  // appended (the task's preprocessing, "|tok:dstc7-clean_str")
  nlohmann::ordered_json options = nlohmann::ordered_json::object();  // MetricSignature::options
  metrics::ResourceHints hints;  // the task's spelling of resource flags (skip filled in)
  results::ConfidenceInterval
      ci;  // method, level, resamples of the metric's own CIs (ScoreField::ci)
};

struct TaskAdapter {
  using RunFn = std::function<TaskOutput(const EvalRequest&)>;
  using MetricsFn = std::function<std::vector<TaskMetric>(const EvalRequest&)>;
  TaskAdapter(TaskInfo i, RunFn r, MetricsFn m = nullptr)
      : info(std::move(i)), run(std::move(r)), metrics(std::move(m)) {}
  TaskInfo info;
  std::function<TaskOutput(const EvalRequest&)> run;
  // The official metric set the request scores (tasks/metric_set.h), before any data is read:
  // pipelines::check_eval_resources() checks its resources, --skip-metric names its entries.
  // Empty for tasks whose metric is their own official evaluator (SQuAD, CoQA, GLUE, accuracy).
  // req.data may be empty (a check before the data is written): the set with references.
  std::function<std::vector<TaskMetric>(const EvalRequest&)> metrics;
};

// Every task compiled into this build, in documentation order.
const std::vector<TaskAdapter>& task_registry();
// nullptr when unknown.
const TaskAdapter* find_task(const std::string& name);

// Option helpers for adapters: the value of KEY, or def; InputError when an option is not one
// the task declares (caught centrally by pipelines::evaluate()).
std::string option(const EvalRequest& req, const std::string& key, const std::string& def);
double option_double(const EvalRequest& req, const std::string& key, double def);

}  // namespace unieval::tasks
