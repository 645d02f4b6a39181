// Follows sacreBLEU (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/chrf.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "core/parallel.h"
#include "core/py_string.h"
#include "core/utf8.h"
#include "metrics/bleu_internal.h"
#include "metrics/ngram.h"
#include "metrics/text/py_lower.h"

namespace unieval::metrics {

std::string ChrfOptions::signature(int nrefs) const {
  char beta_buf[32] = "";
  if (beta != 2) std::snprintf(beta_buf, sizeof beta_buf, "|beta:%g", beta);
  return "nrefs:" + std::to_string(nrefs) + (lowercase ? "|case:lc" : "|case:mixed") +
         (eps_smoothing ? "|eff:no" : "|eff:yes") + "|nc:" + std::to_string(char_order) +
         "|nw:" + std::to_string(word_order) + (whitespace ? "|space:yes" : "|space:no") +
         beta_buf + "|version:2.6.0";
}

namespace {

// CHRF._compute_f_score; float32_ratios: see chrf_from_stats in chrf.h.
double chrf_f_score(const double* st, const ChrfOptions& o, bool float32_ratios = false) {
  const double eps = 1e-16, factor = o.beta * o.beta;
  double score = 0, avg_prec = 0, avg_rec = 0;
  int effective_order = 0;
  const int orders = o.char_order + o.word_order;
  auto ratio = [float32_ratios](double x, double y) {
    if (float32_ratios) return static_cast<double>(static_cast<float>(x) / static_cast<float>(y));
    return x / y;
  };
  for (int i = 0; i < orders; ++i) {
    double n_hyp = st[3 * i], n_ref = st[3 * i + 1], n_match = st[3 * i + 2];
    double prec = n_hyp > 0 ? ratio(n_match, n_hyp) : eps;
    double rec = n_ref > 0 ? ratio(n_match, n_ref) : eps;
    double denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
    if (n_hyp > 0 && n_ref > 0) {  // only orders present on both sides enter the averages
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (o.eps_smoothing) return 100 * score / orders;
  if (effective_order == 0) {
    avg_prec = avg_rec = 0;
  } else {
    avg_prec /= effective_order;
    avg_rec /= effective_order;
  }
  if (avg_prec + avg_rec != 0) {
    double s = (1 + factor) * avg_prec * avg_rec;
    s /= factor * avg_prec + avg_rec;
    return 100 * s;
  }
  return 0.0;
}

// Code points of ''.join(line.split()) (after optional lowercasing); with o.whitespace, of the
// whole line (extract_all_char_ngrams(include_whitespace=True)).
void char_ids(const std::string& line, const ChrfOptions& o, std::vector<uint32_t>& out) {
  out.clear();
  std::string low = o.lowercase ? text::py_lower(line) : std::string();
  std::string_view s = o.lowercase ? std::string_view(low) : std::string_view(line);
  if (o.whitespace) {
    for (size_t i = 0; i < s.size();)
      out.push_back(static_cast<uint32_t>(core::next_code_point(s, i)));
    return;
  }
  for (auto tok : core::py_split(s))
    for (size_t i = 0; i < tok.size();)
      out.push_back(static_cast<uint32_t>(core::next_code_point(tok, i)));
}

// Python string.punctuation (sacreBLEU CHRF._PUNCTS), ASCII only.
bool is_punct(char32_t c) {
  return c < 0x80 && ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
                      (c >= '{' && c <= '~'));
}

// CHRF._remove_punctuation: whitespace split, then one leading or trailing punctuation mark of a
// word longer than one character becomes its own word (the trailing one is checked first, so
// "(hi)" gives "(hi" and ")"). Words are interned into ids.
void word_ids(const std::string& line, const ChrfOptions& o, Vocabulary& vocab,
              std::vector<uint32_t>& out) {
  out.clear();
  std::string low = o.lowercase ? text::py_lower(line) : std::string();
  std::string_view s = o.lowercase ? std::string_view(low) : std::string_view(line);
  for (auto w : core::py_split(s)) {
    size_t i = 0, first_len = 0, last_start = 0, n_cp = 0;
    char32_t first = 0, last = 0;
    while (i < w.size()) {
      size_t start = i;
      char32_t c = core::next_code_point(w, i);
      if (n_cp == 0) {
        first = c;
        first_len = i;
      }
      last = c;
      last_start = start;
      ++n_cp;
    }
    if (n_cp > 1 && is_punct(last)) {
      out.push_back(vocab.id(w.substr(0, last_start)));
      out.push_back(vocab.id(w.substr(last_start)));
    } else if (n_cp > 1 && is_punct(first)) {
      out.push_back(vocab.id(w.substr(0, first_len)));
      out.push_back(vocab.id(w.substr(first_len)));
    } else {
      out.push_back(vocab.id(w));
    }
  }
}

// Writes [hyp, ref, match] of orders 1..max_order of (hyp, reference r) into st, starting at
// triplet `first`, from a clipper run over the hypothesis and all its references.
void pair_stats(const NgramClipper& clip, size_t r, size_t hyp_len, size_t ref_len, int max_order,
                int first, std::vector<double>& st) {
  for (int n = 1; n <= max_order; ++n) {
    const int64_t n_hyp = std::max<int64_t>(0, static_cast<int64_t>(hyp_len) - n + 1);
    const int64_t n_ref = std::max<int64_t>(0, static_cast<int64_t>(ref_len) - n + 1);
    // CHRF._get_match_statistics reports the hypothesis count as 0 at any order where the
    // reference has no n-grams at all (`hyp_count if ref_ngrams else 0`), so a reference
    // shorter than n contributes nothing to the corpus hypothesis total for that order.
    double* t = &st[3 * (first + n - 1)];
    t[0] = static_cast<double>(n_ref > 0 ? n_hyp : 0);
    t[1] = static_cast<double>(n_ref);
    t[2] = static_cast<double>(clip.ref_matches(r, n));
  }
}

std::vector<std::vector<double>> segment_stats(const std::vector<std::string>& hyps,
                                               const std::vector<std::vector<std::string>>& refs,
                                               const ChrfOptions& o) {
  internal::check_streams(hyps.size(), refs);
  if (o.char_order < 1) throw InputError("chrF: char order must be >= 1");
  if (o.word_order < 0) throw InputError("chrF: word order must be >= 0");
  std::vector<std::vector<double>> out(hyps.size());
  const int N = o.char_order, W = o.word_order;
  // Segments are independent: each worker has its own clippers and word vocabulary (ids only
  // need to agree within a segment), so every segment's statistics are the same for any number
  // of workers; corpus_chrf sums them in segment order afterwards.
  core::parallel_ranges(
      hyps.size(), core::resolve_threads(o.threads), [&](size_t begin, size_t end) {
        NgramClipper chars, words;
        Vocabulary vocab;
        std::vector<uint32_t> h, hw;
        std::vector<std::vector<uint32_t>> r, rw;
        r.resize(refs.size());  // (not the size constructor: GCC 12 warns falsely on it here)
        rw.resize(refs.size());
        std::vector<IdSpan> r_spans(refs.size()), rw_spans(refs.size());
        for (size_t i = begin; i < end; ++i) {
          char_ids(hyps[i], o, h);
          for (size_t k = 0; k < refs.size(); ++k) {
            char_ids(refs[k][i], o, r[k]);
            r_spans[k] = IdSpan(r[k]);
          }
          chars.run(h, r_spans, N);  // one pass over the hypothesis, per-reference matches
          if (W > 0) {
            word_ids(hyps[i], o, vocab, hw);
            for (size_t k = 0; k < refs.size(); ++k) {
              word_ids(refs[k][i], o, vocab, rw[k]);
              rw_spans[k] = IdSpan(rw[k]);
            }
            words.run(hw, rw_spans, W);
          }
          double best_f = -1.0;
          std::vector<double> best, st(3 * (N + W));
          for (size_t k = 0; k < refs.size(); ++k) {
            pair_stats(chars, k, h.size(), r[k].size(), N, 0, st);
            if (W > 0) pair_stats(words, k, hw.size(), rw[k].size(), W, N, st);
            double f = chrf_f_score(st.data(), o);
            if (f > best_f) {
              best_f = f;
              best = st;
            }
          }
          out[i] = best;
        }
      });
  return out;
}

}  // namespace

ChrfScore corpus_chrf(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs, const ChrfOptions& opts) {
  ChrfScore s;
  s.stats.assign(3 * (opts.char_order + opts.word_order), 0.0);
  for (const auto& st : segment_stats(hyps, refs, opts))
    for (size_t j = 0; j < st.size(); ++j) s.stats[j] += st[j];
  s.score = chrf_f_score(s.stats.data(), opts);
  s.signature = opts.signature(static_cast<int>(refs.size()));
  return s;
}

std::vector<ChrfScore> sentence_chrf(const std::vector<std::string>& hyps,
                                     const std::vector<std::vector<std::string>>& refs,
                                     const ChrfOptions& opts) {
  std::vector<ChrfScore> out;
  for (auto& st : segment_stats(hyps, refs, opts)) {
    ChrfScore s;
    s.stats = st;
    s.score = chrf_f_score(st.data(), opts);
    s.signature = opts.signature(static_cast<int>(refs.size()));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::vector<double>> chrf_segment_stats(
    const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
    const ChrfOptions& opts) {
  return segment_stats(hyps, refs, opts);
}

double chrf_from_stats(const std::vector<double>& stats, const ChrfOptions& opts) {
  return chrf_f_score(stats.data(), opts);
}

double chrf_from_stats(const double* stats, const ChrfOptions& opts, bool float32_ratios) {
  return chrf_f_score(stats, opts, float32_ratios);
}

}  // namespace unieval::metrics
