#pragma once
// Options declared once. An options struct lists its fields in one template, for const and
// non-const objects alike,
//
//   template <class S, class V> static void fields(S& s, V&& v) {
//     v(Field("beam", "beam size (1 = greedy)"), s.beam);
//     v(Field("algorithm", "exact or unilm").flag("search").unless_default(), s.algorithm);
//   }
//
// and every form of the options is a visitor over that list: fields::to_json writes them,
// fields::from_json reads them strictly (a key no field has, or a value of the wrong type, is an
// InputError naming the source and the key), fields::keys lists them (preset checks), and apps/
// derives the command-line flags (flag name and help) from the same list. Field types: bool,
// int, int64_t, uint64_t, double, std::string, std::vector<std::string>, std::optional<double>,
// and an enum E written as a string through field_to_string(E) and read through
// field_from_string(const std::string&, E) (found next to E by argument-dependent lookup).
//
// | Field method      | meaning                                                                |
// |-------------------|------------------------------------------------------------------------|
// | Field(key, help)  | the JSON key; the flag is the key with '_' -> '-'                      |
// | .flag(name)       | another flag name ("" = no flag)                                        |
// | .unless_default() | written only when it differs from the struct's default (older run      |
// |                   | folders, written before the field existed, keep their request.json)     |
// | .when(bool)       | written only when the condition holds (a condition over other fields)  |
// | .no_write()       | read, never written (e.g. a preset key that is not part of a request)  |
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"

namespace unieval::fields {

struct Field {
  Field(const char* key, const char* help) : key(key), help(help) {
    for (char c : std::string(key)) flag_name += c == '_' ? '-' : c;
  }
  Field& flag(std::string name) {
    flag_name = std::move(name);
    return *this;
  }
  Field& unless_default() {
    omit_default = true;
    return *this;
  }
  Field& when(bool condition) {
    write_when = condition;
    return *this;
  }
  Field& no_write() {
    write = false;
    return *this;
  }
  const char* key;
  const char* help;
  std::string flag_name;
  bool omit_default = false;
  bool write_when = true;
  bool write = true;
};

namespace detail {

template <class T>
nlohmann::ordered_json to_value(const T& v) {
  if constexpr (std::is_same_v<T, std::optional<double>>)
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  else if constexpr (std::is_enum_v<T>)
    return nlohmann::ordered_json(field_to_string(v));
  else
    return nlohmann::ordered_json(v);
}

[[noreturn]] inline void bad(const std::string& source, const std::string& key,
                             const std::string& why, const nlohmann::json& got) {
  throw InputError(source, 0, key + ": expected " + why + ", got " + got.dump());
}

template <class T>
void read_value(const nlohmann::json& j, const std::string& key, T& out,
                const std::string& source) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) bad(source, key, "true or false", j);
    out = j.get<bool>();
  } else if constexpr (std::is_enum_v<T>) {
    if (!j.is_string()) bad(source, key, "a string", j);
    out = field_from_string(j.get<std::string>(), out);
  } else if constexpr (std::is_integral_v<T>) {
    const bool integral =
        j.is_number_integer() ||
        (j.is_number_float() &&
         j.get<double>() == static_cast<double>(static_cast<int64_t>(j.get<double>())));
    if (!integral) bad(source, key, "an integer", j);
    if (std::is_unsigned_v<T> && j.is_number_integer() && !j.is_number_unsigned() &&
        j.get<int64_t>() < 0)
      bad(source, key, "a non-negative integer", j);
    out = j.is_number_float() ? static_cast<T>(j.get<double>()) : j.get<T>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!j.is_number()) bad(source, key, "a number", j);
    out = j.get<double>();
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    if (j.is_null()) {
      out.reset();
      return;
    }
    if (!j.is_number()) bad(source, key, "a number or null", j);
    out = j.get<double>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) bad(source, key, "a string", j);
    out = j.get<std::string>();
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>, "unsupported field type");
    if (!j.is_array()) bad(source, key, "an array of strings", j);
    out.clear();
    for (const auto& e : j) {
      if (!e.is_string()) bad(source, key, "an array of strings", j);
      out.push_back(e.get<std::string>());
    }
  }
}

}  // namespace detail

// Writes the fields of `opts` (their write rules above) into a JSON object.
template <class Options>
nlohmann::ordered_json to_json(const Options& opts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  const Options defaults{};
  std::vector<nlohmann::ordered_json> default_values;
  Options::fields(defaults, [&](const Field&, const auto& member) {
    default_values.push_back(detail::to_value(member));
  });
  size_t i = 0;
  Options::fields(opts, [&](const Field& f, const auto& member) {
    const nlohmann::ordered_json value = detail::to_value(member);
    const bool is_default = value == default_values[i++];
    if (f.write && f.write_when && !(f.omit_default && is_default)) j[f.key] = value;
  });
  return j;
}

// Reads the keys of j into `opts` (absent keys leave fields alone). Strict: a key that no field
// has is an InputError naming it, unless `also_allowed` lists it (the keys another struct reads
// from the same object).
template <class Options>
void from_json(const nlohmann::json& j, Options& opts, const std::string& source,
               const std::set<std::string>& also_allowed = {}) {
  if (j.is_null()) return;
  if (!j.is_object()) throw InputError(source, 0, "expected a JSON object, got " + j.dump());
  std::set<std::string> known;
  Options::fields(opts, [&](const Field& f, auto& member) {
    known.insert(f.key);
    auto it = j.find(f.key);
    if (it != j.end()) detail::read_value(*it, f.key, member, source);
  });
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key()) && !also_allowed.count(it.key()))
      throw InputError(source, 0, "unknown key '" + it.key() + "'");
}

// The JSON keys an options struct reads.
template <class Options>
std::set<std::string> keys() {
  const Options o{};
  std::set<std::string> out;
  Options::fields(o, [&](const Field& f, const auto&) { out.insert(f.key); });
  return out;
}

}  // namespace unieval::fields
