#pragma once
// The HTML leaderboard: one complete, self-contained page (no network: inline CSS and JS) that
// shows where systems stand against each other and against the papers. What `unieval table
// --format html` writes (render_leaderboard dispatches here); `reproduce` and `compare` wrap
// their tables in the same page (html_page).
//
//   TableOptions o;  o.format = TableFormat::kHtml;
//   o.tests = paired_significance(runs, {});       // pipelines/significance.h (optional)
//   std::string page = render_leaderboard_html(runs, o);   // "<!DOCTYPE html>..."
//
// The page has one table per (task, split) of the inputs. Rows: the systems of the inputs
// (sorted as render_leaderboard sorts them), then, greyed, every row of the published tables
// (results/paper) of the same task and split that reports one of the columns ("paper rows").
// Columns: system, then one per score name. A score cell shows:
//   - the value at the unit's precision (the exact value in the cell's title and data-k), the
//     best value of the column in bold;
//   - the confidence interval when the result has one (level, method, resamples and seed in the
//     title);
//   - a significance mark from TableOptions::tests: "†" = significantly below the column's best
//     system (paired bootstrap p < 0.05, p in the title); the table's footer names the test, or
//     says why there is none (TableOptions::notes);
//   - where the system is a row of a paper table (same task/split, its name equal to the paper's
//     row label up to case and punctuation: "unilm" ~ "UniLM"), the paper's value as printed,
//     the difference in the printed unit (ours x scale - printed) and ✓ when within half a unit
//     of the last printed digit, else ✗ (the rule of `unieval reproduce`).
// Paper rows show the published value converted to unieval's unit (printed / scale; the printed
// text beside it when scale != 1). Under each system row a collapsed details row (<details>)
// holds its provenance: result file, data and prediction paths and sha256, example count, tool
// version and commit, creation time, machine, timings, every metric signature with its options,
// notes and every other field of the result as JSON; the same in short on hover of the system
// name. Clicking a column header sorts the table by it (best first, then toggles; the details
// row moves with its system). Tables scroll sideways inside a phone-width screen.
#include <string>
#include <vector>

#include "results/report.h"
#include "results/run_result.h"

namespace unieval::results {

std::string render_leaderboard_html(const std::vector<RunResult>& runs, const TableOptions& opts);

// A complete page around body (an HTML fragment): doctype, meta viewport, the style sheet and the
// table-sorting script (tables with class "sortable").
std::string html_page(const std::string& title, const std::string& body);

std::string html_escape(const std::string& s);

}  // namespace unieval::results
