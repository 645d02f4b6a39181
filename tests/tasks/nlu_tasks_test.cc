// Training-side readers of the understanding tasks (tasks/nlu_tasks.h): split slicing, the GLUE
// layouts (original and HF export), SQuAD offsets -> words, CoQA history and answer classes, the
// gold subsets that the eval adapters read, and bad input naming file and id.
#include "tasks/nlu_tasks.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "metrics/coqa.h"
#include "metrics/glue.h"
#include "metrics/squad.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using testing::TempDir;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(NluSplitTest, ParsesAndSlicesLikePython) {
  SplitSpec s = parse_split_spec("dev[:436]");
  EXPECT_EQ(s.name, "dev");
  EXPECT_TRUE(s.sliced());
  EXPECT_EQ(slice_range(s, 872), (std::pair<size_t, size_t>{0, 436}));
  EXPECT_EQ(slice_range(parse_split_spec("dev[436:]"), 872), (std::pair<size_t, size_t>{436, 872}));
  EXPECT_EQ(slice_range(parse_split_spec("dev[-10:]"), 872), (std::pair<size_t, size_t>{862, 872}));
  EXPECT_EQ(slice_range(parse_split_spec("dev[5:2]"), 10), (std::pair<size_t, size_t>{5, 5}));
  EXPECT_EQ(slice_range(parse_split_spec("train"), 7), (std::pair<size_t, size_t>{0, 7}));
  EXPECT_FALSE(parse_split_spec("train").sliced());
  for (const char* bad : {"dev[1]", "dev[a:]", "[1:2]", "dev[1:2", "de v"})
    EXPECT_THROW(parse_split_spec(bad), InputError) << bad;
  EXPECT_TRUE(is_nlu_task("glue-sst2"));
  EXPECT_TRUE(is_nlu_task("squad-v2"));
  EXPECT_TRUE(is_nlu_task("coqa"));
  EXPECT_FALSE(is_nlu_task("coqa-gen"));
}

TEST(NluGlueTest, ReadsOriginalAndHfLayouts) {
  TempDir tmp;
  tmp.write("SST-2/train.tsv", "sentence\tlabel\ngood film \t1\nbad film \t0\nfine\t1\n");
  GlueSplit g =
      read_glue_split("glue-sst2", (tmp.path() / "SST-2").string(), parse_split_spec("train[1:]"));
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.rows[0].a, "bad film ");
  EXPECT_EQ(g.rows[0].label, 0);
  EXPECT_EQ(g.rows[0].line, 3);
  EXPECT_EQ(g.rows[1].index, "2");
  // The gold subset is read by the glue-sst2 adapter's reader.
  EXPECT_EQ(metrics::parse_glue_labels(glue_gold_text(g), "gold", metrics::GlueTask::kSst2),
            (std::vector<double>{0, 1}));
  EXPECT_EQ(metrics::parse_glue_labels(glue_predictions_text(g, {1, 1}), "pred",
                                       metrics::GlueTask::kSst2),
            (std::vector<double>{1, 1}));
  // CoLA without header; MNLI dev_matched with gold_label; RTE HF export beside the folder name.
  tmp.write("CoLA/dev.tsv", "gj04\t1\t\tThe cat sat.\ngj04\t0\t*\tCat the sat.\n");
  g = read_glue_split("glue-cola", (tmp.path() / "CoLA").string(), parse_split_spec("dev"));
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.rows[1].a, "Cat the sat.");
  EXPECT_EQ(g.rows[1].label, 0);
  EXPECT_EQ(metrics::parse_glue_labels(glue_gold_text(g), "gold", metrics::GlueTask::kCola),
            (std::vector<double>{1, 0}));
  tmp.write(
      "MNLI/dev_matched.tsv",
      "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_"
      "parse\t"
      "sentence2_parse\tsentence1\tsentence2\tlabel1\tgold_label\n"
      "0\t1\t1n\tgov\t(a)\t(b)\t(a)\t(b)\tA man eats.\tSomeone eats.\tentailment\tentailment\n");
  g = read_glue_split("glue-mnli", (tmp.path() / "MNLI").string(), parse_split_spec("dev"));
  ASSERT_EQ(g.rows.size(), 1u);
  EXPECT_EQ(g.rows[0].a, "A man eats.");
  EXPECT_EQ(g.rows[0].b, "Someone eats.");
  EXPECT_EQ(g.rows[0].label, 1);  // contradiction, entailment, neutral
  tmp.write("RTE.dev.hf-export.tsv",
            "sentence1\tsentence2\tlabel\tidx\nA b.\tC d.\t1\t0\nE f.\tG h.\t0\t1\n");
  g = read_glue_split("glue-rte", (tmp.path() / "RTE").string(), parse_split_spec("dev"));
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.rows[0].b, "C d.");
  EXPECT_EQ(g.rows[0].label, 1);
  EXPECT_EQ(g.rows[1].index, "1");
  tmp.write("QNLI/dev.tsv", "index\tquestion\tsentence\tlabel\n0\tWho?\tHe did.\tentailment\n");
  g = read_glue_split("glue-qnli", (tmp.path() / "QNLI").string(), parse_split_spec("dev"));
  EXPECT_EQ(g.rows.at(0).a, "Who?");
  EXPECT_EQ(g.rows.at(0).b, "He did.");
  tmp.write(
      "STS-B/dev.tsv",
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n"
      "0\tmain\tx\t2012\t1\tnone\tnone\tA.\tB.\t3.8\n");
  g = read_glue_split("glue-stsb", (tmp.path() / "STS-B").string(), parse_split_spec("dev"));
  EXPECT_TRUE(g.regression());
  EXPECT_DOUBLE_EQ(g.rows.at(0).label, 3.8);
  // A split file given as the data itself (as SQuAD and CoQA take one): whatever the split is
  // called, its slice of that file.
  g = read_glue_split("glue-rte", (tmp.path() / "RTE.dev.hf-export.tsv").string(),
                      parse_split_spec("dev[1:]"));
  ASSERT_EQ(g.rows.size(), 1u);
  EXPECT_EQ(g.rows[0].a, "E f.");
  EXPECT_EQ(g.file, (tmp.path() / "RTE.dev.hf-export.tsv").string());
}

