#pragma once
// The run summary: what `unieval finetune`, `unieval pretrain` and `unieval decode` write for
// dashboards (`unieval run` and `unieval eval` write a RunResult, results/run_result.h). Its JSON
// follows the versioned schema results/schema/run_summary.v1.schema.json:
//
//   {"$schema": "https://unieval.dev/schema/run_summary/v1", "schema_version": 1,
//    "kind": "run-summary", "command": "finetune", "tool": {"name", "version", "commit"},
//    "created": "2026-11-26T07:00:00Z", "machine": {"hostname", "os", "cpu", "cores"},
//    "run": "runs/qg", "status": "finished" | "stopped", "summary": {...the command's numbers...}}
//
// Where: finetune and pretrain -> RUN/summary.json; decode -> OUT.summary.json beside the
// hypotheses. Written atomically, on every call (a resumed run rewrites it).
//
//   auto s = make_run_summary("finetune", "runs/qg", true, {{"steps", 100}, ...});
//   write_run_summary("runs/qg/summary.json", s);
//   validate_run_summary(nlohmann::json::parse(text), "summary.json");  // InputError naming the field
#include <nlohmann/json.hpp>
#include <string>

namespace unieval::results {

constexpr const char* kRunSummarySchemaId = "https://unieval.dev/schema/run_summary/v1";

// command: "finetune" | "pretrain" | "decode"; finished: the run reached its end (else "stopped").
nlohmann::ordered_json make_run_summary(const std::string& command, const std::string& run,
                                        bool finished, const nlohmann::ordered_json& summary);
void write_run_summary(const std::string& path, const nlohmann::ordered_json& s);
// Checks the schema's required fields, types, the command's required summary fields and that no
// top-level field is undocumented; InputError(source, 0, "field: problem").
void validate_run_summary(const nlohmann::json& j, const std::string& source);

}  // namespace unieval::results
