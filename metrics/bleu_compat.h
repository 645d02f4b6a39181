#pragma once
// Follows Moses (LGPL-2.1), NLTK (Apache-2.0), coco-caption (BSD-2-Clause) and PLATO (Apache-2.0)
// behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// The other BLEU implementations papers report, each reproduced with its own quirks:
//
// | function            | matches                                                              |
// |---------------------|----------------------------------------------------------------------|
// | multi_bleu          | Moses scripts/generic/multi-bleu.perl @34452895 (prints 2 decimals)   |
// | nltk_corpus_bleu    | NLTK 3.8 nltk.translate.bleu_score.corpus_bleu + SmoothingFunction    |
// | nltk_sentence_bleu  | NLTK 3.8 sentence_bleu (= corpus_bleu of one segment)                 |
// | coco_bleu           | coco-caption / pycocoevalcap / nqg bleu_scorer.py, option 'closest'  |
// | plato_bleu          | PLATO plato/metrics/metrics.py bleu() = ERNIE-GEN persona_chat eval   |
//
// Example (coco BLEU over pre-tokenised text, the UniLM/nqg question-generation metric):
//   auto r = unieval::metrics::coco_bleu({"what is x ?"}, {{"what is x ?", "what is y ?"}});
//   r.bleu[3];          // Bleu_4 (a fraction, 0..1)
//   r.per_segment[0];   // Bleu_1..4 of segment 0
//
// Tokenisation: all of them split on whitespace only (no normalisation). NLTK, coco and PLATO
// use Python str.split() (Unicode whitespace); multi-bleu uses Perl split (ASCII whitespace) and
// ASCII-only lowercasing with -lc.
//
// Reference layouts: the *_by_segment functions take refs[i] = the references of segment i (any
// number per segment, as coco/NLTK take them); the others take sacreBLEU's stream layout
// refs[k][i] (k-th reference file).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace unieval::metrics {

// ---- multi-bleu.perl ------------------------------------------------------------------------
struct MultiBleuOptions {
  bool lowercase = false;  // -lc: ASCII lowercasing of hypotheses and references
};

struct MultiBleuScore {
  double score = 0;                // 100 * BLEU (the script prints it with 2 decimals)
  std::vector<double> precisions;  // 100 * p_n, n = 1..4 (printed with 1 decimal)
  double bp = 0;
  double ratio = 0;  // hyp_len / ref_len
  int64_t hyp_len = 0;
  int64_t ref_len = 0;
  // Set where the Perl script does not print a normal score: an empty hypothesis corpus (Perl
  // dies "Illegal division by zero"; we return score 0, bp 0, ratio 0) or ref_len 0 (Perl prints
  // "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)" and exits 1; we return exactly
  // those zeros).
  std::optional<std::string> warning;
  // The line multi-bleu.perl prints, e.g. "BLEU = 65.80, 87.8/81.1/75.8/75.9 (BP=0.823,
  // ratio=0.837, hyp_len=41, ref_len=49)".
  std::string format() const;
};

MultiBleuScore multi_bleu(const std::vector<std::string>& hyps,
                          const std::vector<std::vector<std::string>>& refs,
                          const MultiBleuOptions& opts = {});

// ---- NLTK 3.8 -------------------------------------------------------------------------------
// Options of nltk.translate.bleu_score.corpus_bleu / sentence_bleu.
struct NltkBleuOptions {
  std::vector<double> weights = {0.25, 0.25, 0.25, 0.25};  // one weight per order 1..len
  int smoothing = 0;                                       // SmoothingFunction().methodN, N = 0..7
  double epsilon = 0.1;                                    // SmoothingFunction(epsilon=0.1)
  double alpha = 5;                                        // SmoothingFunction(alpha=5)
  double k = 5;                                            // SmoothingFunction(k=5)
};

// A score, or the exception NLTK raises (method 6 on inputs without trigram matches or with
// fewer than 3 weights: "IndexError: list index out of range" / "AssertionError: This smoothing
// method requires non-zero precision for bigrams.").
struct NltkBleuResult {
  double score = 0;
  std::optional<std::string> error;
};

