#include "tasks/gpt_tasks.h"

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "core/error.h"
#include "core/io.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;
using namespace gpt_files;

// label text -> canonical label, nullopt when not a label of the task.
using Canon = std::function<std::optional<std::string>(const std::string&)>;

struct Prediction {
  std::string id;  // "" when the file has no ids
  std::string label;
  long line = 0;
};

std::vector<Prediction> read_predictions(const std::string& path, const Canon& canon,
                                         const std::string& expected) {
  std::string text = core::read_file(path);
  std::vector<Prediction> out;
  auto bad_label = [&](long line, const std::string& label) {
    return InputError(path, line,
                      "'" + label + "' is not a label of this task (expected " + expected + ")");
  };
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&
                 e) {  // parse_error, and out_of_range for a number that overflows
      throw InputError(path, 0, std::string("invalid JSON: ") + e.what());
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string v = it->is_string()           ? it->get<std::string>()
                      : it->is_number_integer() ? std::to_string(it->get<long>())
                                                : "";
      if (v.empty())
        throw InputError(path, 0, "id '" + it.key() + "': expected a string or integer label");
      auto c = canon(trim(v));
      if (!c)
        throw InputError(path, 0,
                         "id '" + it.key() + "': '" + v +
                             "' is not a label of this task (expected " + expected + ")");
      out.push_back({it.key(), *c, 0});
    }
    return out;
  }
  std::vector<std::string> lines = core::split_lines(text, path);
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  bool with_ids = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find('\t') != std::string::npos || l.find(',') != std::string::npos;
  });
  for (size_t i = 0; i < lines.size(); ++i) {
    long ln = static_cast<long>(i + 1);
    if (!with_ids) {
      std::string l = trim(lines[i]);
      if (l.empty()) throw InputError(path, ln, "empty line (one label per line expected)");
      auto c = canon(l);
      if (!c) throw bad_label(ln, l);
      out.push_back({"", *c, ln});
      continue;
    }
    char sep = lines[i].find('\t') != std::string::npos ? '\t' : ',';
    std::vector<std::string> f = split_char(lines[i], sep);
    if (f.size() != 2)
      throw InputError(path, ln,
                       "expected 'id<TAB>label' (2 fields), found " + std::to_string(f.size()));
    std::string id = trim(f[0]), label = trim(f[1]);
    auto c = canon(label);
    if (!c) {
      if (i == 0) continue;  // a header line
      throw bad_label(ln, label);
    }
    if (id.empty()) throw InputError(path, ln, "empty id");
    out.push_back({id, *c, ln});
  }
  if (out.empty()) throw InputError(path, 0, "no predictions");
  return out;
}

// Aligns predictions with examples and scores them.
TaskOutput score_accuracy(const EvalRequest& req, const std::string& task,
                          const std::vector<Example>& all, const Canon& canon,
                          const std::string& expected, Clock::time_point t0,
                          const std::string& unscored_what = "no gold label") {
  std::vector<Prediction> preds = read_predictions(req.pred, canon, expected);
  std::vector<size_t> scored;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].scored) scored.push_back(i);
  if (scored.empty()) throw InputError(req.data, 0, "no examples to score");
  std::vector<std::string> label(all.size());
  if (preds.front().id.empty()) {
    if (preds.size() == scored.size()) {
      for (size_t k = 0; k < scored.size(); ++k) label[scored[k]] = preds[k].label;
    } else if (preds.size() == all.size()) {
      for (size_t k = 0; k < all.size(); ++k) label[k] = preds[k].label;
    } else {
      std::string counts = std::to_string(scored.size());
      if (scored.size() != all.size())
        counts += " (or " + std::to_string(all.size()) + " with the unscored ones)";
      throw InputError(
          req.pred, 0,
          std::to_string(preds.size()) + " predictions for " + counts + " examples in " + req.data);
    }
  } else {
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < all.size(); ++i) index.emplace(all[i].id, i);
    std::unordered_map<std::string, long> seen;
    for (const auto& p : preds) {
      auto it = index.find(p.id);
      if (it == index.end())
        throw InputError(req.pred, p.line, "id '" + p.id + "' is not in " + req.data);
      auto [s, fresh] = seen.emplace(p.id, p.line);
      if (!fresh)
        throw InputError(
            req.pred, p.line,
            "id '" + p.id + "' predicted twice (first on line " + std::to_string(s->second) + ")");
      label[it->second] = p.label;
    }
    std::vector<std::string> missing;
    for (size_t i : scored)
      if (label[i].empty()) missing.push_back(all[i].id);
    if (!missing.empty())
      throw InputError(req.pred, 0,
                       std::to_string(missing.size()) +
                           " example(s) without a prediction (first: " + missing.front() + ")");
  }
  auto t1 = Clock::now();
  TaskOutput out;
  auto& r = out.result;
  r.task = task;
  r.split = req.split.empty() ? "test" : req.split;
  r.examples = static_cast<long>(scored.size());
  r.metrics.push_back({"accuracy", "accuracy|task:" + task, {{"labels", expected}}});
  std::vector<double> correct;
  std::map<std::string, std::pair<double, double>> by_group;  // group -> (correct, total)
  for (size_t i : scored) {
    double c = label[i] == all[i].gold ? 1.0 : 0.0;
    correct.push_back(c);
    if (!all[i].group.empty()) {
      by_group[all[i].group].first += c;
      by_group[all[i].group].second += 1;
    }
    results::ExampleScores e;
    e.id = all[i].id;
    e.scores["accuracy"] = c;
    r.per_example.push_back(std::move(e));
  }
  double sum = 0;
  for (double c : correct) sum += c;
  r.scores.push_back({"accuracy", sum / static_cast<double>(correct.size()), "accuracy", "fraction",
                      true, std::nullopt});
  out.mean_decomposable["accuracy"] = correct;
  if (by_group.size() > 1)
    for (const auto& [g, ct] : by_group)
      r.scores.push_back(
          {"accuracy_" + g, ct.first / ct.second, "accuracy", "fraction", true, std::nullopt});
  if (scored.size() != all.size())
    r.notes.push_back(std::to_string(all.size() - scored.size()) +
                      " example(s) in the data not scored (" + unscored_what + ")");
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

