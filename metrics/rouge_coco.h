#pragma once
// Follows coco-caption (BSD-2-Clause) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// ROUGE-L of coco-caption / nqg (`pycocoevalcap/rouge/rouge.py`, `qgevalcap/rouge/rouge.py`), as
// the question-generation tables of UniLM and ERNIE-GEN use it.
//
//   unieval::metrics::coco_rouge_l("what is it ?", {"what is this ?"});  // beta = 1.2
//
// Tokens = `sentence.split(" ")` (no lower-casing, no punctuation handling; consecutive spaces
// give empty tokens, an empty string is one token ""). Per reference: LCS l, P = l/|cand|,
// R = l/|ref|; P_max and R_max are taken over the references independently; score =
// (1+b^2) P R / (R + b^2 P) when both are non-zero, else 0. Corpus = numpy mean over segments
// (pairwise summation, as np.mean).
#include <string>
#include <vector>

namespace unieval::metrics {

constexpr double kCocoRougeBeta = 1.2;

// Rouge().calc_score([candidate], refs); refs must not be empty.
double coco_rouge_l(const std::string& candidate, const std::vector<std::string>& refs,
                    double beta = kCocoRougeBeta);

struct CocoRougeLResult {
  double score = 0;                 // np.mean of the per-segment scores
  std::vector<double> per_segment;  // per hypothesis line
};
// refs[k][i] = k-th reference of candidate i.
CocoRougeLResult coco_rouge_l_corpus(const std::vector<std::string>& candidates,
                                     const std::vector<std::vector<std::string>>& refs,
                                     double beta = kCocoRougeBeta);

// np.mean as coco-caption calls it: numpy pairwise summation (add.reduce, float64) divided by n.
double coco_rouge_mean(const std::vector<double>& values);

}  // namespace unieval::metrics
