// `unieval table RESULT.json... --format md|latex|html|csv`: leaderboard of result files
// (results/report.h; html: a complete page, results/html_report.h; significance marks from
// pipelines/significance.h).
#include <iostream>

#include "apps/unieval/commands.h"
#include "core/error.h"
#include "core/io.h"
#include "pipelines/significance.h"
#include "results/glue_average.h"
#include "results/report.h"
#include "results/run_result.h"

namespace unieval::cli {

int cmd_table(const Args& args) {
  po::options_description desc("unieval table options");
  desc.add_options()("results", po::value<std::vector<std::string>>()->composing(),
                     "Result files written by `unieval eval --out` (positional).")(
      "format", po::value<std::string>()->default_value("md"), "md | latex | html | csv")(
      "sort-by", po::value<std::string>()->default_value(""),
      "Score to sort rows by (default: the first column).")(
      "decimals", po::value<int>()->default_value(-1),
      "Digits after the point (default: by unit: percent 2, fraction/raw 4, tokens 3).")(
      "out", po::value<std::string>()->default_value("-"), "Write the table here (atomically).")(
      "no-paper", po::bool_switch(),
      "html: leave out the papers' rows of the same task and split.")(
      "resamples", po::value<int>()->default_value(1000),
      "html: bootstrap resamples of the paired significance test (0 = no test).")(
      "seed", po::value<unsigned long long>()->default_value(12345),
      "html: seed of the paired bootstrap.");
  po::positional_options_description pos;
  pos.add("results", -1);
  auto vm = parse(
      args, desc,
      "usage: unieval table RESULT.json... [--format md|latex|html|csv] [--sort-by SCORE]\n"
      "One table per (task, split); best value per column marked; metric signatures under "
      "the table. Results whose metric signatures differ are refused (exit 2).\n"
      "html: one self-contained page (no network): our values with confidence intervals, the "
      "papers' rows of the same task/split, paper value / difference / check where a system is a "
      "paper row, † where a system is significantly below the column's best (paired bootstrap "
      "over per-example scores, `unieval eval --per-example`), sortable columns, signatures and "
      "provenance per system. latex: booktabs + amssymb (\\checkmark).\n"
      "With glue-* results, one more table (task glue-average): per system each task's GLUE "
      "number\n"
      "(CoLA MCC, MRPC/QQP mean of F1 and accuracy, STS-B mean of Pearson and Spearman, others\n"
      "accuracy; x100) and their average over the tasks present (MNLI-m/mm counted once), with "
      "the\n"
      "number of tasks it covers.",
      &pos);
  if (!vm.count("results")) throw InputError("at least one RESULT.json is required (see --help)");
  results::TableOptions opts;
  opts.format = results::parse_table_format(vm["format"].as<std::string>());
  opts.sort_by = vm["sort-by"].as<std::string>();
  opts.decimals = vm["decimals"].as<int>();
  if (opts.decimals < -1 || opts.decimals > 12) throw InputError("--decimals must be in -1..12");
  std::vector<results::RunResult> runs;
  for (const auto& path : vm["results"].as<std::vector<std::string>>()) {
    runs.push_back(results::read_run_result(path));
    opts.sources.push_back(path);
  }
  opts.paper_rows = !vm["no-paper"].as<bool>();
  if (opts.format == results::TableFormat::kHtml) {
    pipelines::SignificanceOptions so;
    so.resamples = vm["resamples"].as<int>();
    so.seed = vm["seed"].as<unsigned long long>();
    if (so.resamples < 0) throw InputError("--resamples must be >= 0");
    if (so.resamples > 0)
      opts.tests = pipelines::paired_significance(runs, so, &opts.notes);
    else
      opts.notes.push_back("significance: not tested (--resamples 0)");
  }
  // GLUE results: one more table with each task's GLUE number and the average over those present
  // (html: a table of the same page; other formats: appended after the others).
  const std::vector<results::RunResult> glue = results::glue_average_rows(runs);
  if (opts.format == results::TableFormat::kHtml) runs.insert(runs.end(), glue.begin(), glue.end());
  std::string text = results::render_leaderboard(runs, opts);
  if (!glue.empty() && opts.format != results::TableFormat::kHtml) {
    results::TableOptions gopt = opts;
    gopt.sort_by = "average";
    text += "\n" + results::render_leaderboard(glue, gopt);
  }
  std::string out = vm["out"].as<std::string>();
  if (out == "-")
    std::cout << text;
  else
    core::write_file_atomic(out, text);
  return kExitOk;
}

}  // namespace unieval::cli
