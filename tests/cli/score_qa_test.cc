// `unieval score --metric squad|coqa|glue|glue-score|distinct|entropy`: the JSON fields named in
// issue 5, checked from outside through the binary, and the error paths (exit 2 naming file and
// problem).
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

nlohmann::ordered_json parse_out(const unieval::testing::CliResult& r) {
  return nlohmann::ordered_json::parse(r.out);
}

std::vector<std::string> keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  return k;
}

const char* kV2Data =
    R"({"version": "v2.0", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [
  {"id": "a", "question": "?", "answers": [{"text": "The Eiffel Tower", "answer_start": 0}]},
  {"id": "b", "question": "?", "answers": []},
  {"id": "c", "question": "?", "answers": [{"text": "Paris", "answer_start": 0}]}]}]}]})";

TEST(ScoreQaCliTest, SquadV2OfficialKeysInOrder) {
  TempDir t;
  auto data = t.write("dev.json", kV2Data);
  auto pred = t.write("pred.json", R"({"a": "eiffel tower", "b": "", "c": "London"})");
  auto na = t.write("na.json", R"({"a": 0.1, "b": 0.9, "c": 0.5})");
  auto r = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) +
                   " --na-prob " + shq(na) + " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  auto j = parse_out(r);
  EXPECT_EQ(
      std::vector<std::string>({"exact", "f1", "total", "HasAns_exact", "HasAns_f1", "HasAns_total",
                                "NoAns_exact", "NoAns_f1", "NoAns_total", "best_exact",
                                "best_exact_thresh", "best_f1", "best_f1_thresh", "signature"}),
      keys(j));
  EXPECT_NEAR(200.0 / 3, j["exact"].get<double>(), 1e-12);
  EXPECT_EQ(3, j["total"].get<int>());
}

TEST(ScoreQaCliTest, SquadV11Keys) {
  TempDir t;
  auto data = t.write("dev.json",
                      R"({"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": "c",
    "qas": [{"id": "a", "question": "?", "answers": [{"text": "x y", "answer_start": 0}]}]}]}]})");
  auto pred = t.write("pred.json", R"({"a": "x"})");
  auto r = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) + " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  auto j = parse_out(r);
  EXPECT_EQ(std::vector<std::string>({"exact_match", "f1", "signature"}), keys(j));
  EXPECT_NEAR(100.0 * 2 / 3, j["f1"].get<double>(), 1e-12);
}

TEST(ScoreQaCliTest, SquadMissingPredictionsExit2UnlessAllowed) {
  TempDir t;
  auto data = t.write("dev.json", kV2Data);
  auto pred = t.write("pred.json", R"({"a": "x"})");
  auto r = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) + " --json");
  EXPECT_EQ(2, r.exit_code);
  EXPECT_NE(r.err.find("2 of 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("b, c"), std::string::npos) << r.err;
  auto ok = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) +
                    " --allow-missing --json");
  ASSERT_EQ(0, ok.exit_code) << ok.err;
  EXPECT_EQ(3, parse_out(ok)["total"].get<int>());
}

TEST(ScoreQaCliTest, BadJsonExit2NamingFileAndProblem) {
  TempDir t;
  auto data = t.write("dev.json", kV2Data);
  auto pred = t.write("broken.json", "{\"a\": \"x\",\n\"b\": }");
  auto r = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) + " --json");
  EXPECT_EQ(2, r.exit_code);
  EXPECT_NE(r.err.find("broken.json:2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid JSON"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ScoreQaCliTest, SquadBootstrapAndPaired) {
  TempDir t;
  auto data = t.write("dev.json", kV2Data);
  auto pred = t.write("pred.json", R"({"a": "eiffel tower", "b": "", "c": "Paris"})");
  auto other = t.write("other.json", R"({"a": "x", "b": "y", "c": "z"})");
  auto r = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) +
                   " --bootstrap 200 --seed 3 --paired-bootstrap " + shq(other) + " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  auto j = parse_out(r);
  ASSERT_TRUE(j.contains("bootstrap"));
  EXPECT_TRUE(j["bootstrap"]["exact"].contains("low"));
  EXPECT_NEAR(100.0, j["paired_bootstrap"]["f1"]["delta"].get<double>(), 1e-12);
  auto again = run_cli("score --metric squad --data " + shq(data) + " --pred " + shq(pred) +
                       " --bootstrap 200 --seed 3 --paired-bootstrap " + shq(other) + " --json");
  EXPECT_EQ(r.out, again.out) << "seeded";
}

