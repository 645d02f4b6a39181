#pragma once
// The metric protocol: every metric family registers its metrics here, and `unieval score`,
// `--help`, `--help-markdown`, the signature keys, bootstrap CIs, paired significance and the
// JSON / human output all come from that one registration.
//
// A metric (MetricSpec) declares
//   * its name (the --metric value), a one-line summary and an options section (metrics that share
//     a section share their flags, e.g. chrf and chrf++);
//   * its options ONCE, as a list of typed OptionSpecs (name, one-letter alias, type, default,
//     help, the signature field the option sets). The CLI maps them onto Boost.Program_options
//     (apps/unieval/cmd_score.cc; this library does not depend on Boost), prints them in --help,
//     and options_markdown() renders the README table from the same list;
//   * a corpus scorer, `run(ScoreContext&)`, which reads the parsed OptionValues, scores through
//     the metric's library API and writes its result through the context's one serialiser
//     (ScoreContext::emit: one JSON object per line with --json, else the human report). Where a
//     metric is decomposable (SQuAD, CoQA, GLUE: per-question / per-turn / per-example
//     statistics), the scorer hands a ScoreFn over the items to add_resampling(), the one place
//     that runs bootstrap CIs and paired significance (metrics/bootstrap.h) and serialises them.
//
// Adding a metric: write metrics/NAME.{h,cc} (the metric) and register it in a family file
// (metrics/family_*.cc, one push_back with its specs and scorer); a new family adds one line to
// metric_registry() in metrics/protocol.cc.
//
// Language resources (one policy, the same in `score` and `eval`): a resource directory is taken
// from its flag (--rouge-data, --meteor-data; `eval --option rouge_data=... / meteor_data=...`),
// else from its environment variable (UNIEVAL_ROUGE_DATA, UNIEVAL_METEOR_DATA); when a metric that
// needs it is asked for and neither names it, scoring stops with an InputError saying which flag or
// variable to set and which option scores without it (rouge_data_dir(), meteor_data_dir()).
//
// Option types (OptionType) and how they parse:
//   | type         | command line          | value                                          |
//   | kFlag        | --name (no argument)  | bool, false when absent                        |
//   | kInt, kLong  | --name N              | int / long                                     |
//   | kUInt64      | --name N              | unsigned long long                             |
//   | kDouble      | --name X              | double                                         |
//   | kString      | --name TEXT           | std::string                                    |
//   | kStringList  | --name A --name B     | std::vector<std::string> (repeatable)          |
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "metrics/bootstrap.h"

namespace unieval::metrics {

enum class OptionType { kFlag, kInt, kLong, kUInt64, kDouble, kString, kStringList };

using OptionValue =
    std::variant<bool, int, long, unsigned long long, double, std::string, std::vector<std::string>>;

struct OptionSpec {
  std::string name;                          // long flag without "--" ("max-order")
  char short_name = 0;                       // one-letter alias ('n' for -n); 0 = none
  OptionType type = OptionType::kString;     // how the value parses
  std::optional<OptionValue> default_value;  // shown in --help; none = absent unless given
  std::string help;                          // one paragraph for --help and the README table
  std::string signature_key;                 // the signature field it sets ("tok"); "" = none
  bool required = false;                     // parsing fails without it (only --metric)
};

// Spec constructors. `name` may carry the alias as Boost writes it: "max-ngram,n".
OptionSpec flag_option(const std::string& name, const std::string& help,
                       const std::string& signature_key = "");
OptionSpec int_option(const std::string& name, std::optional<int> def, const std::string& help,
                      const std::string& signature_key = "");
OptionSpec long_option(const std::string& name, std::optional<long> def, const std::string& help,
                       const std::string& signature_key = "");
OptionSpec uint64_option(const std::string& name, std::optional<unsigned long long> def,
                         const std::string& help, const std::string& signature_key = "");
OptionSpec double_option(const std::string& name, std::optional<double> def, const std::string& help,
                         const std::string& signature_key = "");
OptionSpec string_option(const std::string& name, std::optional<std::string> def,
                         const std::string& help, const std::string& signature_key = "");
OptionSpec string_list_option(const std::string& name, const std::string& help,
                              const std::string& signature_key = "");

// The parsed options of one run: every option given on the command line or with a default.
class OptionValues {
 public:
  void set(const std::string& name, OptionValue value, bool defaulted = false);
  // Every spec's default (flags: false), as a parser leaves options that are not given; for
  // library callers that score without a command line.
  void set_defaults(const std::vector<OptionSpec>& specs);
  bool count(const std::string& name) const;  // given or defaulted
  bool given(const std::string& name) const;  // given (not only defaulted)
  bool flag(const std::string& name) const;   // kFlag; false when absent
  const std::string& str(const std::string& name) const;
  int integer(const std::string& name) const;
  long long_integer(const std::string& name) const;
  unsigned long long uint64(const std::string& name) const;
  double real(const std::string& name) const;
  const std::vector<std::string>& list(const std::string& name) const;

