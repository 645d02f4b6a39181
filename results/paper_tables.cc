#include "results/paper_tables.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "core/io.h"
#include "results/paper_data.h"

namespace unieval::results {

namespace {

using nlohmann::json;

struct Source {
  std::string name;  // for error messages
  std::string text;
};

// The named file from dir, or from the embedded copies.
Source open_source(const std::string& dir, const std::string& file) {
  std::string d = dir;
  if (d.empty()) {
    if (const char* env = std::getenv("UNIEVAL_PAPER_DIR")) d = env;
  }
  if (!d.empty()) {
    std::string path = d + "/" + file;
    return {path, core::read_file(path)};
  }
  for (size_t i = 0; i < embedded::kPaperFileCount; ++i) {
    const auto& f = embedded::kPaperFiles[i];
    if (file == f.name) return {"<built-in>/results/paper/" + file, std::string(f.data, f.size)};
  }
  throw InputError("<built-in>/results/paper/" + file, 0, "not compiled into this binary");
}

std::string str(const json& j, const char* key, const std::string& where, long line,
                bool required = true) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) throw InputError(where, line, std::string("missing field '") + key + "'");
    return "";
  }
  if (!it->is_string())
    throw InputError(where, line, std::string("field '") + key + "' must be a string");
  return it->get<std::string>();
}

json parse_json(const std::string& text, const std::string& where, long line) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(where, line, std::string("malformed JSON: ") + e.what());
  }
}

}  // namespace

double PaperCell::tolerance() const {
  if (!value) return 0;
  auto dot = display.find('.');
  int decimals = dot == std::string::npos ? 0 : static_cast<int>(display.size() - dot - 1);
  return 0.5 * std::pow(10.0, -decimals);
}

std::vector<std::pair<std::string, std::string>> PaperTable::row_keys() const {
  std::vector<std::pair<std::string, std::string>> keys;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& c : cells) {
    auto k = std::make_pair(c.block, c.system);
    if (seen.insert(k).second) keys.push_back(k);
  }
  return keys;
}

const PaperCell* PaperTable::cell(const std::string& block, const std::string& system,
                                  const std::string& column) const {
  for (const auto& c : cells)
    if (c.block == block && c.system == system && c.column == column) return &c;
  return nullptr;
}

std::vector<PaperInfo> load_paper_info(const std::string& dir) {
  Source src = open_source(dir, "tables.json");
  json doc = parse_json(src.text, src.name, 0);
  std::vector<PaperInfo> out;
  for (auto& [key, p] : doc.at("papers").items()) {
    PaperInfo info;
    info.key = key;
    info.title = str(p, "title", src.name, 0);
    info.authors = str(p, "authors", src.name, 0);
    info.seed = str(p, "seed", src.name, 0);
    info.year = p.value("year", 0);
    out.push_back(info);
  }
  return out;
}

std::vector<PaperTable> load_paper_tables(const std::string& dir) {
  Source meta = open_source(dir, "tables.json");
  json doc = parse_json(meta.text, meta.name, 0);
  if (doc.value("schema", "") != "unieval-paper-tables/1")
    throw InputError(meta.name, 0, "unknown schema (expected unieval-paper-tables/1)");

  std::vector<PaperTable> tables;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::set<std::string> papers;
  for (const auto& t : doc.at("tables")) {
    PaperTable pt;
    pt.paper = str(t, "paper", meta.name, 0);
    pt.table = str(t, "table", meta.name, 0);
    pt.caption = str(t, "caption", meta.name, 0);
    pt.task = str(t, "task", meta.name, 0);
    pt.split = str(t, "split", meta.name, 0);
    pt.seed = str(t, "seed", meta.name, 0);
    pt.note = str(t, "note", meta.name, 0, false);
    pt.columns = t.at("columns").get<std::vector<std::string>>();
    pt.rows = t.at("rows").get<int>();
    if (!index.emplace(std::make_pair(pt.paper, pt.table), tables.size()).second)
      throw InputError(meta.name, 0, "table " + pt.paper + " " + pt.table + " listed twice");
    papers.insert(pt.paper);
    tables.push_back(std::move(pt));
  }

  for (const auto& paper : papers) {
    Source src = open_source(dir, paper + ".jsonl");
    auto lines = core::split_lines(src.text, src.name);
    for (size_t i = 0; i < lines.size(); ++i) {
      long ln = static_cast<long>(i + 1);
      if (lines[i].empty()) continue;
      json j = parse_json(lines[i], src.name, ln);
      PaperCell c;
      c.paper = str(j, "paper", src.name, ln);
      c.table = str(j, "table", src.name, ln);
      c.block = str(j, "block", src.name, ln);
      c.system = str(j, "system", src.name, ln);
      c.task = str(j, "task", src.name, ln);
      c.split = str(j, "split", src.name, ln);
      c.column = str(j, "column", src.name, ln);
      c.metric = str(j, "metric", src.name, ln);
      c.unit = str(j, "unit", src.name, ln);
      c.display = str(j, "display", src.name, ln);
      c.note = str(j, "note", src.name, ln, false);
      c.scale = j.value("scale", 1.0);
      c.source_line = ln;
      if (!j.contains("value")) throw InputError(src.name, ln, "missing field 'value'");
      if (j["value"].is_number()) {
        c.value = j["value"].get<double>();
        if (std::abs(std::stod(c.display) - *c.value) > 1e-12)
          throw InputError(src.name, ln,
                           "value does not match the printed display '" + c.display + "'");
      } else if (!j["value"].is_null()) {
        throw InputError(src.name, ln, "'value' must be a number or null");
      } else if (c.note.empty()) {
        throw InputError(src.name, ln, "a cell without a value needs a note saying why");
      }
      if (c.paper != paper)
        throw InputError(src.name, ln, "cell of paper '" + c.paper + "' in " + paper + ".jsonl");
      auto it = index.find({c.paper, c.table});
      if (it == index.end())
        throw InputError(src.name, ln, "table " + c.table + " is not listed in tables.json");
      auto& t = tables[it->second];
      bool known_column = false;
      for (const auto& col : t.columns) known_column |= (col == c.column);
      if (!known_column)
        throw InputError(src.name, ln,
                         "column '" + c.column + "' is not a column of table " + c.table);
      if (t.cell(c.block, c.system, c.column))
        throw InputError(src.name, ln, "duplicate cell " + c.system + " / " + c.column);
      t.cells.push_back(std::move(c));
    }
  }

  // Shape: every printed row has exactly one cell per printed column.
  for (const auto& t : tables) {
    auto rows = t.row_keys();
    if (static_cast<int>(rows.size()) != t.rows)
      throw InputError(meta.name, 0,
                       "table " + t.paper + " " + t.table + " has " + std::to_string(rows.size()) +
                           " rows of cells, tables.json says " + std::to_string(t.rows));
    if (t.cells.size() != rows.size() * t.columns.size())
      throw InputError(meta.name, 0,
                       "table " + t.paper + " " + t.table + " is missing cells (" +
                           std::to_string(t.cells.size()) + " of " +
                           std::to_string(rows.size() * t.columns.size()) + ")");
  }
  return tables;
}

const PaperTable* find_table(const std::vector<PaperTable>& tables, const std::string& paper,
                             const std::string& table) {
  for (const auto& t : tables)
    if (t.paper == paper && t.table == table) return &t;
  return nullptr;
}

}  // namespace unieval::results
