// `unieval table RESULT.json... --format md|latex|html|csv`: leaderboard of result files.
#include <iostream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "results/glue_average.h"
#include "results/report.h"
#include "core/io.h"
#include "results/run_result.h"

namespace unieval::cli {

int cmd_table(const Args& args) {
  po::options_description desc("unieval table options");
  desc.add_options()
      ("results", po::value<std::vector<std::string>>()->composing(),
       "Result files written by `unieval eval --out` (positional).")
      ("format", po::value<std::string>()->default_value("md"), "md | latex | html | csv")
      ("sort-by", po::value<std::string>()->default_value(""),
       "Score to sort rows by (default: the first column).")
      ("decimals", po::value<int>()->default_value(-1),
       "Digits after the point (default: by unit: percent 2, fraction/raw 4, tokens 3).")
      ("out", po::value<std::string>()->default_value("-"), "Write the table here (atomically).");
  po::positional_options_description pos;
  pos.add("results", -1);
  auto vm = parse(args, desc,
                  "usage: unieval table RESULT.json... [--format md|latex|html|csv] [--sort-by SCORE]\n"
                  "One table per (task, split); best value per column marked; metric signatures under "
                  "the table. Results whose metric signatures differ are refused (exit 2).\n"
                  "With glue-* results, one more table (task glue-average): per system each task's GLUE number\n"
                  "(CoLA MCC, MRPC/QQP mean of F1 and accuracy, STS-B mean of Pearson and Spearman, others\n"
                  "accuracy; x100) and their average over the tasks present (MNLI-m/mm counted once), with the\n"
                  "number of tasks it covers.",
                  &pos);
  if (!vm.count("results")) throw InputError("at least one RESULT.json is required (see --help)");
  results::TableOptions opts;
  opts.format = results::parse_table_format(vm["format"].as<std::string>());
  opts.sort_by = vm["sort-by"].as<std::string>();
  opts.decimals = vm["decimals"].as<int>();
  if (opts.decimals < -1 || opts.decimals > 12) throw InputError("--decimals must be in -1..12");
  std::vector<results::RunResult> runs;
  for (const auto& path : vm["results"].as<std::vector<std::string>>())
    runs.push_back(results::read_run_result(path));
  std::string text = results::render_leaderboard(runs, opts);
  // GLUE results: one more table with each task's GLUE number and the average over those present.
  const std::vector<results::RunResult> glue = results::glue_average_rows(runs);
  if (!glue.empty()) {
    results::TableOptions gopt = opts;
    gopt.sort_by = "average";
    text += "\n" + results::render_leaderboard(glue, gopt);
  }
  std::string out = vm["out"].as<std::string>();
  if (out == "-") std::cout << text;
  else core::write_file_atomic(out, text);
  return kExitOk;
}

}  // namespace unieval::cli
