#pragma once
// Part of unieval_meteor, the LGPL-2.1 component of unieval (metrics/CMakeLists.txt).
// SPDX-License-Identifier: LGPL-2.1-only
// Copyright 2026 the unieval authors. This file is a C++ port of parts of METEOR 1.5
// (cmu-mtlab/meteor; Michael Denkowski, Alon Lavie, Carnegie Mellon University), which is licensed
// under the LGPL-2.1, so it is licensed under the GNU Lesser General Public License version 2.1
// (LICENSES/LGPL-2.1.txt), not under Apache-2.0 like the rest of unieval. It is distributed WITHOUT
// ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR
// PURPOSE; see the licence.
//
// Follows METEOR 1.5 (LGPL-2.1) behaviour, through the port in meteor.cc; see
// THIRD_PARTY_NOTICES.md.
// METEOR 1.5 (Denkowski & Lavie 2014), identical to meteor-1.5.jar (cmu-mtlab/meteor@57a9ec5):
// staged word alignment (exact, Snowball stem, WordNet synonym, paraphrase table), the jar's beam
// search over alignments, content/function-word weighting, best reference per segment and the
// system ("Final") score from summed sufficient statistics. No JVM.
//
//   MeteorOptions opt;
//   opt.data_dir = "/path/to/meteor-1.5/resources";  // or $UNIEVAL_METEOR_DATA
//   opt.modules = {MeteorModule::kExact, MeteorModule::kStem, MeteorModule::kSynonym};
//   opt.weights = {1.0, 0.6, 0.8};
//   opt.normalize = MeteorNormalize::kNorm;            // the jar's -norm
//   MeteorScorer scorer(opt);                          // loads the resources once
//   MeteorResult r = scorer.score(hyps, {refs0, refs1});  // refs[k][i]: k-th ref of segment i
//   r.score;             // "Final score" of `java -jar meteor-1.5.jar hyp ref -r 2 -l en -norm ...`
//   r.segment_scores;    // the jar's "Segment i score"
//   r.segments[i].to_string();  // the 23-number line of -stdio SCORE / -ssOut
//
// Options (jar flag in brackets):
// | field           | default                   | meaning                                          |
// |-----------------|---------------------------|--------------------------------------------------|
// | task            | "rank"                    | [-t] rank, adq, hter, li, tune: α β γ δ + weights |
// | params          | empty = task's            | [-p] α β γ δ                                      |
// | modules         | exact stem synonym para.  | [-m] matching stages, in order                    |
// | weights         | empty = task's, by position| [-w] one per module (missing ones count 0)       |
// | normalize       | kNone                     | [-lower] kLower, [-norm] kNorm, [-norm -noPunct]  |
// | beam_size       | 40                        | [-x] beam of the alignment search                 |
// | data_dir        | $UNIEVAL_METEOR_DATA      | METEOR resources: function/, synonym/, nonbreaking/|
// | paraphrase_file | DIR/[data/]paraphrase-en.gz| [-a] paraphrase table (plain or gzip)            |
// | threads         | 0 = all cores (max 8)     | segments are scored in parallel; output identical |
//
// English parameters (Constants.java): rank α=0.85 β=0.20 γ=0.60 δ=0.75, weights 1.0 0.6 0.8 0.6;
// adq 0.75 1.40 0.45 0.70 / 1.0 1.0 0.6 0.8; hter 0.40 1.50 0.35 0.55 / 1.0 0.2 0.6 0.8;
// li 0.75 1.40 0.70 0.50 / 1.0 0.5 0.5 0.5; tune 0.5 1.0 0.5 0.5 / 1.0 0.5 0.5 0.5.
//
// Resources (each plain or .gz), read from data_dir with the jar's layout:
//   function/english.words, nonbreaking/english.prefixes (normalisation only),
//   synonym/english.synsets + synonym/english.exceptions (synonym module),
//   paraphrase-en.gz or data/paraphrase-en.gz (paraphrase module; not shipped with our data: the
//   official `-l en` numbers, which use the paraphrase module with weight 0.6, need that table).
// A resource missing for a requested module is an InputError naming the file.
//
// Scoring (MeteorScorer.computeMetrics): with per-stage matches m_i (content c / function f, test t
// and reference r side), P = Σ w_i(δ·m_i^c(t) + (1−δ)·m_i^f(t)) / (δ·|t_content| + (1−δ)·|t_func|),
// R likewise, Fmean = P·R/(α·P + (1−α)·R), frag = chunks / mean(matched words) (0 when everything
// matched in one chunk), penalty = γ·frag^β, score = Fmean·(1 − penalty), NaN -> 0, clamped >= 0.
// Quirks kept on purpose: words compare by Java String.hashCode; the search ranks partial
// alignments with the aligner's own weights (exact 1.0, others 0.5, truncated to int), then chunks,
// then a distance that the jar accumulates on the wrong path; chunks of perfectly matched segments
// are not summed into the system statistics.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace unieval::metrics {

