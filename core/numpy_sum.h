#pragma once
// Follows the structure of numpy's `DOUBLE_pairwise_sum` (BSD-3-Clause;
// numpy/core/src/umath/loops_utils.h): a close port of its loop (8 accumulators, blocks of 128, the
// split point), written by reading its source; see THIRD_PARTY_NOTICES.md. What np.sum / np.mean
// use: the official Python scripts average with numpy, so matching their last bit needs this exact
// order of additions.
#include <cstddef>

namespace unieval::core {

inline double numpy_pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int k = 0; k < 8; ++k) r[k] = a[k];
    std::size_t i;
    for (i = 8; i < n - (n % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] += a[i + k];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise_sum(a, n2) + numpy_pairwise_sum(a + n2, n - n2);
}

}  // namespace unieval::core
