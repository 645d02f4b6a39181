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
// Library use (a task's official metric set as data, tasks/metric_set.h): run_metric() scores a
// MetricCall (registry name + option values) on a corpus held in memory, through the same scorer
// and serialiser as `unieval score --json`; the MetricRun holds the JSON objects the scorer
// emitted and, where the metric is decomposable, its resampling function (bootstrap CIs and
// paired tests through metrics/bootstrap.h) and per-segment values.
//
//   MetricCall call{"bleu-coco", {}};
//   core::Corpus c{hyps, {refs0, refs1}};
//   MetricRun r = run_metric(call, c);
//   r.objects[0]["Bleu_4"];              // as `score --metric bleu-coco --json` prints it
//   bootstrap_ci(r.items, r.resample, o);  // Bleu_1..4 CIs
//
// Language resources (one policy, the same in `score`, `eval` and `run`): a resource directory is
// taken from its flag (--rouge-data, --meteor-data; `eval --option rouge_data=... / meteor_data=...`),
// else from its environment variable (UNIEVAL_ROUGE_DATA, UNIEVAL_METEOR_DATA); when a metric that
// needs it is asked for and neither names it, scoring stops with an InputError saying which flag or
// variable to set and which option scores without it (MetricSpec::check, check_metric_resources();
// the caller's spelling of the flags comes from ResourceHints). `eval` and `run` leave a metric
// out only when the user asks (`--skip-metric NAME`), and say so in the result's notes.
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
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/io.h"
#include "metrics/bootstrap.h"

namespace unieval::metrics {

enum class OptionType { kFlag, kInt, kLong, kUInt64, kDouble, kString, kStringList };

using OptionValue = std::variant<bool, int, long, unsigned long long, double, std::string,
                                 std::vector<std::string>>;

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
OptionSpec double_option(const std::string& name, std::optional<double> def,
                         const std::string& help, const std::string& signature_key = "");
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
  const OptionValue& at(const std::string& name) const;         // std::logic_error when absent
  std::map<std::string, std::pair<OptionValue, bool>> values_;  // name -> (value, defaulted)
};

// How the caller's user names options, for resource errors: option name -> its spelling
// ("meteor-data" -> "--option meteor_data=DIR"); skip: how to leave the metric out ("" = no such
// choice, as in `score`).
struct ResourceHints {
  std::map<std::string, std::string> options;
  std::string skip;
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
  // The input: the in-memory corpus of a library call (set_corpus), else --hyp and --ref read
  // (same line counts; read once). hyps(): the hypotheses alone (reference-free metrics).
  // segment_refs(): the references of each segment (a library call may give different numbers
  // per segment; corpus() then pads each segment's streams with its first reference, which
  // leaves metrics that take the best / maximum over references unchanged).
  const core::Corpus& corpus() const;
  const std::vector<std::string>& hyps() const;
  const std::vector<std::vector<std::string>>& segment_refs() const;
  bool in_memory() const { return corpus_ || seg_hyps_; }          // a library call's corpus
  bool per_segment_input() const { return seg_refs_ != nullptr; }  // references given per segment
  void set_corpus(const core::Corpus* c) { corpus_ = c; }
  void set_segments_input(const std::vector<std::string>* hyps,
                          const std::vector<std::vector<std::string>>* refs) {
    seg_hyps_ = hyps;
    seg_refs_ = refs;
  }
  // Resource errors: how the caller spells `option` (default: the command line's `cli`), and
  // the opt-out of the metric ("" when the caller has none).
  std::string spell(const std::string& option, const std::string& cli) const;
  const std::string& skip_hint() const { return hints_.skip; }
  void set_hints(ResourceHints h) { hints_ = std::move(h); }
  // The one serialiser: a JSON object on one line (non-UTF-8 bytes replaced, as nlohmann's
  // error_handler_t::replace). A library call also keeps the objects (emitted()).
  void emit_json(const nlohmann::ordered_json& j) {
    if (capture_)
      emitted_.push_back(j);
    else
      out_ += json_line(j);
  }
  void set_capture(bool on) { capture_ = on; }
  const std::vector<nlohmann::ordered_json>& emitted() const { return emitted_; }
  // A decomposable metric's resampling: `fn` gives the values `names` on a resample of `n` items
  // and owns what it reads. Kept for library callers (MetricRun); `score` resamples through
  // add_resampling().
  void set_resampling(size_t n, std::vector<std::string> names, ScoreFn fn);
  // Library calls: whether the caller wants the resampling function (set_resampling) and the
  // per-segment values (set_segments).
  bool resampling_wanted() const { return want_resampling_; }
  void set_resampling_wanted(bool on) { want_resampling_ = on; }
  bool segments_wanted() const { return capture_; }
  void set_segments(std::vector<std::string> names, std::vector<std::vector<double>> rows);
  size_t items() const { return items_; }
  const std::vector<std::string>& value_names() const { return value_names_; }
  const ScoreFn& resample() const { return resample_; }
  const std::vector<std::string>& segment_names() const { return segment_names_; }
  std::vector<std::vector<double>>& segments() { return segments_; }
  // With --json one JSON line, else one "key = value" line per scalar (nested objects joined by '.').
  void emit(const nlohmann::ordered_json& j);
  void print(const std::string& text) { out_ += text; }  // human report text
  void warn(const std::string& message) const {
    if (warn_) warn_(message);
  }
  const std::string& output() const { return out_; }  // what the run prints on stdout

