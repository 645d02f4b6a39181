#pragma once
// One evaluation run as data: the single result model that every command reads and writes and
// every reporter renders (Markdown, LaTeX, HTML, CSV, JSON).
//
// A RunResult is what `unieval eval --out RESULT.json` writes and what `unieval table` and
// `unieval compare` read. Its JSON form follows the versioned JSON Schema in
// results/schema/run_result.v1.schema.json (field-by-field documentation there and below).
//
//   RunResult r;
//   r.task = "squad-v2"; r.split = "dev"; r.system = "bert-large";
//   r.metrics.push_back({"squad-v2", "squad-v2|official:evaluate-v2.0.py|na_prob_thresh:1.0", {}});
//   r.scores.push_back({"exact", 78.742, "squad-v2", "percent", true, std::nullopt});
//   write_run_result("out.json", r);                 // atomic: temp file + rename
//   RunResult back = read_run_result("out.json");    // InputError naming file and field on bad input
//
// Versioning: `schema_version` is 1. A reader accepts files whose major version it knows and
// rejects newer ones with a clear message; fields it does not know are kept in `extra`.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace unieval::results {

constexpr int kRunResultSchemaVersion = 1;
constexpr const char* kRunResultSchemaId = "https://unieval.dev/schema/run_result/v1";

// A confidence interval of one score.
struct ConfidenceInterval {
  double low = 0;
  double high = 0;
  double level = 0.95;          // coverage, e.g. 0.95
  std::string method;           // "bootstrap-percentile", "rouge-1.5.5-bootstrap", ...
  int resamples = 0;            // bootstrap resamples (0 when not a bootstrap)
  unsigned long long seed = 0;  // RNG seed of the resampling
};

// The identity of a metric computation: two scores are comparable only when their metric
// signatures are equal (same implementation, same options).
struct MetricSignature {
  std::string id;         // metric family key used by Score::metric ("squad-v2", "rouge-1.5.5")
  std::string signature;  // canonical one-line signature ("squad-v2|script:evaluate-v2.0.py|...")
  nlohmann::ordered_json options = nlohmann::ordered_json::object();  // the options struct as JSON
};

// One number of the run.
struct Score {
  std::string name;              // score key ("exact", "f1", "rouge1_f", "bleu4", "nist4", ...)
  double value = 0;              // in the unit the official script prints (see unit)
  std::string metric;            // MetricSignature::id it was computed by
  std::string unit = "raw";      // "percent", "fraction", "raw", "nats", "tokens", "count"
  bool higher_is_better = true;  // direction used by table (best marks) and compare (regressions)
  std::optional<ConfidenceInterval> ci;
};

// Per-example scores (optional; `unieval eval --per-example`).
struct ExampleScores {
  std::string id;                        // example id as in the data (qid, line number, hash key)
  std::map<std::string, double> scores;  // score name -> value
};

struct Timings {
  double load_s = 0;   // reading and parsing data and predictions
  double score_s = 0;  // computing the metrics
  double total_s = 0;  // wall clock of the whole command
};

struct Machine {
  std::string hostname, os, cpu;
  int cores = 0;
};

struct RunResult {
  int schema_version = kRunResultSchemaVersion;
  std::string tool_version;  // unieval version ("0.1.0")
  std::string tool_commit;   // git commit the binary was built from
  std::string created;       // UTC time, ISO 8601 ("2026-11-22T04:00:00Z")
  std::string task;          // task key ("squad-v2", "dstc7", "glue-sst2", ...)
  std::string split;         // "dev", "test", ... ("" when unknown)
  std::string system;        // system name (row label in tables)
  std::string data_path;     // the dataset as given
  std::string data_sha256;   // sha256_path(): the file's bytes, or a folder's files ("" = unknown)
  long examples = 0;         // number of examples scored
  std::string pred_path;     // the system output as given
  std::string pred_sha256;   // sha256 of the prediction file's bytes
  std::vector<MetricSignature> metrics;
  std::vector<Score> scores;               // in the task's official order
  std::vector<ExampleScores> per_example;  // optional
  Timings timings;
  Machine machine;
  std::vector<std::string> notes;  // remarks the task adds (quirks applied, warnings)
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // unknown fields, kept

  const Score* score(const std::string& name) const;
  const MetricSignature* metric(const std::string& id) const;
};

// Fills tool version/commit, created time and machine description of this process.
void stamp_provenance(RunResult& r);

nlohmann::ordered_json to_json(const RunResult& r);
// Validates against the v1 schema's required fields and types; InputError(source, 0, "field: problem").
RunResult run_result_from_json(const nlohmann::json& j, const std::string& source);

// Reads a RunResult file; InputError naming the file on unreadable, malformed or incompatible input.
RunResult read_run_result(const std::string& path);
// Writes atomically (temp file + rename); "-" writes to stdout.
void write_run_result(const std::string& path, const RunResult& r);

}  // namespace unieval::results
