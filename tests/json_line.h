#pragma once
// The last line of a command's JSON output (`unieval ... --json` prints progress before it).
#include <nlohmann/json.hpp>
#include <string>

namespace unieval::testing {

// The last non-empty line of `out` parsed as JSON ({} when out has none).
inline nlohmann::json last_json_line(const std::string& out) {
  auto end = out.find_last_not_of('\n');
  if (end == std::string::npos) return {};
  auto begin = out.rfind('\n', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return nlohmann::json::parse(out.substr(begin, end - begin + 1));
}

}  // namespace unieval::testing
