#include "tasks/coqa.h"

#include <chrono>
#include <set>

#include "core/error.h"
#include "metrics/coqa.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;

TaskOutput run_coqa(const EvalRequest& req, const std::string& key) {
  auto t0 = Clock::now();
  metrics::CoqaDataset data = metrics::load_coqa_dataset(req.data);
  metrics::CoqaPredictions preds = metrics::load_coqa_predictions(req.pred);
  // Predictions for turns the data does not have: the official script ignores them silently.
  std::set<std::pair<std::string, long>> known;
  for (const auto& t : data.turns) known.insert({t.story_id, t.turn_id});
  for (const auto& [k, v] : preds.answers)
    if (!known.count(k))
      throw InputError(req.pred, 0,
                       "prediction for id " + k.first + " turn " + std::to_string(k.second) +
                           " which is not in " + req.data);
  auto t1 = Clock::now();
  metrics::CoqaResult res = metrics::evaluate_coqa(data, preds);
  TaskOutput out;
  auto& r = out.result;
  r.task = key;
  r.split = req.split.empty() ? "dev" : req.split;
  r.examples = static_cast<long>(data.turns.size());
  r.metrics.push_back({"coqa", res.signature, {{"script", "evaluate-v1.0.py"}}});
  auto add = [&](const std::string& name, double v) {
    r.scores.push_back({name, v, "coqa", "percent", true, std::nullopt});
  };
  for (const auto& row : res.rows) {
    if (row.name == "overall") {
      add("em", row.em);
      add("f1", row.f1);
    }
  }
  for (const auto& row : res.rows) {
    if (row.name == "in_domain" || row.name == "out_domain") {
      add(row.name + "_em", row.em);
      add(row.name + "_f1", row.f1);
    }
  }
  out.mean_decomposable["em"] = res.item_em;
  out.mean_decomposable["f1"] = res.item_f1;
  if (key == "coqa-gen") {
    // Generated answers (a missing one as ""), against each turn's first gold answer; the
    // extractive task's spans are no generated text.
    for (const auto& t : data.turns) {
      auto it = preds.answers.find({t.story_id, t.turn_id});
      out.hypotheses.push_back(it == preds.answers.end() ? std::string() : it->second);
      out.first_references.push_back(t.golds.empty() ? std::string() : t.golds.front());
    }
  }
  if (!res.missing.empty())
    r.notes.push_back(std::to_string(res.missing.size()) +
                      " turn(s) without a prediction scored 0 (first: " + res.missing.front() +
                      ")");
  for (const auto& w : data.warnings) r.notes.push_back(w);
  r.extra["official"] = res.to_json(true);
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

TaskInfo coqa_info(const std::string& name, const std::string& summary) {
  TaskInfo i;
  i.name = name;
  i.summary = summary;
  i.data_format = "official CoQA JSON (coqa-dev-v1.0.json)";
  i.pred_format = "official predictions [{\"id\", \"turn_id\", \"answer\"}]";
  i.metrics = "official evaluate-v1.0.py EM/F1: overall, in-domain, out-of-domain";
  i.default_split = "dev";
  return i;
}

}  // namespace

std::vector<TaskAdapter> coqa_adapters() {
  return {{coqa_info("coqa", "CoQA conversational QA, extractive (evaluate-v1.0.py)"),
           [](const EvalRequest& r) { return run_coqa(r, "coqa"); }},
          {coqa_info("coqa-gen", "CoQA, generative answers (same official evaluator)"),
           [](const EvalRequest& r) { return run_coqa(r, "coqa-gen"); }}};
}

}  // namespace unieval::tasks
