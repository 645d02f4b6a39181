#pragma once
// Follows DSTC7 (no code licence) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
// Entropy-n of the n-gram distribution of a system's outputs, identical to DSTC7's
// evaluation/src/metrics.py calc_entropy (@e2b50e5, "based on Yizhe Zhang's code"), the
// Entropy-4 column of UniLM Table 10:
//
//   H_n = Σ_g ( -c_g / T ) * ( ln c_g - ln T ),   T = Σ_g c_g
//
// over all n-grams g of all lines (tokens: line.strip('\n').split(), optionally after DSTC7's
// clean_str), natural log (nats), summed in first-seen n-gram order as the official dict
// iteration. No n-gram of an order: H_n = 0.0 (the official sum over nothing).
//
//   auto r = unieval::metrics::entropy(lines, {});   r.to_json() -> {"entropy_1": ..., "entropy_4": ...}
//
// Options (EntropyOptions):
//   | field       | default      | meaning                                        |
//   | orders      | {1, 2, 3, 4} | n-gram orders reported (entropy_N)             |
//   | dstc7_clean | false        | DSTC7 clean_str on each line first (--clean)   |
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace unieval::metrics {

struct EntropyOptions {
  std::vector<int> orders = {1, 2, 3, 4};  // n-gram orders
  bool dstc7_clean = false;                // DSTC7 clean_str before splitting
  std::string signature() const;           // "entropy|n:1,2,3,4|tok:split|log:e|official:..."
};

struct EntropyResult {
  std::vector<int> orders;
  std::vector<double> entropy;  // per order, nats
  std::string signature;
  nlohmann::ordered_json to_json() const;  // {"entropy_1": ..., ...}
};

// Pre-tokenised segments.
EntropyResult entropy_tokens(const std::vector<std::vector<std::string>>& segments,
                             const EntropyOptions& opts);
// Lines tokenised as DSTC7 does (split(), optionally clean_str first).
EntropyResult entropy(const std::vector<std::string>& lines, const EntropyOptions& opts);

}  // namespace unieval::metrics
