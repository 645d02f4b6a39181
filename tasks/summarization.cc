#include "tasks/summarization.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "metrics/rouge.h"
#include "tasks/metric_set.h"
#include "tasks/registry.h"
#include "tasks/unilm_text.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;

// The official metric set: ROUGE-1.5.5 -c 95 -r 1000 -n 2 -a (-m unless stem=false), F/R/P of
// ROUGE-1, -2, -L with the script's own bootstrap CIs. The one ROUGE resource policy
// (metrics/rouge.h, as `score --metric rouge`): -m needs the WordNet table from rouge_data or
// $UNIEVAL_ROUGE_DATA, else an InputError with the fix; wordnet_exceptions=false stems without it
// (signature "exc:none", never compared with real runs).
std::vector<TaskMetric> summarization_metrics(const EvalRequest& req) {
  std::string stem = option(req, "stem", "true");
  if (stem != "true" && stem != "false") throw InputError("--option stem: expected true or false");
  std::string exc = option(req, "wordnet_exceptions", "true");
  if (exc != "true" && exc != "false")
    throw InputError("--option wordnet_exceptions: expected true or false");
  TaskMetric m;
  m.id = "rouge-1.5.5";
  m.call = {"rouge",
            {{"max-ngram", 2},
             {"confidence", 95.0},
             {"resamples", 1000},
             {"sentence-sep", std::string("\n")},
             {"stem", stem == "true"},
             {"no-wordnet-exceptions", exc == "false"}}};
  if (req.options.count("rouge_data"))
    m.call.options.push_back({"rouge-data", req.options.at("rouge_data")});
  m.options = {{"flags", stem == "true" ? "-c 95 -m -r 1000 -n 2 -a" : "-c 95 -r 1000 -n 2 -a"}};
  m.hints.options = {{"rouge-data", "--option rouge_data=DIR"},
                     {"no-wordnet-exceptions", "--option wordnet_exceptions=false"}};
  m.ci.level = 0.95;
  m.ci.method = "rouge-1.5.5-bootstrap";
  m.ci.resamples = 1000;
  for (const char* v : {"1", "2", "L"}) {
    const std::string variant = std::string("/ROUGE-") + v;
    for (const char* part : {"F", "R", "P"}) {
      const std::string name =
          std::string("rouge") + v + "_" + static_cast<char>(part[0] - 'A' + 'a');
      m.scores.push_back(
          {name, variant + "/" + part, "fraction", "", variant + "/" + part + "_ci"});
    }
  }
  return {m};
}

