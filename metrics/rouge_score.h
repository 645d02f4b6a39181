#pragma once
// Follows rouge-score (Apache-2.0) and NLTK (Apache-2.0) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// google-research rouge-score (PyPI rouge-score 0.1.2, `rouge_scorer.RougeScorer`), for users
// who need that number. It is NOT ROUGE-1.5.5 (see rouge.h): NLTK's Porter stemmer, no WordNet
// exceptions, no stopwords, F = 2PR/(P+R) unrounded, rougeL = plain LCS over the whole text,
// rougeLsum = ROUGE-1.5.5-style union LCS over "\n"-separated sentences, several references =
// the reference with the highest F per rouge type (score_multi; first on ties).
//
//   unieval::metrics::RougeScoreOptions opt;  // types rouge1, rouge2, rougeL, rougeLsum
//   opt.stem = true;                          // RougeScorer(..., use_stemmer=True)
//   auto s = unieval::metrics::rouge_score_pair("the cat sat", "a cat sat", opt);
//   s[0].fmeasure;                            // rouge1 F
//
// | field | default                               | meaning                                  |
// |-------|---------------------------------------|------------------------------------------|
// | types | rouge1, rouge2, rougeL, rougeLsum     | rougeN (N = 1..9), rougeL, rougeLsum     |
// | stem  | false                                 | NLTK Porter on tokens longer than 3      |
// Corpus value = arithmetic mean over the pairs, summed in order (as the golden means are).
#include <string>
#include <vector>

namespace unieval::metrics {

struct RougeScoreOptions {
  std::vector<std::string> types = {"rouge1", "rouge2", "rougeL", "rougeLsum"};  // rouge types
  bool stem = false;                                                             // use_stemmer
  void validate() const;  // unknown type -> InputError
  // rouge-score|types:rouge1,rouge2,rougeL,rougeLsum|stem:1|agg:mean|v:0.1.2
  std::string signature() const;
};

struct RougeScoreValue {
  double precision = 0, recall = 0, fmeasure = 0;
};

// RougeScorer.score(target, prediction): one value per opt.types entry.
std::vector<RougeScoreValue> rouge_score_pair(const std::string& target,
                                              const std::string& prediction,
                                              const RougeScoreOptions& opt);
// RougeScorer.score_multi(targets, prediction): per type the target with the highest F.
std::vector<RougeScoreValue> rouge_score_multi(const std::vector<std::string>& targets,
                                               const std::string& prediction,
                                               const RougeScoreOptions& opt);

// score() / score_multi() of every pair with one scorer: targets[i] are the targets of
// predictions[i] (one: score, several: score_multi). Returns [pair][type], flattened:
// value (i, t) at i * types + t.
std::vector<RougeScoreValue> rouge_score_batch(const std::vector<std::vector<std::string>>& targets,
                                               const std::vector<std::string>& predictions,
                                               const RougeScoreOptions& opt);

struct RougeScoreCorpus {
  std::vector<RougeScoreValue> mean;                   // per type
  std::vector<std::vector<RougeScoreValue>> per_pair;  // [pair][type]
};
// refs[k][i] = k-th reference of prediction i (several -> score_multi).
RougeScoreCorpus rouge_score_corpus(const std::vector<std::string>& predictions,
                                    const std::vector<std::vector<std::string>>& refs,
                                    const RougeScoreOptions& opt);

}  // namespace unieval::metrics