TEST(NluGlueTest, UnknownLabelNamesFileAndLine) {
  TempDir tmp;
  const std::string f = tmp.write("SST-2/train.tsv", "sentence\tlabel\ngood\t1\nbad\tmaybe\n");
  const std::string e = error_of([&] {
    read_glue_split("glue-sst2", (tmp.path() / "SST-2").string(), parse_split_spec("train"));
  });
  EXPECT_NE(e.find(f), std::string::npos) << e;
  EXPECT_NE(e.find(":3"), std::string::npos) << e;
  EXPECT_NE(e.find("maybe"), std::string::npos) << e;
  const std::string missing = error_of([&] {
    read_glue_split("glue-sst2", (tmp.path() / "SST-2").string(), parse_split_spec("test"));
  });
  EXPECT_NE(missing.find("split 'test'"), std::string::npos) << missing;
}

nlohmann::json squad_doc() {
  // Context with a non-ASCII character before the answer: offsets are code points.
  const std::string ctx = "Caf\xC3\xA9 owners  in Paris sold 1990s records.";
  return {{"version", "v2.0"},
          {"data",
           {{{"title", "T"},
             {"paragraphs",
              {{{"context", ctx},
                {"qas",
                 {{{"id", "q1"},
                   {"question", "Where?"},
                   {"is_impossible", false},
                   {"answers", {{{"text", "Paris"}, {"answer_start", 16}}}}},
                  {{"id", "q2"},
                   {"question", "Who?"},
                   {"is_impossible", true},
                   {"answers", nlohmann::json::array()}},
                  {{"id", "q3"},
                   {"question", "What?"},
                   {"is_impossible", false},
                   {"answers", {{{"text", "1990s records"}, {"answer_start", 27}}}}}}}}}}}}}};
}

TEST(NluSquadTest, MapsOffsetsToWordsAndWritesTheGoldSubset) {
  TempDir tmp;
  tmp.write("sq/dev-v2.0.json", squad_doc().dump());
  SquadSplit s =
      read_squad_split("squad-v2", (tmp.path() / "sq").string(), parse_split_spec("dev[1:]"));
  ASSERT_EQ(s.questions.size(), 2u);
  EXPECT_TRUE(s.questions[0].impossible);
  const std::vector<std::string> words = s.contexts.at(s.questions[1].context).words;
  ASSERT_EQ(words.size(), 7u);
  EXPECT_EQ(s.questions[1].answers.at(0).start_word, 5);
  EXPECT_EQ(s.questions[1].answers.at(0).end_word, 6);
  EXPECT_TRUE(s.questions[1].answers.at(0).aligned);
  // The gold subset holds exactly these questions and is read by the official-script loader.
  const std::string gold = tmp.write("gold.json", s.gold_json);
  metrics::SquadDataset d = metrics::load_squad_dataset(gold);
  ASSERT_EQ(d.questions.size(), 2u);
  EXPECT_EQ(d.questions[0].id, "q2");
  // Whole split, answer q1 at "Paris".
  s = read_squad_split("squad-v2", (tmp.path() / "sq").string(), parse_split_spec("dev"));
  EXPECT_EQ(s.contexts.at(0).words.at(s.questions.at(0).answers.at(0).start_word), "Paris");
}

