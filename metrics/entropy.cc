// Follows DSTC7 (no code licence) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
#include "metrics/entropy.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "metrics/distinct.h"
#include "metrics/ngram_ids.h"

namespace unieval::metrics {

std::string EntropyOptions::signature() const {
  std::string s = "entropy|n:";
  for (size_t i = 0; i < orders.size(); ++i) s += (i ? "," : "") + std::to_string(orders[i]);
  s += std::string("|tok:") + (dstc7_clean ? "dstc7-clean_str+split" : "split");
  return s + "|log:e|official:DSTC7-metrics.py@e2b50e5";
}

namespace {

EntropyResult entropy_levels(internal::NgramLevels lv, const EntropyOptions& opts) {
  EntropyResult r;
  r.orders = opts.orders;
  r.signature = opts.signature();
  int max_n = 0;
  for (int n : opts.orders) {
    if (n < 1) throw InputError("n-gram orders must be >= 1 (got " + std::to_string(n) + ")");
    max_n = std::max(max_n, n);
  }
  std::vector<double> h_of(max_n + 1, 0.0);
  std::vector<bool> wanted(max_n + 1, false);
  for (int n : opts.orders) wanted[n] = true;
  // ln c for the small counts that make up almost all of the sum: the same std::log values,
  // computed once.
  std::vector<double> log_small(4096);
  for (size_t c = 1; c < log_small.size(); ++c) log_small[c] = std::log(static_cast<double>(c));
  core::HugeVector<uint32_t> counts;
  const auto& starts = lv.starts();
  for (int n = 1; n <= max_n; ++n) {
    if (n > 1) lv.next();
    if (!wanted[n]) continue;
    // counter[n][ngram] += 1. Ids are dense in first-seen order, which is the order the
    // official dict iterates in for the sum below.
    counts.assign(lv.types(), 0);
    const auto& ids = lv.ids();
    size_t occurrences = 0;
    for (size_t s = 0; s < lv.segments(); ++s) {
      for (size_t p = starts[s]; p + n <= starts[s + 1]; ++p) ++counts[ids[p]];
      size_t len = starts[s + 1] - starts[s];
      occurrences += len >= static_cast<size_t>(n) ? len - n + 1 : 0;
    }
    const double total = static_cast<double>(occurrences);  // sum(counter.values()) (ints: exact)
    const double log_total = std::log(total);
    double h = 0.0;
    for (uint32_t c : counts) {
      double v = static_cast<double>(c);
      double log_v = c < log_small.size() ? log_small[c] : std::log(v);
      h += -v / total * (log_v - log_total);
    }
    h_of[n] = h;
  }
  for (int n : opts.orders) r.entropy.push_back(h_of[n]);
  return r;
}

}  // namespace

EntropyResult entropy_tokens(const std::vector<std::vector<std::string>>& segs,
                             const EntropyOptions& opts) {
  return entropy_levels(internal::levels_of_segments(segs), opts);
}

EntropyResult entropy(const std::vector<std::string>& lines, const EntropyOptions& opts) {
  return entropy_levels(internal::levels_of_lines(lines, DistinctFlavour::kDstc7, opts.dstc7_clean),
                        opts);
}

nlohmann::ordered_json EntropyResult::to_json() const {
  nlohmann::ordered_json j;
  for (size_t i = 0; i < orders.size(); ++i) j["entropy_" + std::to_string(orders[i])] = entropy[i];
  return j;
}

}  // namespace unieval::metrics