enum class MeteorModule { kExact = 0, kStem = 1, kSynonym = 2, kParaphrase = 3 };
enum class MeteorNormalize {
  kNone,         // text used as given (tokens split on whitespace)
  kLower,        // -lower: lowercase only
  kNorm,         // -norm: tokenise (nonbreaking prefixes) + lowercase
  kNormNoPunct,  // -norm -noPunct: as kNorm, punctuation removed
};

struct MeteorOptions {
  std::string task = "rank";   // rank | adq | hter | li | tune (parameters and weights)
  std::vector<double> params;  // α β γ δ; empty = the task's
  std::vector<MeteorModule> modules = {MeteorModule::kExact, MeteorModule::kStem,
                                       MeteorModule::kSynonym, MeteorModule::kParaphrase};
  std::vector<double> weights;  // per module; empty = the task's (by position)
  MeteorNormalize normalize = MeteorNormalize::kNone;
  int beam_size = 40;           // the jar's -x
  std::string data_dir;         // resources; empty = $UNIEVAL_METEOR_DATA
  std::string paraphrase_file;  // empty = DATA/paraphrase-en.gz or DATA/data/...
  int threads = 0;              // 0 = hardware threads (at most 8)

  // "meteor-1.5|en|norm|task:rank|p:0.85,0.2,0.6,0.75|m:exact,stem,synonym|w:1,0.6,0.8|beam:40"
  std::string signature() const;
};

// "exact" -> kExact ...; an unknown name is an InputError.
MeteorModule parse_meteor_module(const std::string& name);
std::string meteor_module_name(MeteorModule m);

// The jar's MeteorStats: sufficient statistics of one segment (or a sum of segments) and the
// metrics computed from them.
struct MeteorStats {
  double test_length = 0, reference_length = 0;
  double test_function_words = 0, reference_function_words = 0;
  double test_total_matches = 0, reference_total_matches = 0;
  // Per matching stage (module order): content / function matches on each side.
  std::vector<double> test_content, reference_content, test_function, reference_function;
  double chunks = 0;
  double test_word_matches = 0, reference_word_matches = 0;
  // Computed by MeteorScorer::compute (NaN where the jar divides by zero).
  double precision = 0, recall = 0, f1 = 0, fmean = 0, fragmentation_penalty = 0, score = 0;

  // MeteorStats.addStats: sums everything; chunks of a perfect segment are not added.
  void add(const MeteorStats& other);
  // The 23-number line (4 stage slots), formatted with Java's Double.toString.
  std::string to_string() const;
  // Parses such a line (the jar's EVAL input); a malformed line is an InputError.
  static MeteorStats parse(std::string_view line);
};

struct MeteorResult {
  double score = 0;                    // "Final score" (from the summed statistics)
  MeteorStats total;                   // summed statistics with precision, recall, ... filled in
  std::vector<double> segment_scores;  // per segment, best reference
  std::vector<MeteorStats> segments;   // per segment statistics (best reference)
};