// Quirks reproduced: per-segment n-gram denominator max(1, #hyp n-grams); 0 when no unigram
// matches at all; zero precisions skipped in the log sum; method0 replaces zero precisions by
// sys.float_info.min; methods 5-7 read the *last* segment (loop-variable leak); math.fsum.
NltkBleuResult nltk_corpus_bleu(const std::vector<std::vector<std::string>>& hyps,
                                const std::vector<std::vector<std::vector<std::string>>>& refs,
                                const NltkBleuOptions& opts = {});
NltkBleuResult nltk_sentence_bleu(const std::vector<std::vector<std::string>>& refs,
                                  const std::vector<std::string>& hyp,
                                  const NltkBleuOptions& opts = {});
// The same from lines (tokens = str.split()), references in segment layout (refs[i][k]); the
// tokens are interned straight from the lines (no token strings: the fast path of the CLI).
NltkBleuResult nltk_corpus_bleu_lines(const std::vector<std::string>& hyps,
                                      const std::vector<std::vector<std::string>>& refs_by_segment,
                                      const NltkBleuOptions& opts = {});
// sentence_bleu of every segment.
std::vector<NltkBleuResult> nltk_sentence_bleu_lines(
    const std::vector<std::string>& hyps,
    const std::vector<std::vector<std::string>>& refs_by_segment, const NltkBleuOptions& opts = {});

// ---- coco-caption ---------------------------------------------------------------------------
struct CocoBleuScore {
  std::vector<double> bleu;                      // cumulative Bleu_1..Bleu_4
  std::vector<std::vector<double>> per_segment;  // per segment: Bleu_1..Bleu_4
  // Per segment, the statistics the corpus score sums (for bootstrap resampling):
  // testlen, closest reflen, correct[1..4], guess[1..4].
  std::vector<std::vector<double>> stats;
};
// Bleu_1..Bleu_4 of summed `stats` rows (the corpus formula of coco_bleu).
std::vector<double> coco_bleu_from_stats(const std::vector<double>& sums);
// BleuScorer(n=4).compute_score(option='closest'): tiny = 1e-15 added to matches, small = 1e-9
// to guesses, ratio = (testlen + tiny) / (reflen + small), closest reference length with ties
// to the shorter one. Tokens: str.split().
CocoBleuScore coco_bleu(const std::vector<std::string>& hyps,
                        const std::vector<std::vector<std::string>>& refs_by_segment);
// The same over pre-split tokens.
CocoBleuScore coco_bleu_tokens(const std::vector<std::vector<std::string>>& hyps,
                               const std::vector<std::vector<std::vector<std::string>>>& refs);

// ---- PLATO / ERNIE-GEN Persona-Chat ---------------------------------------------------------
struct PlatoBleuScore {
  double bleu_1 = 0;
  double bleu_2 = 0;
};
struct PlatoBleuOptions {
  // false: tokens = str.split() (what the golden vectors ran); true: str.strip().split(" ") as
  // ERNIE-GEN's persona_chat/eval.py reads its files (empty line -> [""], double space -> "").
  bool single_space_split = false;
};
// Mean over segments of NLTK sentence_bleu([ref], hyp, method7, weights [1,0,0,0] /
// [0.5,0.5,0,0]) (numpy average), first reference only; an exception scores 0.
PlatoBleuScore plato_bleu(const std::vector<std::string>& hyps,
                          const std::vector<std::string>& refs, const PlatoBleuOptions& opts = {});

// Python str.split() of every line (helper for the token-level functions above).
std::vector<std::vector<std::string>> split_lines_py(const std::vector<std::string>& lines);
// Stream layout refs[k][i] -> segment layout out[i][k].
std::vector<std::vector<std::string>> refs_by_segment(
    const std::vector<std::vector<std::string>>& streams);

}  // namespace unieval::metrics