TEST(NluSquadTest, AnswerOutsideTheContextNamesFileAndId) {
  TempDir tmp;
  auto doc = squad_doc();
  doc["data"][0]["paragraphs"][0]["qas"][2]["answers"][0]["answer_start"] = 40;
  const std::string f = tmp.write("sq/train-v2.0.json", doc.dump());
  const std::string e = error_of([&] {
    read_squad_split("squad-v2", (tmp.path() / "sq").string(), parse_split_spec("train"));
  });
  EXPECT_NE(e.find(f), std::string::npos) << e;
  EXPECT_NE(e.find("q3"), std::string::npos) << e;
  EXPECT_NE(e.find("outside the context"), std::string::npos) << e;
}

nlohmann::json coqa_doc() {
  const std::string story = "Anna has a red bike . She rides it to school every day .";
  return {{"version", "1.0"},
          {"data",
           {{{"source", "mctest"},
             {"id", "s1"},
             {"filename", "f"},
             {"story", story},
             {"questions",
              {{{"input_text", "What does Anna have?"}, {"turn_id", 1}},
               {{"input_text", "Is it red?"}, {"turn_id", 2}},
               {{"input_text", "Where does she ride it?"}, {"turn_id", 3}},
               {{"input_text", "Does she like cats?"}, {"turn_id", 4}}}},
             {"answers",
              {{{"span_start", 5},
                {"span_end", 20},
                {"span_text", "has a red bike"},
                {"input_text", "a red bike"},
                {"turn_id", 1}},
               {{"span_start", 9},
                {"span_end", 18},
                {"span_text", "a red bike"},
                {"input_text", "yes"},
                {"turn_id", 2}},
               {{"span_start", 26},
                {"span_end", 44},
                {"span_text", "rides it to school"},
                {"input_text", "to school"},
                {"turn_id", 3}},
               {{"span_start", -1},
                {"span_end", -1},
                {"span_text", "unknown"},
                {"input_text", "unknown"},
                {"turn_id", 4}}}},
             {"additional_answers",
              {{"0",
                {{{"input_text", "red bike"}, {"turn_id", 1}, {"span_start", 5}, {"span_end", 20}},
                 {{"input_text", "yes"}, {"turn_id", 2}, {"span_start", 9}, {"span_end", 18}},
                 {{"input_text", "school"}, {"turn_id", 3}, {"span_start", 26}, {"span_end", 44}},
                 {{"input_text", "unknown"},
                  {"turn_id", 4},
                  {"span_start", -1},
                  {"span_end", -1}}}}}}}}}};
}

TEST(NluCoqaTest, HistoryClassesAndBestF1Span) {
  TempDir tmp;
  tmp.write("c/coqa-dev-v1.0.json", coqa_doc().dump());
  CoqaSplit s = read_coqa_split((tmp.path() / "c").string(), parse_split_spec("dev[1:]"), 1);
  ASSERT_EQ(s.turns.size(), 3u);
  EXPECT_EQ(s.turns[0].kind, CoqaAnswerKind::kYes);
  EXPECT_EQ(s.turns[0].question, "What does Anna have? a red bike Is it red?");
  EXPECT_EQ(s.turns[1].kind, CoqaAnswerKind::kSpan);
  EXPECT_EQ(s.turns[1].question, "Is it red? yes Where does she ride it?");
  const auto& w = s.stories.at(0).words;
  EXPECT_EQ(w.at(s.turns[1].start_word), "to");
  EXPECT_EQ(w.at(s.turns[1].end_word), "school");
  EXPECT_EQ(s.turns[2].kind, CoqaAnswerKind::kUnknown);
  // Gold subset: turns 2-4 only, read by the official evaluator's loader.
  const std::string gold = tmp.write("gold.json", s.gold_json);
  metrics::CoqaDataset d = metrics::load_coqa_dataset(gold);
  ASSERT_EQ(d.turns.size(), 3u);
  EXPECT_EQ(d.turns[0].turn_id, 2);
  const std::string pred = coqa_predictions_json(s.turns, {"yes", "to school", "unknown"});
  EXPECT_NE(pred.find("\"turn_id\": 3"), std::string::npos);
}

TEST(NluCoqaTest, TurnWithoutAnswerNamesFileAndId) {
  TempDir tmp;
  auto doc = coqa_doc();
  doc["data"][0]["answers"].erase(3);
  const std::string f = tmp.write("c/coqa-train-v1.0.json", doc.dump());
  const std::string e =
      error_of([&] { read_coqa_split((tmp.path() / "c").string(), parse_split_spec("train")); });
  EXPECT_NE(e.find(f), std::string::npos) << e;
  EXPECT_NE(e.find("story s1 turn 4"), std::string::npos) << e;
}

}  // namespace
}  // namespace unieval::tasks
