// family_qa.cc: the qa family of the metric protocol (metrics/protocol.h):
//   --metric squad       SQuAD v1.1 / v2.0 official EM/F1 (+ HasAns/NoAns, best thresholds)
//   --metric coqa        CoQA official evaluate-v1.0.py domain table
//   --metric glue        GLUE task metrics (HF glue_compute_metrics semantics)
//   --metric glue-score  GLUE benchmark average of task results
//   --metric distinct    Distinct-n: DSTC7 div-n / PLATO & ERNIE-GEN intra/inter distinct
//   --metric entropy     DSTC7 Entropy-n
// Corpus metrics (squad, coqa, glue) take --bootstrap N --seed S and --paired-bootstrap FILE.
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "core/error.h"
#include "core/io.h"
#include "core/parallel.h"
#include "metrics/bootstrap.h"
#include "metrics/coqa.h"
#include "metrics/distinct.h"
#include "metrics/entropy.h"
#include "metrics/glue.h"
#include "metrics/protocol.h"
#include "metrics/squad.h"

namespace unieval::metrics {

namespace {

namespace m = unieval::metrics;
using nlohmann::ordered_json;

std::string required(const OptionValues& ov, const char* flag, const std::string& metric) {
  if (!ov.count(flag))
    throw InputError(std::string("--") + flag + " FILE is required for --metric " + metric);
  return ov.str(flag);
}

// ---- squad ------------------------------------------------------------------------------

std::vector<OptionSpec> squad_specs() {
  std::vector<OptionSpec> o = {
      string_option("data", std::nullopt,
                    "SQuAD data file (dev-v1.1.json / dev-v2.0.json; .gz ok)."),
      string_option("pred", std::nullopt, "Predictions: JSON object {question id: answer text}."),
      string_option("na-prob", std::nullopt,
                    "v2.0: JSON object {question id: no-answer probability} "
                    "(adds best_exact/best_f1 and their thresholds)."),
      double_option("na-prob-thresh", 1.0,
                    "v2.0: predict no-answer when na_prob > T (official default 1.0).", "thresh"),
      string_option(
          "squad-version", "auto",
          "1.1 | 2.0 | auto (from the data file's \"version\"; else 2.0 if some question has no "
          "answer or an is_impossible key).",
          "v"),
      flag_option(
          "allow-missing",
          "v2.0: score questions without a prediction 0 instead of failing (v1.1 always does, as "
          "the official script).",
          "missing"),
      threads_option(0,
                     "the data and prediction files are read side by side and questions "
                     "scored in parallel")};
  for (auto& b : bootstrap_option_specs(
           "Second prediction file: paired bootstrap p-value of --pred against it."))
    o.push_back(b);
  return o;
}

m::SquadOptions squad_options(const OptionValues& ov) {
  m::SquadOptions o;
  std::string v = ov.str("squad-version");
  if (v == "1.1" || v == "v1.1")
    o.version = m::SquadVersion::kV1_1;
  else if (v == "2.0" || v == "v2.0")
    o.version = m::SquadVersion::kV2_0;
  else if (v != "auto")
    throw InputError("--squad-version must be 1.1, 2.0 or auto (got '" + v + "')");
  o.na_prob_thresh = ov.real("na-prob-thresh");
  o.allow_missing = ov.flag("allow-missing");
  o.threads = ov.integer("threads");
  return o;
}

m::ScoreFn squad_fn(const m::SquadResult& r) {
  return [&r](const std::vector<size_t>& idx) {
    double e = 0, f = 0;
    for (size_t i : idx) e += r.item_exact[i], f += r.item_f1[i];
    double n = static_cast<double>(idx.size());
    return std::vector<double>{100.0 * e / n, 100.0 * f / n};
  };
}

// SQuAD and CoQA read their data and prediction files side by side on two threads, whose
// allocations are few and large: one malloc arena serves both. A second arena would come in
// ordinary 4 KiB pages where the main heap has huge ones (main.cc): ~600 page faults, 10-15% of
// a SQuAD run. Set before any thread starts; METEOR and ROUGE, which allocate per segment on
// every thread, keep an arena per thread.
void one_malloc_arena() { mallopt(M_ARENA_MAX, 1); }

void run_squad(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  one_malloc_arena();
  m::SquadOptions opts = squad_options(ov);
  std::string data_path = required(ov, "data", "squad"), pred_path = required(ov, "pred", "squad");
  m::SquadDataset data;
  m::SquadPredictions preds;
  std::optional<m::SquadNaProbs> na;
  core::run_concurrently([&] { data = m::load_squad_dataset(data_path); },
                         [&] {
                           preds = m::load_squad_predictions(pred_path);
                           if (ov.count("na-prob")) na = m::load_squad_na_probs(ov.str("na-prob"));
                         },
                         core::resolve_threads(opts.threads) > 1);
  if (opts.version == m::SquadVersion::kAuto && data.version.empty())
    sc.warn(
        data.source + " has no \"version\"; using SQuAD " +
        (m::resolve_squad_version(data, opts.version) == m::SquadVersion::kV2_0 ? "2.0" : "1.1") +
        " (set --squad-version to choose)");
  auto r = m::evaluate_squad(data, preds, na ? &*na : nullptr, opts);
  if (!r.missing.empty())
    sc.warn(std::to_string(r.missing.size()) + " question(s) without a prediction in " + pred_path +
            " scored 0 (first: " + r.missing[0] + ")");
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  bool v2 = r.version == m::SquadVersion::kV2_0;
  std::vector<std::string> names =
      v2 ? std::vector<std::string>{"exact", "f1"} : std::vector<std::string>{"exact_match", "f1"};
  std::optional<m::SquadResult> other;
  if (ov.count("paired-bootstrap")) {
    other = m::evaluate_squad(data, m::load_squad_predictions(ov.str("paired-bootstrap")),
                              na ? &*na : nullptr, opts);
    if (other->item_ids != r.item_ids)
      throw InputError(ov.str("paired-bootstrap"), 0,
                       "does not cover the same questions as --pred");
  }
  if (ov.integer("bootstrap") > 0 || other) {
    m::ScoreFn base;
    if (other) base = squad_fn(*other);
    add_resampling(j, ov, r.item_ids.size(), names, squad_fn(r), other ? &base : nullptr);
  }
  sc.emit(j);
  return;
}

// ---- coqa -------------------------------------------------------------------------------

std::vector<OptionSpec> coqa_specs() {
  std::vector<OptionSpec> o = {
      string_option("data", std::nullopt, "CoQA data file (coqa-dev-v1.0.json; .gz ok)."),
      string_option("pred", std::nullopt,
                    "Predictions: JSON list of {\"id\", \"turn_id\", \"answer\"}."),
      flag_option(
          "rounded",
          "JSON values rounded to 1 decimal as the official table (default: full precision)."),
      threads_option(0, "the data and prediction files are read side by side")};
  for (auto& b : bootstrap_option_specs(
           "Second prediction file: paired bootstrap p-value (overall em/f1) against it."))
    o.push_back(b);
  return o;
}

m::ScoreFn coqa_fn(const m::CoqaResult& r) {
  return [&r](const std::vector<size_t>& idx) {
    double e = 0, f = 0;
    for (size_t i : idx) e += r.item_em[i], f += r.item_f1[i];
    double n = static_cast<double>(idx.size());
    return std::vector<double>{e / n * 100, f / n * 100};
  };
}

void run_coqa(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  one_malloc_arena();
  std::string data_path = required(ov, "data", "coqa"), pred_path = required(ov, "pred", "coqa");
  m::CoqaDataset data;
  m::CoqaPredictions preds;
  core::run_concurrently([&] { data = m::load_coqa_dataset(data_path); },
                         [&] { preds = m::load_coqa_predictions(pred_path); },
                         core::resolve_threads(ov.integer("threads")) > 1);
  auto r = m::evaluate_coqa(data, preds);
  for (const auto& w : data.warnings) sc.warn(w);
  if (!r.missing.empty())
    sc.warn(std::to_string(r.missing.size()) + " turn(s) without a prediction in " + pred_path +
            " scored 0 (first: " + r.missing[0] + ")");
  bool json = sc.json();
  ordered_json j = r.to_json(ov.flag("rounded"));
  j["signature"] = r.signature;
  std::optional<m::CoqaResult> other;
  if (ov.count("paired-bootstrap"))
    other = m::evaluate_coqa(data, m::load_coqa_predictions(ov.str("paired-bootstrap")));
  ordered_json extra;
  if (ov.integer("bootstrap") > 0 || other) {
    m::ScoreFn base;
    if (other) base = coqa_fn(*other);
    add_resampling(extra, ov, r.item_em.size(), {"overall_em", "overall_f1"}, coqa_fn(r),
                   other ? &base : nullptr);
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  }
  if (json) {
    sc.emit_json(j);
  } else {
    sc.print(r.table() + "signature = " + r.signature + "\n");
    if (!extra.empty()) sc.print(ScoreContext::human_lines(extra));
  }
  return;
}

// ---- glue -------------------------------------------------------------------------------

std::vector<OptionSpec> glue_specs() {
  std::vector<OptionSpec> o = {
      string_option("task", std::nullopt,
                    "cola | sst2 | mrpc | stsb | qqp | mnli | mnli-mm | qnli | rte | wnli | ax",
                    "task"),
      string_option(
          "gold", std::nullopt,
          "Gold labels: the task's GLUE TSV (dev.tsv, dev_matched.tsv, ...; HF export with a "
          "'label' column too) or one label per line."),
      string_option("pred", std::nullopt,
                    "Predictions: one label per line (names or numbers), or a "
                    "GLUE submission file (index<TAB>prediction).")};
  for (auto& b :
       bootstrap_option_specs("Second prediction file: paired bootstrap p-values against it."))
    o.push_back(b);
  return o;
}

void run_glue(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  if (!ov.count("task")) throw InputError("--task is required for --metric glue");
  m::GlueTask task = m::parse_glue_task(ov.str("task"));
  std::string gold_path = required(ov, "gold", "glue"), pred_path = required(ov, "pred", "glue");
  auto gold = m::read_glue_labels(gold_path, task);
  auto pred = m::read_glue_labels(pred_path, task);
  if (gold.size() != pred.size())
    throw InputError(pred_path, 0,
                     "has " + std::to_string(pred.size()) + " predictions but " + gold_path +
                         " has " + std::to_string(gold.size()) + " labels");
  auto r = m::glue_compute_metrics(task, gold, pred);
  for (const auto& w : r.warnings) sc.warn(w);
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  std::vector<std::string> names;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "signature") names.push_back(it.key());
  auto fn_for = [task, &names](const std::vector<double>& g, const std::vector<double>& p) {
    return m::ScoreFn([task, &names, &g, &p](const std::vector<size_t>& idx) {
      std::vector<double> gs, ps;
      gs.reserve(idx.size());
      ps.reserve(idx.size());
      for (size_t i : idx) gs.push_back(g[i]), ps.push_back(p[i]);
      ordered_json v = m::glue_compute_metrics(task, gs, ps).to_json();
      std::vector<double> out;
      for (const auto& n : names) out.push_back(v[n].is_null() ? std::nan("") : v[n].get<double>());
      return out;
    });
  };
  std::vector<double> other;
  if (ov.count("paired-bootstrap")) {
    other = m::read_glue_labels(ov.str("paired-bootstrap"), task);
    if (other.size() != gold.size())
      throw InputError(ov.str("paired-bootstrap"), 0, "has a different number of predictions");
  }
  if (ov.integer("bootstrap") > 0 || ov.count("paired-bootstrap")) {
    m::ScoreFn base = fn_for(gold, other);
    add_resampling(j, ov, gold.size(), names, fn_for(gold, pred),
                   ov.count("paired-bootstrap") ? &base : nullptr);
  }
  sc.emit(j);
  return;
}

std::vector<OptionSpec> glue_score_specs() {
  return {string_option(
              "results", std::nullopt,
              "JSON object {task: {metric: value}}: CoLA mcc, SST-2 acc, MRPC f1+acc, STS-B "
              "pearson+spearman, QQP f1+acc, MNLI-m acc, MNLI-mm acc, QNLI acc, RTE acc, WNLI acc "
              "(AX optional, never averaged); `--metric glue --json` field names work too."),
          string_option(
              "mnli-convention", "avg",
              "avg: MNLI = mean(MNLI-m, MNLI-mm) as one of 9 tasks (the GLUE leaderboard score); "
              "m-only: MNLI-m alone. Both are always in the JSON.",
              "mnli")};
}

void run_glue_score(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  std::string path =
      ov.count("results") ? ov.str("results") : (ov.count("hyp") ? ov.str("hyp") : "");
  if (path.empty()) throw InputError("--results FILE is required for --metric glue-score");
  std::string text = core::read_file(path);
  nlohmann::json tm;
  try {
    tm = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&
               e) {  // parse_error, and out_of_range for a number that overflows
    throw InputError(path, 0, std::string("invalid JSON: ") + e.what());
  }
  m::GlueScoreOptions o;
  std::string c = ov.str("mnli-convention");
  if (c == "avg")
    o.mnli = m::GlueMnliConvention::kAverage;
  else if (c == "m-only")
    o.mnli = m::GlueMnliConvention::kMatchedOnly;
  else
    throw InputError("--mnli-convention must be avg or m-only (got '" + c + "')");
  auto g = m::glue_score(tm, o, path);
  ordered_json j = g.to_json();
  j["signature"] = g.signature;
  sc.emit(j);
  return;
}

// ---- distinct / entropy -------------------------------------------------------------------

std::vector<OptionSpec> distinct_specs() {
  return {
      string_option(
          "flavour", "dstc7",
          "dstc7: corpus div_1/div_2 + avg_len (DSTC7 metrics.py, split()); plato: intra/inter "
          "distinct (PLATO metrics.py, split()); ernie-gen: the same on strip().split(\" \") "
          "tokens."),
      string_option("n", "1,2", "n-gram orders, comma-separated."),
      flag_option("dstc7-clean", "Apply DSTC7's clean_str tokenisation first (dstc.py --clean).")};
}

void run_distinct(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::DistinctOptions o;
  o.flavour = m::parse_distinct_flavour(ov.str("flavour"));
  o.orders = parse_int_list(ov.str("n"), "--n");
  o.dstc7_clean = ov.flag("dstc7-clean");
  auto r = m::distinct(sc.hyps(), o);
  for (size_t i = 0; i < r.div.size(); ++i)
    if (!r.div[i])
      sc.warn("no " + std::to_string(r.orders[i]) + "-gram in the corpus: div_" +
              std::to_string(r.orders[i]) +
              " is undefined (null; DSTC7's calc_diversity raises ZeroDivisionError)");
  if (o.flavour == m::DistinctFlavour::kDstc7 && !r.avg_len)
    sc.warn("empty corpus: avg_len is undefined (null)");
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  sc.emit(j);
  return;
}

std::vector<OptionSpec> entropy_specs() {
  return {
      string_option("n", "1,2,3,4", "n-gram orders, comma-separated."),
      flag_option("dstc7-clean", "Apply DSTC7's clean_str tokenisation first (dstc.py --clean).")};
}

void run_entropy(ScoreContext& sc) {
  const OptionValues& ov = sc.values;
  m::EntropyOptions o;
  o.orders = parse_int_list(ov.str("n"), "--n");
  o.dstc7_clean = ov.flag("dstc7-clean");
  auto r = m::entropy(sc.hyps(), o);
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  sc.emit(j);
  return;
}

}  // namespace

void register_qa_metrics(MetricRegistry& reg) {
  reg.push_back({"squad", "SQuAD v1.1/v2.0 EM/F1 (official evaluate-v1.1.py / evaluate-v2.0.py)",
                 squad_specs(), run_squad, "squad", nullptr});
  reg.push_back({"coqa", "CoQA EM/F1 domain table (official evaluate-v1.0.py)", coqa_specs(),
                 run_coqa, "coqa", nullptr});
  reg.push_back({"glue",
                 "GLUE task metrics (accuracy/F1/MCC/Pearson/Spearman, sklearn/scipy semantics)",
                 glue_specs(), run_glue, "glue", nullptr});
  reg.push_back({"glue-score", "GLUE benchmark average of task results (leaderboard convention)",
                 glue_score_specs(), run_glue_score, "glue-score", nullptr});
  reg.push_back({"distinct", "Distinct-n: DSTC7 div-n, PLATO / ERNIE-GEN intra/inter distinct",
                 distinct_specs(), run_distinct, "distinct", nullptr});
  reg.push_back({"entropy", "Entropy-n of the n-gram distribution (DSTC7 calc_entropy, nats)",
                 entropy_specs(), run_entropy, "entropy", nullptr});
}

}  // namespace unieval::metrics
