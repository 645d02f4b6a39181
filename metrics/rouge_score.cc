// Follows the structure of rouge-score's rouge_scorer.py (Apache-2.0): `score`, `score_multi`,
// `_score_ngrams`, `_score_lcs`, `_summary_level_lcs`, `_union_lcs`, `_lcs_table`,
// `_backtrack_norec` and scoring.fmeasure, ported by reading its source, no code copied; NLTK
// (Apache-2.0) behaviour through metrics/text/porter_nltk.h; see THIRD_PARTY_NOTICES.md.
#include "metrics/rouge_score.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/error.h"
#include "core/utf8.h"
#include "metrics/rouge_ngrams.h"
#include "metrics/text/porter_nltk.h"
#include "metrics/text/rouge_tokenize.h"

namespace unieval::metrics {

namespace {

using Ids = std::vector<uint32_t>;

double fmeasure(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

int ngram_order(const std::string& type) {
  if (type.size() == 6 && type.compare(0, 5, "rouge") == 0 && type[5] >= '1' && type[5] <= '9')
    return type[5] - '0';
  return 0;
}

// A text tokenised once: its "\n"-separated non-empty lines (for rougeLsum) and all tokens.
struct Tokenized {
  std::vector<Ids> sentences;
  Ids all;
};

// Tokenizer with a cache (raw token -> stemmed id) and per-scorer scratch space.
class Scorer {
 public:
  explicit Scorer(const RougeScoreOptions& opt) : opt_(opt) {
    for (const auto& t : opt.types) orders_.push_back(ngram_order(t));
  }

  Tokenized tokenize(std::string_view text) {
    Tokenized out;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      if (end > pos) {
        out.sentences.emplace_back();
        append(text.substr(pos, end - pos), out.sentences.back());
        out.all.insert(out.all.end(), out.sentences.back().begin(), out.sentences.back().end());
      }
      pos = end + 1;
    }
    return out;
  }

  std::vector<RougeScoreValue> score(const Tokenized& target, const Tokenized& pred) {
    std::vector<RougeScoreValue> out;
    for (size_t k = 0; k < opt_.types.size(); ++k) {
      if (orders_[k])
        out.push_back(score_ngrams(target.all, pred.all, orders_[k]));
      else if (opt_.types[k] == "rougeL")
        out.push_back(score_lcs(target.all, pred.all));
      else
        out.push_back(summary_level_lcs(target.sentences, pred.sentences));
    }
    return out;
  }

 private:
  void append(std::string_view sentence, Ids& out) {
    // Python str.lower() + [^a-z0-9]+ -> " " (rouge_tokenize.h explains the two non-ASCII cases).
    std::string tok;
    auto flush = [&]() {
      if (tok.empty()) return;
      uint32_t r = table_.intern(tok);
      if (r < table_ids_.size()) {
        out.push_back(table_ids_[r]);
      } else {
        std::string word = opt_.stem && tok.size() > 3 ? text::nltk_porter_stem(tok) : tok;
        uint32_t id = words_.intern(word);
        table_ids_.push_back(id);
        out.push_back(id);
      }
      tok.clear();
    };
    for (size_t i = 0; i < sentence.size();) {
      unsigned char c = static_cast<unsigned char>(sentence[i]);
      if (c < 0x80) {
        if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
          tok.push_back(static_cast<char>(c));
        else
          flush();
        ++i;
        continue;
      }
      size_t len = core::utf8_sequence_length(c);
      std::string_view ch = sentence.substr(i, len);
      if (ch == "\xC4\xB0") {  // U+0130 -> "i" + U+0307
        tok.push_back('i');
        flush();
      } else if (ch == "\xE2\x84\xAA") {  // U+212A KELVIN SIGN -> "k"
        tok.push_back('k');
      } else {
        flush();
      }
      i += len;
    }
    flush();
  }

  RougeScoreValue score_ngrams(const Ids& target, const Ids& pred, int n) {
    rouge_detail::make_ngrams(target, n, tg_);
    rouge_detail::make_ngrams(pred, n, pg_);
    long inter = rouge_detail::clipped_hits(tg_, pg_);
    RougeScoreValue v;
    v.precision =
        static_cast<double>(inter) / std::max<double>(static_cast<double>(pg_.keys.size()), 1);
    v.recall =
        static_cast<double>(inter) / std::max<double>(static_cast<double>(tg_.keys.size()), 1);
    v.fmeasure = fmeasure(v.precision, v.recall);
    return v;
  }

  // _lcs_table into table_ (row-major, (m+1) x (n+1)).
  void lcs_table(const Ids& ref, const Ids& can) {
    size_t w = can.size() + 1;
    t_.assign((ref.size() + 1) * w, 0);
    for (size_t i = 1; i <= ref.size(); ++i) {
      int* row = t_.data() + i * w;
      const int* up = row - w;
      uint32_t r = ref[i - 1];
      for (size_t j = 1; j <= can.size(); ++j)
        row[j] = r == can[j - 1] ? up[j - 1] + 1 : std::max(up[j], row[j - 1]);
    }
  }

  RougeScoreValue score_lcs(const Ids& target, const Ids& pred) {
    RougeScoreValue v;
    if (target.empty() || pred.empty()) return v;
    lcs_table(target, pred);
    int l = t_[target.size() * (pred.size() + 1) + pred.size()];
    v.precision = static_cast<double>(l) / pred.size();
    v.recall = static_cast<double>(l) / target.size();
    v.fmeasure = fmeasure(v.precision, v.recall);
    return v;
  }

  // _backtrack_norec: ties go up unless left is strictly larger.
  void mark_lcs(const Ids& ref, const Ids& can) {
    if (ref.empty() || can.empty()) return;
    lcs_table(ref, can);
    size_t w = can.size() + 1;
    size_t i = ref.size(), j = can.size();
    while (i > 0 && j > 0) {
      if (ref[i - 1] == can[j - 1]) {
        mark_[i - 1] = 1;
        --i;
        --j;
      } else if (t_[i * w + j - 1] > t_[(i - 1) * w + j]) {
        --j;
      } else {
        --i;
      }
    }
  }

  RougeScoreValue summary_level_lcs(const std::vector<Ids>& ref_sents,
                                    const std::vector<Ids>& can_sents) {
    RougeScoreValue v;
    if (ref_sents.empty() || can_sents.empty()) return v;
    size_t m = 0, n = 0;
    if (cnt_r_.size() < words_.size()) {
      cnt_r_.resize(words_.size(), 0);
      cnt_c_.resize(words_.size(), 0);
    }
    for (const auto& s : ref_sents) m += s.size();
    for (const auto& s : can_sents) n += s.size();
    if (m == 0 || n == 0) return v;
    for (const auto& s : ref_sents)
      for (uint32_t t : s) ++cnt_r_[t];
    for (const auto& s : can_sents)
      for (uint32_t t : s) ++cnt_c_[t];
    long hits = 0;
    for (const auto& r : ref_sents) {
      mark_.assign(r.size(), 0);
      for (const auto& c : can_sents) mark_lcs(r, c);
      for (size_t k = 0; k < r.size(); ++k) {
        if (!mark_[k]) continue;
        uint32_t t = r[k];
        if (cnt_c_[t] > 0 && cnt_r_[t] > 0) {
          ++hits;
          --cnt_c_[t];
          --cnt_r_[t];
        }
      }
    }
    for (const auto& s : ref_sents)
      for (uint32_t t : s) cnt_r_[t] = 0;
    for (const auto& s : can_sents)
      for (uint32_t t : s) cnt_c_[t] = 0;
    v.recall = static_cast<double>(hits) / m;
    v.precision = static_cast<double>(hits) / n;
    v.fmeasure = fmeasure(v.precision, v.recall);
    return v;
  }

  const RougeScoreOptions& opt_;
  std::vector<int> orders_;
  TokenInterner table_;              // tokens as found, each stemmed once ...
  std::vector<uint32_t> table_ids_;  // ... to its word id, by token id
  TokenInterner words_;              // words after stemming
  rouge_detail::Grams tg_, pg_;
  std::vector<int> t_;
  std::vector<char> mark_;
  std::vector<long> cnt_r_, cnt_c_;
};

// score_multi: per type the target with the highest F (np.argmax: first maximum).
std::vector<RougeScoreValue> best_of(Scorer& scorer, const std::vector<Tokenized>& targets,
                                     const Tokenized& pred) {
  std::vector<RougeScoreValue> best;
  for (size_t k = 0; k < targets.size(); ++k) {
    auto s = scorer.score(targets[k], pred);
    if (k == 0) {
      best = s;
      continue;
    }
    for (size_t t = 0; t < s.size(); ++t)
      if (s[t].fmeasure > best[t].fmeasure) best[t] = s[t];
  }
  return best;
}

}  // namespace

void RougeScoreOptions::validate() const {
  if (types.empty()) throw InputError("--rouge-types: at least one type is needed");
  for (const auto& t : types)
    if (!ngram_order(t) && t != "rougeL" && t != "rougeLsum")
      throw InputError("--rouge-types: unknown rouge type '" + t +
                       "' (rouge1..rouge9, rougeL, rougeLsum)");
}

std::string RougeScoreOptions::signature() const {
  std::ostringstream s;
  s << "rouge-score|types:";
  for (size_t i = 0; i < types.size(); ++i) s << (i ? "," : "") << types[i];
  s << "|stem:" << (stem ? 1 : 0) << "|agg:mean|v:0.1.2";
  return s.str();
}

std::vector<RougeScoreValue> rouge_score_pair(const std::string& target,
                                              const std::string& prediction,
                                              const RougeScoreOptions& opt) {
  opt.validate();
  Scorer scorer(opt);
  Tokenized t = scorer.tokenize(target);
  Tokenized p = scorer.tokenize(prediction);
  return scorer.score(t, p);
}

std::vector<RougeScoreValue> rouge_score_multi(const std::vector<std::string>& targets,
                                               const std::string& prediction,
                                               const RougeScoreOptions& opt) {
  opt.validate();
  if (targets.empty()) throw InputError("rouge-score: score_multi needs at least one target");
  Scorer scorer(opt);
  std::vector<Tokenized> t;
  for (const auto& x : targets) t.push_back(scorer.tokenize(x));
  return best_of(scorer, t, scorer.tokenize(prediction));
}

std::vector<RougeScoreValue> rouge_score_batch(const std::vector<std::vector<std::string>>& targets,
                                               const std::vector<std::string>& predictions,
                                               const RougeScoreOptions& opt) {
  opt.validate();
  if (targets.size() != predictions.size())
    throw InputError("rouge-score: " + std::to_string(targets.size()) + " targets but " +
                     std::to_string(predictions.size()) + " predictions");
  Scorer scorer(opt);
  std::vector<RougeScoreValue> out;
  out.reserve(predictions.size() * opt.types.size());
  std::vector<Tokenized> t;
  for (size_t i = 0; i < predictions.size(); ++i) {
    if (targets[i].empty())
      throw InputError("rouge-score: pair " + std::to_string(i) + " has no target");
    t.clear();
    for (const auto& x : targets[i]) t.push_back(scorer.tokenize(x));
    const std::vector<RougeScoreValue> v = best_of(scorer, t, scorer.tokenize(predictions[i]));
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

RougeScoreCorpus rouge_score_corpus(const std::vector<std::string>& predictions,
                                    const std::vector<std::vector<std::string>>& refs,
                                    const RougeScoreOptions& opt) {
  opt.validate();
  if (refs.empty()) throw InputError("rouge-score: at least one reference stream is needed");
  Scorer scorer(opt);
  RougeScoreCorpus c;
  c.mean.assign(opt.types.size(), {});
  std::vector<Tokenized> targets;
  for (size_t i = 0; i < predictions.size(); ++i) {
    targets.clear();
    for (const auto& stream : refs) targets.push_back(scorer.tokenize(stream.at(i)));
    c.per_pair.push_back(best_of(scorer, targets, scorer.tokenize(predictions[i])));
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
