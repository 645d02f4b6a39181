// `unieval reproduce --paper unilm|ernie-gen|gpt --table N [--outputs DIR] [--data DIR]`:
// the published table beside our numbers (pipelines/reproduce.h).
#include <cmath>
#include <filesystem>
#include <iostream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "core/io.h"
#include "pipelines/reproduce.h"
#include "results/paper_tables.h"

namespace unieval::cli {

int cmd_reproduce(const Args& args) {
  po::options_description desc("unieval reproduce options");
  desc.add_options()("paper", po::value<std::string>(), "unilm | ernie-gen | gpt")(
      "table", po::value<std::string>(), "Table number as printed in the paper (e.g. 5).")(
      "outputs", po::value<std::vector<std::string>>()->multitoken()->composing(),
      "Folder of your system outputs / results, one per row, named after the row label "
      "(BERT_LARGE -> bert-large.json or bert-large.result.json); and/or `unieval run` directories "
      "(RUN/result.json) or result files (RESULT.json of `unieval eval`), each placed in its row "
      "(its "
      "--system, else the paper's own row in the block of its task). Every result, in the folder "
      "or "
      "given, is refused when its split, size (the full split) or metric settings (--option values "
      "other than the paper preset's) are not the table's.")(
      "data", po::value<std::string>()->default_value(""),
      "Dataset root (default $UNIEVAL_DATA, else ../shared/data when present).")(
      "format", po::value<std::string>()->default_value("md"), "md | latex | html | csv")(
      "json", po::bool_switch(), "Print the reproduction as one JSON object.")(
      "list", po::bool_switch(), "List the papers' results tables and exit.");
  auto vm = parse(
      args, desc,
      "usage: unieval reproduce --paper unilm|ernie-gen|gpt --table N [--outputs DIR|RUN...] "
      "[--data DIR]\n"
      "Prints the paper's table: published value, ours and the difference for rows with outputs;\n"
      "rows without outputs show the published value only (marked †). Exit 1 when a reproduced\n"
      "cell differs by more than half a unit of its last printed digit.");
  if (vm["list"].as<bool>()) {
    for (const auto& t : results::load_paper_tables())
      std::cout << t.paper << " " << t.table << "  (" << t.task << ", " << t.split << ", " << t.rows
                << " rows)  " << t.caption << "\n";
    return kExitOk;
  }
  if (!vm.count("paper") || !vm.count("table"))
    throw InputError(
        "--paper and --table are required (unieval reproduce --list shows the tables)");
  pipelines::ReproduceOptions o;
  o.paper = vm["paper"].as<std::string>();
  o.table = vm["table"].as<std::string>();
  if (vm.count("outputs"))
    for (const auto& v : vm["outputs"].as<std::vector<std::string>>()) {
      if (std::filesystem::exists(std::filesystem::path(v) / "request.json") ||
          std::filesystem::is_regular_file(v)) {
        o.runs.push_back(v);
      } else {
        if (!o.outputs_dir.empty())
          throw InputError("--outputs: give at most one folder of outputs (" + o.outputs_dir +
                           ", " + v + ")");
        o.outputs_dir = v;
      }
    }
  o.data_dir = vm["data"].as<std::string>();
  auto format = results::parse_table_format(vm["format"].as<std::string>());
  pipelines::Reproduction r = pipelines::reproduce(o);
  if (vm["json"].as<bool>()) {
    using nlohmann::ordered_json;
    auto num = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(); };
    auto rows_json = [&](const std::vector<pipelines::ReproducedRow>& rows) {
      ordered_json a = ordered_json::array();
      for (const auto& row : rows) {
        ordered_json cells = ordered_json::array();
        for (const auto& c : row.cells)
          cells.push_back({{"column", c.column},
                           {"metric", c.metric},
                           {"display", c.display},
                           {"published", num(c.published)},
                           {"ours", num(c.ours)},
                           {"diff", c.ours && c.published ? ordered_json(*c.ours - *c.published)
                                                          : ordered_json()},
                           {"tolerance", c.tolerance},
                           {"status", pipelines::to_string(c.status)}});
        a.push_back({{"block", row.block},
                     {"system", row.system},
                     {"source", row.source},
                     {"quoted", row.quoted},
                     {"cells", cells}});
      }
      return a;
    };
    ordered_json j = {{"paper", r.table.paper},
                      {"table", r.table.table},
                      {"caption", r.table.caption},
                      {"rows", rows_json(r.rows)},
                      {"checks", rows_json(r.checks)},
                      {"notes", r.notes},
                      {"reproduced_cells", r.reproduced_cells},
                      {"quoted_cells", r.quoted_cells},
                      {"mismatch", r.mismatch}};
    print_json(j);
  } else {
    std::cout << pipelines::render_reproduction(r, format);
  }
  return r.mismatch ? kExitFailure : kExitOk;
}

}  // namespace unieval::cli
