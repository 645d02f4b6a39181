#pragma once
// Follows ROUGE-1.5.5 (research release, no OSI licence) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// ROUGE-1.5.5 (Chin-Yew Lin's ROUGE-1.5.5.pl), reproduced number for number: every per-instance
// R/P/F, every printed Average (the bootstrap mean) and both confidence bounds.
//
//   unieval::metrics::Rouge155Options opt;          // the UniLM / BertSum / PreSumm flags:
//   opt.max_n = 2; opt.stem = true;                 //   -c 95 -r 1000 -n 2 -a -m
//   auto res = unieval::metrics::RougeResources::load("/path/ROUGE-1.5.5/data");
//   std::vector<unieval::metrics::RougeInstance> corpus = {
//       {{"the cat sat .", "it was happy ."}, {{"a cat sat on the mat ."}}}};
//   auto out = unieval::metrics::rouge155(corpus, opt, res);
//   out.variants[0].name;       // "ROUGE-1"
//   out.variants[0].average.f;  // the script's "Average_F" (5 decimals)
//
// What is reproduced (details and quirks in shared/docs/metrics/rouge_squad_coqa_glue.md §1):
// * input = SPL summaries (one sentence per entry); empty sentences are skipped as the script
//   skips empty lines; the -l/-b limits are applied with the script's own (different) logic for
//   the n-gram path (`readText`) and the LCS path (`readText_LCS`);
// * tokenisation: metrics/text/rouge_tokenize.h; -s removes smart_common_words.txt tokens; -m
//   maps tokens longer than 3 through the WordNet exception table, else ROUGE's Porter stemmer;
// * ROUGE-N over the whole summary (n-grams cross sentence boundaries), summary-level union LCS
//   ROUGE-L with unigram budgets, ROUGE-W (including the script's double weighting of the model
//   base), ROUGE-S/SU (the last token's unigram never counted), formulas A (model average) and B
//   (best model), R and P rounded with %7.5f before F;
// * averages: bootstrap over instances sorted as strings ("1.X" < "10.X" < "2.X"), Perl's drand48
//   seeded with srand(s) for resample s, mean of the sorted sample means, interpolated bounds.
//
// Options (the struct fields; the Perl flag in brackets, default first):
// | field            | flag  | default | meaning                                                  |
// |------------------|-------|---------|----------------------------------------------------------|
// | max_n            | -n N  | 0       | ROUGE-1..N (0: none)                                     |
// | lcs              | -x    | true    | ROUGE-L (false with -x)                                  |
// | wlcs_weight      | -w W  | ""      | ROUGE-W-W (text as written, names the variant)           |
// | skip_distance    | -2 D  | ""      | ROUGE-S(D); negative = unlimited (S*)                    |
// | skip_unigram     | -u    | false   | SU instead of S                                          |
// | skip_both        | -U    | false   | S and SU                                                 |
// | stem             | -m    | false   | exceptions + Porter on tokens longer than 3              |
// | use_exceptions   |       | true    | false = stem without WordNet exceptions (explicit opt-out)|
// | remove_stopwords | -s    | false   | drop smart_common_words.txt tokens                       |
// | length_limit     | -l N  | 0       | first N words of every summary (peer and models)         |
// | byte_limit       | -b N  | 0       | first N bytes of every summary                           |
// | formula          | -f    | 'A'     | A = model average, B = best model                        |
// | alpha            | -p    | 0.5     | F = PR / ((1-alpha)P + alpha R)                          |
// | confidence       | -c    | 95      | confidence level of the bounds (0..100)                  |
// | resamples        | -r    | 1000    | bootstrap resamples (>= 1)                               |
// | threads          |       | 1       | threads for scoring and bootstrap (output is identical)  |
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/error.h"
#include "metrics/text/wordnet_exceptions.h"

namespace unieval::metrics {

// The ROUGE-1.5.5 data files: WordNet-2.0-Exceptions/*.exc and smart_common_words.txt.
struct RougeResources {
  text::WordNetExceptions exceptions;         // empty when not loaded
  std::unordered_set<std::string> stopwords;  // empty when not loaded
  bool has_exceptions = false;
  bool has_stopwords = false;
  std::string data_dir;  // where they came from ("" = nothing loaded)

