#pragma once
// Typed reads of HF config.json fields (models/nn/config.h BertConfig, models/nn/gpt.h GptConfig): a
// missing or null key leaves the field alone; a wrong JSON type is an InputError(source, 0,
// "key: problem").
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"

namespace unieval::models::config_fields {

[[noreturn]] inline void bad(const std::string& source, const std::string& field,
                             const std::string& why) {
  throw InputError(source, 0, field + ": " + why);
}

// An integer, or a float with an integral value (some writers emit 12.0), within int64 (a value
// past it, 1e300 or 2^64-1, is an InputError, not a wrapped or undefined conversion).
inline void get_int(const nlohmann::json& j, const char* key, int64_t& out,
                    const std::string& src) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  constexpr double kTwo63 = 9223372036854775808.0;
  if (it->is_number_unsigned()) {
    if (it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      bad(src, key, "integer out of range, got " + it->dump());
    out = it->get<int64_t>();
  } else if (it->is_number_integer()) {
    out = it->get<int64_t>();
  } else if (it->is_number_float() && std::floor(it->get<double>()) == it->get<double>()) {
    const double d = it->get<double>();
    if (!(d >= -kTwo63 && d < kTwo63)) bad(src, key, "integer out of range, got " + it->dump());
    out = static_cast<int64_t>(d);
  } else {
    bad(src, key, "expected an integer, got " + it->dump());
  }
}

inline void get_double(const nlohmann::json& j, const char* key, double& out,
                       const std::string& src) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_number()) bad(src, key, "expected a number, got " + it->dump());
  out = it->get<double>();
}

inline void get_string(const nlohmann::json& j, const char* key, std::string& out,
                       const std::string& src) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_string()) bad(src, key, "expected a string, got " + it->dump());
  out = it->get<std::string>();
}

}  // namespace unieval::models::config_fields
