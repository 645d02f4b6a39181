// Follows sacreBLEU (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include "core/error.h"

namespace unieval::metrics {

namespace {

// The resamples, one at a time (the same generator sequence whatever the caller does with them).
class Resampler {
 public:
  Resampler(size_t n, const BootstrapOptions& o)
      : n_(n), o_(o), rng_(o.seed), pick_(0, n ? n - 1 : 0), idx_(n) {
    if (n == 0) throw InputError("bootstrap: no items to resample");
    if (o.resamples < 1) throw InputError("bootstrap: --bootstrap needs at least 1 resample");
    if (!(o.confidence > 0 && o.confidence < 1))
      throw InputError("bootstrap: confidence must be in (0, 1)");
  }
  // The next resample's indices (valid until the next call).
  const std::vector<size_t>& next() {
    if (o_.draw == BootstrapDraw::kModulo) {
      for (auto& i : idx_) i = static_cast<size_t>(rng_() % n_);  // modulo bias < n / 2^64
    } else {
      for (auto& i : idx_) i = pick_(rng_);
    }
    return idx_;
  }

 private:
  size_t n_;
  BootstrapOptions o_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<size_t> pick_;
  std::vector<size_t> idx_;
};

double percentile(std::vector<double> v, double q) {  // numpy 'linear' interpolation
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

std::string BootstrapOptions::signature() const {
  char buf[128];
  std::snprintf(buf, sizeof buf, "bs:%d|seed:%llu|ci:%g", resamples,
                static_cast<unsigned long long>(seed), confidence);
  return buf;
}

std::vector<BootstrapInterval> bootstrap_ci(size_t n, const ScoreFn& score,
                                            const BootstrapOptions& o) {
  Resampler samples(n, o);
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::vector<double> full = score(all);
  std::vector<std::vector<double>> vals(full.size());
  for (int r = 0; r < o.resamples; ++r) {
    auto v = score(samples.next());
    for (size_t k = 0; k < full.size(); ++k)
      if (!std::isnan(v[k])) vals[k].push_back(v[k]);  // undefined on this resample (e.g. constant)
  }
  std::vector<BootstrapInterval> out(full.size());
  for (size_t k = 0; k < full.size(); ++k) {
    auto& b = out[k];
    b.score = full[k];
    if (vals[k].empty()) {
      b.mean = b.stddev = b.low = b.high = std::nan("");
      continue;
    }
    double m = 0;
    for (double x : vals[k]) m += x;
    m /= static_cast<double>(vals[k].size());
    double var = 0;
    for (double x : vals[k]) var += (x - m) * (x - m);
    b.mean = m;
    b.stddev = std::sqrt(var / static_cast<double>(vals[k].size()));
    b.low = percentile(vals[k], (1 - o.confidence) / 2);
    b.high = percentile(vals[k], (1 + o.confidence) / 2);
  }
  return out;
}

std::vector<PairedBootstrap> paired_bootstrap(size_t n, const ScoreFn& sys, const ScoreFn& base,
                                              const BootstrapOptions& o) {
  Resampler samples(n, o);
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  auto fs = sys(all), fb = base(all);
  if (fs.size() != fb.size())
    throw std::logic_error("paired_bootstrap: score functions disagree on size");
  std::vector<std::vector<double>> d(fs.size());
  for (int r = 0; r < o.resamples; ++r) {
    const auto& s = samples.next();
    auto a = sys(s), b = base(s);
    for (size_t k = 0; k < fs.size(); ++k)
      if (!std::isnan(a[k] - b[k])) d[k].push_back(a[k] - b[k]);
  }
  std::vector<PairedBootstrap> out(fs.size());
  for (size_t k = 0; k < fs.size(); ++k) {
    out[k].system = fs[k];
    out[k].baseline = fb[k];
    out[k].delta = fs[k] - fb[k];
    if (d[k].empty()) {
      out[k].p_value = std::nan("");
      continue;
    }
    double mean = 0;
    for (double x : d[k]) mean += x;
    mean /= static_cast<double>(d[k].size());
    size_t extreme = 0;
    for (double x : d[k]) extreme += std::fabs(x - mean) >= std::fabs(out[k].delta);
    out[k].p_value = static_cast<double>(extreme + 1) / static_cast<double>(d[k].size() + 1);
  }
  return out;
}

ScoreFn mean_score_fn(const std::vector<double>& values, double scale) {
  return [&values, scale](const std::vector<size_t>& idx) {
    double sum = 0;
    for (size_t i : idx) sum += values[i];
    return std::vector<double>{scale * sum / static_cast<double>(idx.size())};
  };
}

ScoreFn sums_score_fn(
    const ItemStats& stats,
    std::function<std::vector<double>(const std::vector<double>&, size_t)> reduce) {
  return [&stats, reduce](const std::vector<size_t>& idx) {
    size_t k = stats.rows.empty() ? 0 : stats.rows[0].size();
    std::vector<double> sums(k, 0.0);
    for (size_t i : idx)
      for (size_t c = 0; c < k; ++c) sums[c] += stats.rows[i][c];
    return reduce(sums, idx.size());
  };
}

}  // namespace unieval::metrics
