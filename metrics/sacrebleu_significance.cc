// Follows sacreBLEU (Apache-2.0) and numpy (BSD-3-Clause) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "metrics/sacrebleu_significance.h"

#include <cmath>
#include <stdexcept>

#include "core/error.h"
#include "core/parallel.h"
#include "metrics/bleu_internal.h"

namespace unieval::metrics {
namespace {

// What a numpy float32 / int64 statistics array holds after BLEU's add-k writes x back into it
// (`correct[n - 1] += smooth_value`).
double stored_float32(double x) { return static_cast<double>(static_cast<float>(x)); }
double stored_int64(double x) { return std::trunc(x); }

// sacrebleu/metrics/bleu.py BLEU.compute_bleu on [sys_len, ref_len, correct x N, total x N].
// Apart from add-k's write-back the arithmetic is float64 under every typing (numpy 1.x promotes
// float32 op Python float to float64, and the counts are integers).
double bleu_of_sums(const BleuOptions& o, const double* s, SumArithmetic a) {
  double (*store)(double) = a == SumArithmetic::kFloat32 ? stored_float32
                            : a == SumArithmetic::kInt64 ? stored_int64
                                                         : nullptr;
  const int N = o.max_order;
  return internal::compute_bleu_values(std::trunc(s[0]), std::trunc(s[1]),  // int(stats[0..1])
                                       s + 2, s + 2 + N, o, store)
      .score;
}

size_t expected_cols(const ResampleMetric& m) {
  switch (m.metric) {
    case StatsMetric::kBleu:
      return 2 + 2 * static_cast<size_t>(m.bleu.max_order);
    case StatsMetric::kChrf:
      return 3 * static_cast<size_t>(m.chrf.char_order + m.chrf.word_order);
    case StatsMetric::kTer:
      return 2;
  }
  return 0;
}

}  // namespace

namespace {

// sacreBLEU's BLEU layout: [hyp_len, ref_len, correct x N, total x N] per segment.
void append_bleu_rows(const std::vector<BleuStats>& stats, StatsMatrix& st) {
  for (const BleuStats& s : stats) {
    st.values.push_back(static_cast<double>(s.sys_len));
    st.values.push_back(static_cast<double>(s.ref_len));
    for (int64_t c : s.correct) st.values.push_back(static_cast<double>(c));
    for (int64_t t : s.total) st.values.push_back(static_cast<double>(t));
  }
}

}  // namespace

StatsMatrix resample_segment_stats(const ResampleMetric& m, const std::vector<std::string>& hyps,
                                   const BleuReferences& refs) {
  if (m.metric != StatsMetric::kBleu)
    throw std::invalid_argument("resample_segment_stats: prepared references are BLEU's");
  StatsMatrix st;
  st.rows = hyps.size();
  st.cols = expected_cols(m);
  st.values.reserve(st.rows * st.cols);
  append_bleu_rows(bleu_segment_stats(hyps, refs, m.bleu), st);
  if (st.values.size() != st.rows * st.cols)
    throw std::logic_error("resample_segment_stats: statistics of unexpected width");
  return st;  // BLEU's statistics are counts: integral
}

StatsMatrix resample_segment_stats(const ResampleMetric& m, const std::vector<std::string>& hyps,
                                   const std::vector<std::vector<std::string>>& refs) {
  StatsMatrix st;
  st.rows = hyps.size();
  st.cols = expected_cols(m);
  st.values.reserve(st.rows * st.cols);
  switch (m.metric) {
    case StatsMetric::kBleu:
      append_bleu_rows(bleu_segment_stats(hyps, refs, m.bleu), st);
      break;
    case StatsMetric::kChrf:
      for (const auto& row : chrf_segment_stats(hyps, refs, m.chrf))
        st.values.insert(st.values.end(), row.begin(), row.end());
      break;
    case StatsMetric::kTer:
      for (const auto& row : ter_segment_stats(hyps, refs, m.ter))
        st.values.insert(st.values.end(), row.begin(), row.end());
      break;
  }
  if (st.values.size() != st.rows * st.cols)
    throw std::logic_error("resample_segment_stats: statistics of unexpected width");
  for (double v : st.values) st.integral &= v == std::trunc(v);
  return st;
}

double score_of_sums(const ResampleMetric& m, const double* sums, size_t cols, SumArithmetic a) {
  if (cols != expected_cols(m)) throw InputError("significance: statistics of unexpected width");
  switch (m.metric) {
    case StatsMetric::kBleu:
      return bleu_of_sums(m.bleu, sums, a);
    case StatsMetric::kChrf:
      return chrf_from_stats(sums, m.chrf, a == SumArithmetic::kFloat32);
    case StatsMetric::kTer:
      return ter_from_stats(sums, a == SumArithmetic::kFloat32);
  }
  return 0;
}

std::vector<double> python_sums(const StatsMatrix& st) {
  std::vector<double> s(st.cols, 0.0);
  for (size_t i = 0; i < st.rows; ++i)
    for (size_t j = 0; j < st.cols; ++j) s[j] += st.row(i)[j];
  return s;
}

std::vector<double> bootstrap_scores(const ResampleMetric& m, const StatsMatrix& st,
                                     const int64_t* idx, size_t samples) {
  const size_t n = st.rows, k = st.cols;
  if (k != expected_cols(m)) throw InputError("significance: statistics of unexpected width");
  for (size_t i = 0; i < samples * n; ++i)
    if (idx[i] < 0 || static_cast<size_t>(idx[i]) >= n)
      throw InputError("significance: resample index out of range");
  // np.array(stats, dtype='float32'), each row padded with zeros to a multiple of kLanes so that
  // the row additions below are fixed-width (vectorised) loops; every column still gets its own
  // float32 additions in segment order, as numpy's axis-0 sum does them.
  constexpr size_t kLanes = 8;
  const size_t kp = (k + kLanes - 1) / kLanes * kLanes;
  std::vector<float> f32(n * kp, 0.0f);
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < k; ++c) f32[i * kp + c] = static_cast<float>(st.row(i)[c]);
  std::vector<double> out(samples);
  core::parallel_ranges(
      samples, core::resolve_threads(m.threads),
      [&](size_t begin, size_t end) {
        std::vector<float> acc(kp);
        std::vector<double> sums(k);
        for (size_t r = begin; r < end; ++r) {
          std::fill(acc.begin(), acc.end(), 0.0f);
          const int64_t* ix = idx + r * n;
          for (size_t j = 0; j < n; ++j) {  // _s.sum(0): float32, segment order
            const float* row = f32.data() + static_cast<size_t>(ix[j]) * kp;
            for (size_t c0 = 0; c0 < kp; c0 += kLanes) {
              float* a = acc.data() + c0;
              const float* x = row + c0;
              for (size_t l = 0; l < kLanes; ++l) a[l] += x[l];
            }
          }
          for (size_t c = 0; c < k; ++c) sums[c] = acc[c];
          out[r] = score_of_sums(m, sums.data(), k, SumArithmetic::kFloat32);
        }
      },
      1);
  return out;
}