  static std::string json_line(const nlohmann::ordered_json& j);
  static std::string human_lines(const nlohmann::ordered_json& j, const std::string& prefix = "");

 private:
  std::function<void(const std::string&)> warn_;
  std::string out_;
  const core::Corpus* corpus_ = nullptr;
  const std::vector<std::string>* seg_hyps_ = nullptr;
  const std::vector<std::vector<std::string>>* seg_refs_ = nullptr;
  mutable std::unique_ptr<core::Corpus> read_;  // the files, once read (or padded streams)
  mutable std::unique_ptr<std::vector<std::vector<std::string>>> by_segment_;
  mutable std::unique_ptr<std::vector<std::string>> read_hyps_;
  ResourceHints hints_;
  bool capture_ = false;
  bool want_resampling_ = false;
  std::vector<nlohmann::ordered_json> emitted_;
  size_t items_ = 0;
  std::vector<std::string> value_names_;
  ScoreFn resample_;
  std::vector<std::string> segment_names_;
  std::vector<std::vector<double>> segments_;
};

struct MetricSpec {
  std::string name;                        // the --metric value
  std::string summary;                     // one line for `unieval score --help`
  std::vector<OptionSpec> options;         // the metric's own options (its --help section)
  std::function<void(ScoreContext&)> run;  // scores and emits
  std::string section;                     // options section title; metrics sharing it share flags
  // Resource check without scoring (InputError naming what to set); empty = needs no resources.
  std::function<void(const ScoreContext&)> check;
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

// ---- library calls --------------------------------------------------------------------------

// One metric with its option values (spec names, as on the command line without "--"); options
// not named take their spec defaults. A name the metric does not declare, or a value of another
// type, is a std::logic_error (a programming error of the caller's declaration).
struct MetricCall {
  std::string metric;                                        // registry name ("bleu-coco")
  std::vector<std::pair<std::string, OptionValue>> options;  // {"modules", "exact,stem"}, ...
};

// What one library call produced.
struct MetricRun {
  std::vector<nlohmann::ordered_json> objects;  // the emitted JSON objects (`score --json` lines)
  std::vector<std::string> warnings;
  size_t items = 0;                        // resampling items (segments); 0 = not decomposable
  std::vector<std::string> value_names;    // what `resample` returns
  ScoreFn resample;                        // values on a resample of the items
  std::vector<std::string> segment_names;  // per-segment values, where the metric has them
  std::vector<std::vector<double>> segments;
};

// The parsed values of a call: spec defaults, the call's options, --json on, --metric set.
OptionValues call_values(const MetricCall& call);
// The metric's resource check (MetricSpec::check) with the caller's spelling of the flags.
void check_metric_resources(const MetricCall& call, const ResourceHints& hints = {});
// The same with references given per segment (refs[i]: one or more references of hyps[i]).
MetricRun run_metric(const MetricCall& call, const std::vector<std::string>& hyps,
                     const std::vector<std::vector<std::string>>& refs,
                     const ResourceHints& hints = {}, bool resampling = false);
// Scores `corpus` (segments in hyps, reference streams in refs) through the registry; with
// `resampling`, a decomposable metric also returns its resampling function.
MetricRun run_metric(const MetricCall& call, const core::Corpus& corpus,
                     const ResourceHints& hints = {}, bool resampling = false);

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
void register_bleu_metrics(MetricRegistry& reg);  // bleu, chrf, chrf++, ter, bleu-multi, bleu-nltk,
                                                  // bleu-plato, bleu-coco, nist, nist-nltk
void register_rouge_metrics(MetricRegistry& reg);   // rouge, rouge-l-coco
void register_meteor_metrics(MetricRegistry& reg);  // meteor
void register_qa_metrics(MetricRegistry& reg);  // squad, coqa, glue, glue-score, distinct, entropy

}  // namespace unieval::metrics