  // Loads DIR/WordNet-2.0-Exceptions/{adj,adv,noun,verb}.exc and DIR/smart_common_words.txt,
  // whichever exist (DIR may also be the exceptions directory's parent's parent "ROUGE-1.5.5",
  // holding data/). Absent files leave has_* false; `require_*` make them an InputError.
  static RougeResources load(const std::string& dir, bool require_exceptions = false,
                             bool require_stopwords = false);
  // "wn2.0" for the 5,930-key WordNet 2.0 table, "custom<N>" for another table, "none".
  std::string exceptions_tag() const;
};

// The data directory from --rouge-data (when non-empty) or $UNIEVAL_ROUGE_DATA; "" when neither.
std::string rouge_data_dir(const std::string& flag_value);

struct Rouge155Options {
  int max_n = 0;                  // -n N: ROUGE-1..N
  bool lcs = true;                // ROUGE-L unless -x
  std::string wlcs_weight;        // -w W as written ("1.2"); "" = no ROUGE-W
  std::string skip_distance;      // -2 D as written ("4", "-1"); "" = no ROUGE-S
  bool skip_unigram = false;      // -u: SU (skip-bigrams plus unigrams)
  bool skip_both = false;         // -U: S and SU
  bool stem = false;              // -m
  bool use_exceptions = true;     // with -m: consult the WordNet exceptions first
  bool remove_stopwords = false;  // -s
  long length_limit = 0;          // -l N (words)
  long byte_limit = 0;            // -b N (bytes)
  char formula = 'A';             // -f A|B
  double alpha = 0.5;             // -p ALPHA
  double confidence = 95;         // -c CF
  int resamples = 1000;           // -r N
  int threads = 1;                // worker threads (does not change any number)

  // Throws InputError for values the script rejects (or dies on).
  void validate() const;
  // rouge155|n:2|l:1|w:-|s:-|u:0|U:0|m:1|exc:wn2.0|stop:0|len:0|byte:0|f:A|p:0.5|c:95|r:1000|v:1.5.5
  std::string signature(const RougeResources& res) const;
};

// One summary: its sentences (SPL lines).
using RougeSummary = std::vector<std::string>;
// One evaluation: the peer (system) summary and its model (reference) summaries.
struct RougeInstance {
  RougeSummary peer;
  std::vector<RougeSummary> models;
};

struct RougePRF {
  double r = 0, p = 0, f = 0;
};

struct Rouge155Variant {
  std::string name;                 // "ROUGE-1", "ROUGE-L", "ROUGE-W-1.2", "ROUGE-SU4", "ROUGE-S*"
  std::vector<RougePRF> instances;  // per instance, input order (5-decimal values)
  RougePRF average;                 // Average_R/P/F (bootstrap means, 5 decimals)
  RougePRF ci_low, ci_high;         // the confidence bounds (5 decimals)
};

struct Rouge155Result {
  std::vector<Rouge155Variant> variants;  // in the script's print order
  std::string signature;
};

// ROUGE-W with a model (reference) of zero tokens: the script dies ("Illegal division by zero");
// we stop with this error naming the instance (0-based) and model (0-based).
class RougeEmptyModelError : public InputError {
 public:
  RougeEmptyModelError(size_t instance, size_t model, const std::string& problem)
      : InputError(problem), instance_(instance), model_(model) {}
  size_t instance() const { return instance_; }
  size_t model() const { return model_; }

 private:
  size_t instance_, model_;
};

// Scores a corpus as `ROUGE-1.5.5.pl -z SPL <flags> -a` does with evaluation IDs 1..N in order.
Rouge155Result rouge155(const std::vector<RougeInstance>& corpus, const Rouge155Options& opt,
                        const RougeResources& res);

// The script's printed report: "X ROUGE-1 Average_R: 0.56213 (95%-conf.int. 0.55916 - 0.56519)"
// blocks, with the "-d" Eval lines when per_instance.
std::string rouge155_report(const Rouge155Result& result, const Rouge155Options& opt,
                            bool per_instance, const std::string& peer_id = "X");

// Splits one line into sentences at `sep` (each trimmed of spaces; empty ones dropped). An empty
// separator gives the whole line as one sentence.
RougeSummary split_summary(std::string_view line, std::string_view sep);

// Perl's sprintf("%7.5f", x) read back as a number: the 5-decimal value the script carries.
double round5(double x);

// The one ROUGE-1.5.5 resource policy (`unieval score --metric rouge` and `unieval eval --task
// cnndm/gigaword` alike): the data directory comes from the flag (flag_value, when non-empty), else
// from $UNIEVAL_ROUGE_DATA. When `opt` needs a resource (-m with the WordNet exceptions, -s) and
// neither names a directory, or the directory lacks it, scoring stops with an InputError that names
// the flag, the variable and (for -m) the option that stems without the exceptions. Nothing falls
// back silently to other numbers. The names in the messages come from `flags`.
struct RougeResourceFlags {
  std::string data = "--rouge-data DIR";                  // how the caller names the directory
  std::string no_exceptions = "--no-wordnet-exceptions";  // how it asks for -m without them
};
RougeResources find_rouge_resources(const std::string& flag_value, const Rouge155Options& opt,
                                    const RougeResourceFlags& flags = {});

}  // namespace unieval::metrics
