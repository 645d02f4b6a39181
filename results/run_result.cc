#include "results/run_result.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <thread>

#include "core/build_info.h"
#include "core/error.h"
#include "core/io.h"
#include "unieval_version.h"

namespace unieval::results {

using nlohmann::json;
using nlohmann::ordered_json;

const Score* RunResult::score(const std::string& name) const {
  for (const auto& s : scores)
    if (s.name == name) return &s;
  return nullptr;
}

const MetricSignature* RunResult::metric(const std::string& id) const {
  for (const auto& m : metrics)
    if (m.id == id) return &m;
  return nullptr;
}

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto v = line.substr(colon + 1);
        auto b = v.find_first_not_of(' ');
        return b == std::string::npos ? "" : v.substr(b);
      }
    }
  }
  return "";
}

// Typed field access with errors that name the file and the JSON path.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw InputError(source_, 0, path + ": " + problem);
  }
  const json& get(const json& j, const std::string& key, const std::string& path, bool required,
                  bool* present) const {
    static const json kNull;
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) fail(path + key, "missing required field");
      *present = false;
      return kNull;
    }
    *present = true;
    return *it;
  }
  std::string str(const json& j, const std::string& key, const std::string& path,
                  bool required = false) const {
    bool present;
    const json& v = get(j, key, path, required, &present);
    if (!present) return "";
    if (!v.is_string()) fail(path + key, "must be a string");
    return v.get<std::string>();
  }
  double num(const json& j, const std::string& key, const std::string& path, bool required = false,
             double def = 0) const {
    bool present;
    const json& v = get(j, key, path, required, &present);
    if (!present) return def;
    if (!v.is_number()) fail(path + key, "must be a number");
    return v.get<double>();
  }
  bool boolean(const json& j, const std::string& key, const std::string& path, bool def) const {
    bool present;
    const json& v = get(j, key, path, false, &present);
    if (!present) return def;
    if (!v.is_boolean()) fail(path + key, "must be true or false");
    return v.get<bool>();
  }
  const json& obj(const json& j, const std::string& key, const std::string& path, bool required,
                  bool* present) const {
    const json& v = get(j, key, path, required, present);
    if (*present && !v.is_object()) fail(path + key, "must be an object");
    return v;
  }
  const json& arr(const json& j, const std::string& key, const std::string& path, bool required,
                  bool* present) const {
    const json& v = get(j, key, path, required, present);
    if (*present && !v.is_array()) fail(path + key, "must be an array");
    return v;
  }

 private:
  std::string source_;
};

}  // namespace

void stamp_provenance(RunResult& r) {
  r.tool_version = UNIEVAL_VERSION;
  r.tool_commit = core::build_commit();
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  r.created = buf;
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0) r.machine.hostname = host;
  struct utsname u {};
  if (uname(&u) == 0) r.machine.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  r.machine.cpu = cpu_model();
  r.machine.cores = static_cast<int>(std::thread::hardware_concurrency());
}