class MeteorScorer {
 public:
  // Resolves parameters and weights and loads every resource the options need.
  explicit MeteorScorer(const MeteorOptions& options);
  ~MeteorScorer();
  MeteorScorer(const MeteorScorer&) = delete;
  MeteorScorer& operator=(const MeteorScorer&) = delete;

  // Scores a corpus: refs[k][i] is the k-th reference of segment i (every stream as long as hyps).
  MeteorResult score(const std::vector<std::string>& hyps,
                     const std::vector<std::vector<std::string>>& refs) const;
  // One segment against its references (best reference kept, as getMeteorStats(test, refs)).
  MeteorStats segment(const std::string& hyp, const std::vector<std::string>& refs) const;
  // Fills precision ... score of stats with this scorer's parameters (computeMetrics).
  void compute(MeteorStats& stats) const;

  // The text as the jar scores it (normalisation and lowercasing per the options).
  std::string normalize(std::string_view line) const;

  const std::array<double, 4>& params() const;  // α β γ δ in use
  const std::vector<double>& weights() const;   // module weights in use
  const MeteorOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: MeteorScorer(options).score(hyps, refs).
MeteorResult meteor(const std::vector<std::string>& hyps,
                    const std::vector<std::vector<std::string>>& refs,
                    const MeteorOptions& options);

// Paraphrase table in the jar's format (ParaphraseTransducer): groups of three lines
// (probability, reference phrase, paraphrase). Exposed for tests and tools.
class MeteorParaphraseTable {
 public:
  static MeteorParaphraseTable parse(std::string_view text, const std::string& source_name);
  static MeteorParaphraseTable load(const std::string& path);  // plain or gzip
  int translate(std::string_view word) const;                  // vocabulary id, -1 if unknown
  // Paths from words[start]: {length, paraphrase index} pairs, shortest first (getPaths).
  std::vector<std::pair<int, int>> paths(const std::vector<int>& words, size_t start) const;
  const std::vector<int>& paraphrase(int index) const;
  size_t size() const;

 private:
  std::unordered_map<std::string, int> vocab_;
  std::vector<std::vector<int>> paraphrases_;
  std::unordered_map<uint64_t, int> edges_;  // (node << 32 | word id) -> child node; root is 0
  std::vector<std::vector<int>> emits_;      // per node: paraphrase indices, in file order
};

// The one METEOR resource policy (`score --metric meteor`, and the squad-qg / dstc7 tasks of
// `eval` and `run`): the resources directory from the flag (flag_value, when non-empty), else
// $UNIEVAL_METEOR_DATA; "" when neither. A missing directory, resource file or paraphrase table
// is an InputError naming what to set (check_meteor_resources, MeteorScorer); `eval` and `run`
// score without METEOR only when asked to (`--skip-metric meteor`, recorded in the notes).
std::string meteor_data_dir(const std::string& flag_value);

// How a caller names the METEOR settings in the policy's error messages.
struct MeteorResourceFlags {
  std::string data = "--meteor-data DIR";                // the resources directory
  std::string paraphrase = "--paraphrase FILE";          // the paraphrase table
  std::string modules = "--modules exact,stem,synonym";  // scoring without the paraphrase module
  std::string skip;  // how to leave METEOR out of a metric set ("" = the caller has no such choice)
};
// Checks, without loading them, that every resource `options` needs can be found: the directory,
// function words, nonbreaking prefixes (-norm), synonyms (synonym module), the paraphrase table
// (paraphrase module). InputError naming the missing file and the flags to set; returns the
// directory. MeteorScorer applies the same checks (with the default flags) before loading.
std::string check_meteor_resources(const MeteorOptions& options,
                                   const MeteorResourceFlags& flags = {});

}  // namespace unieval::metrics