// ---- SNLI ---------------------------------------------------------------------------------

TaskInfo info(const std::string& name, const std::string& summary, const std::string& data,
              const std::string& labels) {
  TaskInfo i;
  i.name = name;
  i.summary = summary;
  i.data_format = data;
  i.pred_format =
      "one label per line (" + labels + "), id<TAB>label lines, or a JSON object {id: label}";
  i.metrics = "accuracy (GPT Tables 2/3)";
  i.default_split = "test";
  return i;
}

}  // namespace

std::vector<TaskAdapter> gpt_tasks_adapters() {
  std::vector<TaskAdapter> out;
  out.push_back(
      {info("snli", "SNLI natural language inference (accuracy; gold '-' pairs not scored)",
            "snli_1.0_{dev,test}.jsonl or .txt (gold_label, pairID)",
            "entailment/neutral/contradiction or 0/1/2"),
       [](const EvalRequest& r) {
         auto t0 = Clock::now();
         return score_accuracy(r, "snli", read_snli(r.data), snli_label,
                               "entailment, neutral, contradiction", t0);
       }});
  out.push_back({info("scitail", "SciTail entailment (accuracy)",
                      "scitail_1.0_{dev,test}.tsv (premise, hypothesis, label)", "entails/neutral"),
                 [](const EvalRequest& r) {
                   auto t0 = Clock::now();
                   return score_accuracy(r, "scitail", read_scitail(r.data), scitail_label,
                                         "entails, neutral", t0);
                 }});
  for (const auto& [key, level] : std::vector<std::pair<std::string, std::string>>{
           {"race", ""}, {"race-m", "middle"}, {"race-h", "high"}}) {
    std::string what = level.empty() ? "RACE reading comprehension (accuracy; + middle/high)"
                                     : "RACE " + level + "-school questions (accuracy)";
    std::string k = key, lv = level;
    out.push_back(
        {info(key, what, "RACE folder (RACE/test[/high|/middle]) or one article JSON file",
              "A-D or 0-3"),
         [k, lv](const EvalRequest& r) {
           auto t0 = Clock::now();
           auto all = read_race(r.data, lv);
           return score_accuracy(r, k, all, race_label, "A, B, C, D", t0, "the other school level");
         }});
  }
  out.push_back(
      {info("story-cloze", "Story Cloze Test (accuracy)",
            "cloze_test_{val,test}__spring2016 CSV (InputStoryid, AnswerRightEnding)", "1/2"),
       [](const EvalRequest& r) {
         auto t0 = Clock::now();
         return score_accuracy(r, "story-cloze", read_story_cloze(r.data), cloze_label, "1, 2", t0);
       }});
  out.push_back(
      {info("dprd", "Definite Pronoun Resolution (Winograd schemas; accuracy; GPT §5 zero-shot)",
            "DPRD train.c.txt / test.c.txt (4-line blocks: sentence, pronoun, candidates, answer)",
            "0/1: the candidate"),
       [](const EvalRequest& r) {
         auto t0 = Clock::now();
         return score_accuracy(r, "dprd", read_dprd(r.data), dprd_label, "0, 1", t0);
       }});
  return out;
}

}  // namespace unieval::tasks