ordered_json to_json(const RunResult& r) {
  ordered_json j;
  j["$schema"] = kRunResultSchemaId;
  j["schema_version"] = r.schema_version;
  j["tool"] = {{"name", "unieval"}, {"version", r.tool_version}, {"commit", r.tool_commit}};
  j["created"] = r.created;
  j["task"] = r.task;
  j["split"] = r.split;
  j["system"] = r.system;
  j["data"] = {{"path", r.data_path}, {"sha256", r.data_sha256}, {"examples", r.examples}};
  j["predictions"] = {{"path", r.pred_path}, {"sha256", r.pred_sha256}};
  ordered_json metrics = ordered_json::array();
  for (const auto& m : r.metrics)
    metrics.push_back({{"id", m.id}, {"signature", m.signature}, {"options", m.options}});
  j["metrics"] = metrics;
  ordered_json scores = ordered_json::array();
  for (const auto& s : r.scores) {
    ordered_json o = {{"name", s.name},
                      {"value", s.value},
                      {"metric", s.metric},
                      {"unit", s.unit},
                      {"higher_is_better", s.higher_is_better}};
    if (s.ci) {
      o["ci"] = {{"low", s.ci->low},       {"high", s.ci->high},           {"level", s.ci->level},
                 {"method", s.ci->method}, {"resamples", s.ci->resamples}, {"seed", s.ci->seed}};
    }
    scores.push_back(o);
  }
  j["scores"] = scores;
  // Flat name -> value view for scripts (derived from scores; ignored when read back).
  ordered_json summary = ordered_json::object();
  for (const auto& s : r.scores) summary[s.name] = s.value;
  j["summary"] = summary;
  if (!r.per_example.empty()) {
    ordered_json ex = ordered_json::array();
    for (const auto& e : r.per_example) {
      ordered_json sc = ordered_json::object();
      for (const auto& [k, v] : e.scores) sc[k] = v;
      ex.push_back({{"id", e.id}, {"scores", sc}});
    }
    j["per_example"] = ex;
  }
  j["timings"] = {
      {"load_s", r.timings.load_s}, {"score_s", r.timings.score_s}, {"total_s", r.timings.total_s}};
  j["machine"] = {{"hostname", r.machine.hostname},
                  {"os", r.machine.os},
                  {"cpu", r.machine.cpu},
                  {"cores", r.machine.cores}};
  if (!r.notes.empty()) j["notes"] = r.notes;
  for (const auto& [k, v] : r.extra.items())
    if (!j.contains(k)) j[k] = v;
  return j;
}

