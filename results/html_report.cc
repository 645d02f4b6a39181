#include "results/html_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "results/paper_tables.h"
#include "unieval_version.h"

namespace unieval::results {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

const char* kStyle = R"css(
:root{--fg:#1d2330;--muted:#596273;--line:#d8dde6;--head:#eef1f6;--paper:#f6f7fa;--bad:#b3261e;--ok:#1e7a3c}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);margin:0 auto;padding:12px;max-width:1280px}
h1{font-size:1.35em;margin:.2em 0 .3em}
h2{font-size:1.1em;margin:1.6em 0 .4em}
p.lede,.notes{color:var(--muted);font-size:.88em}
.notes p{margin:.25em 0}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--line);border-radius:6px;max-width:100%}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top;text-align:left}
th{background:var(--head);white-space:nowrap;font-weight:600}
td.num,th.num{text-align:right}
td.num{white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th:hover{background:#e2e7f0}
th[aria-sort=ascending]::after{content:" \25B2";font-size:.75em}
th[aria-sort=descending]::after{content:" \25BC";font-size:.75em}
.ci,.paper,.src{display:block;color:var(--muted);font-size:.8em}
tr.paperrow td{background:var(--paper);color:var(--muted)}
td.best .v{font-weight:700}
.ok{color:var(--ok)}
.bad{color:var(--bad);font-weight:700}
.sig{color:var(--bad);font-weight:700;margin-left:2px}
tr.det td{padding:0 8px 4px;border-bottom:1px solid var(--line)}
details summary{cursor:pointer;color:var(--muted);font-size:.8em}
dl.prov{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;font-size:.82em;margin:.4em 0}
dl.prov dt{color:var(--muted)}
dl.prov dd{margin:0;overflow-wrap:anywhere}
code{overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.78em;max-height:28em;overflow:auto;background:var(--paper);padding:6px;margin:.3em 0}
@media (max-width:640px){body{padding:6px;font-size:14px}th,td{padding:4px 5px}dl.prov{grid-template-columns:1fr}}
)css";

// Sorting: a click (or Enter) on a header sorts the table's <tbody> entries (a system row and its
// details row) by the cells' data-k; best first on the first click (data-best), then toggles;
// empty keys always last.
const char* kScript = R"js(
(function(){
  var tables=document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables,function(t){
    var ths=t.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths,function(th,col){
      th.tabIndex=0;
      function go(){
        var cur=th.getAttribute('aria-sort');
        var dir=cur?(cur==='ascending'?'descending':'ascending'):(th.getAttribute('data-best')==='desc'?'descending':'ascending');
        Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',dir);
        var num=th.getAttribute('data-type')==='num';
        var bodies=Array.prototype.slice.call(t.tBodies);
        bodies.sort(function(a,b){
          var x=a.rows[0].cells[col].getAttribute('data-k'),y=b.rows[0].cells[col].getAttribute('data-k');
          var ex=(x===null||x===''),ey=(y===null||y==='');
          if(ex||ey){return ex===ey?0:(ex?1:-1);}
          var c=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);
          return dir==='ascending'?c:-c;
        });
        bodies.forEach(function(b){t.appendChild(b);});
      }
      th.addEventListener('click',go);
      th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();go();}});
    });
  });
})();
)js";

// The shortest text that reads back as v (what the result file holds).
std::string exact(double v) {
  if (std::isnan(v)) return "NaN";
  return nlohmann::json(v).dump();
}

std::string slug(const std::string& label) {
  std::string out;
  for (unsigned char c : label)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

int decimals_of(const std::string& display) {
  auto dot = display.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(display.size() - dot - 1);
}

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// One printed row of a paper table restricted to the leaderboard's columns.
struct PaperRow {
  std::string paper, table, block, system, caption, title;
  std::map<std::string, const PaperCell*> cells;  // metric -> cell
};

struct Column {
  std::string name, unit, metric;
  bool higher = true;
};

void prov(std::ostringstream& os, const std::string& key, const std::string& value) {
  if (value.empty()) return;
  os << "<dt>" << html_escape(key) << "</dt><dd>" << html_escape(value) << "</dd>";
}

std::string group_title(const std::string& task, const std::string& split) {
  return task + (split.empty() ? "" : " (" + split + ")");
}

}  // namespace

