#pragma once
// Reporters: one RunResult model, rendered as a leaderboard (Markdown, LaTeX, HTML, CSV), a
// plain-text summary, or JSON (results/run_result.h). Used by `unieval eval`, `unieval table`,
// `unieval compare` and `unieval reproduce`.
//
//   std::vector<RunResult> runs = {read_run_result("a.json"), read_run_result("b.json")};
//   std::cout << render_leaderboard(runs, {TableFormat::kMarkdown});
//
// A leaderboard has one table per (task, split): rows are systems, columns the union of score
// names in the order the task reports them. Rows are sorted by `sort_by` (default: the first
// column), best first in that score's direction; the best value of each column is marked
// (Markdown **bold**, LaTeX \textbf, HTML <strong>, CSV a final "best" row naming the system).
// Each table is followed by the metric signatures of its columns. Runs whose scores of the same
// metric id carry different signatures are never put side by side: InputError.
//
// format html writes a complete page (results/html_report.h); latex a booktabs table (needs
// \usepackage{booktabs,amssymb}: ✓ is \checkmark, ✗ $\times$, text escaped).
//
// Options (TableOptions):
//   format     kMarkdown   md | latex | html | csv
//   sort_by    ""          score name to sort rows by ("" = first column)
//   decimals   -1          digits after the point; -1 = by unit (percent 2, fraction 4,
//                          raw/nats 4, tokens 3, count 0)
//   tests, notes, sources, paper_rows, alpha   HTML only (see results/html_report.h)
#include <string>
#include <vector>

#include "results/run_result.h"

namespace unieval::results {

enum class TableFormat { kMarkdown, kLatex, kHtml, kCsv };

// "md"/"markdown", "latex"/"tex", "html", "csv"; InputError otherwise.
TableFormat parse_table_format(const std::string& name);

// A plain grid of strings, rendered in any TableFormat (used by leaderboards, compare and reproduce).
struct Grid {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<bool>> bold;  // same shape as rows (may be empty)
  std::vector<bool> numeric;            // per column: right-aligned (may be empty)
  std::string caption;                  // printed above (md/text) or as caption (latex/html)
  std::vector<std::string> footer;      // lines printed under the table
};
// kHtml gives a <table> fragment (html_page() makes it a page); kLatex a table environment.
std::string render_grid(const Grid& g, TableFormat format);

// LaTeX text: the special characters escaped, ✓ -> \checkmark, ✗ -> $\times$, arrows, dashes,
// †, … and non-breaking spaces as LaTeX commands.
std::string latex_escape(const std::string& s);

// One paired significance test between two systems on one score (e.g. a paired bootstrap over
// per-example scores, pipelines/significance.h); rendered as marks by the HTML leaderboard.
struct PairedTest {
  std::string task, split, score;
  std::string better, worse;  // system names (better = the column's best)
  double p_value = 1;
  std::string
      method;  // "paired bootstrap of the per-example mean, 1000 resamples, seed 12345, 11873 examples"
};

struct TableOptions {
  TableFormat format = TableFormat::kMarkdown;  // output format
  std::string sort_by;                          // score to sort by; "" = first column
  int decimals = -1;                            // -1 = by unit
  // HTML only (results/html_report.h):
  std::vector<PairedTest> tests;     // significance marks
  std::vector<std::string> notes;    // page notes (e.g. why a score has no test)
  std::vector<std::string> sources;  // per run: the file it was read from ("" unknown)
  bool paper_rows = true;            // add the papers' rows of the same task/split
  double alpha = 0.05;               // significance level of the marks
};

std::string render_leaderboard(const std::vector<RunResult>& runs, const TableOptions& opts);

// Value formatted for its unit (decimals -1 = by unit).
std::string format_value(double v, const std::string& unit, int decimals = -1);

// Human-readable summary of one run (what `unieval eval` prints without --json).
std::string render_summary(const RunResult& r);

// What `unieval run` prints: the run's row and, under it, one row per baseline of the result's
// "baselines" (pipelines/evaluate.h evaluate_baselines: name, description, summary,
// paired_bootstrap), in the run's score columns, with a last column of the paired-bootstrap
// p-values of the run against that baseline; the baselines' descriptions and the test under the
// table. Without baselines, render_leaderboard({r}, opts). Everything comes from the result
// itself, so a result read back prints the same table.
std::string render_run_table(const RunResult& r, const TableOptions& opts);

}  // namespace unieval::results
