// Follows sacreBLEU (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/error.h"
#include "core/parallel.h"
#include "core/py_string.h"
#include "metrics/bleu_internal.h"
#include "metrics/ngram.h"
#include "metrics/text/py_lower.h"
#include "metrics/text/tokenize_13a.h"
#include "metrics/text/tokenize_intl.h"

namespace unieval::metrics {

BleuTokenize parse_bleu_tokenize(const std::string& name) {
  if (name == "13a") return BleuTokenize::k13a;
  if (name == "intl") return BleuTokenize::kIntl;
  if (name == "none") return BleuTokenize::kNone;
  if (name == "char") return BleuTokenize::kChar;
  if (name == "zh") return BleuTokenize::kZh;
  throw InputError("--tokenize: unknown tokenizer '" + name + "' (13a, intl, none, char, zh)");
}

BleuSmooth parse_bleu_smooth(const std::string& name) {
  if (name == "exp") return BleuSmooth::kExp;
  if (name == "floor") return BleuSmooth::kFloor;
  if (name == "add-k") return BleuSmooth::kAddK;
  if (name == "none") return BleuSmooth::kNone;
  throw InputError("--smooth: unknown method '" + name + "' (exp, floor, add-k, none)");
}

std::string to_string(BleuTokenize t) {
  switch (t) {
    case BleuTokenize::k13a:
      return "13a";
    case BleuTokenize::kIntl:
      return "intl";
    case BleuTokenize::kNone:
      return "none";
    case BleuTokenize::kChar:
      return "char";
    case BleuTokenize::kZh:
      return "zh";
  }
  return "?";
}

std::string to_string(BleuSmooth s) {
  switch (s) {
    case BleuSmooth::kExp:
      return "exp";
    case BleuSmooth::kFloor:
      return "floor";
    case BleuSmooth::kAddK:
      return "add-k";
    case BleuSmooth::kNone:
      return "none";
  }
  return "?";
}

namespace {

double default_smooth_value(const BleuOptions& o) {
  if (o.smooth_value) return *o.smooth_value;
  return o.smooth == BleuSmooth::kFloor ? 0.1 : 1.0;  // sacrebleu BLEU.SMOOTH_DEFAULTS
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string BleuOptions::signature(int nrefs) const {
  std::string s = "nrefs:" + (nrefs < 0 ? std::string("var") : std::to_string(nrefs));
  s += lowercase ? "|case:lc" : "|case:mixed";
  s += effective_order ? "|eff:yes" : "|eff:no";
  s += "|tok:" + to_string(tokenize);
  s += "|smooth:" + to_string(smooth);
  if (smooth == BleuSmooth::kFloor || smooth == BleuSmooth::kAddK)
    s += "[" + fmt("%.2f", default_smooth_value(*this)) + "]";
  s += "|version:2.6.0";
  return s;
}

void BleuStats::add(const BleuStats& o) {
  sys_len += o.sys_len;
  ref_len += o.ref_len;
  if (correct.size() < o.correct.size()) correct.resize(o.correct.size(), 0);
  if (total.size() < o.total.size()) total.resize(o.total.size(), 0);
  for (size_t i = 0; i < o.correct.size(); ++i) correct[i] += o.correct[i];
  for (size_t i = 0; i < o.total.size(); ++i) total[i] += o.total[i];
}

std::string BleuScore::format() const {
  double ratio = ref_len ? static_cast<double>(sys_len) / static_cast<double>(ref_len) : 0.0;
  std::string s = "BLEU = " + fmt("%.2f", score) + " ";
  for (size_t i = 0; i < precisions.size(); ++i) {
    if (i) s += "/";
    s += fmt("%.1f", precisions[i]);
  }
  s += " (BP = " + fmt("%.3f", bp) + " ratio = " + fmt("%.3f", ratio) +
       " hyp_len = " + std::to_string(sys_len) + " ref_len = " + std::to_string(ref_len) + ")";
  return s;
}

BleuScore compute_bleu(const BleuStats& stats, const BleuOptions& opts) {
  const int N = opts.max_order;
  std::vector<double> correct(N, 0.0), total(N, 0.0);
  for (int n = 0; n < N; ++n) {
    if (n < static_cast<int>(stats.correct.size()))
      correct[n] = static_cast<double>(stats.correct[n]);
    if (n < static_cast<int>(stats.total.size())) total[n] = static_cast<double>(stats.total[n]);
  }
  return internal::compute_bleu_values(static_cast<double>(stats.sys_len),
                                       static_cast<double>(stats.ref_len), correct.data(),
                                       total.data(), opts);
}

namespace internal {

BleuScore compute_bleu_values(double sys_len, double ref_len, const double* correct,
                              const double* total, const BleuOptions& opts,
                              double (*store)(double)) {
  // sacrebleu/metrics/bleu.py BLEU.compute_bleu
  const int N = opts.max_order;
  BleuScore r;
  r.sys_len = static_cast<int64_t>(sys_len);
  r.ref_len = static_cast<int64_t>(ref_len);
  r.counts.assign(correct, correct + N);
  r.totals.assign(total, total + N);
  r.precisions.assign(N, 0.0);
  if (sys_len < ref_len)
    r.bp = sys_len > 0 ? std::exp(1.0 - ref_len / sys_len) : 0.0;
  else
    r.bp = 1.0;
  bool any = false;
  for (double c : r.counts) any |= c != 0;
  if (!any) {  // sacrebleu #141: no match of any order -> 0 (BP is still reported)
    r.score = 0.0;
    return r;
  }
  const double sv = default_smooth_value(opts);
  double smooth_mteval = 1.0;
  int eff_order = N;
  for (int n = 1; n <= N; ++n) {
    if (opts.smooth == BleuSmooth::kAddK && n > 1) {  // written back into the statistics array
      r.counts[n - 1] += sv;
      r.totals[n - 1] += sv;
      if (store) {
        r.counts[n - 1] = store(r.counts[n - 1]);
        r.totals[n - 1] = store(r.totals[n - 1]);
      }
    }
    if (r.totals[n - 1] == 0) break;
    if (opts.effective_order) eff_order = n;
    if (r.counts[n - 1] == 0) {
      if (opts.smooth == BleuSmooth::kExp) {
        smooth_mteval *= 2;
        r.precisions[n - 1] = 100.0 / (smooth_mteval * r.totals[n - 1]);
      } else if (opts.smooth == BleuSmooth::kFloor) {
        r.precisions[n - 1] = 100.0 * sv / r.totals[n - 1];
      }
    } else {
      r.precisions[n - 1] = 100.0 * r.counts[n - 1] / r.totals[n - 1];
    }
  }
  double sum = 0.0;
  for (int n = 0; n < eff_order; ++n)
    sum += r.precisions[n] == 0.0 ? -9999999999.0 : std::log(r.precisions[n]);  // my_log
  r.score = r.bp * std::exp(sum / eff_order);
  return r;
}

std::string bleu_tokenize_line(const std::string& line, const BleuOptions& opts) {
  std::string low;
  std::string_view s = line;
  if (opts.lowercase) {
    low = text::py_lower(line);
    s = low;
  }
  s = core::py_rstrip(s);
  switch (opts.tokenize) {
    case BleuTokenize::k13a:
      return text::tokenize_13a(s);
    case BleuTokenize::kIntl:
      return text::tokenize_intl(s);
    case BleuTokenize::kZh:
      return text::tokenize_zh(s);
    case BleuTokenize::kChar:
      return text::tokenize_char(s);
    case BleuTokenize::kNone:
      return std::string(s);
  }
  return std::string(s);
}

namespace {

// The ids of a line's BLEU tokens, id_of(token) each: tokenised as sacreBLEU does, then split on
// Python whitespace (none, char) or on the single spaces the other tokenisers already leave.
template <class IdOf>
void line_ids(const std::string& line, const BleuOptions& opts, IdOf id_of,
              std::vector<uint32_t>& out) {
  out.clear();
  std::string tok = bleu_tokenize_line(line, opts);
  if (opts.tokenize == BleuTokenize::kNone || opts.tokenize == BleuTokenize::kChar) {
    for (auto t : core::py_split(tok)) out.push_back(id_of(t));
    return;
  }
  const std::string_view s = tok;  // already ' '.join(split())
  size_t start = 0;
  while (start < s.size()) {
    size_t sp = s.find(' ', start);
    if (sp == std::string_view::npos) sp = s.size();
    if (sp > start) out.push_back(id_of(s.substr(start, sp - start)));
    start = sp + 1;
  }
}

}  // namespace

void bleu_line_ids(const std::string& line, const BleuOptions& opts, Vocabulary& vocab,
                   std::vector<uint32_t>& out) {
  line_ids(
      line, opts, [&vocab](std::string_view t) { return vocab.id(t); }, out);
}

void bleu_line_known_ids(const std::string& line, const BleuOptions& opts, const Vocabulary& vocab,
                         std::vector<uint32_t>& out) {
  line_ids(
      line, opts, [&vocab](std::string_view t) { return vocab.find(t); }, out);
}

void check_streams(size_t n_hyps, const std::vector<std::vector<std::string>>& refs) {
  if (refs.empty()) throw InputError("at least one reference stream is required");
  for (size_t k = 0; k < refs.size(); ++k)
    if (refs[k].size() != n_hyps)
      throw InputError("reference stream " + std::to_string(k + 1) + " has " +
                       std::to_string(refs[k].size()) + " segments, the hypotheses have " +
                       std::to_string(n_hyps));
}

}  // namespace internal

std::vector<std::string> bleu_tokenize(const std::string& line, const BleuOptions& opts) {
  std::string tok = internal::bleu_tokenize_line(line, opts);
  std::vector<std::string> out;
  for (auto t : core::py_split(tok)) out.emplace_back(t);
  return out;
}

namespace {

// One segment's statistics from its token ids: sacrebleu BLEU._get_closest_ref_len (ties go to
// the shorter reference; -1 without references), then the clipped matches.
void count_segment(const std::vector<uint32_t>& hyp_ids, const std::vector<IdSpan>& refs, int N,
                   NgramClipper& clip, BleuStats& st) {
  int64_t closest_diff = -1, closest_len = -1;
  const int64_t hyp_len = static_cast<int64_t>(hyp_ids.size());
  for (const IdSpan& r : refs) {
    const int64_t len = static_cast<int64_t>(r.size);
    const int64_t diff = std::llabs(hyp_len - len);
    if (closest_diff == -1 || diff < closest_diff) {
      closest_diff = diff;
      closest_len = len;
    } else if (diff == closest_diff && len < closest_len) {
      closest_len = len;
    }
  }
  clip.run(hyp_ids, refs, N);
  st.sys_len = hyp_len;
  st.ref_len = closest_len;
  st.correct.resize(N);
  st.total.resize(N);
  for (int n = 1; n <= N; ++n) {
    st.correct[n - 1] = clip.matches(n);
    st.total[n - 1] = clip.hyp_total(n);
  }
}

bool is_missing(const std::string& ref, const BleuOptions& opts) {
  return opts.ref_missing_marker && ref == *opts.ref_missing_marker;
}

}  // namespace

std::vector<BleuStats> bleu_segment_stats(const std::vector<std::string>& hyps,
                                          const std::vector<std::vector<std::string>>& refs,
                                          const BleuOptions& opts) {
  internal::check_streams(hyps.size(), refs);
  if (opts.max_order < 1) throw InputError("--max-order must be >= 1");
  std::vector<BleuStats> out(hyps.size());
  // Segments are independent: each worker interns tokens in a vocabulary of its own (ids only
  // need to agree within a segment) and writes its segments' statistics, so they are the same
  // for any number of workers.
  core::parallel_ranges(
      hyps.size(), core::resolve_threads(opts.threads), [&](size_t begin, size_t end) {
        Vocabulary vocab;
        NgramClipper clip;
        std::vector<uint32_t> hyp_ids;
        std::vector<std::vector<uint32_t>> ref_ids;
        ref_ids.resize(refs.size());  // (not the size constructor: GCC 12 warns falsely on it here)
        std::vector<IdSpan> spans;
        for (size_t i = begin; i < end; ++i) {
          internal::bleu_line_ids(hyps[i], opts, vocab, hyp_ids);
          spans.clear();
          for (size_t k = 0; k < refs.size(); ++k) {
            if (is_missing(refs[k][i], opts)) continue;
            internal::bleu_line_ids(refs[k][i], opts, vocab, ref_ids[k]);
            spans.emplace_back(ref_ids[k]);
          }
          count_segment(hyp_ids, spans, opts.max_order, clip, out[i]);
        }
      });
  return out;
}

BleuReferences::BleuReferences(const std::vector<std::vector<std::string>>& refs,
                               const BleuOptions& opts)
    : opts_(opts), segments_(refs.empty() ? 0 : refs[0].size()), streams_(refs.size()) {
  internal::check_streams(segments_, refs);
  const size_t blocks = (segments_ + kBlock - 1) / kBlock;
  vocab_.resize(blocks);
  ids_.resize(segments_ * streams_);
  present_.assign(segments_ * streams_, 0);
  core::parallel_ranges(
      blocks, core::resolve_threads(opts.threads),
      [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b)
          for (size_t i = b * kBlock; i < std::min(segments_, (b + 1) * kBlock); ++i)
            for (size_t k = 0; k < streams_; ++k) {
              if (is_missing(refs[k][i], opts)) continue;
              present_[i * streams_ + k] = 1;
              internal::bleu_line_ids(refs[k][i], opts, vocab_[b], ids_[i * streams_ + k]);
            }
      },
      1);
}

bool BleuReferences::tokenises_as(const BleuOptions& opts) const {
  return opts.tokenize == opts_.tokenize && opts.lowercase == opts_.lowercase &&
         opts.ref_missing_marker == opts_.ref_missing_marker;
}

std::vector<BleuStats> bleu_segment_stats(const std::vector<std::string>& hyps,
                                          const BleuReferences& refs, const BleuOptions& opts) {
  if (!refs.tokenises_as(opts))
    throw std::invalid_argument(
        "bleu_segment_stats: references prepared with another tokenisation");
  if (refs.streams() == 0) throw InputError("at least one reference stream is required");
  if (refs.segments() != hyps.size())
    throw InputError("reference stream 1 has " + std::to_string(refs.segments()) +
                     " segments, the hypotheses have " + std::to_string(hyps.size()));
  if (opts.max_order < 1) throw InputError("--max-order must be >= 1");
  std::vector<BleuStats> out(hyps.size());
  const size_t blocks = (hyps.size() + BleuReferences::kBlock - 1) / BleuReferences::kBlock;
  core::parallel_ranges(
      blocks, core::resolve_threads(opts.threads),
      [&](size_t b0, size_t b1) {
        NgramClipper clip;
        std::vector<uint32_t> hyp_ids;
        std::vector<IdSpan> spans;
        for (size_t b = b0; b < b1; ++b) {
          const Vocabulary& vocab = refs.vocab_[b];
          for (size_t i = b * BleuReferences::kBlock;
               i < std::min(hyps.size(), (b + 1) * BleuReferences::kBlock); ++i) {
            internal::bleu_line_known_ids(hyps[i], opts, vocab, hyp_ids);
            spans.clear();
            for (size_t k = 0; k < refs.streams(); ++k)
              if (refs.present_[i * refs.streams() + k])
                spans.emplace_back(refs.ids_[i * refs.streams() + k]);
            count_segment(hyp_ids, spans, opts.max_order, clip, out[i]);
          }
        }
      },
      1);
  return out;
}

namespace {

int count_nrefs(const std::vector<std::vector<std::string>>& refs, const BleuOptions& opts) {
  if (!opts.ref_missing_marker) return static_cast<int>(refs.size());
  for (const auto& stream : refs)
    for (const auto& r : stream)
      if (r == *opts.ref_missing_marker) return -1;
  return static_cast<int>(refs.size());
}

}  // namespace

BleuScore corpus_bleu(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs, const BleuOptions& opts) {
  BleuStats total;
  total.correct.assign(opts.max_order, 0);
  total.total.assign(opts.max_order, 0);
  for (const auto& s : bleu_segment_stats(hyps, refs, opts)) total.add(s);
  BleuScore r = compute_bleu(total, opts);
  r.signature = opts.signature(count_nrefs(refs, opts));
  return r;
}

std::vector<BleuScore> sentence_bleu(const std::vector<std::string>& hyps,
                                     const std::vector<std::vector<std::string>>& refs,
                                     const BleuOptions& opts) {
  std::vector<BleuScore> out;
  std::string sig = opts.signature(count_nrefs(refs, opts));
  for (const auto& s : bleu_segment_stats(hyps, refs, opts)) {
    out.push_back(compute_bleu(s, opts));
    out.back().signature = sig;
  }
  return out;
}

}  // namespace unieval::metrics
