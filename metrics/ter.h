#pragma once
// Follows sacreBLEU (Apache-2.0) TER behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// sacreBLEU 2.6.0 TER (sacrebleu/metrics/ter.py, lib_ter.py, tokenizers/tokenizer_ter.py): the
// Tercom translation edit rate as sacreBLEU computes it, edit for edit.
//
//   unieval::metrics::TerOptions opts;   // lowercased, tercom tokens, no normalisation
//   auto s = unieval::metrics::corpus_ter({"a b c d e"}, {{"c d a b e"}}, opts);
//   s.score;       // 20.0  (one shift over five reference words)
//   s.num_edits;   // 1
//   s.signature;   // "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
//
// Per segment: the text loses trailing whitespace and is tokenised (ter_tokenize); against each
// reference, edits = greedy shifts + beam edit distance of the shifted hypothesis:
//   * edit distance: unit-cost Levenshtein over tokens, computed only in a band of width 25
//     around the pseudo-diagonal j = floor(i * |ref| / |hyp|) (wider when the length ratio
//     exceeds 50), the whole last row; ties prefer match/substitution, then hypothesis-word
//     deletion, then reference-word insertion (BeamEditDistance._edit_distance);
//   * shifts: while a shift lowers the edit distance, the best one is applied and counts one
//     edit. Candidates: hypothesis spans of 1..10 words equal to a reference span starting at
//     most 50 positions away, with an error inside both spans and the span not already aligned
//     there, moved before each aligned position of the reference span (and before it); ranked by
//     gain, then longer span, then earlier span, then earlier target (lib_ter._shift). After 1000
//     candidates evaluated over the segment the search stops and the pending shift is dropped.
// The segment keeps the reference with the fewest edits; its length is the average reference
// length. Corpus TER = 100 * sum(edits) / sum(average lengths); with no reference words it is
// 100 when there are edits, else 0. An empty reference costs one edit per hypothesis word.
//
// | field          | default | sacreBLEU           | meaning                                      |
// |----------------|---------|---------------------|----------------------------------------------|
// | normalized     | false   | --ter-normalized    | Tercom normalisation: XML entities, joined   |
// |                |         |                     | lines, punctuation split off (with           |
// |                |         |                     | asian_support: CJK characters one by one)    |
// | no_punct       | false   | --ter-no-punct      | remove . , ? : ; ! " ( ) (with asian_support:|
// |                |         |                     | CJK and full-width punctuation too)          |
// | asian_support  | false   | --ter-asian-support | the CJK parts of the two above               |
// | case_sensitive | false   | --ter-case-sensitive| keep case (else Python str.lower())          |
// | threads        | 0       | (none)              | segments scored in parallel (0 = all cores,  |
// |                |         |                     | at most 8); results identical for any value  |
// Checked against sacreBLEU 2.6.0 on tests/metrics/ter/golden_ter.jsonl (every option
// combination; corpus and sentence scores, edits and lengths exact).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics {

struct TerOptions {
  bool normalized = false;      // Tercom normalisation
  bool no_punct = false;        // remove punctuation
  bool asian_support = false;   // CJK handling in the two above
  bool case_sensitive = false;  // do not lowercase
  int threads = 0;              // segments scored in parallel (0 = all cores)
  std::string signature(int nrefs) const;
};

struct TerScore {
  double score = 0;       // 0..100 (can exceed 100)
  double num_edits = 0;   // summed edits of the best references
  double ref_length = 0;  // summed average reference lengths
  std::string signature;
};

// refs[k][i]: reference stream k, segment i (as corpus_chrf).
TerScore corpus_ter(const std::vector<std::string>& hyps,
                    const std::vector<std::vector<std::string>>& refs, const TerOptions& opts);
// TER of every segment on its own (sacreBLEU TER.sentence_score).
std::vector<TerScore> sentence_ter(const std::vector<std::string>& hyps,
                                   const std::vector<std::vector<std::string>>& refs,
                                   const TerOptions& opts);
// Per-segment statistics [edits, average reference length] (what corpus_ter sums; for bootstrap
// resampling), and the score of summed statistics (TER._compute_score_from_stats).
std::vector<std::vector<double>> ter_segment_stats(
    const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
    const TerOptions& opts);
double ter_from_stats(const std::vector<double>& stats);
// The same on [edits, length]; float32_ratio: edits / length in float32, as sacreBLEU's
// significance tests compute it on their float32 sums.
double ter_from_stats(const double* stats, bool float32_ratio = false);

// The tokens sacreBLEU's TER sees for one line: TercomTokenizer(line.rstrip()).split().
std::vector<std::string> ter_tokenize(std::string_view line, const TerOptions& opts);
// TercomTokenizer(sent).split() (no rstrip first), and TercomTokenizer(sent) itself: those tokens
// joined by one space.
std::vector<std::string> tercom_tokens(std::string_view sent, const TerOptions& opts);
std::string tercom_tokenize(std::string_view sent, const TerOptions& opts);

// Edits turning hyp into ref (shifts + beam edit distance) and the reference length, on token
// ids (lib_ter.translation_edit_rate). An empty reference gives {hyp.size(), 0}.
struct TerEdits {
  int64_t edits = 0;
  int64_t ref_length = 0;
};
TerEdits translation_edit_rate(const std::vector<uint32_t>& hyp, const std::vector<uint32_t>& ref);

}  // namespace unieval::metrics