std::string html_page(const std::string& title, const std::string& body) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
     << "<meta name=\"generator\" content=\"unieval " << UNIEVAL_VERSION << "\">\n"
     << "<title>" << html_escape(title) << "</title>\n<style>" << kStyle
     << "</style>\n</head>\n<body>\n"
     << body << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

namespace {

// One task/split table: its results, columns, order and the paper rows beside them.
struct Group {
  std::string task, split;
  std::vector<size_t> members;                            // indices into runs, in input order
  std::vector<std::pair<std::string, std::string>> sigs;  // metric id -> signature
  std::vector<Column> cols;
  size_t sort_col = 0;
  std::vector<size_t> order;  // members, sorted for display
  std::vector<double> best;   // per column, NaN when none
  std::vector<PaperRow> paper_rows;
};

// Signatures must agree per metric id (as in every other format).
void collect_signatures(const std::vector<RunResult>& runs, Group& g) {
  for (size_t i : g.members)
    for (const auto& m : runs[i].metrics) {
      auto it =
          std::find_if(g.sigs.begin(), g.sigs.end(), [&](auto& p) { return p.first == m.id; });
      if (it == g.sigs.end())
        g.sigs.push_back({m.id, m.signature});
      else if (it->second != m.signature)
        throw InputError(
            "result of system '" + runs[i].system + "': metric '" + m.id + "' has signature '" +
            m.signature + "' here but '" + it->second +
            "' in an earlier result: scores under different options are not put side by side");
    }
}

void collect_columns(const std::vector<RunResult>& runs, const TableOptions& opts, Group& g) {
  for (size_t i : g.members)
    for (const auto& s : runs[i].scores)
      if (std::none_of(g.cols.begin(), g.cols.end(),
                       [&](const Column& c) { return c.name == s.name; }))
        g.cols.push_back({s.name, s.unit, s.metric, s.higher_is_better});
  if (!opts.sort_by.empty()) {
    auto it = std::find_if(g.cols.begin(), g.cols.end(),
                           [&](const Column& c) { return c.name == opts.sort_by; });
    if (it == g.cols.end())
      throw InputError("--sort-by: no score named '" + opts.sort_by + "' in the results");
    g.sort_col = static_cast<size_t>(it - g.cols.begin());
  }
}

void sort_and_mark_best(const std::vector<RunResult>& runs, Group& g) {
  g.order = g.members;
  if (!g.cols.empty()) {
    const Column& sc = g.cols[g.sort_col];
    std::stable_sort(g.order.begin(), g.order.end(), [&](size_t a, size_t b) {
      const Score* x = runs[a].score(sc.name);
      const Score* y = runs[b].score(sc.name);
      if (!x || !y) return x != nullptr;
      if (x->value != y->value) return sc.higher ? x->value > y->value : x->value < y->value;
      return runs[a].system < runs[b].system;
    });
  }
  g.best.assign(g.cols.size(), std::nan(""));
  for (size_t c = 0; c < g.cols.size(); ++c)
    for (size_t i : g.members)
      if (const Score* s = runs[i].score(g.cols[c].name)) {
        if (std::isnan(s->value)) continue;
        if (std::isnan(g.best[c]) ||
            (g.cols[c].higher ? s->value > g.best[c] : s->value < g.best[c]))
          g.best[c] = s->value;
      }
}

// Paper rows of the group's task and split reporting one of its columns.
void collect_paper_rows(const std::vector<PaperTable>& tables, const std::vector<PaperInfo>& papers,
                        Group& g) {
  const std::string& task = g.task;
  const bool reversed = task.size() > 9 && task.compare(task.size() - 9, 9, "-reversed") == 0;
  const std::string base_task = reversed ? task.substr(0, task.size() - 9) : task;
  for (const auto& t : tables) {
    for (const auto& cell : t.cells) {
      if (!cell.value || cell.task != base_task || cell.split != g.split) continue;
      if ((slug(cell.block).find("reversed") != std::string::npos) != reversed) continue;
      if (std::none_of(g.cols.begin(), g.cols.end(),
                       [&](const Column& c) { return c.name == cell.metric; }))
        continue;
      auto it = std::find_if(g.paper_rows.begin(), g.paper_rows.end(), [&](const PaperRow& p) {
        return p.paper == t.paper && p.table == t.table && p.block == cell.block &&
               p.system == cell.system;
      });
      if (it == g.paper_rows.end()) {
        PaperRow p{t.paper, t.table, cell.block, cell.system, t.caption, "", {}};
        for (const auto& info : papers)
          if (info.key == t.paper)
            p.title = info.title + " (" + info.authors + ", " + std::to_string(info.year) + ")";
        g.paper_rows.push_back(std::move(p));
        it = g.paper_rows.end() - 1;
      }
      it->cells.emplace(cell.metric, &cell);
    }
  }
}

const PaperRow* paper_row_of(const std::vector<PaperRow>& paper_rows, const RunResult& r) {
  const PaperRow* found = nullptr;
  for (const auto& p : paper_rows) {
    if (slug(p.system) != slug(r.system) || slug(r.system).empty()) continue;
    if (!found) found = &p;
    if (p.block.empty()) return &p;
    if (slug(found->block).rfind("10k", 0) == 0 && slug(p.block).rfind("10k", 0) != 0) found = &p;
  }
  return found;
}

void write_page_header(std::ostringstream& body, const std::vector<RunResult>& runs, size_t ngroups,
                       const TableOptions& opts) {
  body
      << "<header><h1>Leaderboard</h1><p class=\"lede\">" << runs.size() << " result"
      << (runs.size() == 1 ? "" : "s") << " in " << ngroups << " table" << (ngroups == 1 ? "" : "s")
      << "; written by unieval " << html_escape(UNIEVAL_VERSION)
      << ". Click a column header to sort; open “signatures &amp; provenance” under a system for "
         "where its "
         "numbers come from. Bold: best of the column among the results; † significantly below it; "
         "✓/✗ ours against the paper at the printed precision.</p>";
  if (!opts.notes.empty()) {
    body << "<div class=\"notes\">";
    for (const auto& n : opts.notes) body << "<p>" << html_escape(n) << "</p>";
    body << "</div>";
  }
  body << "</header>\n";
}

void write_table_head(std::ostringstream& body, const Group& g) {
  body << "<section id=\"" << html_escape(slug(g.task) + "-" + slug(g.split)) << "\">\n<h2>"
       << html_escape(group_title(g.task, g.split))
       << "</h2>\n<div class=\"scroll\"><table class=\"sortable lb\">\n<thead><tr>"
       << "<th data-type=\"text\" data-best=\"asc\">system</th>";
  for (const auto& c : g.cols) {
    std::string sig;
    for (const auto& [id, s] : g.sigs)
      if (id == c.metric) sig = s;
    body << "<th class=\"num\" data-type=\"num\" data-best=\"" << (c.higher ? "desc" : "asc")
         << "\" title=\""
         << html_escape(c.name + ": " + c.unit + ", " + (c.higher ? "higher" : "lower") +
                        " is better; " + sig)
         << "\">" << html_escape(c.name) << (c.higher ? " ↑" : " ↓") << "</th>";
  }
  body << "</tr></thead>\n";
}

// Whether some paired test of the group involves this result's score, and the method of the last
// one that names it as the worse system.
struct TestsSeen {
  bool any = false;
  std::string method;
};

// One score cell of one of our results: value, CI, significance mark and the paper comparison.
void write_score_cell(std::ostringstream& body, const Group& g, const RunResult& r, const Score* s,
                      size_t c, const PaperRow* pr, const TableOptions& opts, TestsSeen& tests) {
  bool is_best = !std::isnan(s->value) && s->value == g.best[c] && g.members.size() > 1;
  std::string title =
      s->name + " = " + exact(s->value) + " (" + s->unit + ", metric " + s->metric + ")";
  std::string ci_text, sig_mark, paper_html;
  if (s->ci) {
    ci_text = "[" + format_value(s->ci->low, s->unit, opts.decimals) + ", " +
              format_value(s->ci->high, s->unit, opts.decimals) + "]";
    char level[32];
    std::snprintf(level, sizeof(level), "%g%%", s->ci->level * 100);
    title += "; " + std::string(level) + " CI [" + exact(s->ci->low) + ", " + exact(s->ci->high) +
             "] " + s->ci->method +
             (s->ci->resamples ? ", " + std::to_string(s->ci->resamples) + " resamples" : "") +
             (s->ci->resamples ? ", seed " + std::to_string(s->ci->seed) : "");
  }
  for (const auto& t : opts.tests) {
    if (t.task != g.task || t.split != g.split || t.score != s->name || t.worse != r.system)
      continue;
    tests.any = true;
    tests.method = t.method;
    char p[32];
    std::snprintf(p, sizeof(p), "%.4g", t.p_value);
    bool significant = t.p_value < opts.alpha;
    title += std::string("; ") +
             (significant ? "significantly below " : "not significantly below ") + t.better +
             " (paired test p = " + p + ", " + t.method + ")";
    if (significant)
      sig_mark = "<span class=\"sig\" title=\"" +
                 html_escape("significantly below " + t.better + ": p = " + p + " < " +
                             fixed(opts.alpha, 2)) +
                 "\">†</span>";
  }
  for (const auto& t : opts.tests)
    if (t.task == g.task && t.split == g.split && t.score == s->name && t.better == r.system)
      tests.any = true;
  if (pr) {
    auto it = pr->cells.find(s->name);
    if (it != pr->cells.end() && !std::isnan(s->value)) {
      const PaperCell& pc = *it->second;
      const double ours = s->value * pc.scale;
      const double d = ours - *pc.value;
      const bool ok = std::fabs(d) <= pc.tolerance() + 1e-9;
      const int dec = decimals_of(pc.display) + 2;
      paper_html =
          "<span class=\"paper\" title=\"" +
          html_escape(pc.paper + " Table " + pc.table + " " + pc.system + " " + pc.column +
                      " printed " + pc.display + "; ours x " + exact(pc.scale) + " = " +
                      fixed(ours, dec) + (ok ? "; within" : "; beyond") +
                      " half a unit of the last printed digit (±" + exact(pc.tolerance()) + ")") +
          "\">paper " + html_escape(pc.display) + " · Δ " + (d >= 0 ? "+" : "") + fixed(d, dec) +
          (ok ? " <span class=\"ok\">✓</span>" : " <span class=\"bad\">✗</span>") + "</span>";
    }
  }
  body << "<td class=\"num" << (is_best ? " best" : "") << "\" data-k=\""
       << (std::isnan(s->value) ? "" : exact(s->value)) << "\" title=\"" << html_escape(title)
       << "\"><span class=\"v\">" << html_escape(format_value(s->value, s->unit, opts.decimals))
       << "</span>" << sig_mark;
  if (!ci_text.empty()) body << "<span class=\"ci\">" << html_escape(ci_text) << "</span>";
  body << paper_html << "</td>";
}

// The <dl> under one of our results: where its numbers come from.
std::string provenance_list(const RunResult& r, const std::string& source) {
  std::ostringstream d;
  prov(d, "result file", source);
  prov(d, "task / split", r.task + (r.split.empty() ? "" : " / " + r.split));
  prov(d, "examples", std::to_string(r.examples));
  prov(d, "data", r.data_path);
  prov(d, "data sha256", r.data_sha256);
  prov(d, "predictions", r.pred_path);
  prov(d, "predictions sha256", r.pred_sha256);
  prov(d, "unieval",
       r.tool_version + (r.tool_commit.empty() ? "" : " (commit " + r.tool_commit + ")"));
  prov(d, "created", r.created);
  prov(d, "machine",
       r.machine.hostname + (r.machine.os.empty() ? "" : ", " + r.machine.os) +
           (r.machine.cpu.empty() ? "" : ", " + r.machine.cpu) +
           (r.machine.cores ? ", " + std::to_string(r.machine.cores) + " cores" : ""));
  prov(d, "timings",
       "load " + exact(r.timings.load_s) + " s, score " + exact(r.timings.score_s) + " s, total " +
           exact(r.timings.total_s) + " s");
  for (const auto& m : r.metrics) {
    prov(d, "signature " + m.id, m.signature);
    if (!m.options.empty()) prov(d, "options " + m.id, m.options.dump());
  }
  for (const auto& s : r.scores) {
    std::string v = exact(s.value) + " " + s.unit;
    if (s.ci)
      v += ", CI [" + exact(s.ci->low) + ", " + exact(s.ci->high) + "] level " +
           exact(s.ci->level) + " " + s.ci->method + ", " + std::to_string(s.ci->resamples) +
           " resamples, seed " + std::to_string(s.ci->seed);
    prov(d, s.name, v);
  }
  for (const auto& n : r.notes) prov(d, "note", n);
  if (!r.per_example.empty())
    prov(d, "per-example scores", std::to_string(r.per_example.size()) + " examples");
  return d.str();
}

void write_result_row(std::ostringstream& body, const Group& g, const RunResult& r,
                      const std::string& source, const TableOptions& opts, TestsSeen& tests) {
  const std::string name = r.system.empty() ? "(unnamed)" : r.system;
  const PaperRow* pr = opts.paper_rows ? paper_row_of(g.paper_rows, r) : nullptr;
  std::string hover =
      "examples " + std::to_string(r.examples) + "; data " + r.data_path +
      (r.data_sha256.empty() ? "" : " sha256 " + r.data_sha256.substr(0, 12) + "…") + "; unieval " +
      r.tool_version + (r.tool_commit.empty() ? "" : " " + r.tool_commit) +
      (r.created.empty() ? "" : "; " + r.created);
  for (const auto& m : r.metrics) hover += "; " + m.signature;
  body << "<tbody class=\"entry ours\"><tr class=\"main\"><td class=\"sys\" data-k=\""
       << html_escape(name) << "\" title=\"" << html_escape(hover) << "\"><span class=\"name\">"
       << html_escape(name) << "</span>";
  if (pr)
    body << "<span class=\"src\">"
         << html_escape("= " + pr->paper + " Table " + pr->table + " row " + pr->system +
                        (pr->block.empty() ? "" : " (" + pr->block + ")"))
         << "</span>";
  body << "</td>";
  for (size_t c = 0; c < g.cols.size(); ++c) {
    const Score* s = r.score(g.cols[c].name);
    if (!s) {
      body << "<td class=\"num\" data-k=\"\">–</td>";
      continue;
    }
    write_score_cell(body, g, r, s, c, pr, opts, tests);
  }
  body << "</tr>\n<tr class=\"det\"><td colspan=\"" << g.cols.size() + 1
       << "\"><details><summary>signatures &amp; provenance</summary><dl class=\"prov\">";
  body << provenance_list(r, source) << "</dl>";
  if (!r.extra.empty()) body << "<pre>" << html_escape(dump(r.extra)) << "</pre>";
  body << "</details></td></tr></tbody>\n";
}

void write_paper_row(std::ostringstream& body, const Group& g, const PaperRow& p,
                     const TableOptions& opts) {
  std::string label = p.system;
  std::string src = p.paper + " Table " + p.table + (p.block.empty() ? "" : ", " + p.block);
  body << "<tbody class=\"entry published\"><tr class=\"main paperrow\"><td class=\"sys\" data-k=\""
       << html_escape(label) << "\" title=\""
       << html_escape("published: " + p.title + ", Table " + p.table + ": " + p.caption)
       << "\"><span class=\"name\">" << html_escape(label) << "</span><span class=\"src\">"
       << html_escape(src) << " (published)</span></td>";
  for (const auto& c : g.cols) {
    auto it = p.cells.find(c.name);
    if (it == p.cells.end()) {
      body << "<td class=\"num\" data-k=\"\">–</td>";
      continue;
    }
    const PaperCell& pc = *it->second;
    const double v = *pc.value / pc.scale;
    body << "<td class=\"num\" data-k=\"" << exact(v) << "\" title=\""
         << html_escape("printed " + pc.display + " (" + pc.column + ", printed = value x " +
                        exact(pc.scale) + ")" + (pc.note.empty() ? "" : "; " + pc.note))
         << "\"><span class=\"v\">"
         << html_escape(pc.scale == 1 ? pc.display : format_value(v, c.unit, opts.decimals))
         << "</span>";
    if (pc.scale != 1)
      body << "<span class=\"ci\">printed " << html_escape(pc.display) << "</span>";
    body << "</td>";
  }
  body << "</tr>\n<tr class=\"det\"><td colspan=\"" << g.cols.size() + 1
       << "\"><details><summary>source</summary><dl class=\"prov\">";
  std::ostringstream d;
  prov(d, "paper", p.title);
  prov(d, "table", p.table + ": " + p.caption);
  prov(d, "block", p.block);
  for (const auto& [metric, pc] : p.cells)
    prov(d, pc->column,
         pc->display + (pc->note.empty() ? "" : " (" + pc->note + ")") + "; results/paper/" +
             pc->paper + ".jsonl line " + std::to_string(pc->source_line));
  body << d.str() << "</dl></details></td></tr></tbody>\n";
}

void write_table_notes(std::ostringstream& body, const Group& g, const TableOptions& opts,
                       const TestsSeen& tests) {
  body << "</table></div>\n<div class=\"notes\">";
  body << "<p>Sorted by "
       << html_escape(g.cols.empty() ? std::string("system") : g.cols[g.sort_col].name)
       << "; bold: best of the column among the " << g.members.size() << " result(s).";
  if (!g.paper_rows.empty())
    body << " Grey rows: the papers' published values (results/paper), in unieval's unit.";
  body << "</p>";
  if (tests.any)
    body << "<p>† significantly below the column's best system at p &lt; "
         << html_escape(fixed(opts.alpha, 2)) << " (" << html_escape(tests.method)
         << "); p-values on hover.</p>";
  else if (g.members.size() > 1)
    body << "<p>Significance: no paired test for this table (it needs per-example scores of the "
            "same examples "
            "in every result: `unieval eval --per-example`; see the notes above).</p>";
  for (const auto& [id, sig] : g.sigs)
    body << "<p>signature " << html_escape(id) << ": <code>" << html_escape(sig) << "</code></p>";
  body << "</div>\n</section>\n";
}

}  // namespace

