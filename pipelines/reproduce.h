#pragma once
// Paper-table reproduction (`unieval reproduce --paper P --table N`): the published table beside
// our numbers, cell by cell, with the difference and whether it is within the cell's tolerance.
//
//   ReproduceOptions o;  o.paper = "unilm";  o.table = "5";  o.data_dir = "../shared/data";
//   Reproduction r = reproduce(o);
//   std::cout << render_reproduction(r, results::TableFormat::kMarkdown);
//   r.mismatch   // true: some reproduced cell differs beyond its tolerance (EM 78.7 vs 78.9)
//
// Where "ours" comes from, per row (first that applies):
//   1. --outputs DIR, a file named after the row (slug of the row label: lower case, runs of
//      non-alphanumerics -> '-'; "BERT_LARGE" -> "bert-large"; with a block,
//      "<block-slug>--<system-slug>" is tried first):
//        DIR/<slug>.result.json       a RunResult written by `unieval eval --out` (any task)
//        DIR/<slug>/*.result.json     several RunResults (e.g. one per GLUE task)
//        DIR/<slug>.<ext>             system output, evaluated with the table's task adapter on
//                                     the dataset found under --data (see data_candidates)
//   Result files (DIR/<slug>.result.json, DIR/<slug>/*.result.json) are refused like runs (1b)
//   when their split, size or metric settings (the "eval_options" `unieval eval` records) are not
//   the table's.
//   1b. --outputs RUN: a `unieval run` directory (RUN/request.json + RUN/result.json). Its result
//      goes to the row named by the run's --system when a row of the table has that label (in
//      the block of its task), else to the paper's own row (UniLM for unilm: slug of the paper)
//      in the block of its task (squad-qg-reversed: the "Reversed ..." block; Gigaword's 10K
//      block: a run with 10,000 training examples). It is refused
//      (InputError naming RUN/result.json) when its split is not the table's, when its eval
//      split was cut (--eval-limit) or its size is not the split's full size (split_size()), or
//      when its metric settings are not the paper's (adapter options other than resource paths
//      and the preset's own evaluation options).
//      --outputs RESULT.json (a result file of `unieval eval`, no "run" block) is checked and placed
//      the same way: task, split, examples == split_size(), eval_options, then its --system row.
//   2. built-in recipes for rows whose material is public (recipes()): UniLM Table 5 BERT_LARGE
//      from the published BERT-large SQuAD 2.0 dev predictions; UniLM Table 10 "Best System"
//      and "Human" from the DSTC7 organisers' score sheet (rows TeamB-Primary, Human).
//   Rows with neither show the published values only, marked so.
// A RunResult's score is matched to a cell by task (equal, or for multi-task tables such as
// GLUE the column's task) and score name == the cell's metric key; ours is shown in the printed
// unit (value x cell scale). A cell matches when |ours - published| <= half a unit of the last
// printed digit (PaperCell::tolerance()).
//
// Supplementary checks (not cells of the paper) are reported under the table: for UniLM Table
// 10, the DSTC7 constant baseline's reference-free cells (Entropy-1..4, Div-1/2, avg length)
// recomputed from its submission with DSTC7's clean_str tokenisation, against the organisers'
// sheet row "Baseline (constant)".
//
// Options (ReproduceOptions):
//   paper, table  required   "unilm" | "ernie-gen" | "gpt", table number as printed
//   outputs_dir   ""         the user's decoded files / results (see above)
//   data_dir      ""         dataset root ("" = $UNIEVAL_DATA, else ../shared/data if present)
//   paper_dir     ""         paper-table data ("" = compiled in)
#include <optional>
#include <string>
#include <vector>

#include "results/paper_tables.h"
#include "results/report.h"

namespace unieval::pipelines {

struct ReproduceOptions {
  std::string paper;              // "unilm", "ernie-gen", "gpt"
  std::string table;              // "5"
  std::string outputs_dir;        // user's outputs ("" = none)
  std::vector<std::string> runs;  // `unieval run` directories (see 1b)
  std::string data_dir;           // dataset root ("" = default)
  std::string paper_dir;          // paper tables ("" = compiled in)
};

enum class CellStatus { kPublishedOnly, kMatch, kMismatch, kOursOnly, kNotComputed };
const char* to_string(CellStatus s);

struct ReproducedCell {
  std::string column;
  std::string metric;
  std::string display;  // published, as printed ("" when not legible)
  std::optional<double> published;
  std::optional<double> ours;  // in the printed unit
  double tolerance = 0;
  CellStatus status = CellStatus::kPublishedOnly;
};

struct ReproducedRow {
  std::string block, system;
  std::string source;  // where ours came from ("" = published only)
  bool quoted =
      false;  // ours is a published sheet's value (e.g. DSTC7's organisers'), not recomputed:
              // its cells count as quoted_cells, never as reproduced
  std::vector<ReproducedCell> cells;  // in the table's column order
};

struct Reproduction {
  results::PaperTable table;
  std::vector<ReproducedRow> rows;
  std::vector<ReproducedRow> checks;  // supplementary (not in the paper)
  std::string checks_caption;
  std::vector<std::string> notes;
  bool mismatch = false;     // a cell (row or check) beyond tolerance
  int reproduced_cells = 0;  // cells with both values, ours recomputed
  int quoted_cells = 0;      // cells with both values, ours read from a published sheet
};

Reproduction reproduce(const ReproduceOptions& opts);
std::string render_reproduction(const Reproduction& r, results::TableFormat format);

// The number of examples (source/target pairs, dialogue turns) of a generation task's full split
// as distributed: squad-qg test 11,877 / dev 10,570 (nqg data/processed, squad_qg/SOURCES.md),
// squad-qg-reversed test 10,570 / dev 11,877, cnndm test 11,490 (See et al. 2017), gigaword test
// 1,951 (Rush et al. 2015, UniLM org_data), coqa-gen dev 7,983 turns (CoQA v1.0 dev), dstc7 test
// 2,208 (test.2k keys), personachat valid 7,801 (ConvAI2 valid_self_original). 0 = unknown.
long split_size(const std::string& task, const std::string& split);
// "BERT_LARGE" -> "bert-large".
std::string slug(const std::string& label);
// The default dataset root: $UNIEVAL_DATA, else ./../shared/data or ../shared/data beside the
// source tree when present, else "".
std::string default_data_dir();

}  // namespace unieval::pipelines
