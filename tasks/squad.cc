#include "tasks/squad.h"

#include <chrono>
#include <memory>
#include <unordered_set>

#include "core/error.h"
#include "metrics/squad.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TaskOutput run_squad(const EvalRequest& req, metrics::SquadVersion forced) {
  auto t0 = Clock::now();
  metrics::SquadDataset data = metrics::load_squad_dataset(req.data);
  metrics::SquadPredictions preds = metrics::load_squad_predictions(req.pred);
  std::unique_ptr<metrics::SquadNaProbs> na;
  std::string na_file = option(req, "na_prob_file", "");
  if (!na_file.empty())
    na = std::make_unique<metrics::SquadNaProbs>(metrics::load_squad_na_probs(na_file));
  double load_s = seconds_since(t0);

  // Predictions for questions the data does not have: the official scripts ignore them, but
  // they almost always mean the wrong data file (v1.1 vs v2.0, dev vs test).
  std::unordered_set<std::string_view> known;
  for (const auto& q : data.questions) known.insert(q.id);
  std::vector<std::string_view> unknown;
  for (std::string_view id : preds.ids)
    if (!known.count(id)) unknown.push_back(id);
  if (!unknown.empty()) {
    std::string first;
    for (size_t i = 0; i < unknown.size() && i < 3; ++i)
      first += (i ? ", " : "") + std::string(unknown[i]);
    throw InputError(req.pred, 0,
                     std::to_string(unknown.size()) + " prediction(s) for question ids not in " +
                         req.data + " (first: " + first + ")");
  }

  metrics::SquadOptions opts;
  opts.version = forced;
  opts.na_prob_thresh = option_double(req, "na_prob_thresh", 1.0);
  std::string am = option(req, "allow_missing", "false");
  if (am != "true" && am != "false")
    throw InputError("--option allow_missing: expected true or false");
  opts.allow_missing = am == "true";
  auto t1 = Clock::now();
  metrics::SquadResult res = metrics::evaluate_squad(data, preds, na.get(), opts);
  double score_s = seconds_since(t1);

  TaskOutput out;
  results::RunResult& r = out.result;
  bool v2 = res.version == metrics::SquadVersion::kV2_0;
  r.task = v2 ? "squad-v2" : "squad-v1.1";
  r.split = req.split;
  if (r.split.empty()) r.split = req.data.find("train") != std::string::npos ? "train" : "dev";
  std::string id = v2 ? "squad-v2" : "squad-v1.1";
  nlohmann::ordered_json o = {{"version", v2 ? "2.0" : "1.1"},
                              {"script", v2 ? "evaluate-v2.0.py" : "evaluate-v1.1.py"}};
  if (v2) {
    o["na_prob_thresh"] = opts.na_prob_thresh;
    o["na_prob_file"] = !na_file.empty();
    o["allow_missing"] = opts.allow_missing;
  }
  r.metrics.push_back({id, res.signature, o});
  auto add = [&](const std::string& name, double v) {
    r.scores.push_back({name, v, id, "percent", true, std::nullopt});
  };
  if (!v2) {
    add("exact_match", res.exact_match);
    add("f1", res.f1);
    out.mean_decomposable["exact_match"] = res.item_exact;
    out.mean_decomposable["f1"] = res.item_f1;
  } else {
    add("exact", res.exact);
    add("f1", res.f1);
    out.mean_decomposable["exact"] = res.item_exact;
    out.mean_decomposable["f1"] = res.item_f1;
    if (res.has_ans_exact) add("HasAns_exact", *res.has_ans_exact);
    if (res.has_ans_f1) add("HasAns_f1", *res.has_ans_f1);
    if (res.no_ans_exact) add("NoAns_exact", *res.no_ans_exact);
    if (res.no_ans_f1) add("NoAns_f1", *res.no_ans_f1);
    if (res.best_exact) add("best_exact", *res.best_exact);
    if (res.best_exact_thresh) {
      add("best_exact_thresh", *res.best_exact_thresh);
      r.scores.back().unit = "raw";
    }
    if (res.best_f1) add("best_f1", *res.best_f1);
    if (res.best_f1_thresh) {
      add("best_f1_thresh", *res.best_f1_thresh);
      r.scores.back().unit = "raw";
    }
  }
  r.examples = v2 ? res.total : static_cast<long>(data.questions.size());
  if (v2)
    r.notes.push_back("total " + std::to_string(res.total) + ", HasAns_total " +
                      std::to_string(res.has_ans_total) + ", NoAns_total " +
                      std::to_string(res.no_ans_total));
  if (!res.missing.empty())
    r.notes.push_back(std::to_string(res.missing.size()) +
                      " question(s) without a prediction scored 0 (first: " + res.missing.front() +
                      ")");
  r.extra["official"] = res.to_json();
  for (size_t i = 0; i < res.item_ids.size(); ++i) {
    results::ExampleScores e;
    e.id = std::string(res.item_ids[i]);
    e.scores[v2 ? "exact" : "exact_match"] = res.item_exact[i];
    e.scores["f1"] = res.item_f1[i];
    r.per_example.push_back(std::move(e));
  }
  r.timings.load_s = load_s;
  r.timings.score_s = score_s;
  return out;
}

TaskInfo squad_info(const std::string& name, const std::string& summary) {
  TaskInfo i;
  i.name = name;
  i.summary = summary;
  i.data_format = "official SQuAD JSON (dev-v1.1.json / dev-v2.0.json; .gz ok)";
  i.pred_format = "official prediction JSON {qid: answer}; \"\" = no answer";
  i.metrics =
      "EM / F1 of the official evaluate-v1.1.py or evaluate-v2.0.py (HasAns/NoAns, best "
      "thresholds)";
  i.default_split = "dev";
  i.options = {
      {"na_prob_file", "v2.0: JSON {qid: P(no answer)} (default none)"},
      {"na_prob_thresh", "v2.0: no-answer threshold (default 1.0)"},
      {"allow_missing", "v2.0: true = missing predictions score 0 (default false: error)"}};
  return i;
}

}  // namespace

std::vector<TaskAdapter> squad_adapters() {
  return {
      {squad_info("squad", "SQuAD v1.1 or v2.0 (version from the data file)"),
       [](const EvalRequest& r) { return run_squad(r, metrics::SquadVersion::kAuto); }},
      {squad_info("squad-v1.1", "SQuAD v1.1 (evaluate-v1.1.py)"),
       [](const EvalRequest& r) { return run_squad(r, metrics::SquadVersion::kV1_1); }},
      {squad_info("squad-v2", "SQuAD v2.0 (evaluate-v2.0.py)"),
       [](const EvalRequest& r) { return run_squad(r, metrics::SquadVersion::kV2_0); }},
  };
}

}  // namespace unieval::tasks
