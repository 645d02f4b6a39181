// snli, scitail, race(-m/-h), story-cloze, dprd adapters on small files written here.
#include "tasks/gpt_tasks.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "pipelines/evaluate.h"
#include "tasks/task.h"
#include "tests/tasks/task_test_util.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using pipelines::evaluate;  // adapters are exercised through the evaluate flow

using unieval::testing::TempDir;

// Runs evaluate() expecting an InputError whose message contains every part.
void expect_error(const EvalRequest& req, const std::vector<std::string>& parts) {
  try {
    evaluate(req);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

TEST(SnliTaskTest, JsonlAndTxtSkipNoConsensusPairs) {
  TempDir tmp;
  auto jsonl =
      tmp.write("snli_1.0_test.jsonl",
                R"({"gold_label": "neutral", "pairID": "p1", "sentence1": "a", "sentence2": "b"}
{"gold_label": "-", "pairID": "p2", "sentence1": "a", "sentence2": "c"}
{"gold_label": "contradiction", "pairID": "p3", "sentence1": "a", "sentence2": "d"}
{"gold_label": "entailment", "pairID": "p4", "sentence1": "a", "sentence2": "e"}
)");
  // One label per scored pair, or one per pair with the "-" one ignored: same result.
  auto scored =
      evaluate(request("snli", jsonl, tmp.write("p3.txt", "neutral\ncontradiction\nneutral\n")));
  EXPECT_EQ(scored.task, "snli");
  EXPECT_EQ(scored.examples, 3);
  EXPECT_DOUBLE_EQ(scored.score("accuracy")->value, 2.0 / 3.0);
  auto every =
      evaluate(request("snli", jsonl, tmp.write("p4.txt", "1\n0\n2\n1\n")));  // HF numbering
  EXPECT_DOUBLE_EQ(every.score("accuracy")->value, 2.0 / 3.0);
  auto ids = evaluate(
      request("snli", jsonl,
              tmp.write("ids.tsv", "pairID\tlabel\np4\tentailment\np1\tneutral\np3\tneutral\n")));
  EXPECT_DOUBLE_EQ(ids.score("accuracy")->value, 2.0 / 3.0);

  auto txt = tmp.write("snli_1.0_test.txt",
                       "gold_label\tsentence1\tsentence2\tcaptionID\tpairID\n"
                       "neutral\ta\tb\tc1\tp1\n-\ta\tc\tc1\tp2\ncontradiction\ta\td\tc1\tp3\n");
  EXPECT_DOUBLE_EQ(evaluate(request("snli", txt, tmp.write("t.txt", "neutral\nneutral\n")))
                       .score("accuracy")
                       ->value,
                   0.5);

  expect_error(request("snli", jsonl, tmp.write("short.txt", "neutral\n")),
               {"short.txt", "3 (or 4"});
  expect_error(request("snli", jsonl, tmp.write("bad.txt", "neutral\nmaybe\nneutral\n")),
               {"bad.txt:2", "maybe"});
  expect_error(request("snli", jsonl, tmp.write("unk.tsv", "p1\tneutral\np9\tneutral\n")),
               {"unk.tsv:2", "p9"});
  expect_error(request("snli", jsonl, tmp.write("miss.tsv", "p1\tneutral\np3\tneutral\n")),
               {"miss.tsv", "p4"});
  expect_error(
      request("snli", jsonl,
              tmp.write("dup.tsv", "p1\tneutral\np1\tneutral\np3\tneutral\np4\tneutral\n")),
      {"dup.tsv:2", "twice"});
  auto broken = tmp.write("broken.jsonl",
                          "{\"gold_label\": \"neutral\", \"pairID\": \"p1\"}\n{\"gold_label\": \n");
  expect_error(request("snli", broken, tmp.write("two.txt", "neutral\nneutral\n")),
               {"broken.jsonl:2", "JSON"});
  auto cols = tmp.write("cols.txt", "gold_label\tpairID\nneutral\n");
  expect_error(request("snli", cols, tmp.write("one.txt", "neutral\n")), {"cols.txt:2", "columns"});
}

TEST(SciTailTaskTest, TsvAccuracy) {
  TempDir tmp;
  auto data =
      tmp.write("scitail_1.0_test.tsv",
                "p a\th a\tentails\np b\th b\tneutral\np c\th c\tneutral\np d\th d\tentails\n");
  auto r = evaluate(
      request("scitail", data, tmp.write("p.txt", "entails\nentails\nneutral\nentails\n")));
  EXPECT_DOUBLE_EQ(r.score("accuracy")->value, 0.75);
  EXPECT_EQ(r.examples, 4);
  auto by_index = evaluate(request(
      "scitail", data, tmp.write("i.tsv", "3\tentails\n0\tentails\n1\tneutral\n2\tneutral\n")));
  EXPECT_DOUBLE_EQ(by_index.score("accuracy")->value, 1.0);
  expect_error(request("scitail", tmp.write("bad.tsv", "p\th\tentails\np only\tneutral\n"),
                       tmp.write("q.txt", "entails\nneutral\n")),
               {"bad.tsv:2", "column"});
  expect_error(request("scitail", tmp.write("lab.tsv", "p\th\tcontradiction\n"),
                       tmp.write("r.txt", "neutral\n")),
               {"lab.tsv:1", "contradiction"});
}

TEST(RaceTaskTest, FolderLevelsAndIds) {
  TempDir tmp;
  tmp.write(
      "RACE/test/middle/1.txt",
      R"({"id": "middle1.txt", "article": "x", "questions": ["q0", "q1"], "options": [["a","b","c","d"],["a","b","c","d"]], "answers": ["A", "C"]})");
  tmp.write(
      "RACE/test/high/2.txt",
      R"({"id": "high2.txt", "article": "y", "questions": ["q0", "q1", "q2"], "options": [["a","b","c","d"],["a","b","c","d"],["a","b","c","d"]], "answers": ["B", "B", "D"]})");
  std::string dir = (tmp.path() / "RACE/test").string();
  // Byte order of paths: high/2.txt before middle/1.txt.
  auto pred = tmp.write("p.txt", "B\nA\nD\nA\nC\n");  // high: 2/3, middle: 2/2
  auto all = evaluate(request("race", dir, pred));
  EXPECT_EQ(all.examples, 5);
  EXPECT_DOUBLE_EQ(all.score("accuracy")->value, 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(all.score("accuracy_high")->value, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(all.score("accuracy_middle")->value, 1.0);
  auto h = evaluate(request("race-h", dir, pred));  // a full list, middle ignored
  EXPECT_EQ(h.task, "race-h");
  EXPECT_EQ(h.examples, 3);
  EXPECT_DOUBLE_EQ(h.score("accuracy")->value, 2.0 / 3.0);
  auto m = evaluate(
      request("race-m", (tmp.path() / "RACE/test/middle").string(), tmp.write("m.txt", "0\n2\n")));
  EXPECT_DOUBLE_EQ(m.score("accuracy")->value, 1.0);
  auto ids = evaluate(request(
      "race-m", dir, tmp.write("ids.json", R"({"middle1.txt-1": "C", "middle1.txt-0": "B"})")));
  EXPECT_DOUBLE_EQ(ids.score("accuracy")->value, 0.5);

  tmp.write("bad/high/3.txt",
            R"({"id": "high3.txt", "questions": ["q"], "options": [["a","b"]], "answers": ["C"]})");
  expect_error(request("race", (tmp.path() / "bad").string(), tmp.write("c.txt", "A\n")),
               {"3.txt", "answers[0]"});
  tmp.write(
      "bad2/x.txt",
      R"({"id": "high4.txt", "questions": ["q", "r"], "options": [["a","b"]], "answers": ["A"]})");
  expect_error(request("race", (tmp.path() / "bad2").string(), tmp.write("d.txt", "A\n")),
               {"x.txt", "2 questions"});
  expect_error(request("race", dir, tmp.write("e.txt", "A\nB\nE\nA\nA\n")), {"e.txt:3", "'E'"});
}

TEST(StoryClozeTaskTest, CsvWithQuotes) {
  TempDir tmp;
  auto data = tmp.write("cloze_test_test__spring2016 - cloze_test_ALL_test.csv",
                        "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,"
                        "RandomFifthSentenceQuiz1,"
                        "RandomFifthSentenceQuiz2,AnswerRightEnding\r\n"
                        "s1,\"He said \"\"hi, there\"\".\",b,c,d,e1,e2,1\r\n"
                        "s2,a,b,c,d,e1,\"two\nlines\",2\r\n"
                        "s3,a,b,c,d,e1,e2,2\r\n");
  auto r = evaluate(request("story-cloze", data, tmp.write("p.txt", "1\n1\n2\n")));
  EXPECT_EQ(r.task, "story-cloze");
  EXPECT_EQ(r.examples, 3);
  EXPECT_DOUBLE_EQ(r.score("accuracy")->value, 2.0 / 3.0);
  auto ids =
      evaluate(request("story-cloze", data,
                       tmp.write("ids.csv", "InputStoryid,AnswerRightEnding\ns3,2\ns2,2\ns1,1\n")));
  EXPECT_DOUBLE_EQ(ids.score("accuracy")->value, 1.0);

  CsvTable t = parse_csv("a,\"b,\"\"c\"\"\"\n\"x\ny\",z\n", "t.csv");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"a", "b,\"c\""}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"x\ny", "z"}));
  EXPECT_EQ(t.line, (std::vector<long>{1, 2}));
  EXPECT_THROW(parse_csv("a,\"open\n", "u.csv"), InputError);

  auto bad = tmp.write("bad.csv", "InputStoryid,AnswerRightEnding\ns1,1\ns2,3\n");
  expect_error(request("story-cloze", bad, tmp.write("q.txt", "1\n1\n")), {"bad.csv:3", "1 or 2"});
  auto short_row = tmp.write("short.csv", "InputStoryid,X,AnswerRightEnding\ns1,1\n");
  expect_error(request("story-cloze", short_row, tmp.write("r.txt", "1\n")),
               {"short.csv:2", "fields"});
  auto no_header = tmp.write("nh.csv", "s1,a,1\n");
  expect_error(request("story-cloze", no_header, tmp.write("s.txt", "1\n")),
               {"nh.csv:1", "AnswerRightEnding"});
}

