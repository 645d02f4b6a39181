#pragma once
// Internal helpers shared by bleu.cc, bleu_compat.cc, chrf.cc, nist.cc and
// sacrebleu_significance.cc (not a public API).
#include <string>
#include <string_view>
#include <vector>

#include "metrics/bleu.h"
#include "metrics/ngram.h"

namespace unieval::metrics::internal {

// sacreBLEU preprocessing of one line: optional lowercasing, tokenizer(line.rstrip()).
std::string bleu_tokenize_line(const std::string& line, const BleuOptions& opts);
// Token ids of a line tokenised as sacreBLEU's BLEU does.
void bleu_line_ids(const std::string& line, const BleuOptions& opts, Vocabulary& vocab,
                   std::vector<uint32_t>& out);
// Same, looking tokens up without adding them: a token vocab lacks is Vocabulary::kNone.
void bleu_line_known_ids(const std::string& line, const BleuOptions& opts, const Vocabulary& vocab,
                         std::vector<uint32_t>& out);
// Every reference stream must have n_hyps lines (InputError otherwise).
void check_streams(size_t n_hyps, const std::vector<std::vector<std::string>>& refs);
// BLEU.compute_bleu on statistics given as doubles: max_order clipped matches and max_order
// hypothesis n-gram counts. store(x), when given, is the value the statistics array holds after
// add-k writes x into it (sacreBLEU's significance tests keep their sums in numpy float32 or int64
// arrays); without it x is kept as is (Python floats). compute_bleu is this on BleuStats.
BleuScore compute_bleu_values(double sys_len, double ref_len, const double* correct,
                              const double* total, const BleuOptions& opts,
                              double (*store)(double) = nullptr);

}  // namespace unieval::metrics::internal