 private:
  const OptionValue& at(const std::string& name) const;  // std::logic_error when absent
  std::map<std::string, std::pair<OptionValue, bool>> values_;  // name -> (value, defaulted)
};

// Where a scorer writes: its serialiser and warnings.
class ScoreContext {
 public:
  ScoreContext(const OptionValues& values, std::function<void(const std::string&)> warn)
      : values(values), warn_(std::move(warn)) {}
  const OptionValues& values;
  bool json() const { return values.flag("json"); }
  // The common inputs: --hyp (required), --ref ... (>= 1 required); InputError naming the metric.
  std::string hyp_path() const;
  std::vector<std::string> ref_paths() const;
  // The one serialiser: a JSON object on one line (non-UTF-8 bytes replaced, as nlohmann's
  // error_handler_t::replace).
  void emit_json(const nlohmann::ordered_json& j) { out_ += json_line(j); }
  // With --json one JSON line, else one "key = value" line per scalar (nested objects joined by '.').
  void emit(const nlohmann::ordered_json& j);
  void print(const std::string& text) { out_ += text; }  // human report text
  void warn(const std::string& message) const { if (warn_) warn_(message); }
  const std::string& output() const { return out_; }  // what the run prints on stdout

  static std::string json_line(const nlohmann::ordered_json& j);
  static std::string human_lines(const nlohmann::ordered_json& j, const std::string& prefix = "");

 private:
  std::function<void(const std::string&)> warn_;
  std::string out_;
};

struct MetricSpec {
  std::string name;                       // the --metric value
  std::string summary;                    // one line for `unieval score --help`
  std::vector<OptionSpec> options;        // the metric's own options (its --help section)
  std::function<void(ScoreContext&)> run;  // scores and emits
  std::string section;                    // options section title; metrics sharing it share flags
};
using MetricRegistry = std::vector<MetricSpec>;

// Every metric of this build, in --help order.
const MetricRegistry& metric_registry();
const MetricSpec* find_metric(const std::string& name);  // nullptr when unknown

// The options every metric takes (--metric, --hyp, --ref, --json), in --help order.
const std::vector<OptionSpec>& common_option_specs();
// --threads N (default given), `what` says what runs in parallel.
OptionSpec threads_option(int def, const std::string& what);

// Runs `name` with parsed values; returns what it prints on stdout. Warnings go to `warn`.
std::string score_metric(const std::string& name, const OptionValues& values,
                         const std::function<void(const std::string&)>& warn);

// The README table of one options section (the specs of the first metric with that section):
// | option | default | signature | meaning |
std::string options_markdown(const std::vector<OptionSpec>& specs);
// Every section: "#### --metric NAME" headings and tables, for `unieval score --help-markdown`.
std::string registry_markdown();

// Bootstrap options of the corpus metrics: --bootstrap N --seed S --confidence C
// --paired-bootstrap FILE (`other_what` documents FILE).
std::vector<OptionSpec> bootstrap_option_specs(const std::string& other_what);
// Adds "bootstrap" / "paired_bootstrap" objects for the named values to j (the one serialiser
// of resampling results). base may be null (no paired test).
void add_resampling(nlohmann::ordered_json& j, const OptionValues& values, size_t n,
                    const std::vector<std::string>& names, const ScoreFn& sys, const ScoreFn* base);

// Option text lists: "0.5,0.5" -> {0.5, 0.5}; an unparsable item is an InputError naming the
// option ("--" + option). parse_int_list: every item an integer.
std::vector<double> parse_double_list(const std::string& text, const std::string& option);
std::vector<int> parse_int_list(const std::string& text, const std::string& option);

// The metric families (metrics/family_*.cc).
void register_bleu_metrics(MetricRegistry& reg);    // bleu, chrf, chrf++, bleu-multi, bleu-nltk,
                                                    // bleu-plato, bleu-coco, nist, nist-nltk
void register_rouge_metrics(MetricRegistry& reg);   // rouge, rouge-l-coco
void register_meteor_metrics(MetricRegistry& reg);  // meteor
void register_qa_metrics(MetricRegistry& reg);      // squad, coqa, glue, glue-score, distinct, entropy

}  // namespace unieval::metrics