ArScores ar_scores(const ResampleMetric& m, const StatsMatrix& baseline, const StatsMatrix& system,
                   const uint8_t* mask, size_t trials) {
  const size_t n = baseline.rows, k = baseline.cols;
  if (system.rows != n || system.cols != k || k != expected_cols(m))
    throw InputError("significance: the systems' statistics differ in shape");
  // numpy: `pos_sel @ bl_stats + neg_sel @ sys_stats` on the statistics as lists; BLEU's and
  // chrF's are Python ints (an int64 product), TER's hold floats (float64).
  const SumArithmetic arith =
      m.metric == StatsMetric::kTer ? SumArithmetic::kPython : SumArithmetic::kInt64;
  const bool integral = baseline.integral && system.integral;
  ArScores out;
  out.a.resize(trials);
  out.b.resize(trials);
  std::vector<int64_t> ib, is, diff, total(k, 0);
  if (integral) {  // exact: A = sum(sys) + sum over pos of (bl - sys); B = sum(bl) + sum(sys) - A
    ib.resize(n * k);
    is.resize(n * k);
    diff.resize(n * k);
    for (size_t i = 0; i < n * k; ++i) {
      ib[i] = static_cast<int64_t>(baseline.values[i]);
      is[i] = static_cast<int64_t>(system.values[i]);
      diff[i] = ib[i] - is[i];
    }
  }
  std::vector<int64_t> sum_b(k, 0), sum_s(k, 0);
  if (integral)
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < k; ++c) {
        sum_b[c] += ib[i * k + c];
        sum_s[c] += is[i * k + c];
      }
  core::parallel_ranges(
      trials, core::resolve_threads(m.threads),
      [&](size_t begin, size_t end) {
        std::vector<int64_t> acc(k);
        std::vector<double> fa(k), fb(k), pa(k), pb(k);
        for (size_t t = begin; t < end; ++t) {
          const uint8_t* sel = mask + t * n;
          if (integral) {
            std::fill(acc.begin(), acc.end(), 0);
            for (size_t j = 0; j < n; ++j) {
              if (!sel[j]) continue;
              const int64_t* d = diff.data() + j * k;
              for (size_t c = 0; c < k; ++c) acc[c] += d[c];
            }
            for (size_t c = 0; c < k; ++c) {
              const int64_t a = sum_s[c] + acc[c];
              fa[c] = static_cast<double>(a);
              fb[c] = static_cast<double>(sum_b[c] + sum_s[c] - a);
            }
          } else {  // float64 sums in segment order (numpy's BLAS product may order them otherwise)
            std::fill(fa.begin(), fa.end(), 0.0);
            std::fill(fb.begin(), fb.end(), 0.0);
            std::fill(pa.begin(), pa.end(), 0.0);
            std::fill(pb.begin(), pb.end(), 0.0);
            for (size_t j = 0; j < n; ++j) {
              const double* rb = baseline.row(j);
              const double* rs = system.row(j);
              for (size_t c = 0; c < k; ++c) {
                if (sel[j]) {
                  fa[c] += rb[c];
                  pb[c] += rs[c];
                } else {
                  pa[c] += rs[c];
                  fb[c] += rb[c];
                }
              }
            }
            for (size_t c = 0; c < k; ++c) {
              fa[c] += pa[c];         // pos @ bl + neg @ sys
              fb[c] = fb[c] + pb[c];  // neg @ bl + pos @ sys
            }
          }
          out.a[t] = score_of_sums(m, fa.data(), k, arith);
          out.b[t] = score_of_sums(m, fb.data(), k, arith);
        }
      },
      1);
  return out;
}

}  // namespace unieval::metrics
