// rouge-score: mirrors rouge_scorer.py (`score`, `score_multi`, `_score_ngrams`, `_score_lcs`,
// `_summary_level_lcs`, `_union_lcs`, `_lcs_table`, `_backtrack_norec`) and scoring.fmeasure.
#include "metrics/rouge_score.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "metrics/core/error.h"
#include "metrics/text/rouge_tokenize.h"

namespace unieval::metrics {

namespace {

using Tokens = std::vector<std::string>;

double fmeasure(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

int ngram_order(const std::string& type) {
  if (type.size() == 6 && type.compare(0, 5, "rouge") == 0 && type[5] >= '1' && type[5] <= '9')
    return type[5] - '0';
  return 0;
}

RougeScoreValue score_ngrams(const Tokens& target, const Tokens& pred, int n) {
  auto grams = [n](const Tokens& t) {
    std::map<std::vector<std::string>, long> m;
    for (long i = 0; i + n <= static_cast<long>(t.size()); ++i)
      ++m[std::vector<std::string>(t.begin() + i, t.begin() + i + n)];
    return m;
  };
  auto tg = grams(target), pg = grams(pred);
  long inter = 0, tc = 0, pc = 0;
  for (const auto& [g, c] : tg) {
    tc += c;
    auto it = pg.find(g);
    if (it != pg.end()) inter += std::min(c, it->second);
  }
  for (const auto& kv : pg) pc += kv.second;
  RougeScoreValue v;
  v.precision = static_cast<double>(inter) / std::max<long>(pc, 1);
  v.recall = static_cast<double>(inter) / std::max<long>(tc, 1);
  v.fmeasure = fmeasure(v.precision, v.recall);
  return v;
}

std::vector<std::vector<int>> lcs_table(const Tokens& ref, const Tokens& can) {
  std::vector<std::vector<int>> t(ref.size() + 1, std::vector<int>(can.size() + 1, 0));
  for (size_t i = 1; i <= ref.size(); ++i)
    for (size_t j = 1; j <= can.size(); ++j)
      t[i][j] = ref[i - 1] == can[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t;
}

RougeScoreValue score_lcs(const Tokens& target, const Tokens& pred) {
  RougeScoreValue v;
  if (target.empty() || pred.empty()) return v;
  int l = lcs_table(target, pred)[target.size()][pred.size()];
  v.precision = static_cast<double>(l) / pred.size();
  v.recall = static_cast<double>(l) / target.size();
  v.fmeasure = fmeasure(v.precision, v.recall);
  return v;
}

// _backtrack_norec: indices of ref in one LCS; ties go up unless left is strictly larger.
void lcs_indices(const Tokens& ref, const Tokens& can, std::vector<char>& mark) {
  auto t = lcs_table(ref, can);
  size_t i = ref.size(), j = can.size();
  while (i > 0 && j > 0) {
    if (ref[i - 1] == can[j - 1]) {
      mark[i - 1] = 1;
      --i;
      --j;
    } else if (t[i][j - 1] > t[i - 1][j]) {
      --j;
    } else {
      --i;
    }
  }
}

RougeScoreValue summary_level_lcs(const std::vector<Tokens>& ref_sents, const std::vector<Tokens>& can_sents) {
  RougeScoreValue v;
  if (ref_sents.empty() || can_sents.empty()) return v;
  size_t m = 0, n = 0;
  std::map<std::string, long> cnt_r, cnt_c;
  for (const auto& s : ref_sents) {
    m += s.size();
    for (const auto& t : s) ++cnt_r[t];
  }
  for (const auto& s : can_sents) {
    n += s.size();
    for (const auto& t : s) ++cnt_c[t];
  }
  if (m == 0 || n == 0) return v;
  long hits = 0;
  for (const auto& r : ref_sents) {
    std::vector<char> mark(r.size(), 0);
    for (const auto& c : can_sents) lcs_indices(r, c, mark);
    for (size_t k = 0; k < r.size(); ++k) {
      if (!mark[k]) continue;
      const std::string& t = r[k];
      if (cnt_c[t] > 0 && cnt_r[t] > 0) {
        ++hits;
        --cnt_c[t];
        --cnt_r[t];
      }
    }
  }
  v.recall = static_cast<double>(hits) / m;
  v.precision = static_cast<double>(hits) / n;
  v.fmeasure = fmeasure(v.precision, v.recall);
  return v;
}

std::vector<Tokens> sentence_tokens(const std::string& text, bool stem) {
  std::vector<Tokens> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (end > pos) out.push_back(text::rouge_score_tokens(std::string_view(text).substr(pos, end - pos), stem));
    pos = end + 1;
  }
  return out;
}

}  // namespace

void RougeScoreOptions::validate() const {
  if (types.empty()) throw InputError("--rouge-types: at least one type is needed");
  for (const auto& t : types)
    if (!ngram_order(t) && t != "rougeL" && t != "rougeLsum")
      throw InputError("--rouge-types: unknown rouge type '" + t + "' (rouge1..rouge9, rougeL, rougeLsum)");
}

std::string RougeScoreOptions::signature() const {
  std::ostringstream s;
  s << "rouge-score|types:";
  for (size_t i = 0; i < types.size(); ++i) s << (i ? "," : "") << types[i];
  s << "|stem:" << (stem ? 1 : 0) << "|agg:mean|v:0.1.2";
  return s.str();
}

std::vector<RougeScoreValue> rouge_score_pair(const std::string& target, const std::string& prediction,
                                              const RougeScoreOptions& opt) {
  std::vector<RougeScoreValue> out;
  Tokens tt = text::rouge_score_tokens(target, opt.stem);
  Tokens pt = text::rouge_score_tokens(prediction, opt.stem);
  for (const auto& type : opt.types) {
    if (int n = ngram_order(type)) out.push_back(score_ngrams(tt, pt, n));
    else if (type == "rougeL") out.push_back(score_lcs(tt, pt));
    else out.push_back(summary_level_lcs(sentence_tokens(target, opt.stem), sentence_tokens(prediction, opt.stem)));
  }
  return out;
}

std::vector<RougeScoreValue> rouge_score_multi(const std::vector<std::string>& targets,
                                               const std::string& prediction,
                                               const RougeScoreOptions& opt) {
  std::vector<RougeScoreValue> best;
  for (size_t k = 0; k < targets.size(); ++k) {
    auto s = rouge_score_pair(targets[k], prediction, opt);
    if (k == 0) {
      best = s;
      continue;
    }
    for (size_t t = 0; t < s.size(); ++t)
      if (s[t].fmeasure > best[t].fmeasure) best[t] = s[t];  // np.argmax: first maximum wins
  }
  return best;
}

RougeScoreCorpus rouge_score_corpus(const std::vector<std::string>& predictions,
                                    const std::vector<std::vector<std::string>>& refs,
                                    const RougeScoreOptions& opt) {
  opt.validate();
  RougeScoreCorpus c;
  c.mean.assign(opt.types.size(), {});
  for (size_t i = 0; i < predictions.size(); ++i) {
    std::vector<std::string> targets;
    for (const auto& stream : refs) targets.push_back(stream[i]);
    c.per_pair.push_back(targets.size() == 1 ? rouge_score_pair(targets[0], predictions[i], opt)
                                             : rouge_score_multi(targets, predictions[i], opt));
    for (size_t t = 0; t < opt.types.size(); ++t) {
      c.mean[t].precision += c.per_pair.back()[t].precision;
      c.mean[t].recall += c.per_pair.back()[t].recall;
      c.mean[t].fmeasure += c.per_pair.back()[t].fmeasure;
    }
  }
  if (!predictions.empty())
    for (auto& m : c.mean) {
      double n = static_cast<double>(predictions.size());
      m.precision /= n;
      m.recall /= n;
      m.fmeasure /= n;
    }
  return c;
}

}  // namespace unieval::metrics
