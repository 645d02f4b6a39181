// Follows PLATO (Apache-2.0) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
#include "tasks/personachat.h"

#include <chrono>
#include <cstring>

#include "metrics/bleu_compat.h"
#include "core/error.h"
#include "core/io.h"
#include "metrics/distinct.h"
#include "tasks/registry.h"
#include "core/py_string.h"

namespace unieval::tasks {

namespace {

using Clock = std::chrono::steady_clock;

TaskOutput run_personachat(const EvalRequest& req) {
  auto t0 = Clock::now();
  std::string clean_opt = option(req, "clean", "true");
  if (clean_opt != "true" && clean_opt != "false") throw InputError("--option clean: expected true or false");
  std::vector<std::string> refs = read_convai2_responses(req.data);
  std::vector<std::string> hyps = core::read_lines(req.pred);
  if (hyps.size() != refs.size())
    throw InputError(req.pred, 0, std::to_string(hyps.size()) + " lines for " + std::to_string(refs.size()) +
                                      " responses in " + req.data);
  if (clean_opt == "true")
    for (auto& h : hyps) h = ernie_gen_persona_clean(h);
  auto t1 = Clock::now();
  TaskOutput out;
  auto& r = out.result;
  r.task = "personachat";
  r.split = req.split.empty() ? "test" : req.split;
  r.examples = static_cast<long>(hyps.size());
  metrics::PlatoBleuOptions bopt;
  bopt.single_space_split = true;
  metrics::PlatoBleuScore b = metrics::plato_bleu(hyps, refs, bopt);
  std::string tok = std::string("|tok:strip-split-space|clean.py:") + (clean_opt == "true" ? "1" : "0");
  r.metrics.push_back({"bleu-plato", "bleu-plato|nltk-3.8-sentence_bleu|smooth:method7|mean-over-segments" + tok,
                       {{"clean", clean_opt == "true"}}});
  r.scores.push_back({"bleu1", b.bleu_1, "bleu-plato", "fraction", true, std::nullopt});
  r.scores.push_back({"bleu2", b.bleu_2, "bleu-plato", "fraction", true, std::nullopt});
  metrics::DistinctOptions dopt;
  dopt.flavour = metrics::DistinctFlavour::kErnieGen;
  metrics::DistinctResult d = metrics::distinct(hyps, dopt);
  r.metrics.push_back({"distinct", d.signature + "|clean.py:" + (clean_opt == "true" ? "1" : "0"), {{"flavour", "ernie-gen"}}});
  for (size_t i = 0; i < d.orders.size(); ++i)
    r.scores.push_back({"distinct" + std::to_string(d.orders[i]), d.inter[i], "distinct", "fraction", true, std::nullopt});
  r.timings.load_s = std::chrono::duration<double>(t1 - t0).count();
  r.timings.score_s = std::chrono::duration<double>(Clock::now() - t1).count();
  return out;
}

}  // namespace

std::string ernie_gen_persona_clean(std::string line) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" - ", "-"}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"},
      {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
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
      throw InputError(path, static_cast<long>(i + 1), "expected 'N text' (a turn number, a space, the text)");
    std::string text = l.substr(sp + 1);
    if (text.rfind("your persona:", 0) == 0 || text.rfind("partner's persona:", 0) == 0) continue;
    size_t tab = text.find('\t');
    if (tab == std::string::npos)
      throw InputError(path, static_cast<long>(i + 1), "dialogue line without a tab-separated response");
    size_t end = text.find('\t', tab + 1);
    out.push_back(text.substr(tab + 1, end == std::string::npos ? std::string::npos : end - tab - 1));
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
  return {{i, run_personachat}};
}

}  // namespace unieval::tasks
