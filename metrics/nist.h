#pragma once
// Follows mteval (no licence; behaviour only, no code taken) and NLTK (Apache-2.0) behaviour; no
// code copied; see THIRD_PARTY_NOTICES.md.
// NIST (and mteval's BLEU) as mteval-v14c.pl / mteval-v13a.pl compute them, and NLTK 3.8's
// corpus_nist.
//
//   using namespace unieval::metrics;
//   NistOptions opts;                            // mteval-v14c, lowercased, DSTC7 XML writer
//   NistScore s = mteval_nist(hyps, {ref0, ref1}, opts);
//   s.nist_cum[3];   // cumulative NIST-4 (the DSTC7 / UniLM Table 10 "NIST-4")
//   s.bleu_cum[3];   // mteval BLEU-4 (a fraction)
//
// mteval semantics reproduced (see docs/metrics/bleu_nist_meteor.md §3):
// * text as DSTC7's _write_xml hands it over (dstc7_writer, default on): '&' and '<' become
//   spaces, an empty line becomes "__empty__", text wrapped in spaces; then the scorer's
//   normalisation (text/mteval_tokenize.h) and `split /\s+/`;
// * information weights from all reference segments of all reference sets:
//   info(w1..wn) = -log(count(w1..wn)/count(w1..wn-1)) / log 2, unigrams over the total number
//   of reference words; quirk kept: a bigram whose first word is "0" uses the total word count
//   (Perl treats the string "0" as false);
// * NIST-n cumulative = (sum_{k<=n} info_k / max(tst_count_k, 1)) * LP, LP = exp(-beta ln^2 r),
//   r = min(1, sys words / (ref words / #ref sets)), beta = -ln 0.5 / ln^2 1.5;
// * BLEU with mteval's smoothing: an order with no test n-grams counts as precision 1, an order
//   with no match as 1/(2^k * count); BP from the closest reference length (ties: shorter).
// All nine orders are returned, as mteval prints them; it prints 4 decimals.
//
// | field          | default | meaning                                                    |
// |----------------|---------|------------------------------------------------------------|
// | tokenization   | kV14c   | kV14c, kV13a (no URL rule), kIntl (--international-tokenization) |
// | preserve_case  | false   | -c: keep case (default lowercases, ASCII only except kIntl)  |
// | dstc7_writer   | true    | apply DSTC7 _write_xml's substitutions first               |
//
// Undefined cases (mteval aborts or divides by zero): a corpus without reference words or
// without hypothesis words. We return the values of the formulas with LP = 0 (no hypothesis
// words) or LP = 1 (no reference words), and a warning.
#include <optional>
#include <string>
#include <vector>

#include "metrics/text/mteval_tokenize.h"

namespace unieval::metrics {

struct NistOptions {
  text::MtevalTokenization tokenization = text::MtevalTokenization::kV14c;  // scorer version
  bool preserve_case = false;                                               // mteval -c
  bool dstc7_writer = true;  // DSTC7 _write_xml substitutions ("__empty__", '&', '<')
};

struct NistScore {
  std::vector<double> nist_cum, nist_ind;  // orders 1..9
  std::vector<double> bleu_cum, bleu_ind;  // orders 1..9 (fractions)
  std::vector<std::string> warnings;
};

// refs[k][i]: k-th reference of segment i.
NistScore mteval_nist(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs,
                      const NistOptions& opts = {});

// NLTK 3.8 nltk.translate.nist_score.corpus_nist(list_of_references, hypotheses, n) over
// str.split() tokens: no normalisation, per-reference (not max-over-references) clipping, the
// best reference per order chosen by (precision, numerator, denominator, length), unnormalised
// sum of per-order precisions times NLTK's length penalty. NLTK raises ZeroDivisionError when an
// order has no hypothesis n-gram in the whole corpus or the references are empty; we return the
// sum with such orders counted as 0 (and LP 0 for empty references) and set `warning`.
struct NltkNistScore {
  double score = 0;
  std::optional<std::string> warning;
};
NltkNistScore nltk_corpus_nist(const std::vector<std::vector<std::string>>& hyps,
                               const std::vector<std::vector<std::vector<std::string>>>& refs,
                               int n = 5);

}  // namespace unieval::metrics
