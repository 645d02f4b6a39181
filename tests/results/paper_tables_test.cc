#include "results/paper_tables.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::results {
namespace {

using testing::TempDir;

TEST(PaperTablesTest, BuiltInDataParseAndFillEveryPrintedCell) {
  auto tables = load_paper_tables();  // throws on any shape or format problem
  std::map<std::string, int> per_paper;
  for (const auto& t : tables) {
    ++per_paper[t.paper];
    EXPECT_EQ(t.row_keys().size(), static_cast<size_t>(t.rows)) << t.paper << " " << t.table;
    EXPECT_EQ(t.cells.size(), t.columns.size() * t.rows) << t.paper << " " << t.table;
  }
  // Results tables: UniLM 3-11, GPT 2-5, ERNIE-GEN 2-8.
  EXPECT_EQ(per_paper["unilm"], 9);
  EXPECT_EQ(per_paper["gpt"], 4);
  EXPECT_EQ(per_paper["ernie-gen"], 7);
}

TEST(PaperTablesTest, PrintedShapesMatchThePapers) {
  auto tables = load_paper_tables();
  struct Shape {
    const char* paper;
    const char* table;
    size_t rows, cols;
  };
  for (const Shape& s :
       {Shape{"unilm", "3", 6, 3}, Shape{"unilm", "4", 7, 3}, Shape{"unilm", "5", 3, 2},
        Shape{"unilm", "8", 8, 3}, Shape{"unilm", "10", 3, 7}, Shape{"unilm", "11", 3, 12},
        Shape{"gpt", "2", 7, 6}, Shape{"gpt", "5", 4, 9}, Shape{"ernie-gen", "3", 11, 5},
        Shape{"ernie-gen", "7", 8, 9}}) {
    const auto* t = find_table(tables, s.paper, s.table);
    ASSERT_NE(t, nullptr) << s.paper << " " << s.table;
    EXPECT_EQ(t->row_keys().size(), s.rows) << s.paper << " " << s.table;
    EXPECT_EQ(t->columns.size(), s.cols) << s.paper << " " << s.table;
  }
}

TEST(PaperTablesTest, KnownCellsAndMissingCellConventions) {
  auto tables = load_paper_tables();
  const auto* t5 = find_table(tables, "unilm", "5");
  ASSERT_NE(t5, nullptr);
  const auto* f1 = t5->cell("", "BERT_LARGE", "F1");
  ASSERT_NE(f1, nullptr);
  EXPECT_DOUBLE_EQ(*f1->value, 81.8);
  EXPECT_DOUBLE_EQ(f1->tolerance(), 0.05);
  EXPECT_EQ(f1->metric, "f1");
  EXPECT_EQ(f1->task, "squad-v2");

  const auto* t10 = find_table(tables, "unilm", "10");
  ASSERT_NE(t10, nullptr);
  const auto* div1 = t10->cell("", "UniLM", "Div-1");
  ASSERT_NE(div1, nullptr);
  EXPECT_FALSE(div1->value.has_value());
  EXPECT_NE(div1->note.find("not legible"), std::string::npos);
  const auto* nist = t10->cell("", "Human Performance", "NIST-4");
  ASSERT_NE(nist, nullptr);
  EXPECT_EQ(nist->display, "2.650");
  EXPECT_DOUBLE_EQ(nist->tolerance(), 0.0005);

  const auto* g2 = find_table(tables, "gpt", "2");
  const auto* dash = g2->cell("", "ESIM + ELMo [44] (5x)", "MNLI-m");
  ASSERT_NE(dash, nullptr);
  EXPECT_EQ(dash->display, "-");
  EXPECT_FALSE(dash->value.has_value());

  const auto* e2 = find_table(tables, "ernie-gen", "2");
  const auto* data = e2->cell("Fully 3.8M training samples", "PEGASUS(HugeNews)", "Data");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->display, "3.8T");
}

// Every printed number must occur in its paper's seed text: catches typing errors in the data.
TEST(PaperTablesTest, EveryValueOccursInTheSeedText) {
  UNIEVAL_REQUIRE_SHARED("seeds");
  auto tables = load_paper_tables();
  std::map<std::string, std::string> seeds;
  int checked = 0;
  for (const auto& t : tables) {
    if (!seeds.count(t.seed)) {
      std::ifstream in(testing::shared_dir() / "seeds" / t.seed);
      ASSERT_TRUE(in) << t.seed;
      std::stringstream ss;
      ss << in.rdbuf();
      seeds[t.seed] = ss.str();
    }
    const std::string& text = seeds[t.seed];
    for (const auto& c : t.cells) {
      if (c.display.empty() || c.display == "-") continue;
      EXPECT_NE(text.find(c.display), std::string::npos)
          << c.paper << " table " << c.table << " " << c.system << " / " << c.column << " = "
          << c.display << " (line " << c.source_line << ")";
      ++checked;
    }
  }
  EXPECT_GT(checked, 400);
}

TEST(PaperTablesTest, MalformedCellNamesFileAndLine) {
  TempDir dir;
  dir.write(
      "tables.json",
      R"({"schema": "unieval-paper-tables/1", "papers": {"p": {"title": "t", "authors": "a", "seed": "s"}},
                "tables": [{"paper": "p", "table": "1", "caption": "c", "task": "x", "split": "test",
                            "seed": "s", "columns": ["A"], "rows": 1}]})");
  dir.write(
      "p.jsonl",
      R"({"paper": "p", "table": "1", "block": "", "system": "S", "task": "x", "split": "test", "column": "A", "metric": "m", "scale": 1, "unit": "raw", "display": "1.5", "value": 1.5})"
      "\n{not json\n");
  try {
    load_paper_tables(dir.path().string());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("p.jsonl:2"), std::string::npos) << e.what();
  }
}

TEST(PaperTablesTest, MissingCellIsAShapeError) {
  TempDir dir;
  dir.write("tables.json",
            R"({"schema": "unieval-paper-tables/1", "papers": {},
                "tables": [{"paper": "p", "table": "1", "caption": "c", "task": "x", "split": "test",
                            "seed": "s", "columns": ["A", "B"], "rows": 1}]})");
  dir.write(
      "p.jsonl",
      R"({"paper": "p", "table": "1", "block": "", "system": "S", "task": "x", "split": "test", "column": "A", "metric": "m", "scale": 1, "unit": "raw", "display": "1.5", "value": 1.5})"
      "\n");
  EXPECT_THROW(load_paper_tables(dir.path().string()), InputError);
}

TEST(PaperTablesTest, ValueMustMatchDisplay) {
  TempDir dir;
  dir.write("tables.json",
            R"({"schema": "unieval-paper-tables/1", "papers": {},
                "tables": [{"paper": "p", "table": "1", "caption": "c", "task": "x", "split": "test",
                            "seed": "s", "columns": ["A"], "rows": 1}]})");
  dir.write(
      "p.jsonl",
      R"({"paper": "p", "table": "1", "block": "", "system": "S", "task": "x", "split": "test", "column": "A", "metric": "m", "scale": 1, "unit": "raw", "display": "1.5", "value": 1.6})"
      "\n");
  EXPECT_THROW(load_paper_tables(dir.path().string()), InputError);
}

}  // namespace
}  // namespace unieval::results
