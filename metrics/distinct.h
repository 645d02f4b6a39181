#pragma once
// Follows DSTC7 (no code licence; behaviour only, no code taken) and PLATO (Apache-2.0) behaviour;
// no code copied; see THIRD_PARTY_NOTICES.md.
// Distinct-n (lexical diversity) in the flavours our target papers used, each identical to its
// official script:
//
//   | flavour   | official code                                   | tokens                     | fields                    |
//   | dstc7     | DSTC7 evaluation/src/metrics.py calc_diversity   | line.strip('\n').split()   | div_1, div_2, avg_len     |
//   |           | + calc_len (UniLM Table 10)                      | (opt. DSTC7 clean_str)     |                           |
//   | plato     | PLATO metrics.py distinct()                      | line.split()               | intra_dist_n, inter_dist_n |
//   | ernie-gen | ERNIE-GEN persona_chat/eval.py (= PLATO distinct) | line.strip().split(" ")    | intra_dist_n, inter_dist_n |
//
//   * dstc7: div_n = |distinct n-grams over the corpus| / |n-gram occurrences| (corpus level);
//     avg_len = mean token count. No n-gram at all: the official script raises
//     ZeroDivisionError; we report null (nullopt) and the CLI warns. No line: avg_len null
//     (numpy's mean of [] is NaN).
//   * plato / ernie-gen: intra_dist_n = mean over segments of (|uniq n-grams| + 1e-12) /
//     (n-gram count + 1e-5) (numpy pairwise mean), inter_dist_n = (|uniq n-grams over the corpus|
//     + 1e-12) / (Σ counts + 1e-5). ERNIE-GEN reports inter_dist_1/2 as "Distinct-1/2". An empty
//     line has one empty token under ernie-gen ("".split(" ") == [""]).
//
//   DistinctOptions o;  o.flavour = DistinctFlavour::kPlato;
//   auto r = unieval::metrics::distinct(lines, o);   r.to_json() -> {"intra_dist_1": ..., ...}
//
// Options (DistinctOptions):
//   | field       | default | meaning                                                   |
//   | flavour     | kDstc7  | which official script                                     |
//   | orders      | {1, 2}  | n-gram orders reported                                    |
//   | dstc7_clean | false   | run DSTC7 clean_str on each line first (dstc.py --clean)  |
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics {

enum class DistinctFlavour { kDstc7, kPlato, kErnieGen };

// "dstc7" | "plato" | "ernie-gen" (InputError otherwise).
DistinctFlavour parse_distinct_flavour(const std::string& name);
const char* distinct_flavour_name(DistinctFlavour f);

// One segment's tokens under a flavour's tokenisation (and optional DSTC7 clean_str).
std::vector<std::string> distinct_tokenize(std::string_view line, DistinctFlavour flavour,
                                           bool dstc7_clean);

struct DistinctOptions {
  DistinctFlavour flavour = DistinctFlavour::kDstc7;  // official script to follow
  std::vector<int> orders = {1, 2};                   // n-gram orders
  bool dstc7_clean = false;                           // DSTC7 clean_str before splitting
  std::string signature() const;  // "distinct|flavour:dstc7|n:1,2|tok:split|official:..."
};

struct DistinctResult {
  DistinctFlavour flavour = DistinctFlavour::kDstc7;
  std::vector<int> orders;
  std::vector<std::optional<double>> div;  // dstc7, per order (nullopt: no n-gram)
  std::optional<double> avg_len;           // dstc7 (nullopt: no line)
  std::vector<double> intra, inter;        // plato / ernie-gen, per order
  std::string signature;
  // dstc7: {"div_1", "div_2", "avg_len"}; plato/ernie-gen: {"intra_dist_1", "intra_dist_2",
  // "inter_dist_1", "inter_dist_2"} (null for an undefined value).
  nlohmann::ordered_json to_json() const;
};

// Scores pre-tokenised segments (see distinct_tokenize).
DistinctResult distinct_tokens(const std::vector<std::vector<std::string>>& segments,
                               const DistinctOptions& opts);
// Tokenises each line with the flavour's tokenisation, then scores.
DistinctResult distinct(const std::vector<std::string>& lines, const DistinctOptions& opts);

// numpy's mean of a 1-D float64 array: first element + pairwise sum of the rest (numpy's
// pairwise_sum, 8-way unrolled blocks of <= 128), divided by n. NaN for an empty array.
double numpy_mean(const std::vector<double>& v);

namespace internal {
class NgramLevels;  // metrics/ngram_ids.h
// The token ids of each line under the flavour's tokenisation (entropy shares it).
NgramLevels levels_of_lines(const std::vector<std::string>& lines, DistinctFlavour flavour,
                            bool dstc7_clean);
}  // namespace internal

}  // namespace unieval::metrics