TEST(DprdTaskTest, FourLineBlocksLabelsAndErrors) {
  TempDir tmp;
  // Two examples in the release's layout (blank lines between blocks, one trailing).
  auto data =
      tmp.write("test.c.txt",
                "The bee landed on the flower because it had pollen .\nit\nbee,flower\nflower\n\n"
                "John thanked Bill because he had helped him .\nhe\nJohn , Bill\nBill\n\n");
  auto r = evaluate(request("dprd", data, tmp.write("p.txt", "1\n0\n")));
  EXPECT_EQ(r.task, "dprd");
  EXPECT_EQ(r.examples, 2);
  EXPECT_DOUBLE_EQ(r.score("accuracy")->value, 0.5);
  auto ids = evaluate(request("dprd", data, tmp.write("ids.tsv", "dprd-1\t1\ndprd-0\t1\n")));
  EXPECT_DOUBLE_EQ(ids.score("accuracy")->value, 1.0);

  GptTaskData d = read_gpt_task_data("dprd", data);
  ASSERT_EQ(d.examples.size(), 2u);
  EXPECT_TRUE(d.multiple_choice);
  EXPECT_EQ(d.examples[1].texts,
            (std::vector<std::string>{"John thanked Bill because he had helped him .", "he"}));
  EXPECT_EQ(d.examples[1].choices, (std::vector<std::string>{"John", "Bill"}));
  EXPECT_EQ(d.examples[1].label, 1);

  expect_error(
      request("dprd", tmp.write("three.txt", "A sentence .\nit\na,b\n"), tmp.write("q.txt", "0\n")),
      {"three.txt:1", "four lines"});
  expect_error(request("dprd", tmp.write("ans.txt", "A sentence it .\nit\na,b\nc\n"),
                       tmp.write("q2.txt", "0\n")),
               {"ans.txt:4", "neither candidate"});
  expect_error(request("dprd", tmp.write("one.txt", "A sentence it .\nit\na\na\n"),
                       tmp.write("q3.txt", "0\n")),
               {"one.txt:3", "two candidates"});
  expect_error(request("dprd", tmp.write("glued.txt", "S it .\nit\na,b\na\nT it .\nit\na,b\na\n"),
                       tmp.write("q4.txt", "0\n0\n")),
               {"glued.txt:5", "blank line"});
}

