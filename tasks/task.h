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
  int bootstrap = 0;                           // resamples for percentile-bootstrap CIs (0 = none)
  unsigned long long seed = 12345;             // bootstrap RNG seed
  double ci_level = 0.95;                      // CI coverage
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

// What an adapter returns: scores and signatures; pipelines::evaluate() adds provenance and timings.
struct TaskOutput {
  results::RunResult result;  // task/metrics/scores/examples/per_example/notes filled
  // Per-example values of scores that are plain means over examples (SQuAD EM/F1, accuracy):
  // score name -> one value per example; pipelines::evaluate() bootstraps their CIs
  // (pipelines::bootstrap_mean_ci, the one bootstrap of metrics/bootstrap.h).
  std::map<std::string, std::vector<double>> mean_decomposable;
};

struct TaskAdapter {
  TaskInfo info;
  std::function<TaskOutput(const EvalRequest&)> run;
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