TEST(ScoreQaCliTest, CoqaDomainRows) {
  TempDir t;
  auto data = t.write("coqa.json",
                      R"({"version": "1.0", "data": [{"source": "mctest", "id": "s1", "story": "x",
    "questions": [{"turn_id": 1, "input_text": "q"}], "answers": [{"turn_id": 1, "input_text": "Yes."}],
    "additional_answers": {"0": [{"turn_id": 1, "input_text": "yes"}]}},
    {"source": "reddit", "id": "s2", "story": "x", "questions": [{"turn_id": 1, "input_text": "q"}],
    "answers": [{"turn_id": 1, "input_text": "x b c"}]}]})");
  auto pred = t.write(
      "pred.json",
      R"([{"id": "s1", "turn_id": 1, "answer": "yes"}, {"id": "s2", "turn_id": 1, "answer": "b c d"}])");
  auto r = run_cli("score --metric coqa --data " + shq(data) + " --pred " + shq(pred) + " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  auto j = parse_out(r);
  EXPECT_EQ(std::vector<std::string>({"children_stories", "literature", "mid-high_school", "news",
                                      "wikipedia", "reddit", "science", "in_domain", "out_domain",
                                      "overall", "signature"}),
            keys(j));
  EXPECT_EQ(std::vector<std::string>({"em", "f1", "turns"}), keys(j["overall"]));
  EXPECT_NEAR(100.0 * 2 / 3, j["reddit"]["f1"].get<double>(), 1e-12);  // full precision
  auto human = run_cli("score --metric coqa --data " + shq(data) + " --pred " + shq(pred));
  EXPECT_NE(human.out.find("66.7"), std::string::npos) << human.out;  // table at 1 decimal
}