TaskOutput run_summarization(const EvalRequest& req, const std::string& key) {
  auto t0 = Clock::now();
  std::vector<std::string> refs = core::read_lines(req.data);
  std::vector<std::string> hyps = core::read_lines(req.pred);
  if (hyps.size() != refs.size())
    throw InputError(req.pred, 0,
                     std::to_string(hyps.size()) + " summaries for " + std::to_string(refs.size()) +
                         " references in " + req.data);
  std::vector<metrics::RougeInstance> corpus;
  corpus.reserve(refs.size());
  std::string unilm = key == "cnndm" ? option(req, "unilm_postprocess", "false") : "false";
  if (unilm != "true" && unilm != "false")
    throw InputError("--option unilm_postprocess: expected true or false");
  UnilmCnndmOptions uopt;
  uopt.trunc_len = static_cast<int>(option_double(req, "trunc_len", uopt.trunc_len));
  uopt.duplicate_rate = option_double(req, "duplicate_rate", uopt.duplicate_rate);
  if (unilm == "false" && (req.options.count("trunc_len") || req.options.count("duplicate_rate")))
    throw InputError(
        "--option trunc_len / duplicate_rate: only with --option unilm_postprocess=true");
  if (uopt.trunc_len < 0) throw InputError("--option trunc_len: must be >= 0");
  long skipped = 0;
  auto non_empty = [](std::vector<std::string> v) {
    v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
    return v;
  };
  for (size_t i = 0; i < refs.size(); ++i) {
    if (unilm == "true") {
      // cnndm/eval.py writes no files for a pair with an empty reference: not scored.
      std::vector<std::string> gold = non_empty(unilm_cnndm_gold(refs[i]));
      if (gold.empty()) {
        ++skipped;
        continue;
      }
      corpus.push_back({non_empty(unilm_cnndm_postprocess(hyps[i], uopt)), {gold}});
    } else {
      corpus.push_back({summary_sentences(hyps[i]), {summary_sentences(refs[i])}});
    }
  }
  if (corpus.empty()) throw InputError(req.data, 0, "no non-empty reference summaries");
  const TaskMetric rouge = summarization_metrics(req).front();
  const bool stem = option(req, "stem", "true") == "true";
  const bool exceptions = option(req, "wordnet_exceptions", "true") == "true";
  // One summary per line for the metric protocol: sentences joined by the separator the call
  // declares ('\n'; no sentence holds one).
  core::Corpus lines;
  lines.refs.resize(1);
  auto join = [](const metrics::RougeSummary& sents) {
    std::string out;
    for (size_t k = 0; k < sents.size(); ++k) out += (k ? "\n" : "") + sents[k];
    return out;
  };
  for (const auto& inst : corpus) {
    lines.hyps.push_back(join(inst.peer));
    lines.refs[0].push_back(join(inst.models[0]));
  }
  const long n_scored = static_cast<long>(corpus.size());
  std::vector<metrics::RougeInstance>().swap(corpus);  // (the metric splits the lines again)
  std::vector<std::string>().swap(hyps);
  std::vector<std::string>().swap(refs);
  auto t1 = Clock::now();
  TaskOutput out;
  auto& r = out.result;
  r.task = key;
  r.split = req.split.empty() ? "test" : req.split;
  r.examples = n_scored;
  out.hypotheses = lines.hyps;  // the scored summaries, sentences joined by '\n'
  out.first_references = lines.refs[0];
  if (unilm == "true") {
    r.metrics.push_back({"unilm-postprocess",
                         "unilm-cnndm-eval.py|fix_tokenization|min_len:5|duplicate_rate:" +
                             nlohmann::json(uopt.duplicate_rate).dump() +
                             "|trunc_len:" + std::to_string(uopt.trunc_len),
                         {{"trunc_len", uopt.trunc_len}, {"duplicate_rate", uopt.duplicate_rate}}});
    r.notes.push_back(
        "UniLM cnndm/eval.py post-processing of predictions (fix_tokenization, sentences <= 4 "
        "tokens dropped, duplicate_rate " +
        std::to_string(uopt.duplicate_rate) + ", trunc_len " + std::to_string(uopt.trunc_len) +
        ")");
    if (skipped)
      r.notes.push_back(std::to_string(skipped) +
                        " pair(s) with an empty reference not scored (as eval.py)");
  }
  // ROUGE-1.5.5 through the metric protocol (tasks/metric_set.h).
  score_task_metric(out, rouge, lines, req);
  if (stem && !exceptions)
    r.notes.push_back(
        "-m without the WordNet-2.0 exception table (--option wordnet_exceptions=false): not the "
        "published ROUGE-1.5.5 numbers");
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

}  // namespace

std::vector<std::string> summary_sentences(const std::string& line) {
  std::string s = line;
  core::py_replace_in(s, "<t>", " ");
  for (const char* m : {"</t>", "<S_SEP>", "[X_SEP]", "<q>", "##SENT##"})
    core::py_replace_in(s, m, "\x01");
  return metrics::split_summary(s, "\x01");
}

std::vector<TaskAdapter> summarization_adapters() {
  std::vector<TaskAdapter> out;
  for (const char* key : {"cnndm", "gigaword", "gigaword-10k"}) {
    TaskInfo i;
    i.name = key;
    i.summary =
        std::string(key) + " summarization (ROUGE-1.5.5 -c 95 -m -r 1000 -n 2 -a, F1 of R-1/2/L)";
    i.data_format =
        "reference summaries, one per line (sentence markers <S_SEP> [X_SEP] <q> ##SENT## <t></t>)";
    i.pred_format = "system summaries, one per line, same order";
    i.metrics = "rouge1_f, rouge2_f, rougeL_f (+ _r, _p) with ROUGE-1.5.5 bootstrap CIs";
    i.default_split = "test";
    i.options = {{"rouge_data", "ROUGE-1.5.5 data dir (default $UNIEVAL_ROUGE_DATA)"},
                 {"stem", "-m Porter stemming (default true)"},
                 {"wordnet_exceptions",
                  "with stem: the WordNet-2.0 exception lookup of -m (default true; false = "
                  "stem without it, not the published numbers)"}};
    if (std::string(key) == "cnndm") {
      i.options.push_back({"unilm_postprocess",
                           "UniLM cnndm/eval.py post-processing of predictions (default false)"});
      i.options.push_back(
          {"trunc_len",
           "with unilm_postprocess: summary length cap in tokens (default 60; ERNIE-GEN 100)"});
      i.options.push_back(
          {"duplicate_rate",
           "with unilm_postprocess: sentence de-duplication threshold (default 0.7)"});
    }
    std::string k = key;
    out.push_back(
        {i, [k](const EvalRequest& r) { return run_summarization(r, k); }, summarization_metrics});
  }
  return out;
}

}  // namespace unieval::tasks
