// Follows the structure of coco-caption's rouge.py (BSD-2-Clause): `my_lcs`, `Rouge.calc_score`,
// `Rouge.compute_score`, ported by reading its source, no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/rouge_coco.h"

#include <algorithm>

#include "core/error.h"
#include "core/numpy_sum.h"

namespace unieval::metrics {

namespace {

std::vector<std::string> split_space(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t end = s.find(' ', pos);
    if (end == std::string::npos) {
      out.push_back(s.substr(pos));
      return out;
    }
    out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
}

size_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

double coco_rouge_mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  return core::numpy_pairwise_sum(values.data(), values.size()) /
         static_cast<double>(values.size());
}

double coco_rouge_l(const std::string& candidate, const std::vector<std::string>& refs,
                    double beta) {
  if (refs.empty()) throw InputError("coco ROUGE-L needs at least one reference");
  auto cand = split_space(candidate);
  double prec_max = 0, rec_max = 0;
  for (const auto& r : refs) {
    auto ref = split_space(r);
    double l = static_cast<double>(lcs_length(ref, cand));
    prec_max = std::max(prec_max, l / static_cast<double>(cand.size()));
    rec_max = std::max(rec_max, l / static_cast<double>(ref.size()));
  }
  if (prec_max != 0 && rec_max != 0) {
    double b2 = beta * beta;
    return ((1 + b2) * prec_max * rec_max) / (rec_max + b2 * prec_max);
  }
  return 0.0;
}

CocoRougeLResult coco_rouge_l_corpus(const std::vector<std::string>& candidates,
                                     const std::vector<std::vector<std::string>>& refs,
                                     double beta) {
  CocoRougeLResult out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::vector<std::string> r;
    for (const auto& stream : refs) r.push_back(stream[i]);
    out.per_segment.push_back(coco_rouge_l(candidates[i], r, beta));
  }
  out.score = coco_rouge_mean(out.per_segment);
  return out;
}

}  // namespace unieval::metrics