TEST(ScoreQaCliTest, GlueFieldsAndNullForNaN) {
  TempDir t;
  auto gold =
      t.write("gold.tsv",
              "index\tquestion\tsentence\tlabel\n0\tq\ts\tentailment\n1\tq\ts\tnot_entailment\n");
  auto pred = t.write("pred.txt", "entailment\nentailment\n");
  auto r = run_cli("score --metric glue --task qnli --gold " + shq(gold) + " --pred " + shq(pred) +
                   " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_EQ(std::vector<std::string>({"accuracy", "signature"}), keys(parse_out(r)));
  auto g2 = t.write("g2.txt", "1\n0\n1\n");
  auto p2 = t.write("p2.txt", "1\n1\n1\n");
  auto mrpc = parse_out(run_cli("score --metric glue --task mrpc --gold " + shq(g2) + " --pred " +
                                shq(p2) + " --json"));
  EXPECT_EQ(std::vector<std::string>({"accuracy", "f1", "acc_and_f1", "signature"}), keys(mrpc));
  auto cola = run_cli("score --metric glue --task cola --gold " + shq(g2) + " --pred " + shq(p2) +
                      " --json");
  EXPECT_EQ(0.0, parse_out(cola)["matthews_corrcoef"].get<double>());
  auto s1 = t.write("s1.txt", "1.0\n2.5\n4.0\n");
  auto s2 = t.write("s2.txt", "3\n3\n3\n");
  auto stsb = run_cli("score --metric glue --task stsb --gold " + shq(s1) + " --pred " + shq(s2) +
                      " --json");
  ASSERT_EQ(0, stsb.exit_code) << stsb.err;
  auto js = parse_out(stsb);
  EXPECT_TRUE(js["pearson"].is_null());
  EXPECT_TRUE(js["spearmanr"].is_null());
  EXPECT_TRUE(js["corr"].is_null());
  EXPECT_NE(stsb.err.find("warning"), std::string::npos);
  auto bad = run_cli("score --metric glue --task qnli --gold " + shq(gold) + " --pred " + shq(g2) +
                     " --json");
  EXPECT_EQ(2, bad.exit_code);
}

TEST(ScoreQaCliTest, GlueRealDevFile) {
  UNIEVAL_REQUIRE_SHARED("data/glue/RTE.dev.hf-export.tsv.gz");
  auto gold = (shared_dir() / "data/glue/RTE.dev.hf-export.tsv.gz").string();
  TempDir t;
  std::string preds;
  for (int i = 0; i < 277; ++i) preds += "not_entailment\n";
  auto pred = t.write("p.txt", preds);
  auto r = run_cli("score --metric glue --task rte --gold " + shq(gold) + " --pred " + shq(pred) +
                   " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_NEAR(131.0 / 277, parse_out(r)["accuracy"].get<double>(), 1e-12);  // constant predictions
}

TEST(ScoreQaCliTest, GlueScore) {
  TempDir t;
  auto res =
      t.write("glue.json",
              R"({"CoLA": {"mcc": 65.3}, "SST-2": {"acc": 83.4}, "MRPC": {"f1": 82.9, "acc": 84.3},
    "STS-B": {"pearson": 73.5, "spearman": 72.4}, "QQP": {"f1": 70.7, "acc": 86.0}, "MNLI-m": {"acc": 79.6},
    "MNLI-mm": {"acc": 87.2}, "QNLI": {"acc": 86.3}, "RTE": {"acc": 76.5}, "WNLI": {"acc": 51.5}, "AX": {"mcc": 33.1}})");
  auto r = run_cli("score --metric glue-score --results " + shq(res) + " --json");
  ASSERT_EQ(0, r.exit_code) << r.err;
  auto j = parse_out(r);
  EXPECT_NEAR(75.7, j["glue_score"].get<double>(), 1e-12);
  EXPECT_NEAR(75.27777777777779, j["glue_score_mnli_m_only_9tasks"].get<double>(), 1e-12);
}

TEST(ScoreQaCliTest, DistinctFlavoursAndEntropy) {
  TempDir t;
  auto hyp = t.write("hyp.txt", "i don't know\ni don't know\nwhat a day\n");
  auto d =
      parse_out(run_cli("score --metric distinct --flavour dstc7 --hyp " + shq(hyp) + " --json"));
  EXPECT_EQ(std::vector<std::string>({"div_1", "div_2", "avg_len", "signature"}), keys(d));
  EXPECT_NEAR(6.0 / 9, d["div_1"].get<double>(), 1e-12);
  auto c = parse_out(run_cli("score --metric distinct --flavour dstc7 --dstc7-clean --hyp " +
                             shq(hyp) + " --json"));
  EXPECT_NEAR(11.0 / 3, c["avg_len"].get<double>(), 1e-12);  // "do n't"
  for (const char* f : {"plato", "ernie-gen"}) {
    auto p = parse_out(run_cli(std::string("score --metric distinct --flavour ") + f + " --hyp " +
                               shq(hyp) + " --json"));
    EXPECT_EQ(std::vector<std::string>(
                  {"intra_dist_1", "intra_dist_2", "inter_dist_1", "inter_dist_2", "signature"}),
              keys(p));
    EXPECT_NE(p["signature"].get<std::string>().find(f), std::string::npos);
  }
  auto e = parse_out(run_cli("score --metric entropy --hyp " + shq(hyp) + " --json"));
  EXPECT_EQ(
      std::vector<std::string>({"entropy_1", "entropy_2", "entropy_3", "entropy_4", "signature"}),
      keys(e));
  auto empty = t.write("empty.txt", "");
  auto z = run_cli("score --metric distinct --hyp " + shq(empty) + " --json");
  ASSERT_EQ(0, z.exit_code) << z.err;
  EXPECT_TRUE(parse_out(z)["div_1"].is_null());
  EXPECT_NE(z.err.find("warning"), std::string::npos);
}

TEST(ScoreQaCliTest, HelpDocumentsTheOptions) {
  auto r = run_cli("score --metric squad --help");
  EXPECT_EQ(0, r.exit_code);
  for (const char* f : {"--data", "--pred", "--na-prob", "--na-prob-thresh", "--squad-version",
                        "--allow-missing", "--bootstrap", "--paired-bootstrap"})
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
}

}  // namespace
