#pragma once
// A small JSON Schema check for the tests of the published schemas (results/schema/*.json):
// type (one or a list), const, enum, required, properties (recursively), additionalProperties
// false, minimum. Returns the problems found, "path: problem" each (empty = valid). Keywords it
// does not know are ignored, so a schema can say more than this checks, never less.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace unieval::testing {

inline bool schema_type_ok(const nlohmann::json& v, const std::string& t) {
  if (t == "string") return v.is_string();
  if (t == "number") return v.is_number();
  if (t == "integer")
    return v.is_number_integer() ||
           (v.is_number_float() &&
            v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  if (t == "boolean") return v.is_boolean();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "null") return v.is_null();
  return false;
}

inline void schema_check(const nlohmann::json& v, const nlohmann::json& schema,
                         const std::string& path, std::vector<std::string>& problems) {
  if (schema.contains("type")) {
    bool ok = false;
    if (schema["type"].is_array()) {
      for (const auto& t : schema["type"]) ok |= schema_type_ok(v, t.get<std::string>());
    } else {
      ok = schema_type_ok(v, schema["type"].get<std::string>());
    }
    if (!ok) problems.push_back(path + ": not of type " + schema["type"].dump());
  }
  if (schema.contains("const") && v != schema["const"])
    problems.push_back(path + ": must be " + schema["const"].dump());
  if (schema.contains("enum")) {
    bool ok = false;
    for (const auto& e : schema["enum"]) ok |= v == e;
    if (!ok) problems.push_back(path + ": not one of " + schema["enum"].dump());
  }
  if (schema.contains("minimum") && v.is_number() &&
      v.get<double>() < schema["minimum"].get<double>())
    problems.push_back(path + ": below the minimum");
  if (!v.is_object()) return;
  if (schema.contains("required"))
    for (const auto& r : schema["required"])
      if (!v.contains(r.get<std::string>()))
        problems.push_back(path + "." + r.get<std::string>() + ": missing");
  const bool closed = schema.value("additionalProperties", nlohmann::json(true)) == false;
  for (const auto& [k, sub] : v.items()) {
    if (schema.contains("properties") && schema["properties"].contains(k))
      schema_check(sub, schema["properties"][k], path + "." + k, problems);
    else if (closed)
      problems.push_back(path + "." + k + ": not in the schema");
  }
}

inline std::vector<std::string> schema_problems(const nlohmann::json& v,
                                                const nlohmann::json& schema) {
  std::vector<std::string> problems;
  schema_check(v, schema, "$", problems);
  return problems;
}

}  // namespace unieval::testing
