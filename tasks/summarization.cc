#include "tasks/summarization.h"

#include <chrono>

#include "metrics/core/error.h"
#include "metrics/core/io.h"
#include "metrics/rouge.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
}

TaskOutput run_summarization(const EvalRequest& req, const std::string& key) {
  auto t0 = Clock::now();
  std::vector<std::string> refs = read_lines(req.data);
  std::vector<std::string> hyps = read_lines(req.pred);
  if (hyps.size() != refs.size())
    throw InputError(req.pred, 0, std::to_string(hyps.size()) + " summaries for " + std::to_string(refs.size()) +
                                      " references in " + req.data);
  std::vector<metrics::RougeInstance> corpus;
  corpus.reserve(refs.size());
  for (size_t i = 0; i < refs.size(); ++i)
    corpus.push_back({summary_sentences(hyps[i]), {summary_sentences(refs[i])}});
  metrics::Rouge155Options opt;
  opt.max_n = 2;
  opt.confidence = 95;
  opt.resamples = 1000;
  std::string stem = option(req, "stem", "true");
  if (stem != "true" && stem != "false") throw InputError("--option stem: expected true or false");
  opt.stem = stem == "true";
  std::string dir = metrics::rouge_data_dir(option(req, "rouge_data", ""));
  metrics::RougeResources res = dir.empty() ? metrics::RougeResources{} : metrics::RougeResources::load(dir);
  // Without the WordNet table ROUGE-1.5.5 cannot run -m as published; we stem without it, say
  // so in the notes, and the signature records "exc:none" so such runs never compare with real ones.
  if (opt.stem && !res.has_exceptions) opt.use_exceptions = false;
  auto t1 = Clock::now();
  metrics::Rouge155Result rr = metrics::rouge155(corpus, opt, res);
  TaskOutput out;
  auto& r = out.result;
  r.task = key;
  r.split = req.split.empty() ? "test" : req.split;
  r.examples = static_cast<long>(refs.size());
  r.metrics.push_back({"rouge-1.5.5", rr.signature, {{"flags", opt.stem ? "-c 95 -m -r 1000 -n 2 -a" : "-c 95 -r 1000 -n 2 -a"}}});
  if (opt.stem && !opt.use_exceptions)
    r.notes.push_back("-m without the WordNet-2.0 exception table (no ROUGE data: --option rouge_data=DIR or $UNIEVAL_ROUGE_DATA)");
  for (const auto& v : rr.variants) {
    std::string base = v.name == "ROUGE-1" ? "rouge1" : v.name == "ROUGE-2" ? "rouge2" : v.name == "ROUGE-L" ? "rougeL" : "";
    if (base.empty()) continue;
    auto add = [&](const std::string& suffix, double value, double lo, double hi) {
      results::ConfidenceInterval ci;
      ci.low = lo;
      ci.high = hi;
      ci.level = 0.95;
      ci.method = "rouge-1.5.5-bootstrap";
      ci.resamples = opt.resamples;
      r.scores.push_back({base + suffix, value, "rouge-1.5.5", "fraction", true, ci});
    };
    add("_f", v.average.f, v.ci_low.f, v.ci_high.f);
    add("_r", v.average.r, v.ci_low.r, v.ci_high.r);
    add("_p", v.average.p, v.ci_low.p, v.ci_high.p);
  }
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

}  // namespace

std::vector<std::string> summary_sentences(const std::string& line) {
  std::string s = line;
  replace_all(s, "<t>", " ");
  for (const char* m : {"</t>", "<S_SEP>", "[X_SEP]", "<q>", "##SENT##"}) replace_all(s, m, "\x01");
  return metrics::split_summary(s, "\x01");
}

std::vector<TaskAdapter> summarization_adapters() {
  std::vector<TaskAdapter> out;
  for (const char* key : {"cnndm", "gigaword", "gigaword-10k"}) {
    TaskInfo i;
    i.name = key;
    i.summary = std::string(key) + " summarization (ROUGE-1.5.5 -c 95 -m -r 1000 -n 2 -a, F1 of R-1/2/L)";
    i.data_format = "reference summaries, one per line (sentence markers <S_SEP> [X_SEP] <q> ##SENT## <t></t>)";
    i.pred_format = "system summaries, one per line, same order";
    i.metrics = "rouge1_f, rouge2_f, rougeL_f (+ _r, _p) with ROUGE-1.5.5 bootstrap CIs";
    i.default_split = "test";
    i.options = {{"rouge_data", "ROUGE-1.5.5 data dir (default $UNIEVAL_ROUGE_DATA)"},
                 {"stem", "-m Porter stemming (default true)"}};
    std::string k = key;
    out.push_back({i, [k](const EvalRequest& r) { return run_summarization(r, k); }});
  }
  return out;
}

}  // namespace unieval::tasks
