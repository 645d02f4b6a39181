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
// Options (TableOptions):
//   format     kMarkdown   md | latex | html | csv
//   sort_by    ""          score name to sort rows by ("" = first column)
//   decimals   -1          digits after the point; -1 = by unit (percent 2, fraction 4,
//                          raw/nats 4, tokens 3, count 0)
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
std::string render_grid(const Grid& g, TableFormat format);

struct TableOptions {
  TableFormat format = TableFormat::kMarkdown;  // output format
  std::string sort_by;                          // score to sort by; "" = first column
  int decimals = -1;                            // -1 = by unit
};

std::string render_leaderboard(const std::vector<RunResult>& runs, const TableOptions& opts);

// Value formatted for its unit (decimals -1 = by unit).
std::string format_value(double v, const std::string& unit, int decimals = -1);

// Human-readable summary of one run (what `unieval eval` prints without --json).
std::string render_summary(const RunResult& r);

}  // namespace unieval::results
