#include "metrics/entropy.h"

#include <cmath>
#include <unordered_map>

#include "metrics/core/error.h"
#include "metrics/distinct.h"
#include "metrics/ngram_ids.h"

namespace unieval::metrics {

std::string EntropyOptions::signature() const {
  std::string s = "entropy|n:";
  for (size_t i = 0; i < orders.size(); ++i) s += (i ? "," : "") + std::to_string(orders[i]);
  s += std::string("|tok:") + (dstc7_clean ? "dstc7-clean_str+split" : "split");
  return s + "|log:e|official:DSTC7-metrics.py@e2b50e5";
}

EntropyResult entropy_tokens(const std::vector<std::vector<std::string>>& segs,
                             const EntropyOptions& opts) {
  EntropyResult r;
  r.orders = opts.orders;
  r.signature = opts.signature();
  const auto ids = internal::intern_segments(segs);
  for (int n : opts.orders) {
    if (n < 1) throw InputError("n-gram orders must be >= 1 (got " + std::to_string(n) + ")");
    // counter[n][ngram] += 1, keeping first-seen order for the summation (Python dicts keep
    // insertion order, and the entropy sum below runs in that order).
    std::unordered_map<internal::PackedNgram, size_t, internal::PackedNgramHash> index;
    std::vector<double> counts;
    for (const auto& t : ids) {
      for (size_t i = 0; i + n <= t.size(); ++i) {
        auto [it, fresh] = index.emplace(internal::pack_ngram(t.data() + i, n), counts.size());
        if (fresh) counts.push_back(1);
        else counts[it->second] += 1;
      }
    }
    double total = 0;
    for (double c : counts) total += c;  // sum(counter.values()) (ints: exact)
    double h = 0.0;
    for (double v : counts) h += -v / total * (std::log(v) - std::log(total));
    r.entropy.push_back(h);
  }
  return r;
}

EntropyResult entropy(const std::vector<std::string>& lines, const EntropyOptions& opts) {
  std::vector<std::vector<std::string>> segs;
  segs.reserve(lines.size());
  for (const auto& l : lines) segs.push_back(distinct_tokenize(l, DistinctFlavour::kDstc7, opts.dstc7_clean));
  return entropy_tokens(segs, opts);
}

nlohmann::ordered_json EntropyResult::to_json() const {
  nlohmann::ordered_json j;
  for (size_t i = 0; i < orders.size(); ++i) j["entropy_" + std::to_string(orders[i])] = entropy[i];
  return j;
}

}  // namespace unieval::metrics
