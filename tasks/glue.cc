#include "tasks/glue.h"

#include <chrono>
#include <cmath>

#include "core/error.h"
#include "metrics/glue.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;

TaskOutput run_glue(const EvalRequest& req, metrics::GlueTask task) {
  auto t0 = Clock::now();
  std::vector<double> gold = metrics::read_glue_labels(req.data, task);
  std::vector<double> pred = metrics::read_glue_labels(req.pred, task);
  if (gold.size() != pred.size())
    throw InputError(req.pred, 0,
                     std::to_string(pred.size()) + " predictions for " +
                         std::to_string(gold.size()) + " examples in " + req.data);
  auto t1 = Clock::now();
  metrics::GlueResult g = metrics::glue_compute_metrics(task, gold, pred);
  TaskOutput out;
  auto& r = out.result;
  r.task = std::string("glue-") + metrics::glue_task_name(task);
  r.split = req.split.empty() ? "dev" : req.split;
  r.examples = static_cast<long>(gold.size());
  r.metrics.push_back({"glue", g.signature, {{"task", metrics::glue_task_name(task)}}});
  auto add = [&](const char* name, const std::optional<double>& v) {
    if (v) r.scores.push_back({name, *v, "glue", "fraction", true, std::nullopt});
  };
  add("accuracy", g.accuracy);
  add("f1", g.f1);
  add("acc_and_f1", g.acc_and_f1);
  add("mcc", g.matthews_corrcoef);
  // Pearson/Spearman NaN on constant input is reported as NaN (null in JSON), not dropped.
  if (task == metrics::GlueTask::kStsb) {
    r.scores.push_back(
        {"pearson", g.pearson.value_or(std::nan("")), "glue", "fraction", true, std::nullopt});
    r.scores.push_back(
        {"spearman", g.spearmanr.value_or(std::nan("")), "glue", "fraction", true, std::nullopt});
    r.scores.push_back(
        {"corr", g.corr.value_or(std::nan("")), "glue", "fraction", true, std::nullopt});
  }
  for (const auto& w : g.warnings) r.notes.push_back(w);
  if (g.accuracy) {
    std::vector<double> correct(gold.size());
    for (size_t i = 0; i < gold.size(); ++i) correct[i] = gold[i] == pred[i] ? 1.0 : 0.0;
    out.mean_decomposable["accuracy"] = correct;
  }
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

}  // namespace

std::vector<TaskAdapter> glue_adapters() {
  using metrics::GlueTask;
  std::vector<TaskAdapter> out;
  for (GlueTask t : {GlueTask::kCola, GlueTask::kSst2, GlueTask::kMrpc, GlueTask::kStsb,
                     GlueTask::kQqp, GlueTask::kMnli, GlueTask::kMnliMm, GlueTask::kQnli,
                     GlueTask::kRte, GlueTask::kWnli, GlueTask::kAx}) {
    TaskInfo i;
    i.name = std::string("glue-") + metrics::glue_task_name(t);
    i.summary = std::string("GLUE ") + metrics::glue_task_name(t) + " (HF glue_compute_metrics)";
    i.data_format = "the task's GLUE dev TSV (or HF export sentence1 sentence2 label idx)";
    i.pred_format = "GLUE submission (index<TAB>prediction) or one label per line";
    i.metrics = "accuracy / f1 / mcc / pearson+spearman as the task defines";
    i.default_split = "dev";
    out.push_back({i, [t](const EvalRequest& r) { return run_glue(r, t); }});
  }
  return out;
}

}  // namespace unieval::tasks
