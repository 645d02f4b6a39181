#include "results/run_summary.h"

#include <map>
#include <set>
#include <vector>

#include "core/error.h"
#include "core/io.h"
#include "results/run_result.h"

namespace unieval::results {

namespace {

// The schema's "x-unieval-required-summary" (tests hold the two equal).
const std::map<std::string, std::vector<std::string>>& required_summary() {
  static const std::map<std::string, std::vector<std::string>> kRequired = {
      {"finetune", {"steps", "total_steps", "finished", "last_loss", "tokens_per_second"}},
      {"pretrain", {"steps", "total_steps", "finished", "loss", "tokens_per_second"}},
      {"decode", {"out", "examples", "complete", "seconds"}}};
  return kRequired;
}

}  // namespace

nlohmann::ordered_json make_run_summary(const std::string& command, const std::string& run,
                                        bool finished, const nlohmann::ordered_json& summary) {
  RunResult stamp;  // the provenance every result carries
  stamp_provenance(stamp);
  nlohmann::ordered_json j;
  j["$schema"] = kRunSummarySchemaId;
  j["schema_version"] = 1;
  j["kind"] = "run-summary";
  j["command"] = command;
  j["tool"] = {{"name", "unieval"}, {"version", stamp.tool_version}, {"commit", stamp.tool_commit}};
  j["created"] = stamp.created;
  j["machine"] = {{"hostname", stamp.machine.hostname},
                  {"os", stamp.machine.os},
                  {"cpu", stamp.machine.cpu},
                  {"cores", stamp.machine.cores}};
  j["run"] = run;
  j["status"] = finished ? "finished" : "stopped";
  j["summary"] = summary;
  return j;
}

void write_run_summary(const std::string& path, const nlohmann::ordered_json& s) {
  validate_run_summary(nlohmann::json::parse(s.dump()), path);
  core::write_file_atomic(
      path, s.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

void validate_run_summary(const nlohmann::json& j, const std::string& source) {
  auto fail = [&](const std::string& field, const std::string& problem) {
    throw InputError(source, 0, field + ": " + problem);
  };
  if (!j.is_object()) fail("(top level)", "a run summary must be a JSON object");
  static const std::set<std::string> kKnown = {"$schema", "schema_version", "kind",    "command",
                                               "tool",    "created",        "machine", "run",
                                               "status",  "summary"};
  for (const auto& [k, v] : j.items())
    if (!kKnown.count(k)) fail(k, "not a field of run_summary v1");
  for (const char* k : {"$schema", "schema_version", "kind", "command", "tool", "created", "run",
                        "status", "summary"})
    if (!j.contains(k)) fail(k, "missing required field");
  if (j["$schema"] != kRunSummarySchemaId)
    fail("$schema", "must be " + std::string(kRunSummarySchemaId));
  if (j["schema_version"] != 1)
    fail("schema_version", "is " + j["schema_version"].dump() + "; this unieval reads 1");
  if (j["kind"] != "run-summary") fail("kind", "must be \"run-summary\"");
  if (!j["command"].is_string() || !required_summary().count(j["command"].get<std::string>()))
    fail("command", "must be finetune, pretrain or decode");
  if (!j["tool"].is_object() || !j["tool"].contains("version") || !j["tool"]["version"].is_string())
    fail("tool.version", "missing or not a string");
  for (const char* k : {"created", "run"})
    if (!j[k].is_string()) fail(k, "must be a string");
  if (j["status"] != "finished" && j["status"] != "stopped")
    fail("status", "must be \"finished\" or \"stopped\"");
  if (!j["summary"].is_object()) fail("summary", "must be an object");
  for (const auto& k : required_summary().at(j["command"].get<std::string>()))
    if (!j["summary"].contains(k))
      fail("summary." + k, "missing (required for " + j["command"].get<std::string>() + ")");
}

}  // namespace unieval::results
