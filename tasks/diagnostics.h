#pragma once
// Output diagnostics of a generation task: what a glance at the hypotheses would show (empty
// lines, stutters like "the the the", one string everywhere, lengths far from the references'),
// counted over the text as the task's adapter scores it, so that a system that produces garbage
// says so next to its scores. Torch-free: `unieval eval` computes it for every generation task's
// prediction file (pipelines::evaluate, from TaskOutput::hypotheses / first_references) and
// `unieval run` gets it from there.
//
//   OutputDiagnostics d = diagnose_outputs({"a b", "", "s s s"}, {"a b c", "x y", "s t"});
//   d.empty;                        // 1
//   d.repeated;                     // 1 ("s s s")
//   diagnostic_warnings(d);         // {"1 of 3 hypotheses (33.3%) are empty ...", ...}
//   result.extra["diagnostics"] = to_json(d);
//
// Words are whitespace tokens (runs of ' ', '\t', '\n', '\v', '\f', '\r'; as Python's
// str.split() on ASCII text); a multi-sentence hypothesis (cnndm's lines joined by '\n') is
// one hypothesis.
//
// | field (JSON name)  | meaning                                                                   |
// |--------------------|---------------------------------------------------------------------------|
// | hypotheses         | number of hypotheses                                                      |
// | empty              | hypotheses that are empty or whitespace only                              |
// | repeated           | hypotheses in which some word occurs 3 or more times in a row             |
// | distinct           | number of distinct hypothesis strings (exact bytes)                       |
// | most_common        | {"text", "count"}: the most frequent hypothesis string (ties: the one     |
// |                    | that occurs first) and how often it occurs                                |
// | mean_hyp_words     | mean words per hypothesis (empty ones count 0)                            |
// | mean_ref_words     | mean words per reference; with several references per hypothesis, over    |
// |                    | the FIRST reference of each (0 when the task scores without references)   |
// | length_ratio       | mean_hyp_words / mean_ref_words (null without references or when 0)       |
// | glued_punctuation  | {"hypotheses", "references"}: how many hypotheses, and how many first     |
// |                    | references, have a word with '?', '!', ',', ';' or ':' attached to its     |
// |                    | end ("world?"; a word of punctuation alone does not count). Absent without |
// |                    | references                                                                |
//
// Warnings (diagnostic_warnings), each one line:
//   more than 1% of the hypotheses empty; more than 5% repeated; length_ratio below 0.5 or
//   above 2; one hypothesis string more than 20% of all (counted when it occurs at least twice:
//   a string seen once is no collapse, however few the hypotheses); the share of hypotheses with
//   glued punctuation more than 20 points above or below the references' (tokenised references,
//   detokenised hypotheses, or the reverse: the words with the mark then never match).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace unieval::tasks {

struct OutputDiagnostics {
  int64_t hypotheses = 0;              // number of hypotheses
  int64_t empty = 0;                   // empty or whitespace only
  int64_t repeated = 0;                // some word 3+ times in a row
  int64_t distinct = 0;                // distinct hypothesis strings
  std::string most_common;             // the most frequent hypothesis (ties: first to occur)
  int64_t most_common_count = 0;       // its count
  double mean_hyp_words = 0;           // mean words per hypothesis
  double mean_ref_words = 0;           // mean words of the first reference (0: none)
  std::optional<double> length_ratio;  // mean_hyp_words / mean_ref_words (unset: no references)
  int64_t glued_hyps = 0;              // hypotheses with glued punctuation (table above)
  int64_t glued_refs = 0;              // first references with glued punctuation
};

// The thresholds of diagnostic_warnings().
constexpr double kMaxEmptyFraction = 0.01;
constexpr double kMaxRepeatedFraction = 0.05;
constexpr double kMinLengthRatio = 0.5;
constexpr double kMaxLengthRatio = 2.0;
constexpr double kMaxMostCommonFraction = 0.2;
constexpr double kMaxGluedShareGap = 0.2;  // |hypotheses' share - references'| of glued punctuation
constexpr int kRepeatRun = 3;  // a word this many times in a row makes a hypothesis "repeated"

// Diagnostics of `hyps` against `first_refs` (the first reference of each hypothesis, aligned
// with hyps; empty = the task scores without references). std::invalid_argument when first_refs
// is neither empty nor as long as hyps (a programmer error of the adapter).
OutputDiagnostics diagnose_outputs(const std::vector<std::string>& hyps,
                                   const std::vector<std::string>& first_refs);

// Whitespace words of a text (the unit of every count above).
std::vector<std::string> whitespace_words(const std::string& text);
// True when some word occurs kRepeatRun or more times in a row.
bool has_repeated_run(const std::vector<std::string>& words);
// True when some word ends in '?', '!', ',', ';' or ':' after a byte that is none of those nor '.'
// ("world?", "says:"; not "?", "...?" or "?!").
bool has_glued_punctuation(const std::vector<std::string>& words);

// One line per abnormal value (thresholds above); empty when nothing is abnormal.
std::vector<std::string> diagnostic_warnings(const OutputDiagnostics& d);

// The JSON object of the result's "diagnostics" field (exactly the names of the table above).
nlohmann::ordered_json to_json(const OutputDiagnostics& d);
// Back from that object (missing fields keep their defaults).
OutputDiagnostics diagnostics_from_json(const nlohmann::json& j);

// A few human-readable lines (what `unieval eval` and `unieval run` print without --json).
std::string render_diagnostics(const OutputDiagnostics& d);

}  // namespace unieval::tasks
