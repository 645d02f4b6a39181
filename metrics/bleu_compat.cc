// Follows Moses (LGPL-2.1), NLTK (Apache-2.0), coco-caption (BSD-2-Clause) and PLATO (Apache-2.0)
// behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/bleu_compat.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"
#include "core/numpy_sum.h"
#include "core/py_string.h"
#include "metrics/bleu_internal.h"
#include "metrics/ngram.h"

namespace unieval::metrics {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Python math.fsum: exactly rounded sum (Shewchuk's partials, as CPython's msum).
double py_fsum(const std::vector<double>& xs) {
  std::vector<double> partials;
  for (double x : xs) {
    size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  // Sum partials from the top, with CPython's half-even correction.
  if (partials.empty()) return 0.0;
  size_t n = partials.size();
  double hi = partials[--n];
  double lo = 0.0;
  while (n > 0) {
    double x = hi;
    double y = partials[--n];
    hi = x + y;
    double yr = hi - x;
    lo = y - yr;
    if (lo != 0.0) break;
  }
  if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
    double y = lo * 2.0;
    double x = hi + y;
    double yr = x - hi;
    if (y == yr) hi = x;
  }
  return hi;
}

// Perl `split` with no arguments on a byte string: fields separated by ASCII whitespace.
std::vector<std::string_view> perl_split_bytes(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  auto sp = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (i < s.size()) {
    while (i < s.size() && sp(s[i])) ++i;
    if (i >= s.size()) break;
    size_t st = i;
    while (i < s.size() && !sp(s[i])) ++i;
    out.push_back(s.substr(st, i - st));
  }
  return out;
}

std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

std::vector<std::vector<std::string>> split_lines_py(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> out;
  out.reserve(lines.size());
  for (const auto& l : lines) {
    out.emplace_back();
    for (auto t : core::py_split(l)) out.back().emplace_back(t);
  }
  return out;
}

std::vector<std::vector<std::string>> refs_by_segment(
    const std::vector<std::vector<std::string>>& streams) {
  std::vector<std::vector<std::string>> out;
  if (streams.empty()) return out;
  out.resize(streams[0].size());
  for (const auto& s : streams)
    for (size_t i = 0; i < s.size() && i < out.size(); ++i) out[i].push_back(s[i]);
  return out;
}

// ---- multi-bleu.perl ------------------------------------------------------------------------

std::string MultiBleuScore::format() const {
  if (ref_len == 0) return "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)";
  std::string s = "BLEU = " + fmt("%.2f", score) + ", ";
  for (size_t i = 0; i < precisions.size(); ++i) {
    if (i) s += "/";
    s += fmt("%.1f", precisions[i]);
  }
  s += " (BP=" + fmt("%.3f", bp) + ", ratio=" + fmt("%.3f", ratio) +
       ", hyp_len=" + std::to_string(hyp_len) + ", ref_len=" + std::to_string(ref_len) + ")";
  return s;
}

MultiBleuScore multi_bleu(const std::vector<std::string>& hyps,
                          const std::vector<std::vector<std::string>>& refs,
                          const MultiBleuOptions& opts) {
  internal::check_streams(hyps.size(), refs);
  Vocabulary vocab;
  NgramClipper clip;
  std::vector<uint32_t> hyp_ids;
  std::vector<std::vector<uint32_t>> ref_ids(refs.size());
  std::vector<IdSpan> spans;
  int64_t correct[4] = {0, 0, 0, 0}, total[4] = {0, 0, 0, 0};
  int64_t len_trans = 0, len_ref = 0;
  auto ids_of = [&](const std::string& line, std::vector<uint32_t>& out) {
    out.clear();
    std::string low;
    std::string_view s = line;
    if (opts.lowercase) {
      low = ascii_lower(line);
      s = low;
    }
    for (auto t : perl_split_bytes(s)) out.push_back(vocab.id(t));
  };
  for (size_t i = 0; i < hyps.size(); ++i) {
    ids_of(hyps[i], hyp_ids);
    const int64_t hl = static_cast<int64_t>(hyp_ids.size());
    int64_t closest_diff = 9999, closest_len = 9999;  // multi-bleu.perl's initial values
    spans.clear();
    for (size_t k = 0; k < refs.size(); ++k) {
      ids_of(refs[k][i], ref_ids[k]);
      spans.emplace_back(ref_ids[k]);
      int64_t len = static_cast<int64_t>(ref_ids[k].size());
      int64_t diff = std::llabs(hl - len);
      if (diff < closest_diff) {
        closest_diff = diff;
        closest_len = len;
      } else if (diff == closest_diff && len < closest_len) {
        closest_len = len;
      }
    }
    len_trans += hl;
    len_ref += closest_len;
    clip.run(hyp_ids, spans, 4);
    for (int n = 1; n <= 4; ++n) {
      correct[n - 1] += clip.matches(n);
      total[n - 1] += clip.hyp_total(n);
    }
  }
  MultiBleuScore r;
  r.precisions.assign(4, 0.0);
  if (len_ref == 0) {
    r.warning =
        "reference length is 0: multi-bleu.perl prints \"BLEU = 0, 0/0/0/0 (BP=0, "
        "ratio=0, hyp_len=0, ref_len=0)\" and exits 1; returning those zeros";
    return r;
  }
  double p[4];
  for (int n = 0; n < 4; ++n)
    p[n] = total[n] ? static_cast<double>(correct[n]) / static_cast<double>(total[n]) : 0.0;
  r.hyp_len = len_trans;
  r.ref_len = len_ref;
  for (int n = 0; n < 4; ++n) r.precisions[n] = 100 * p[n];
  if (len_trans == 0) {
    r.warning =
        "empty hypothesis corpus: multi-bleu.perl dies with 'Illegal division by zero'; "
        "returning BLEU 0, BP 0";
    r.bp = 0;
    r.ratio = 0;
    r.score = 0;
    return r;
  }
  double bp = 1;
  if (len_trans < len_ref) bp = std::exp(1 - static_cast<double>(len_ref) / len_trans);
  auto my_log = [](double x) { return x == 0 ? -9999999999.0 : std::log(x); };
  double bleu = bp * std::exp((my_log(p[0]) + my_log(p[1]) + my_log(p[2]) + my_log(p[3])) / 4);
  r.bp = bp;
  r.score = 100 * bleu;
  r.ratio = static_cast<double>(len_trans) / static_cast<double>(len_ref);
  return r;
}

// ---- NLTK -----------------------------------------------------------------------------------

namespace {

// One token-id corpus in segment layout.
struct IdSegments {
  std::vector<std::vector<uint32_t>> hyps;
  std::vector<std::vector<std::vector<uint32_t>>> refs;
};

void check_segment_counts(size_t hyps, size_t refs) {
  if (hyps != refs)
    throw InputError("the number of hypotheses (" + std::to_string(hyps) +
                     ") and of reference lists (" + std::to_string(refs) + ") differ");
}

IdSegments to_ids(const std::vector<std::vector<std::string>>& hyps,
                  const std::vector<std::vector<std::vector<std::string>>>& refs) {
  check_segment_counts(hyps.size(), refs.size());
  Vocabulary vocab;
  IdSegments s;
  s.hyps.reserve(hyps.size());
  s.refs.resize(refs.size());
  for (const auto& h : hyps) s.hyps.push_back(vocab.ids(h));
  for (size_t i = 0; i < refs.size(); ++i)
    for (const auto& r : refs[i]) s.refs[i].push_back(vocab.ids(r));
  return s;
}

// Tokens = Python str.split() of each line, interned straight from the line (no token strings).
std::vector<uint32_t> split_ids(const std::string& line, Vocabulary& vocab) {
  std::vector<uint32_t> out;
  for (auto t : core::py_split(line)) out.push_back(vocab.id(t));
  return out;
}

IdSegments lines_to_ids(const std::vector<std::string>& hyps,
                        const std::vector<std::vector<std::string>>& refs_by_segment) {
  check_segment_counts(hyps.size(), refs_by_segment.size());
  Vocabulary vocab;
  IdSegments s;
  s.hyps.reserve(hyps.size());
  s.refs.resize(refs_by_segment.size());
  for (size_t i = 0; i < hyps.size(); ++i) {
    s.hyps.push_back(split_ids(hyps[i], vocab));
    for (const auto& r : refs_by_segment[i]) s.refs[i].push_back(split_ids(r, vocab));
  }
  return s;
}

// corpus_bleu's sums over the segments, for orders 1..L.
struct NltkStats {
  std::vector<double> num, den;  // clipped matches; max(1, hypothesis n-grams) summed
  int64_t hyp_lengths = 0, ref_lengths = 0;
  double p5 = 0;  // method 5's 5-gram precision of the last segment (when asked for)
};

NltkStats nltk_stats(const IdSegments& c, int L, bool need_p5, NgramClipper& clip) {
  NltkStats st;
  st.num.assign(L, 0);
  st.den.assign(L, 0);
  std::vector<IdSpan> spans;
  for (size_t i = 0; i < c.hyps.size(); ++i) {
    const auto& h = c.hyps[i];
    spans.clear();
    for (const auto& r : c.refs[i]) spans.emplace_back(r);
    // The last segment also gives method 5's 5-grams (lower orders are the same in any run).
    const bool last5 = need_p5 && i + 1 == c.hyps.size();
    clip.run(h, spans, last5 ? std::max(L, 5) : L);
    for (int n = 1; n <= L; ++n) {
      st.num[n - 1] += static_cast<double>(clip.matches(n));
      st.den[n - 1] += static_cast<double>(std::max<int64_t>(1, clip.hyp_total(n)));  // max(1, .)
    }
    if (last5)
      st.p5 = static_cast<double>(clip.matches(5)) /
              static_cast<double>(std::max<int64_t>(1, clip.hyp_total(5)));
    const int64_t hl = static_cast<int64_t>(h.size());
    st.hyp_lengths += hl;
    // closest_ref_length: min(ref_lens, key=(|r - h|, r))
    int64_t best = -1, best_diff = 0;
    for (const auto& r : c.refs[i]) {
      int64_t len = static_cast<int64_t>(r.size()), d = std::llabs(len - hl);
      if (best < 0 || d < best_diff || (d == best_diff && len < best)) {
        best = len;
        best_diff = d;
      }
    }
    if (best < 0) throw InputError("NLTK BLEU: a segment has no reference");
    st.ref_lengths += best;
  }
  return st;
}

void check_nltk_options(const NltkBleuOptions& o) {
  if (o.smoothing < 0 || o.smoothing > 7) throw InputError("--smoothing must be 0..7");
  if (o.weights.empty()) throw InputError("--weights must not be empty");
}

bool needs_p5(const NltkBleuOptions& o) { return o.smoothing == 5 || o.smoothing == 7; }

// corpus_bleu's score from its sums (st over orders 1..weights.size()) and its smoothing.
NltkBleuResult nltk_score(const NltkStats& st, const IdSegments& c, const NltkBleuOptions& o) {
  const int L = static_cast<int>(o.weights.size());
  std::vector<double> num(st.num.begin(), st.num.begin() + L),
      den(st.den.begin(), st.den.begin() + L);
  const int64_t hyp_lengths = st.hyp_lengths, ref_lengths = st.ref_lengths;
  NltkBleuResult res;
  // brevity_penalty(closest_ref_len, hyp_len)
  double bp;
  if (hyp_lengths > ref_lengths)
    bp = 1;
  else if (hyp_lengths == 0)
    bp = 0;
  else
    bp = std::exp(1 - static_cast<double>(ref_lengths) / static_cast<double>(hyp_lengths));
  if (num[0] == 0) return res;  // "if p_numerators[1] == 0: return 0"
  std::vector<double> p(L);
  for (int n = 0; n < L; ++n) p[n] = num[n] / den[n];
  std::vector<bool> zero(L);
  for (int n = 0; n < L; ++n) zero[n] = num[n] == 0;

  // The last segment (hypothesis/references leak out of the corpus_bleu loop).
  const std::vector<uint32_t> empty;
  const auto& last_h = c.hyps.empty() ? empty : c.hyps.back();
  const double hyp_len =
      hyp_lengths ? static_cast<double>(hyp_lengths) : static_cast<double>(last_h.size());
  auto method4 = [&]() {
    int incvnt = 1;
    for (int n = 0; n < L; ++n) {
      if (zero[n] && hyp_len > 1) {
        double numerator = 1 / (std::pow(2.0, incvnt) * o.k / std::log(hyp_len));
        p[n] = numerator / den[n];
        ++incvnt;
      }
    }
  };
  auto method5 = [&]() {
    std::vector<double> plus1 = p;
    plus1.push_back(st.p5);
    double m_prev = p[0] + 1;
    for (int n = 0; n < L; ++n) {
      p[n] = (m_prev + plus1[n] + plus1[n + 1]) / 3;
      m_prev = p[n];
    }
  };
  switch (o.smoothing) {
    case 0:
      for (int n = 0; n < L; ++n)
        if (zero[n]) p[n] = std::numeric_limits<double>::min();  // sys.float_info.min
      break;
    case 1:
      for (int n = 0; n < L; ++n)
        if (zero[n]) p[n] = (0 + o.epsilon) / den[n];
      break;
    case 2:
      for (int n = 1; n < L; ++n) p[n] = (num[n] + 1) / (den[n] + 1);
      break;
    case 3: {
      int incvnt = 1;
      for (int n = 0; n < L; ++n)
        if (zero[n]) {
          p[n] = 1 / (std::pow(2.0, incvnt) * den[n]);
          ++incvnt;
        }
      break;
    }
    case 4:
      method4();
      break;
    case 5:
      method5();
      break;
    case 6: {
      if (L < 3) {
        res.error = "IndexError: list index out of range";
        return res;
      }
      if (zero[2]) {
        res.error =
            "AssertionError: This smoothing method requires non-zero precision for bigrams.";
        return res;
      }
      for (int i = 2; i < L; ++i) {
        double pi0 = p[i - 2] == 0 ? 0 : p[i - 1] * p[i - 1] / p[i - 2];
        double l = static_cast<double>(
            std::max<int64_t>(0, static_cast<int64_t>(last_h.size()) - i));  // (i+1)-grams
        p[i] = (num[i] + o.alpha * pi0) / (l + o.alpha);  // m = p_i.numerator (corpus sum)
      }
      break;
    }
    case 7:
      method4();
      method5();
      break;
  }
  std::vector<double> terms;
  for (int n = 0; n < L; ++n)
    if (p[n] > 0) terms.push_back(o.weights[n] * std::log(p[n]));
  res.score = bp * std::exp(py_fsum(terms));
  return res;
}

NltkBleuResult nltk_corpus_bleu_ids(const IdSegments& c, const NltkBleuOptions& o) {
  check_nltk_options(o);
  NgramClipper clip;
  return nltk_score(nltk_stats(c, static_cast<int>(o.weights.size()), needs_p5(o), clip), c, o);
}

}  // namespace

NltkBleuResult nltk_corpus_bleu(const std::vector<std::vector<std::string>>& hyps,
                                const std::vector<std::vector<std::vector<std::string>>>& refs,
                                const NltkBleuOptions& opts) {
  return nltk_corpus_bleu_ids(to_ids(hyps, refs), opts);
}

NltkBleuResult nltk_sentence_bleu(const std::vector<std::vector<std::string>>& refs,
                                  const std::vector<std::string>& hyp,
                                  const NltkBleuOptions& opts) {
  return nltk_corpus_bleu_ids(to_ids({hyp}, {refs}), opts);
}

NltkBleuResult nltk_corpus_bleu_lines(const std::vector<std::string>& hyps,
                                      const std::vector<std::vector<std::string>>& refs_by_segment,
                                      const NltkBleuOptions& opts) {
  return nltk_corpus_bleu_ids(lines_to_ids(hyps, refs_by_segment), opts);
}

std::vector<NltkBleuResult> nltk_sentence_bleu_lines(
    const std::vector<std::string>& hyps,
    const std::vector<std::vector<std::string>>& refs_by_segment, const NltkBleuOptions& opts) {
  IdSegments all = lines_to_ids(hyps, refs_by_segment);
  std::vector<NltkBleuResult> out;
  out.reserve(all.hyps.size());
  IdSegments one;
  one.hyps.resize(1);
  one.refs.resize(1);
  for (size_t i = 0; i < all.hyps.size(); ++i) {
    one.hyps[0].swap(all.hyps[i]);
    one.refs[0].swap(all.refs[i]);
    out.push_back(nltk_corpus_bleu_ids(one, opts));
  }
  return out;
}

// ---- coco -----------------------------------------------------------------------------------

namespace {

CocoBleuScore coco_bleu_ids(const IdSegments& c) {
  const int n = 4;
  const double small = 1e-9, tiny = 1e-15;
  CocoBleuScore out;
  NgramClipper clip;
  double correct[4] = {0, 0, 0, 0}, guess[4] = {0, 0, 0, 0};
  double testlen_sum = 0, reflen_sum = 0;
  std::vector<IdSpan> spans;
  out.per_segment.reserve(c.hyps.size());
  for (size_t i = 0; i < c.hyps.size(); ++i) {
    const auto& h = c.hyps[i];
    if (c.refs[i].empty())
      throw InputError("coco BLEU: segment " + std::to_string(i + 1) + " has no reference");
    spans.clear();
    for (const auto& r : c.refs[i]) spans.emplace_back(r);
    clip.run(h, spans, n);
    const double testlen = static_cast<double>(h.size());
    // min((abs(l - testlen), l) for l in reflen)[1]
    int64_t best = -1, best_diff = 0;
    for (const auto& r : c.refs[i]) {
      int64_t len = static_cast<int64_t>(r.size()),
              d = std::llabs(len - static_cast<int64_t>(h.size()));
      if (best < 0 || d < best_diff || (d == best_diff && len < best)) {
        best = len;
        best_diff = d;
      }
    }
    const double reflen = static_cast<double>(best);
    testlen_sum += testlen;
    reflen_sum += reflen;
    std::vector<double> st = {testlen, reflen};
    std::vector<double> seg(n);
    double bleu = 1.0;
    for (int k = 0; k < n; ++k) {
      double cor = static_cast<double>(clip.matches(k + 1));
      double gue = static_cast<double>(std::max<int64_t>(0, static_cast<int64_t>(h.size()) - k));
      correct[k] += cor;
      guess[k] += gue;
      st.push_back(cor);
      bleu *= (cor + tiny) / (gue + small);
      seg[k] = std::pow(bleu, 1.0 / (k + 1));
    }
    double ratio = (testlen + tiny) / (reflen + small);
    if (ratio < 1)
      for (int k = 0; k < n; ++k) seg[k] *= std::exp(1 - 1 / ratio);
    out.per_segment.push_back(std::move(seg));
    for (int k = 0; k < n; ++k)
      st.push_back(static_cast<double>(std::max<int64_t>(0, static_cast<int64_t>(h.size()) - k)));
    out.stats.push_back(std::move(st));
  }
  out.bleu.resize(n);
  double bleu = 1.0;
  for (int k = 0; k < n; ++k) {
    bleu *= (correct[k] + tiny) / (guess[k] + small);
    out.bleu[k] = std::pow(bleu, 1.0 / (k + 1));
  }
  double ratio = (testlen_sum + tiny) / (reflen_sum + small);
  if (ratio < 1)
    for (int k = 0; k < n; ++k) out.bleu[k] *= std::exp(1 - 1 / ratio);
  return out;
}

}  // namespace

std::vector<double> coco_bleu_from_stats(const std::vector<double>& sums) {
  // sums: testlen, reflen, correct[4], guess[4] (as coco_bleu_ids accumulates them).
  const int n = 4;
  const double small = 1e-9, tiny = 1e-15;
  std::vector<double> out(n);
  double bleu = 1.0;
  for (int k = 0; k < n; ++k) {
    bleu *= (sums[2 + k] + tiny) / (sums[2 + n + k] + small);
    out[k] = std::pow(bleu, 1.0 / (k + 1));
  }
  double ratio = (sums[0] + tiny) / (sums[1] + small);
  if (ratio < 1)
    for (int k = 0; k < n; ++k) out[k] *= std::exp(1 - 1 / ratio);
  return out;
}

CocoBleuScore coco_bleu_tokens(const std::vector<std::vector<std::string>>& hyps,
                               const std::vector<std::vector<std::vector<std::string>>>& refs) {
  return coco_bleu_ids(to_ids(hyps, refs));
}

CocoBleuScore coco_bleu(const std::vector<std::string>& hyps,
                        const std::vector<std::vector<std::string>>& refs_by_segment) {
  return coco_bleu_ids(lines_to_ids(hyps, refs_by_segment));
}

// ---- PLATO ----------------------------------------------------------------------------------

PlatoBleuScore plato_bleu(const std::vector<std::string>& hyps,
                          const std::vector<std::string>& refs, const PlatoBleuOptions& opts) {
  if (hyps.size() != refs.size())
    throw InputError("PLATO BLEU: " + std::to_string(hyps.size()) + " hypotheses but " +
                     std::to_string(refs.size()) + " references");
  Vocabulary vocab;
  auto tokens = [&](const std::string& line, std::vector<uint32_t>& out) {
    out.clear();
    if (!opts.single_space_split) {
      for (auto t : core::py_split(line)) out.push_back(vocab.id(t));
      return;
    }
    std::string_view s = core::py_strip(line);  // line.strip().split(" ")
    size_t start = 0;
    for (;;) {
      size_t sp = s.find(' ', start);
      if (sp == std::string_view::npos) {
        out.push_back(vocab.id(s.substr(start)));
        break;
      }
      out.push_back(vocab.id(s.substr(start, sp - start)));
      start = sp + 1;
    }
  };
  NltkBleuOptions b1, b2;
  b1.weights = {1, 0, 0, 0};
  b2.weights = {0.5, 0.5, 0, 0};
  b1.smoothing = b2.smoothing = 7;
  std::vector<double> s1, s2;
  s1.reserve(hyps.size());
  s2.reserve(hyps.size());
  IdSegments one;  // sentence_bleu([ref], hyp) is corpus_bleu of one segment
  one.hyps.resize(1);
  one.refs.assign(1, std::vector<std::vector<uint32_t>>(1));
  NgramClipper clip;
  for (size_t i = 0; i < hyps.size(); ++i) {
    tokens(hyps[i], one.hyps[0]);
    tokens(refs[i], one.refs[0][0]);
    // Both weight sets have 4 orders: one pass of statistics serves the two scores.
    const NltkStats st = nltk_stats(one, 4, /*need_p5=*/true, clip);
    auto x1 = nltk_score(st, one, b1);
    auto x2 = nltk_score(st, one, b2);
    s1.push_back(x1.error ? 0.0 : x1.score);  // `except: score = 0`
    s2.push_back(x2.error ? 0.0 : x2.score);
  }
  PlatoBleuScore out;
  if (hyps.empty()) {
    out.bleu_1 = out.bleu_2 = std::nan("");  // np.average([]) is nan
    return out;
  }
  out.bleu_1 = core::numpy_pairwise_sum(s1.data(), s1.size()) / static_cast<double>(s1.size());
  out.bleu_2 = core::numpy_pairwise_sum(s2.data(), s2.size()) / static_cast<double>(s2.size());
  return out;
}

}  // namespace unieval::metrics
