// `unieval compare BASELINE.json CURRENT.json [--tolerance SCORE=VALUE ...] [--tolerances FILE]
// [--by-ci]`: the CI regression gate (results/compare.h).
#include <cmath>
#include <iostream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "core/io.h"
#include "results/compare.h"
#include "results/run_result.h"

namespace unieval::cli {

int cmd_compare(const Args& args) {
  po::options_description desc("unieval compare options");
  desc.add_options()("files", po::value<std::vector<std::string>>()->composing(),
                     "BASELINE.json CURRENT.json")(
      "tolerance", po::value<std::vector<std::string>>()->composing(),
      "SCORE=VALUE: allowed worsening of a score in its own unit (repeatable; SCORE '*' = all "
      "others). Default 0: any worsening is a regression.")(
      "tolerances", po::value<std::string>(),
      "FILE.json: per-score tolerances {\"f1\": 0.1, \"*\": 0.05} (--tolerance entries win). A "
      "\"tolerances\" object inside BASELINE.json is used too.")(
      "by-ci", po::bool_switch(),
      "Judge a drop by the bootstrap interval: a current value inside the baseline's confidence "
      "interval (or the baseline inside the current's) is not a regression.")(
      "format", po::value<std::string>()->default_value("md"),
      "Diff table format: md | latex | html | csv")(
      "json", po::bool_switch(), "Print the comparison as one JSON object instead of a table.");
  po::positional_options_description pos;
  pos.add("files", -1);
  auto vm = parse(
      args, desc,
      "usage: unieval compare BASELINE.json CURRENT.json [--tolerance SCORE=VALUE ...] "
      "[--tolerances FILE] [--by-ci]\n"
      "Exit 0: no regression; 1: a score worse than the baseline beyond its tolerance (or "
      "missing); 2: not comparable (task, split, example count, data sha256 of the file or "
      "folder, or metric ids/signatures differ; or a result records no data sha256), with the "
      "reason on stderr, or bad input.",
      &pos);
  std::vector<std::string> files;
  if (vm.count("files")) files = vm["files"].as<std::vector<std::string>>();
  if (files.size() != 2) throw InputError("expected exactly two files: BASELINE.json CURRENT.json");
  results::CompareOptions opts;
  if (vm.count("tolerance")) {
    for (const auto& t : vm["tolerance"].as<std::vector<std::string>>()) {
      auto eq = t.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError("--tolerance '" + t + "': expected SCORE=VALUE (e.g. f1=0.1)");
      std::string name = t.substr(0, eq);
      auto values = parse_double_list(t.substr(eq + 1), "tolerance");
      if (values.size() != 1) throw InputError("--tolerance '" + t + "': one value expected");
      opts.tolerance[name] = values[0];
    }
  }
  if (vm.count("tolerances")) {
    const std::string path = vm["tolerances"].as<std::string>();
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(core::read_file(path));
    } catch (const nlohmann::json::exception&
                 e) {  // parse_error, and out_of_range for a number that overflows
      throw InputError(path, 0, std::string("malformed JSON: ") + e.what());
    }
    for (const auto& [k, v] : results::parse_tolerances(j, path)) opts.tolerance.emplace(k, v);
  }
  opts.by_ci = vm["by-ci"].as<bool>();
  auto format = results::parse_table_format(vm["format"].as<std::string>());
  results::RunResult base = results::read_run_result(files[0]);
  results::RunResult cur = results::read_run_result(files[1]);
  results::Comparison c = results::compare_runs(base, cur, opts);
  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json j;
    j["baseline"] = files[0];
    j["current"] = files[1];
    j["compatible"] = c.compatible;
    j["incompatibilities"] = c.incompatibilities;
    j["regression"] = c.regression;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : c.rows) {
      auto num = [](double v) {
        return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
      };
      rows.push_back({{"score", r.name},
                      {"baseline", num(r.baseline)},
                      {"current", num(r.current)},
                      {"diff", num(r.diff)},
                      {"tolerance", r.tolerance},
                      {"tolerance_from", r.tolerance_from},
                      {"interval", r.interval},
                      {"status", results::to_string(r.status)}});
    }
    j["rows"] = rows;
    print_json(j);
  } else {
    std::cout << results::render_comparison(c, base, cur, format);
  }
  if (!c.compatible) {
    for (const auto& why : c.incompatibilities)
      std::cerr << "unieval compare: incompatible: " << why << "\n";
    return kExitInputError;
  }
  return c.regression ? kExitFailure : kExitOk;
}

}  // namespace unieval::cli