TEST(DprdTaskTest, SubstitutionReplacesTheLastWholeWordPronoun) {
  GptTaskExample e;
  e.id = "dprd-0";
  e.texts = {"The bee landed on the flower because it had pollen .", "it"};
  e.choices = {"the bee", "the flower"};
  EXPECT_EQ(dprd_substitution(e, 0),
            (std::pair<std::string, std::string>{"The bee landed on the flower because the bee",
                                                 " had pollen ."}));
  EXPECT_EQ(dprd_substitution(e, 1).first, "The bee landed on the flower because the flower");
  // Whole words only ("he" is not the one inside "the" or "then"), the last one, any case.
  e.texts = {"He told the man then he left .", "he"};
  e.choices = {"Tom", "Sam"};
  EXPECT_EQ(dprd_substitution(e, 1),
            (std::pair<std::string, std::string>{"He told the man then Sam", " left ."}));
  e.texts = {"Tom met Sam and thanked HIM", "him"};
  EXPECT_EQ(dprd_substitution(e, 0),
            (std::pair<std::string, std::string>{"Tom met Sam and thanked Tom", ""}));
  e.texts = {"Nothing to resolve here .", "it"};
  EXPECT_THROW(dprd_substitution(e, 0), InputError);
}

// The training-side texts (read_gpt_task_data): the adapters' files, ids and labels, plus the
// texts and options; predictions written back are what the adapters score.
TEST(GptTaskDataTest, TextsChoicesIdsAndPredictionsRoundTrip) {
  TempDir tmp;
  auto snli = tmp.write(
      "snli.jsonl",
      R"({"gold_label": "neutral", "sentence1": "A man.", "sentence2": "A person.", "pairID": "p1"})"
      "\n"
      R"({"gold_label": "-", "sentence1": "x", "sentence2": "y", "pairID": "p2"})"
      "\n"
      R"({"gold_label": "contradiction", "sentence1": "Dogs.", "sentence2": "Cats.", "pairID": "p3"})"
      "\n");
  GptTaskData d = read_gpt_task_data("snli", snli);
  ASSERT_EQ(d.examples.size(), 3u);
  EXPECT_EQ(d.examples[0].texts, (std::vector<std::string>{"A man.", "A person."}));
  EXPECT_EQ(d.examples[0].label, 1);
  EXPECT_FALSE(d.examples[1].scored);
  EXPECT_EQ(d.examples[2].label, 2);
  EXPECT_FALSE(d.multiple_choice);
  auto pred = tmp.write("snli.pred", gpt_task_predictions_text(d, {1, 0, 0}));
  auto r = evaluate(request("snli", snli, pred));
  EXPECT_EQ(r.examples, 2);
  EXPECT_DOUBLE_EQ(r.score("accuracy")->value, 0.5);

  auto sci = tmp.write("sci.tsv", "P one.\tH one.\tentails\nP two.\tH two.\tneutral\n");
  d = read_gpt_task_data("scitail", sci);
  EXPECT_EQ(d.examples[1].texts, (std::vector<std::string>{"P two.", "H two."}));
  EXPECT_EQ(d.examples[1].id, "1");
  EXPECT_EQ(d.examples[1].label, 1);

  tmp.write(
      "RACE/test/high/2.txt",
      R"({"id": "high2.txt", "article": "The art.", "questions": ["Why?"], "options": [["a","b","c","d"]], "answers": ["C"]})");
  d = read_gpt_task_data("race", (tmp.path() / "RACE/test").string());
  ASSERT_EQ(d.examples.size(), 1u);
  EXPECT_TRUE(d.multiple_choice);
  EXPECT_EQ(d.examples[0].id, "high2.txt-0");
  EXPECT_EQ(d.examples[0].texts, (std::vector<std::string>{"The art.", "Why?"}));
  EXPECT_EQ(d.examples[0].choices, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(d.examples[0].label, 2);
  EXPECT_EQ(gpt_task_predictions_text(d, {2}), "id\tlabel\nhigh2.txt-0\tC\n");

  auto cloze = tmp.write("cloze_val.csv",
                         "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,"
                         "RandomFifthSentenceQuiz1,"
                         "RandomFifthSentenceQuiz2,AnswerRightEnding\ns1,A.,B.,C.,D.,E1.,E2.,2\n");
  d = read_gpt_task_data("story-cloze", cloze);
  EXPECT_EQ(d.examples[0].texts, (std::vector<std::string>{"A. B. C. D."}));
  EXPECT_EQ(d.examples[0].choices, (std::vector<std::string>{"E1.", "E2."}));
  EXPECT_EQ(d.examples[0].label, 1);
  EXPECT_THROW(gpt_task_predictions_text(d, {}), InputError);
  EXPECT_THROW(read_gpt_task_data("glue-rte", cloze), InputError);
}

TEST(GptTasksTest, BootstrapOnAccuracy) {
  TempDir tmp;
  auto data = tmp.write("t.tsv", "p\th\tentails\np\th\tneutral\np\th\tentails\np\th\tneutral\n");
  auto req = request("scitail", data, tmp.write("p.txt", "entails\nentails\nentails\nentails\n"));
  req.bootstrap = 200;
  auto r = evaluate(req);
  ASSERT_TRUE(r.score("accuracy")->ci.has_value());
  EXPECT_LE(r.score("accuracy")->ci->low, 0.5);
  EXPECT_GE(r.score("accuracy")->ci->high, 0.5);
}

// Fuzz finding (fuzz_readers): a number too large for nlohmann's double made a RACE article
// escape as json::out_of_range (the CLI's exit 3); it is an InputError naming the file.
TEST(RaceTaskTest, NumberOverflowIsAnInputErrorNamingTheFile) {
  TempDir tmp;
  const std::string path = tmp.write("high/1.txt", "{\"answers\": [\"A\"], \"id\": 1e999999}\n");
  try {
    read_gpt_task_data("race", path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("1.txt"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace unieval::tasks
