#pragma once
// `unieval score --metric NAME ...`: each metric family registers its metrics here, with the
// flags only it understands. The common flags are --metric, --hyp, --ref (repeatable), --json.
#include <functional>
#include <string>
#include <vector>

#include "apps/unieval/cli.h"

namespace unieval::cli {

struct ScoreMetric {
  std::string name;     // the --metric value
  std::string summary;  // one line for `unieval score --help`
  // Adds this metric's own options (the family's section of --help).
  std::function<void(po::options_description&)> add_options;
  // Scores with the parsed options; returns the exit code.
  std::function<int(const po::variables_map&)> run;
  std::string section = "";  // options section title in --help (metrics sharing it share flags)
};
using ScoreRegistry = std::vector<ScoreMetric>;

// One function per metric family (apps/unieval/score_FAMILY.cc).
void register_bleu_metrics(ScoreRegistry& reg);    // bleu, chrf, bleu-multi, bleu-nltk, bleu-plato,
                                                   // bleu-coco, nist, nist-nltk
void register_rouge_metrics(ScoreRegistry& reg);   // rouge, rouge-l-coco
void register_meteor_metrics(ScoreRegistry& reg);  // meteor
void register_qa_metrics(ScoreRegistry& reg);      // squad, coqa, glue, glue-score, distinct, entropy

// Common-flag accessors for the families.
std::string hyp_path(const po::variables_map& vm);              // --hyp (required)
std::vector<std::string> ref_paths(const po::variables_map& vm);  // --ref ... (>= 1 required)
bool want_json(const po::variables_map& vm);                    // --json
// --threads N (default 0 = all cores, at most 8); `what` says what runs in parallel.
void add_threads_option(po::options_description& d, const std::string& what);

}  // namespace unieval::cli
