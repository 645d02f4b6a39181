// score_qa.cc: the qa metric family of `unieval score`:
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
#include <iostream>

#include "apps/unieval/score.h"
#include "metrics/coqa.h"
#include "metrics/bootstrap.h"
#include "core/error.h"
#include "core/io.h"
#include "core/parallel.h"
#include "metrics/distinct.h"
#include "metrics/entropy.h"
#include "metrics/glue.h"
#include "metrics/squad.h"

namespace unieval::cli {

namespace {

namespace m = unieval::metrics;
using nlohmann::ordered_json;

std::string required(const po::variables_map& vm, const char* flag, const std::string& metric) {
  if (!vm.count(flag)) throw InputError(std::string("--") + flag + " FILE is required for --metric " + metric);
  return vm[flag].as<std::string>();
}

void add_bootstrap_options(po::options_description& d, const char* other_what) {
  d.add_options()
      ("bootstrap", po::value<int>()->default_value(0),
       "Bootstrap resamples for confidence intervals (0 = off; e.g. 1000).")
      ("seed", po::value<unsigned long long>()->default_value(12345), "Bootstrap random seed.")
      ("confidence", po::value<double>()->default_value(0.95), "Bootstrap CI coverage.")
      ("paired-bootstrap", po::value<std::string>(), other_what);
}

m::BootstrapOptions bootstrap_options(const po::variables_map& vm) {
  m::BootstrapOptions o;
  o.resamples = vm["bootstrap"].as<int>();
  if (vm.count("paired-bootstrap") && o.resamples <= 0) o.resamples = 1000;
  o.seed = vm["seed"].as<unsigned long long>();
  o.confidence = vm["confidence"].as<double>();
  return o;
}

ordered_json num(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

// Adds "bootstrap" / "paired_bootstrap" objects for the named values.
void add_resampling(ordered_json& j, const po::variables_map& vm, size_t n, const std::vector<std::string>& names,
                    const m::ScoreFn& sys, const m::ScoreFn* base) {
  m::BootstrapOptions o = bootstrap_options(vm);
  if (vm["bootstrap"].as<int>() > 0) {
    auto ci = m::bootstrap_ci(n, sys, o);
    ordered_json b;
    for (size_t k = 0; k < names.size(); ++k)
      b[names[k]] = {{"mean", num(ci[k].mean)}, {"stddev", num(ci[k].stddev)}, {"low", num(ci[k].low)},
                     {"high", num(ci[k].high)}};
    b["signature"] = o.signature();
    j["bootstrap"] = b;
  }
  if (base) {
    auto pb = m::paired_bootstrap(n, sys, *base, o);
    ordered_json b;
    for (size_t k = 0; k < names.size(); ++k)
      b[names[k]] = {{"system", num(pb[k].system)}, {"baseline", num(pb[k].baseline)},
                     {"delta", num(pb[k].delta)}, {"p_value", num(pb[k].p_value)}};
    b["signature"] = o.signature();
    j["paired_bootstrap"] = b;
  }
}

// Human output: one "key = value" line per scalar, nested objects flattened with '.'.
void print_human(const ordered_json& j, const std::string& prefix = "") {
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string k = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) {
      print_human(*it, k);
    } else if (it->is_string()) {
      std::cout << k << " = " << it->get<std::string>() << "\n";
    } else {
      std::cout << k << " = " << it->dump() << "\n";
    }
  }
}

void emit(const po::variables_map& vm, const ordered_json& j) {
  if (want_json(vm)) print_json(j);
  else print_human(j);
}

// ---- squad ------------------------------------------------------------------------------

void add_squad_options(po::options_description& d) {
  d.add_options()
      ("data", po::value<std::string>(), "SQuAD data file (dev-v1.1.json / dev-v2.0.json; .gz ok).")
      ("pred", po::value<std::string>(), "Predictions: JSON object {question id: answer text}.")
      ("na-prob", po::value<std::string>(), "v2.0: JSON object {question id: no-answer probability} "
                                            "(adds best_exact/best_f1 and their thresholds).")
      ("na-prob-thresh", po::value<double>()->default_value(1.0),
       "v2.0: predict no-answer when na_prob > T (official default 1.0).")
      ("squad-version", po::value<std::string>()->default_value("auto"),
       "1.1 | 2.0 | auto (from the data file's \"version\"; else 2.0 if some question has no "
       "answer or an is_impossible key).")
      ("allow-missing", po::bool_switch(),
       "v2.0: score questions without a prediction 0 instead of failing (v1.1 always does, as "
       "the official script).");
  add_threads_option(d, "the data and prediction files are read side by side and questions "
                        "scored in parallel");
  add_bootstrap_options(d, "Second prediction file: paired bootstrap p-value of --pred against it.");
}

m::SquadOptions squad_options(const po::variables_map& vm) {
  m::SquadOptions o;
  std::string v = vm["squad-version"].as<std::string>();
  if (v == "1.1" || v == "v1.1") o.version = m::SquadVersion::kV1_1;
  else if (v == "2.0" || v == "v2.0") o.version = m::SquadVersion::kV2_0;
  else if (v != "auto") throw InputError("--squad-version must be 1.1, 2.0 or auto (got '" + v + "')");
  o.na_prob_thresh = vm["na-prob-thresh"].as<double>();
  o.allow_missing = vm["allow-missing"].as<bool>();
  o.threads = vm["threads"].as<int>();
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

int run_squad(const po::variables_map& vm) {
  one_malloc_arena();
  m::SquadOptions opts = squad_options(vm);
  std::string data_path = required(vm, "data", "squad"), pred_path = required(vm, "pred", "squad");
  m::SquadDataset data;
  m::SquadPredictions preds;
  std::optional<m::SquadNaProbs> na;
  run_concurrently([&] { data = m::load_squad_dataset(data_path); },
                   [&] {
                     preds = m::load_squad_predictions(pred_path);
                     if (vm.count("na-prob")) na = m::load_squad_na_probs(vm["na-prob"].as<std::string>());
                   },
                   resolve_threads(opts.threads) > 1);
  if (opts.version == m::SquadVersion::kAuto && data.version.empty())
    warn(data.source + " has no \"version\"; using SQuAD " +
         (m::resolve_squad_version(data, opts.version) == m::SquadVersion::kV2_0 ? "2.0" : "1.1") +
         " (set --squad-version to choose)");
  auto r = m::evaluate_squad(data, preds, na ? &*na : nullptr, opts);
  if (!r.missing.empty())
    warn(std::to_string(r.missing.size()) + " question(s) without a prediction in " + pred_path +
         " scored 0 (first: " + r.missing[0] + ")");
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  bool v2 = r.version == m::SquadVersion::kV2_0;
  std::vector<std::string> names = v2 ? std::vector<std::string>{"exact", "f1"}
                                      : std::vector<std::string>{"exact_match", "f1"};
  std::optional<m::SquadResult> other;
  if (vm.count("paired-bootstrap")) {
    other = m::evaluate_squad(data, m::load_squad_predictions(vm["paired-bootstrap"].as<std::string>()),
                              na ? &*na : nullptr, opts);
    if (other->item_ids != r.item_ids)
      throw InputError(vm["paired-bootstrap"].as<std::string>(), 0, "does not cover the same questions as --pred");
  }
  if (vm["bootstrap"].as<int>() > 0 || other) {
    m::ScoreFn base;
    if (other) base = squad_fn(*other);
    add_resampling(j, vm, r.item_ids.size(), names, squad_fn(r), other ? &base : nullptr);
  }
  emit(vm, j);
  return kExitOk;
}

// ---- coqa -------------------------------------------------------------------------------

void add_coqa_options(po::options_description& d) {
  d.add_options()
      ("data", po::value<std::string>(), "CoQA data file (coqa-dev-v1.0.json; .gz ok).")
      ("pred", po::value<std::string>(), "Predictions: JSON list of {\"id\", \"turn_id\", \"answer\"}.")
      ("rounded", po::bool_switch(),
       "JSON values rounded to 1 decimal as the official table (default: full precision).");
  add_threads_option(d, "the data and prediction files are read side by side");
  add_bootstrap_options(d, "Second prediction file: paired bootstrap p-value (overall em/f1) against it.");
}

m::ScoreFn coqa_fn(const m::CoqaResult& r) {
  return [&r](const std::vector<size_t>& idx) {
    double e = 0, f = 0;
    for (size_t i : idx) e += r.item_em[i], f += r.item_f1[i];
    double n = static_cast<double>(idx.size());
    return std::vector<double>{e / n * 100, f / n * 100};
  };
}

int run_coqa(const po::variables_map& vm) {
  one_malloc_arena();
  std::string data_path = required(vm, "data", "coqa"), pred_path = required(vm, "pred", "coqa");
  m::CoqaDataset data;
  m::CoqaPredictions preds;
  run_concurrently([&] { data = m::load_coqa_dataset(data_path); },
                   [&] { preds = m::load_coqa_predictions(pred_path); },
                   resolve_threads(vm["threads"].as<int>()) > 1);
  auto r = m::evaluate_coqa(data, preds);
  for (const auto& w : data.warnings) warn(w);
  if (!r.missing.empty())
    warn(std::to_string(r.missing.size()) + " turn(s) without a prediction in " + pred_path +
         " scored 0 (first: " + r.missing[0] + ")");
  bool json = want_json(vm);
  ordered_json j = r.to_json(vm["rounded"].as<bool>());
  j["signature"] = r.signature;
  std::optional<m::CoqaResult> other;
  if (vm.count("paired-bootstrap"))
    other = m::evaluate_coqa(data, m::load_coqa_predictions(vm["paired-bootstrap"].as<std::string>()));
  ordered_json extra;
  if (vm["bootstrap"].as<int>() > 0 || other) {
    m::ScoreFn base;
    if (other) base = coqa_fn(*other);
    add_resampling(extra, vm, r.item_em.size(), {"overall_em", "overall_f1"}, coqa_fn(r), other ? &base : nullptr);
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  }
  if (json) {
    print_json(j);
  } else {
    std::cout << r.table() << "signature = " << r.signature << "\n";
    if (!extra.empty()) print_human(extra);
  }
  return kExitOk;
}

// ---- glue -------------------------------------------------------------------------------

void add_glue_options(po::options_description& d) {
  d.add_options()
      ("task", po::value<std::string>(), "cola | sst2 | mrpc | stsb | qqp | mnli | mnli-mm | qnli | rte | wnli | ax")
      ("gold", po::value<std::string>(),
       "Gold labels: the task's GLUE TSV (dev.tsv, dev_matched.tsv, ...; HF export with a "
       "'label' column too) or one label per line.")
      ("pred", po::value<std::string>(), "Predictions: one label per line (names or numbers), or a "
                                         "GLUE submission file (index<TAB>prediction).");
  add_bootstrap_options(d, "Second prediction file: paired bootstrap p-values against it.");
}

int run_glue(const po::variables_map& vm) {
  if (!vm.count("task")) throw InputError("--task is required for --metric glue");
  m::GlueTask task = m::parse_glue_task(vm["task"].as<std::string>());
  std::string gold_path = required(vm, "gold", "glue"), pred_path = required(vm, "pred", "glue");
  auto gold = m::read_glue_labels(gold_path, task);
  auto pred = m::read_glue_labels(pred_path, task);
  if (gold.size() != pred.size())
    throw InputError(pred_path, 0, "has " + std::to_string(pred.size()) + " predictions but " + gold_path +
                                       " has " + std::to_string(gold.size()) + " labels");
  auto r = m::glue_compute_metrics(task, gold, pred);
  for (const auto& w : r.warnings) warn(w);
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
  if (vm.count("paired-bootstrap")) {
    other = m::read_glue_labels(vm["paired-bootstrap"].as<std::string>(), task);
    if (other.size() != gold.size())
      throw InputError(vm["paired-bootstrap"].as<std::string>(), 0, "has a different number of predictions");
  }
  if (vm["bootstrap"].as<int>() > 0 || vm.count("paired-bootstrap")) {
    m::ScoreFn base = fn_for(gold, other);
    add_resampling(j, vm, gold.size(), names, fn_for(gold, pred), vm.count("paired-bootstrap") ? &base : nullptr);
  }
  emit(vm, j);
  return kExitOk;
}

void add_glue_score_options(po::options_description& d) {
  d.add_options()
      ("results", po::value<std::string>(),
       "JSON object {task: {metric: value}}: CoLA mcc, SST-2 acc, MRPC f1+acc, STS-B "
       "pearson+spearman, QQP f1+acc, MNLI-m acc, MNLI-mm acc, QNLI acc, RTE acc, WNLI acc "
       "(AX optional, never averaged); `--metric glue --json` field names work too.")
      ("mnli-convention", po::value<std::string>()->default_value("avg"),
       "avg: MNLI = mean(MNLI-m, MNLI-mm) as one of 9 tasks (the GLUE leaderboard score); "
       "m-only: MNLI-m alone. Both are always in the JSON.");
}

int run_glue_score(const po::variables_map& vm) {
  std::string path = vm.count("results") ? vm["results"].as<std::string>()
                                         : (vm.count("hyp") ? vm["hyp"].as<std::string>() : "");
  if (path.empty()) throw InputError("--results FILE is required for --metric glue-score");
  std::string text = read_file(path);
  nlohmann::json tm;
  try {
    tm = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, std::string("invalid JSON: ") + e.what());
  }
  m::GlueScoreOptions o;
  std::string c = vm["mnli-convention"].as<std::string>();
  if (c == "avg") o.mnli = m::GlueMnliConvention::kAverage;
  else if (c == "m-only") o.mnli = m::GlueMnliConvention::kMatchedOnly;
  else throw InputError("--mnli-convention must be avg or m-only (got '" + c + "')");
  auto g = m::glue_score(tm, o, path);
  ordered_json j = g.to_json();
  j["signature"] = g.signature;
  emit(vm, j);
  return kExitOk;
}

// ---- distinct / entropy -------------------------------------------------------------------

void add_distinct_options(po::options_description& d) {
  d.add_options()
      ("flavour", po::value<std::string>()->default_value("dstc7"),
       "dstc7: corpus div_1/div_2 + avg_len (DSTC7 metrics.py, split()); plato: intra/inter "
       "distinct (PLATO metrics.py, split()); ernie-gen: the same on strip().split(\" \") tokens.")
      ("n", po::value<std::string>()->default_value("1,2"), "n-gram orders, comma-separated.")
      ("dstc7-clean", po::bool_switch(), "Apply DSTC7's clean_str tokenisation first (dstc.py --clean).");
}

int run_distinct(const po::variables_map& vm) {
  m::DistinctOptions o;
  o.flavour = m::parse_distinct_flavour(vm["flavour"].as<std::string>());
  o.orders = parse_int_list(vm["n"].as<std::string>(), "--n");
  o.dstc7_clean = vm["dstc7-clean"].as<bool>();
  auto r = m::distinct(read_lines(hyp_path(vm)), o);
  for (size_t i = 0; i < r.div.size(); ++i)
    if (!r.div[i])
      warn("no " + std::to_string(r.orders[i]) + "-gram in the corpus: div_" + std::to_string(r.orders[i]) +
           " is undefined (null; DSTC7's calc_diversity raises ZeroDivisionError)");
  if (o.flavour == m::DistinctFlavour::kDstc7 && !r.avg_len) warn("empty corpus: avg_len is undefined (null)");
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  emit(vm, j);
  return kExitOk;
}

void add_entropy_options(po::options_description& d) {
  d.add_options()
      ("n", po::value<std::string>()->default_value("1,2,3,4"), "n-gram orders, comma-separated.")
      ("dstc7-clean", po::bool_switch(), "Apply DSTC7's clean_str tokenisation first (dstc.py --clean).");
}

int run_entropy(const po::variables_map& vm) {
  m::EntropyOptions o;
  o.orders = parse_int_list(vm["n"].as<std::string>(), "--n");
  o.dstc7_clean = vm["dstc7-clean"].as<bool>();
  auto r = m::entropy(read_lines(hyp_path(vm)), o);
  ordered_json j = r.to_json();
  j["signature"] = r.signature;
  emit(vm, j);
  return kExitOk;
}

}  // namespace

void register_qa_metrics(ScoreRegistry& reg) {
  reg.push_back({"squad", "SQuAD v1.1/v2.0 EM/F1 (official evaluate-v1.1.py / evaluate-v2.0.py)",
                 add_squad_options, run_squad, "squad"});
  reg.push_back({"coqa", "CoQA EM/F1 domain table (official evaluate-v1.0.py)", add_coqa_options, run_coqa, "coqa"});
  reg.push_back({"glue", "GLUE task metrics (accuracy/F1/MCC/Pearson/Spearman, sklearn/scipy semantics)",
                 add_glue_options, run_glue, "glue"});
  reg.push_back({"glue-score", "GLUE benchmark average of task results (leaderboard convention)",
                 add_glue_score_options, run_glue_score, "glue-score"});
  reg.push_back({"distinct", "Distinct-n: DSTC7 div-n, PLATO / ERNIE-GEN intra/inter distinct",
                 add_distinct_options, run_distinct, "distinct"});
  reg.push_back({"entropy", "Entropy-n of the n-gram distribution (DSTC7 calc_entropy, nats)",
                 add_entropy_options, run_entropy, "entropy"});
}

}  // namespace unieval::cli