RunResult run_result_from_json(const json& j, const std::string& source) {
  Reader rd(source);
  if (!j.is_object()) rd.fail("(top level)", "a run result must be a JSON object");
  RunResult r;
  double version = rd.num(j, "schema_version", "", true);
  if (version != 1)
    rd.fail("schema_version", "is " + j["schema_version"].dump() +
                                  "; this unieval reads schema version 1 (upgrade unieval)");
  r.schema_version = 1;
  bool present;
  const json& tool = rd.obj(j, "tool", "", true, &present);
  r.tool_version = rd.str(tool, "version", "tool.", true);
  r.tool_commit = rd.str(tool, "commit", "tool.");
  r.created = rd.str(j, "created", "");
  r.task = rd.str(j, "task", "", true);
  if (r.task.empty()) rd.fail("task", "must not be empty");
  r.split = rd.str(j, "split", "");
  r.system = rd.str(j, "system", "");
  const json& data = rd.obj(j, "data", "", false, &present);
  if (present) {
    r.data_path = rd.str(data, "path", "data.");
    r.data_sha256 = rd.str(data, "sha256", "data.");
    r.examples = static_cast<long>(rd.num(data, "examples", "data."));
  }
  const json& pred = rd.obj(j, "predictions", "", false, &present);
  if (present) {
    r.pred_path = rd.str(pred, "path", "predictions.");
    r.pred_sha256 = rd.str(pred, "sha256", "predictions.");
  }
  const json& metrics = rd.arr(j, "metrics", "", true, &present);
  for (size_t i = 0; i < metrics.size(); ++i) {
    std::string path = "metrics[" + std::to_string(i) + "].";
    if (!metrics[i].is_object()) rd.fail(path, "must be an object");
    MetricSignature m;
    m.id = rd.str(metrics[i], "id", path, true);
    m.signature = rd.str(metrics[i], "signature", path, true);
    bool has_opts;
    const json& o = rd.obj(metrics[i], "options", path, false, &has_opts);
    if (has_opts) m.options = ordered_json::parse(o.dump());
    if (r.metric(m.id)) rd.fail(path + "id", "duplicate metric id '" + m.id + "'");
    r.metrics.push_back(std::move(m));
  }
  const json& scores = rd.arr(j, "scores", "", true, &present);
  for (size_t i = 0; i < scores.size(); ++i) {
    std::string path = "scores[" + std::to_string(i) + "].";
    const json& s = scores[i];
    if (!s.is_object()) rd.fail(path, "must be an object");
    Score sc;
    sc.name = rd.str(s, "name", path, true);
    // NaN (e.g. Pearson of constant input) is written as null by JSON.
    if (s.contains("value") && s["value"].is_null())
      sc.value = std::nan("");
    else
      sc.value = rd.num(s, "value", path, true);
    sc.metric = rd.str(s, "metric", path, true);
    if (!r.metric(sc.metric))
      rd.fail(path + "metric", "'" + sc.metric + "' is not one of metrics[].id");
    sc.unit = rd.str(s, "unit", path);
    if (sc.unit.empty()) sc.unit = "raw";
    sc.higher_is_better = rd.boolean(s, "higher_is_better", path, true);
    bool has_ci;
    const json& ci = rd.obj(s, "ci", path, false, &has_ci);
    if (has_ci) {
      ConfidenceInterval c;
      c.low = rd.num(ci, "low", path + "ci.", true);
      c.high = rd.num(ci, "high", path + "ci.", true);
      c.level = rd.num(ci, "level", path + "ci.", false, 0.95);
      c.method = rd.str(ci, "method", path + "ci.");
      c.resamples = static_cast<int>(rd.num(ci, "resamples", path + "ci."));
      c.seed = static_cast<unsigned long long>(rd.num(ci, "seed", path + "ci."));
      sc.ci = c;
    }
    if (r.score(sc.name)) rd.fail(path + "name", "duplicate score '" + sc.name + "'");
    r.scores.push_back(std::move(sc));
  }
  const json& ex = rd.arr(j, "per_example", "", false, &present);
  if (present) {
    for (size_t i = 0; i < ex.size(); ++i) {
      std::string path = "per_example[" + std::to_string(i) + "].";
      if (!ex[i].is_object()) rd.fail(path, "must be an object");
      ExampleScores e;
      e.id = rd.str(ex[i], "id", path, true);
      bool has;
      const json& sc = rd.obj(ex[i], "scores", path, true, &has);
      for (const auto& [k, v] : sc.items()) {
        if (!v.is_number()) rd.fail(path + "scores." + k, "must be a number");
        e.scores[k] = v.get<double>();
      }
      r.per_example.push_back(std::move(e));
    }
  }
  const json& t = rd.obj(j, "timings", "", false, &present);
  if (present) {
    r.timings.load_s = rd.num(t, "load_s", "timings.");
    r.timings.score_s = rd.num(t, "score_s", "timings.");
    r.timings.total_s = rd.num(t, "total_s", "timings.");
  }
  const json& m = rd.obj(j, "machine", "", false, &present);
  if (present) {
    r.machine.hostname = rd.str(m, "hostname", "machine.");
    r.machine.os = rd.str(m, "os", "machine.");
    r.machine.cpu = rd.str(m, "cpu", "machine.");
    r.machine.cores = static_cast<int>(rd.num(m, "cores", "machine."));
  }
  const json& notes = rd.arr(j, "notes", "", false, &present);
  if (present) {
    for (const auto& n : notes) {
      if (!n.is_string()) rd.fail("notes", "must be an array of strings");
      r.notes.push_back(n.get<std::string>());
    }
  }
  static const char* kKnown[] = {"$schema",     "schema_version", "tool",   "created",
                                 "task",        "split",          "system", "data",
                                 "predictions", "metrics",        "scores", "per_example",
                                 "timings",     "machine",        "notes",  "summary"};
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* kk : kKnown) known |= (k == kk);
    if (!known) r.extra[k] = ordered_json::parse(v.dump());
  }
  return r;
}

RunResult read_run_result(const std::string& path) {
  std::string text = core::read_file(path);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based offset of the error: turn it into a line number.
    size_t upto = std::min<size_t>(e.byte, text.size());
    long line = 1;
    for (size_t i = 0; i + 1 < upto; ++i) line += text[i] == '\n';
    throw InputError(path, line, std::string("malformed JSON: ") + e.what());
  } catch (const json::exception& e) {  // out_of_range: a number that overflows a double
    throw InputError(path, 0, std::string("malformed JSON: ") + e.what());
  }
  return run_result_from_json(j, path);
}

void write_run_result(const std::string& path, const RunResult& r) {
  core::write_file_atomic(
      path, to_json(r).dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace unieval::results