std::string render_leaderboard_html(const std::vector<RunResult>& runs, const TableOptions& opts) {
  if (runs.empty()) throw InputError("no result files to tabulate");
  std::vector<PaperTable> tables;
  std::vector<PaperInfo> papers;
  if (opts.paper_rows) {
    tables = load_paper_tables();
    papers = load_paper_info();
  }
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& r : runs) {
    auto key = std::make_pair(r.task, r.split);
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  std::ostringstream body;
  write_page_header(body, runs, groups.size(), opts);
  for (const auto& [task, split] : groups) {
    Group g;
    g.task = task;
    g.split = split;
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].task == task && runs[i].split == split) g.members.push_back(i);
    collect_signatures(runs, g);
    collect_columns(runs, opts, g);
    sort_and_mark_best(runs, g);
    collect_paper_rows(tables, papers, g);
    write_table_head(body, g);
    TestsSeen tests;
    for (size_t i : g.order)
      write_result_row(body, g, runs[i], i < opts.sources.size() ? opts.sources[i] : "", opts,
                       tests);
    for (const auto& p : g.paper_rows) write_paper_row(body, g, p, opts);
    write_table_notes(body, g, opts, tests);
  }
  return html_page("unieval leaderboard", body.str());
}

}  // namespace unieval::results
