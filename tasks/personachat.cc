// Follows PLATO (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "tasks/personachat.h"

#include <chrono>
#include <cstring>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "tasks/metric_set.h"
#include "tasks/registry.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;

bool clean_option(const EvalRequest& req) {
  std::string clean_opt = option(req, "clean", "true");
  if (clean_opt != "true" && clean_opt != "false")
    throw InputError("--option clean: expected true or false");
  return clean_opt == "true";
}

// ERNIE-GEN's persona_chat eval: PLATO BLEU-1/2 on strip().split(" ") tokens, inter Distinct-1/2.
std::vector<TaskMetric> personachat_metrics(const EvalRequest& req) {
  const bool clean = clean_option(req);
  TaskMetric bleu;
  bleu.id = "bleu-plato";
  bleu.call = {"bleu-plato", {{"single-space-split", true}}};
  bleu.signature = "bleu-plato|nltk-3.8-sentence_bleu|smooth:method7|mean-over-segments";
  bleu.signature_suffix = std::string("|tok:strip-split-space|clean.py:") + (clean ? "1" : "0");
  bleu.options = {{"clean", clean}};
  bleu.scores = {{"bleu1", "/bleu_1", "fraction", ""}, {"bleu2", "/bleu_2", "fraction", ""}};
  TaskMetric dist;
  dist.id = "distinct";
  dist.call = {"distinct", {{"flavour", std::string("ernie-gen")}}};
  dist.signature_suffix = std::string("|clean.py:") + (clean ? "1" : "0");
  dist.options = {{"flavour", "ernie-gen"}};
  dist.scores = {{"distinct1", "/inter_dist_1", "fraction", ""},
                 {"distinct2", "/inter_dist_2", "fraction", ""}};
  return {bleu, dist};
}

TaskOutput run_personachat(const EvalRequest& req) {
  auto t0 = Clock::now();
  const bool clean = clean_option(req);
  const std::vector<TaskMetric> metric_set = personachat_metrics(req);
  std::vector<std::string> refs = read_convai2_responses(req.data);
  std::vector<std::string> hyps = core::read_lines(req.pred);
  if (hyps.size() != refs.size())
    throw InputError(req.pred, 0,
                     std::to_string(hyps.size()) + " lines for " + std::to_string(refs.size()) +
                         " responses in " + req.data);
  if (clean)
    for (auto& h : hyps) h = ernie_gen_persona_clean(h);
  auto t1 = Clock::now();
  TaskOutput out;
  auto& r = out.result;
  r.task = "personachat";
  r.split = req.split.empty() ? "test" : req.split;
  r.examples = static_cast<long>(hyps.size());
  out.hypotheses = hyps;  // after clean.py, as scored
  out.first_references = refs;
  // Through the metric protocol (tasks/metric_set.h).
  const core::Corpus corpus{std::move(hyps), {std::move(refs)}};
  for (const TaskMetric& m : metric_set) {
    if (skipped(req, m)) {
      r.notes.push_back(skip_note(m));
      continue;
    }
    score_task_metric(out, m, corpus, req);
  }
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

}  // namespace

std::string ernie_gen_persona_clean(std::string line) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" - ", "-"},          {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},
      {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) core::py_replace_in(line, from, to);
  return line;
}

std::vector<std::string> read_convai2_responses(const std::string& path) {
  auto lines = core::read_lines(path);
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty()) continue;
    size_t sp = l.find(' ');
    if (sp == std::string::npos || sp == 0 || l.find_first_not_of("0123456789") != sp)
      throw InputError(path, static_cast<long>(i + 1),
                       "expected 'N text' (a turn number, a space, the text)");
    std::string text = l.substr(sp + 1);
    if (text.rfind("your persona:", 0) == 0 || text.rfind("partner's persona:", 0) == 0) continue;
    size_t tab = text.find('\t');
    if (tab == std::string::npos)
      throw InputError(path, static_cast<long>(i + 1),
                       "dialogue line without a tab-separated response");
    size_t end = text.find('\t', tab + 1);
    out.push_back(
        text.substr(tab + 1, end == std::string::npos ? std::string::npos : end - tab - 1));
  }
  if (out.empty()) throw InputError(path, 0, "no dialogue turns");
  return out;
}

std::vector<TaskAdapter> personachat_adapters() {
  TaskInfo i;
  i.name = "personachat";
  i.summary = "Persona-Chat / ConvAI2 responses (ERNIE-GEN/PLATO BLEU-1/2, Distinct-1/2)";
  i.data_format = "ConvAI2 text format (N your persona: ... / N utterance<TAB>response)";
  i.pred_format = "one response per line, in the data's order";
  i.metrics = "bleu1, bleu2 (NLTK method7, mean over segments), distinct1, distinct2 (inter)";
  i.default_split = "test";
  i.options = {{"clean", "apply ERNIE-GEN clean.py to predictions (default true)"}};
  return {{i, run_personachat, personachat_metrics}};
}

}  // namespace unieval::tasks
