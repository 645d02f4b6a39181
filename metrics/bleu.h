#pragma once
// Follows sacreBLEU (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// sacreBLEU 2.6.0 BLEU (corpus and sentence level), number for number.
//
// Matches `sacrebleu.metrics.BLEU(...).corpus_score(hyps, refs)` and `.sentence_score(hyp, refs)`
// of sacreBLEU 2.6.0 (sacrebleu/metrics/bleu.py + sacrebleu/tokenizers), including: closest
// reference length with ties to the shorter one, BP = 0 when the system is empty, score 0 when no
// n-gram matches at all (sacrebleu #141), `exp` smoothing = mteval's 1/2^k, `floor`, `add-k`
// (added to counts and totals of orders > 1, which the returned counts show), effective order,
// my_log(0) = -9999999999, and the v2 signature string.
//
//   using namespace unieval::metrics;
//   BleuOptions opts;                                  // 13a, exp smoothing, mixed case
//   BleuScore s = corpus_bleu({"the cat sat"}, {{"the cat sat down"}}, opts);
//   s.score;        // 0..100
//   s.signature;    // "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
//   s.format();     // "BLEU = 71.65 100.0/100.0/100.0/0.0 (BP = 0.717 ratio = ...)"
//
// Options (BleuOptions):
// | field            | default | meaning                                                        |
// |------------------|---------|----------------------------------------------------------------|
// | tokenize         | 13a     | 13a, intl, none, char, zh (sacrebleu -tok)                      |
// | smooth           | exp     | exp, floor, add-k, none (sacrebleu -s)                          |
// | smooth_value     | unset   | floor: 0.1, add-k: 1 when unset (sacrebleu -sv)                 |
// | lowercase        | false   | Python str.lower() before tokenising (sacrebleu -lc)           |
// | max_order        | 4       | highest n-gram order                                           |
// | effective_order  | false   | stop the geometric mean at the highest order with n-grams       |
// | ref_missing_marker | unset | a reference line equal to it counts as absent (sacrebleu None);  |
// |                  |         | without it an empty line is a real 0-length reference          |
// | threads          | 0       | segments counted in parallel: 0 = all cores (at most 8), 1 =   |
// |                  |         | none; the statistics are identical for any value               |
//
// References use sacreBLEU's stream layout: refs[k][i] is the k-th reference of segment i; every
// stream must have as many lines as hyps (else InputError).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/token_interner.h"

namespace unieval::metrics {

enum class BleuTokenize { k13a, kIntl, kNone, kChar, kZh };
enum class BleuSmooth { kExp, kFloor, kAddK, kNone };

// "13a" -> k13a ...; throws InputError on an unknown name.
BleuTokenize parse_bleu_tokenize(const std::string& name);
BleuSmooth parse_bleu_smooth(const std::string& name);
std::string to_string(BleuTokenize t);
std::string to_string(BleuSmooth s);

struct BleuOptions {
  BleuTokenize tokenize = BleuTokenize::k13a;     // sacrebleu tokenizer
  BleuSmooth smooth = BleuSmooth::kExp;           // smoothing method
  std::optional<double> smooth_value;             // floor/add-k value; default 0.1 / 1
  bool lowercase = false;                         // lowercase before tokenising
  int max_order = 4;                              // max n-gram order (>= 1)
  bool effective_order = false;                   // effective order (sentence BLEU: true)
  std::optional<std::string> ref_missing_marker;  // reference line meaning "no reference"
  int threads = 0;                                // segments counted in parallel (0 = all cores)

