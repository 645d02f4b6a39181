#include "results/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/error.h"
#include "results/html_report.h"

namespace unieval::results {

TableFormat parse_table_format(const std::string& name) {
  if (name == "md" || name == "markdown") return TableFormat::kMarkdown;
  if (name == "latex" || name == "tex") return TableFormat::kLatex;
  if (name == "html") return TableFormat::kHtml;
  if (name == "csv") return TableFormat::kCsv;
  throw InputError("--format: unknown format '" + name + "' (md, latex, html, csv)");
}

namespace {

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += "\"\"";
    else
      out += c;
  }
  return out + "\"";
}

// Display width: UTF-8 code points (continuation bytes do not count).
size_t width_of(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool is_bold(const Grid& g, size_t r, size_t c) {
  return r < g.bold.size() && c < g.bold[r].size() && g.bold[r][c];
}
bool is_numeric(const Grid& g, size_t c) { return c < g.numeric.size() && g.numeric[c]; }

}  // namespace

std::string latex_escape(const std::string& s) {
  static const std::pair<const char*, const char*> kUnicode[] = {{"\u2713", "\\checkmark{}"},
                                                                 {"\u2717", "$\\times$"},
                                                                 {"\u00d7", "$\\times$"},
                                                                 {"\u2191", "$\\uparrow$"},
                                                                 {"\u2193", "$\\downarrow$"},
                                                                 {"\u2192", "$\\rightarrow$"},
                                                                 {"\u2013", "--"},
                                                                 {"\u2014", "---"},
                                                                 {"\u2020", "\\dag{}"},
                                                                 {"\u2026", "\\ldots{}"},
                                                                 {"\u00a0", "~"},
                                                                 {"\u0394", "$\\Delta$"},
                                                                 {"\u00b1", "$\\pm$"},
                                                                 {"\u2212", "$-$"}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      bool done = false;
      for (const auto& [from, to] : kUnicode) {
        size_t n = std::char_traits<char>::length(from);
        if (s.compare(i, n, from) == 0) {
          out += to;
          i += n - 1;
          done = true;
          break;
        }
      }
      if (!done) out += c;  // other text passes through (LaTeX's utf8 input handles Latin letters)
      continue;
    }
    switch (c) {
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '<':
        out += "\\textless{}";
        break;
      case '>':
        out += "\\textgreater{}";
        break;
      case '|':
        out += "\\textbar{}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_grid(const Grid& g, TableFormat format) {
  std::ostringstream os;
  size_t ncol = g.header.size();
  switch (format) {
    case TableFormat::kMarkdown: {
      if (!g.caption.empty()) os << "**" << md_escape(g.caption) << "**\n\n";
      std::vector<std::vector<std::string>> cells;
      cells.push_back(g.header);
      for (size_t r = 0; r < g.rows.size(); ++r) {
        std::vector<std::string> row;
        for (size_t c = 0; c < ncol; ++c) {
          std::string v = c < g.rows[r].size() ? md_escape(g.rows[r][c]) : "";
          if (is_bold(g, r, c) && !v.empty()) v = "**" + v + "**";
          row.push_back(v);
        }
        cells.push_back(row);
      }
      std::vector<size_t> width(ncol, 3);
      for (const auto& row : cells)
        for (size_t c = 0; c < ncol; ++c) width[c] = std::max(width[c], width_of(row[c]));
      auto line = [&](const std::vector<std::string>& row) {
        os << "|";
        for (size_t c = 0; c < ncol; ++c) {
          std::string pad(width[c] - width_of(row[c]), ' ');
          os << " " << (is_numeric(g, c) ? pad + row[c] : row[c] + pad) << " |";
        }
        os << "\n";
      };
      line(cells[0]);
      os << "|";
      for (size_t c = 0; c < ncol; ++c)
        os << (is_numeric(g, c) ? " " + std::string(width[c] - 1, '-') + ":"
                                : " " + std::string(width[c], '-'))
           << " |";
      os << "\n";
      for (size_t r = 1; r < cells.size(); ++r) line(cells[r]);
      if (!g.footer.empty()) {
        os << "\n";
        for (const auto& f : g.footer) os << f << "  \n";
      }
      break;
    }
    case TableFormat::kLatex: {
      // booktabs rules; \checkmark needs amssymb.
      os << "% needs \\usepackage{booktabs} and \\usepackage{amssymb}\n";
      os << "\\begin{table}[t]\n\\centering\n";
      if (!g.caption.empty()) os << "\\caption{" << latex_escape(g.caption) << "}\n";
      os << "\\begin{tabular}{";
      for (size_t c = 0; c < ncol; ++c) os << (is_numeric(g, c) ? "r" : "l");
      os << "}\n\\toprule\n";
      for (size_t c = 0; c < ncol; ++c) os << (c ? " & " : "") << latex_escape(g.header[c]);
      os << " \\\\\n\\midrule\n";
      for (size_t r = 0; r < g.rows.size(); ++r) {
        for (size_t c = 0; c < ncol; ++c) {
          std::string v = c < g.rows[r].size() ? latex_escape(g.rows[r][c]) : "";
          if (is_bold(g, r, c) && !v.empty()) v = "\\textbf{" + v + "}";
          os << (c ? " & " : "") << v;
        }
        os << " \\\\\n";
      }
      os << "\\bottomrule\n\\end{tabular}\n";
      os << "\\end{table}\n";
      for (const auto& f : g.footer) os << "% " << f << "\n";
      break;
    }
    case TableFormat::kHtml: {
      os << "<div class=\"scroll\"><table class=\"grid\">\n";
      if (!g.caption.empty()) os << "<caption>" << html_escape(g.caption) << "</caption>\n";
      os << "<thead><tr>";
      for (size_t c = 0; c < ncol; ++c)
        os << (is_numeric(g, c) ? "<th class=\"num\">" : "<th>") << html_escape(g.header[c])
           << "</th>";
      os << "</tr></thead>\n<tbody>\n";
      for (size_t r = 0; r < g.rows.size(); ++r) {
        os << "<tr>";
        for (size_t c = 0; c < ncol; ++c) {
          std::string v = c < g.rows[r].size() ? html_escape(g.rows[r][c]) : "";
          if (is_bold(g, r, c) && !v.empty()) v = "<strong>" + v + "</strong>";
          os << (is_numeric(g, c) ? "<td class=\"num\">" : "<td>") << v << "</td>";
        }
        os << "</tr>\n";
      }
      os << "</tbody>\n";
      if (!g.footer.empty()) {
        os << "<tfoot>";
        for (const auto& f : g.footer)
          os << "<tr><td colspan=\"" << ncol << "\">" << html_escape(f) << "</td></tr>";
        os << "</tfoot>\n";
      }
      os << "</table></div>\n";
      break;
    }
    case TableFormat::kCsv: {
      for (size_t c = 0; c < ncol; ++c) os << (c ? "," : "") << csv_escape(g.header[c]);
      os << "\n";
      for (const auto& row : g.rows) {
        for (size_t c = 0; c < ncol; ++c)
          os << (c ? "," : "") << csv_escape(c < row.size() ? row[c] : "");
        os << "\n";
      }
      for (const auto& f : g.footer) os << "# " << f << "\n";
      break;
    }
  }
  return os.str();
}

std::string format_value(double v, const std::string& unit, int decimals) {
  if (std::isnan(v)) return "nan";
  if (decimals < 0) {
    if (unit == "percent")
      decimals = 2;
    else if (unit == "tokens")
      decimals = 3;
    else if (unit == "count")
      decimals = 0;
    else
      decimals = 4;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string render_leaderboard(const std::vector<RunResult>& runs, const TableOptions& opts) {
  if (runs.empty()) throw InputError("no result files to tabulate");
  if (opts.format == TableFormat::kHtml) return render_leaderboard_html(runs, opts);
  // Group by (task, split), keeping first-seen order.
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& r : runs) {
    auto key = std::make_pair(r.task, r.split);
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  std::ostringstream out;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    std::vector<const RunResult*> members;
    for (const auto& r : runs)
      if (r.task == groups[gi].first && r.split == groups[gi].second) members.push_back(&r);
    // Signatures must agree per metric id.
    std::vector<std::pair<std::string, std::string>> sigs;  // id -> signature, first-seen order
    for (const auto* r : members) {
      for (const auto& m : r->metrics) {
        auto it = std::find_if(sigs.begin(), sigs.end(), [&](auto& p) { return p.first == m.id; });
        if (it == sigs.end())
          sigs.push_back({m.id, m.signature});
        else if (it->second != m.signature)
          throw InputError("result of system '" + r->system + "': metric '" + m.id +
                           "' has signature '" + m.signature + "' here but '" + it->second +
                           "' in an earlier result: scores under different options are not "
                           "put side by side");
      }
    }
    // Columns: union of score names in first-seen order.
    struct Col {
      std::string name, unit, metric;
      bool higher = true;
    };
    std::vector<Col> cols;
    for (const auto* r : members)
      for (const auto& s : r->scores)
        if (std::none_of(cols.begin(), cols.end(), [&](const Col& c) { return c.name == s.name; }))
          cols.push_back({s.name, s.unit, s.metric, s.higher_is_better});
    size_t sort_col = 0;
    if (!opts.sort_by.empty()) {
      auto it = std::find_if(cols.begin(), cols.end(),
                             [&](const Col& c) { return c.name == opts.sort_by; });
      if (it == cols.end())
        throw InputError("--sort-by: no score named '" + opts.sort_by + "' in the results");
      sort_col = static_cast<size_t>(it - cols.begin());
    }
    std::vector<const RunResult*> order = members;
    if (!cols.empty()) {
      const Col& sc = cols[sort_col];
      std::stable_sort(order.begin(), order.end(), [&](const RunResult* a, const RunResult* b) {
        const Score* x = a->score(sc.name);
        const Score* y = b->score(sc.name);
        if (!x || !y) return x != nullptr;  // missing values last
        if (x->value != y->value) return sc.higher ? x->value > y->value : x->value < y->value;
        return a->system < b->system;
      });
    }
    Grid g;
    g.caption =
        groups[gi].first + (groups[gi].second.empty() ? "" : " (" + groups[gi].second + ")");
    g.header.push_back("system");
    g.numeric.push_back(false);
    for (const auto& c : cols) {
      g.header.push_back(c.name + (c.higher ? " ↑" : " ↓"));
      g.numeric.push_back(true);
    }
    std::vector<double> best(cols.size(), std::nan(""));
    for (size_t c = 0; c < cols.size(); ++c)
      for (const auto* r : order)
        if (const Score* s = r->score(cols[c].name)) {
          if (std::isnan(s->value)) continue;
          if (std::isnan(best[c]) || (cols[c].higher ? s->value > best[c] : s->value < best[c]))
            best[c] = s->value;
        }
    std::vector<std::string> best_system(cols.size());
    for (const auto* r : order) {
      std::vector<std::string> row = {r->system.empty() ? "(unnamed)" : r->system};
      std::vector<bool> bold = {false};
      for (size_t c = 0; c < cols.size(); ++c) {
        const Score* s = r->score(cols[c].name);
        if (!s) {
          row.push_back("–");
          bold.push_back(false);
          continue;
        }
        std::string v = format_value(s->value, s->unit, opts.decimals);
        if (s->ci) {
          v += " [" + format_value(s->ci->low, s->unit, opts.decimals) + ", " +
               format_value(s->ci->high, s->unit, opts.decimals) + "]";
        }
        row.push_back(v);
        bool is_best = s->value == best[c] && order.size() > 1;
        bold.push_back(is_best);
        if (is_best) best_system[c] += (best_system[c].empty() ? "" : " ") + row[0];
      }
      g.rows.push_back(row);
      g.bold.push_back(bold);
    }
    if (opts.format == TableFormat::kCsv && order.size() > 1) {
      std::vector<std::string> row = {"best"};
      for (const auto& b : best_system) row.push_back(b);
      g.rows.push_back(row);
    }
    g.footer.push_back("Best per column marked; sorted by " +
                       (cols.empty() ? std::string("system") : cols[sort_col].name) + ".");
    for (const auto& [id, sig] : sigs) g.footer.push_back("signature " + id + ": " + sig);
    if (gi) out << "\n";
    out << render_grid(g, opts.format);
  }
  return out.str();
}

std::string render_summary(const RunResult& r) {
  std::ostringstream os;
  os << "task " << r.task;
  if (!r.split.empty()) os << " (" << r.split << ")";
  if (!r.system.empty()) os << "  system " << r.system;
  os << "  examples " << r.examples << "\n";
  size_t w = 4;
  for (const auto& s : r.scores) w = std::max(w, s.name.size());
  for (const auto& s : r.scores) {
    os << "  " << s.name << std::string(w - s.name.size() + 2, ' ')
       << format_value(s.value, s.unit, 6);
    if (s.ci)
      os << "  [" << format_value(s.ci->low, s.unit, 6) << ", "
         << format_value(s.ci->high, s.unit, 6) << "] " << s.ci->level * 100 << "% "
         << s.ci->method;
    os << "\n";
  }
  for (const auto& m : r.metrics) os << "signature " << m.id << ": " << m.signature << "\n";
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  return os.str();
}

std::string render_run_table(const RunResult& r, const TableOptions& opts) {
  const bool have = r.extra.contains("baselines") && r.extra["baselines"].is_array() &&
                    !r.extra["baselines"].empty();
  if (!have || opts.format == TableFormat::kHtml) return render_leaderboard({r}, opts);
  Grid g;
  g.caption = r.task + (r.split.empty() ? "" : " (" + r.split + ")");
  g.header.push_back("system");
  g.numeric.push_back(false);
  for (const auto& s : r.scores) {
    g.header.push_back(s.name + (s.higher_is_better ? " ↑" : " ↓"));
    g.numeric.push_back(true);
  }
  g.header.push_back("p (run vs baseline)");
  g.numeric.push_back(false);
  std::vector<std::string> row = {r.system.empty() ? "(unnamed)" : r.system};
  for (const auto& s : r.scores) {
    std::string v = format_value(s.value, s.unit, opts.decimals);
    if (s.ci)
      v += " [" + format_value(s.ci->low, s.unit, opts.decimals) + ", " +
           format_value(s.ci->high, s.unit, opts.decimals) + "]";
    row.push_back(v);
  }
  row.push_back("");
  g.rows.push_back(row);
  std::string test;
  for (const auto& b : r.extra["baselines"]) {
    if (!b.is_object()) continue;
    const std::string name = b.value("name", std::string("?"));
    row = {"baseline: " + name};
    for (const auto& s : r.scores) {
      if (!b.contains("summary") || !b["summary"].contains(s.name)) {
        row.push_back("–");
        continue;
      }
      const auto& v = b["summary"][s.name];
      row.push_back(v.is_number() ? format_value(v.get<double>(), s.unit, opts.decimals)
                                  : std::string("nan"));
    }
    std::string p;
    if (b.contains("paired_bootstrap") && b["paired_bootstrap"].contains("scores")) {
      const auto& pb = b["paired_bootstrap"];
      for (const auto& t : pb["scores"]) {
        char buf[96];
        const double pv = t.contains("p_value") && t["p_value"].is_number()
                              ? t["p_value"].get<double>()
                              : std::nan("");
        std::snprintf(buf, sizeof buf, "%s %.4f", t.value("score", std::string()).c_str(), pv);
        p += (p.empty() ? "" : ", ") + std::string(buf);
      }
      if (test.empty())
        test = "p: paired bootstrap of the run against each baseline (" +
               std::to_string(pb.value("resamples", 0)) + " resamples, seed " +
               std::to_string(pb.value("seed", 0ULL)) + "; two-sided), on every score that has one";
    }
    row.push_back(p.empty() ? "–" : p);
    g.rows.push_back(row);
    g.footer.push_back("baseline " + name + ": " + b.value("description", std::string()));
  }
  if (!test.empty()) g.footer.push_back(test);
  for (const auto& m : r.metrics) g.footer.push_back("signature " + m.id + ": " + m.signature);
  return render_grid(g, opts.format);
}

}  // namespace unieval::results
