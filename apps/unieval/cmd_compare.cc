// `unieval compare BASELINE.json CURRENT.json [--tolerance SCORE=VALUE ...]`: CI regression gate.
#include <cmath>
#include <iostream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "results/compare.h"
#include "results/run_result.h"

namespace unieval::cli {

int cmd_compare(const Args& args) {
  po::options_description desc("unieval compare options");
  desc.add_options()
      ("files", po::value<std::vector<std::string>>()->composing(), "BASELINE.json CURRENT.json")
      ("tolerance", po::value<std::vector<std::string>>()->composing(),
       "SCORE=VALUE: allowed worsening of a score in its own unit (repeatable; SCORE '*' = all "
       "others). Default 0: any worsening is a regression.")
      ("format", po::value<std::string>()->default_value("md"), "Diff table format: md | latex | html | csv")
      ("json", po::bool_switch(), "Print the comparison as one JSON object instead of a table.");
  po::positional_options_description pos;
  pos.add("files", -1);
  auto vm = parse(args, desc,
                  "usage: unieval compare BASELINE.json CURRENT.json [--tolerance SCORE=VALUE ...]\n"
                  "Exit 0: no regression; 1: a score worse than the baseline beyond its tolerance (or "
                  "missing); 2: incompatible runs (task, split, data or metric signatures differ) or bad input.",
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
      auto num = [](double v) { return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v); };
      rows.push_back({{"score", r.name}, {"baseline", num(r.baseline)}, {"current", num(r.current)},
                      {"diff", num(r.diff)}, {"tolerance", r.tolerance}, {"status", results::to_string(r.status)}});
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