  // sacreBLEU v2 signature, e.g. "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0";
  // nrefs < 0 writes "var" (segments with different numbers of references).
  std::string signature(int nrefs) const;
};

// Sufficient statistics: sums over segments.
struct BleuStats {
  int64_t sys_len = 0;
  int64_t ref_len = 0;
  std::vector<int64_t> correct;  // clipped matches per order
  std::vector<int64_t> total;    // hypothesis n-grams per order
  void add(const BleuStats& o);
};

struct BleuScore {
  double score = 0;                // 0..100
  std::vector<double> counts;      // correct per order (add-k included, as sacrebleu returns)
  std::vector<double> totals;      // totals per order (add-k included)
  std::vector<double> precisions;  // percent per order (0 beyond the last order with n-grams)
  double bp = 0;
  int64_t sys_len = 0;
  int64_t ref_len = 0;
  std::string signature;
  // sacreBLEU's BLEUScore.format(): "BLEU = 37.99 83.3/60.0/25.0/16.7 (BP = 1.000 ratio = 1.000
  // hyp_len = 6 ref_len = 6)".
  std::string format() const;
};

// sacrebleu BLEU.compute_bleu over sufficient statistics.
BleuScore compute_bleu(const BleuStats& stats, const BleuOptions& opts);

// Tokenises one line as sacreBLEU's BLEU does: lowercase (if asked), tokenizer(line.rstrip()),
// then Python str.split().
std::vector<std::string> bleu_tokenize(const std::string& line, const BleuOptions& opts);

// Corpus BLEU (sacrebleu BLEU.corpus_score).
BleuScore corpus_bleu(const std::vector<std::string>& hyps,
                      const std::vector<std::vector<std::string>>& refs, const BleuOptions& opts);

// Sentence BLEU for every segment (sacrebleu BLEU.sentence_score on each line; callers normally
// set effective_order = true, as sacrebleu's sentence_bleu() does).
std::vector<BleuScore> sentence_bleu(const std::vector<std::string>& hyps,
                                     const std::vector<std::vector<std::string>>& refs,
                                     const BleuOptions& opts);

// Per-segment statistics (exposed for tests and bootstrap resampling).
std::vector<BleuStats> bleu_segment_stats(const std::vector<std::string>& hyps,
                                          const std::vector<std::vector<std::string>>& refs,
                                          const BleuOptions& opts);

// References tokenised and interned once, for counting several systems against the same
// references (a paired significance test counts every system against them):
//
//   BleuReferences prepared(refs, opts);                 // refs: stream layout, as above
//   bleu_segment_stats(hyps_a, prepared, opts);          // == bleu_segment_stats(hyps_a, refs,
//   opts) bleu_segment_stats(hyps_b, prepared, opts);          // the references are not tokenised
//   again
//
// Segments are interned in fixed blocks, a vocabulary per block (independent of the thread
// count), and a hypothesis token is only looked up: a token no reference of its block has cannot
// match, so every such token shares one id, which changes no clipped count. The options used at
// counting time must tokenise as the prepared ones did (tokenizer, case, missing marker), else
// std::invalid_argument.
class BleuReferences {
 public:
  BleuReferences(const std::vector<std::vector<std::string>>& refs, const BleuOptions& opts);
  BleuReferences(BleuReferences&&) = default;
  BleuReferences& operator=(BleuReferences&&) = default;

  size_t segments() const { return segments_; }
  size_t streams() const { return streams_; }
  // Tokenizer, case and missing marker agree with opts (what the prepared ids depend on).
  bool tokenises_as(const BleuOptions& opts) const;

 private:
  friend std::vector<BleuStats> bleu_segment_stats(const std::vector<std::string>& hyps,
                                                   const BleuReferences& refs,
                                                   const BleuOptions& opts);
  static constexpr size_t kBlock = 256;  // segments per vocabulary

  BleuOptions opts_;
  size_t segments_ = 0, streams_ = 0;
  std::vector<Vocabulary> vocab_;           // one per block of kBlock segments
  std::vector<std::vector<uint32_t>> ids_;  // [segment * streams + k]
  std::vector<uint8_t> present_;            // [segment * streams + k]: not the missing marker
};

// Per-segment statistics against prepared references: identical to the overload above.
std::vector<BleuStats> bleu_segment_stats(const std::vector<std::string>& hyps,
                                          const BleuReferences& refs, const BleuOptions& opts);

}  // namespace unieval::metrics
