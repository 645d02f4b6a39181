#pragma once
// The published results tables of the three papers (UniLM, GPT, ERNIE-GEN), as data.
//
// Every legible cell of every results table lives in results/paper/<paper>.jsonl (one cell per
// line: paper, table, block, system, task, split, column, metric, scale, unit, display, value,
// note) and each table's printed layout in results/paper/tables.json (caption, columns in
// printed order, number of rows). The files are compiled into the binary, so `unieval reproduce`
// works from any directory; a directory given explicitly (or $UNIEVAL_PAPER_DIR) overrides them.
//
//   auto tables = unieval::results::load_paper_tables();
//   const auto* t = unieval::results::find_table(tables, "unilm", "5");
//   const auto* c = t->cell("", "BERT_LARGE", "F1");   // c->value == 81.8, c->display == "81.8"
//
// Cell conventions (see results/paper/README.md):
//   value    the printed number, or nullopt for '-' (not reported), blank/garbled seed text, and
//            non-numeric cells such as "16G" (then display holds the text and note says why)
//   display  the cell exactly as printed (its decimals define the reproduction tolerance:
//            half a unit in the last printed digit)
//   scale    printed value = metric value as unieval reports it (fraction) x scale; 1 where
//            the official script already prints the paper's unit (SQuAD EM/F1, NIST, entropy)
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace unieval::results {

struct PaperCell {
  std::string paper;   // "unilm", "gpt", "ernie-gen"
  std::string table;   // "5"
  std::string block;   // row group as printed ("10K Training Examples"), "" when none
  std::string system;  // row label as printed ("BERT_LARGE")
  std::string task;    // task key ("squad-v2", "cnndm", "dstc7", ...)
  std::string split;   // "dev" / "test"
  std::string column;  // column header as printed ("F1", "RG-L", "MNLI-m")
  std::string metric;  // canonical metric key ("f1", "rougeL_f", "bleu4", ...)
  double scale = 1;    // printed = unieval value x scale
  std::string unit;    // "percent", "fraction", "raw", "nats", "tokens", "text"
  std::optional<double> value;
  std::string display;   // as printed
  std::string note;      // why a value is missing, or provenance remarks
  long source_line = 0;  // line in the .jsonl file

  // Half a unit in the last printed digit (0.005 for "81.75", 0.05 for "81.8"); 0 if no value.
  double tolerance() const;
};

struct PaperTable {
  std::string paper, table, caption, task, split, seed, note;
  std::vector<std::string> columns;  // printed order
  int rows = 0;                      // printed number of rows
  std::vector<PaperCell> cells;      // row-major, printed order

  // (block, system) of each row, in printed order.
  std::vector<std::pair<std::string, std::string>> row_keys() const;
  const PaperCell* cell(const std::string& block, const std::string& system,
                        const std::string& column) const;
};

struct PaperInfo {
  std::string key, title, authors, seed;
  int year = 0;
};

// All tables. dir empty: $UNIEVAL_PAPER_DIR if set, else the copies compiled into the binary.
// Throws InputError naming file and line on malformed data, an unknown table, or a table whose
// cells do not fill its printed rows x columns exactly once.
std::vector<PaperTable> load_paper_tables(const std::string& dir = "");
std::vector<PaperInfo> load_paper_info(const std::string& dir = "");

// nullptr when absent.
const PaperTable* find_table(const std::vector<PaperTable>& tables, const std::string& paper,
                             const std::string& table);

}  // namespace unieval::results
