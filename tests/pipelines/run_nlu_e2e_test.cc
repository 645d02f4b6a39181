// `unieval run` for the understanding tasks through the binary, on fixtures written here and tiny
// models trained from scratch: GLUE SST-2 from one dev file split in two halves (classification,
// accuracy >= 0.95), STS-B (regression, Pearson >= 0.9), SQuAD 2.0 with unanswerable questions
// and document windows (span extraction, HasAns EM >= 0.9, the no-answer threshold chosen on dev,
// applied to the predictions and written),
// CoQA (span + yes/no/unknown); the predictions are accepted by `unieval eval` for the same task;
// a finished run prints the same result again, and scores again once its eval/ is deleted; the
// majority (GLUE) and first-window (SQuAD) baselines are scored under the model's row; bad input
// (unknown label, answer offsets outside the context, CoQA turn without an answer) exits 2 naming
// file and line/id without a RUN.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>

#include "core/io.h"
#include "tests/json_line.h"
#include "tests/test_util.h"

// unieval::run_nlu_e2e_test: its helpers' names are used by other test files of the same unity batch.
namespace unieval::run_nlu_e2e_test {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::shq;
using testing::TempDir;

using testing::last_json_line;

const std::vector<std::string> kFiller = {"the", "a",    "film",  "plot", "actor", "story", "was",
                                          "is",  "very", "quite", "long", "short", "music", "scene",
                                          "end", "and",  "of",    "it",   "this",  "that"};
const std::vector<std::string> kCodes = {"red",  "blue", "green", "gold",
                                         "pink", "gray", "black", "white"};

class RunNluTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string vocab =
        "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ngood\nbad\ncode\nwhat\n?\n.\nyes\nno\nunknown\n";
    for (const auto* l : {&kFiller, &kCodes})
      for (const auto& w : *l) vocab += w + "\n";
    tmp.write("vocab.txt", vocab);
    const int n = static_cast<int>(core::split_lines(vocab, "vocab").size());
    nlohmann::json cfg = {{"vocab_size", n},
                          {"hidden_size", 32},
                          {"num_hidden_layers", 2},
                          {"num_attention_heads", 4},
                          {"intermediate_size", 64},
                          {"max_position_embeddings", 64},
                          {"hidden_dropout_prob", 0.0},
                          {"attention_probs_dropout_prob", 0.0}};
    tmp.write("config.json", cfg.dump());
  }
  std::string words(int k) {
    std::string s;
    for (int i = 0; i < k; ++i) s += (s.empty() ? "" : " ") + kFiller[rng() % kFiller.size()];
    return s;
  }
  std::string path(const std::string& rel) const { return (tmp.path() / rel).string(); }
  // Writes a 120-row SST-2 folder ("good" / "bad" decide the label) and returns the `unieval run`
  // command that trains 10 steps on its first 80 rows and scores the rest (append --out, options).
  std::string small_sst2_run() {
    std::string tsv = "sentence\tlabel\n";
    for (int i = 0; i < 60; ++i) tsv += words(3) + " good \t1\n" + words(2) + " bad \t0\n";
    tmp.write("SST-2/dev.tsv", tsv);
    return "run --task glue-sst2 --data " + shq(path("SST-2")) +
           " --train-split 'dev[:80]' --eval-split 'dev[80:]'" +
           " --steps 10 --batch-size 16 --lr 2e-3 --max-seq-len 32" + model_flags();
  }
  std::string model_flags() const {
    return " --model-config " + shq(path("config.json")) + " --vocab " + shq(path("vocab.txt")) +
           " --dropout 0 --classifier-dropout 0 --threads 2 --no-progress --json";
  }
  TempDir tmp;
  std::mt19937 rng{17};
};

TEST_F(RunNluTest, Sst2FromOneDevFileInTwoHalves) {
  // Only dev.tsv, like ../shared/data/glue: train on the first 400 rows, evaluate on the rest.
  std::string tsv = "sentence\tlabel\n";
  std::vector<int> labels;
  for (int i = 0; i < 600; ++i) {
    const int label = static_cast<int>(rng() % 2);
    labels.push_back(label);
    tsv += words(2 + static_cast<int>(rng() % 4)) + " " + (label ? "good" : "bad") + " " +
           words(static_cast<int>(rng() % 4)) + " \t" + std::to_string(label) + "\n";
  }
  tmp.write("SST-2/dev.tsv", tsv);
  const std::string cmd = "run --task glue-sst2 --data " + shq(path("SST-2")) +
                          " --train-split 'dev[:400]' --eval-split 'dev[400:]'" + " --out " +
                          shq(path("R")) +
                          " --steps 120 --batch-size 16 --lr 2e-3 --max-seq-len 32" + model_flags();
  auto r = run_cli(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_EQ(j["task"], "glue-sst2");
  EXPECT_EQ(j["split"], "dev[400:]");
  EXPECT_EQ(j["data"]["examples"], 200);
  EXPECT_GE(j["summary"]["accuracy"].get<double>(), 0.95) << r.out;
  EXPECT_EQ(j["run"]["request"]["train_split"], "dev[:400]");
  EXPECT_EQ(j["run"]["request"]["preset"], "glue-sst2");
  EXPECT_EQ(j["run"]["request"]["finetune"]["optimizer"], "adamax");  // UniLM §3.5
  EXPECT_EQ(j["run"]["train_examples"], 400);
  EXPECT_EQ(j["run"]["head"], "classify");
  // The prediction file is a GLUE submission the eval adapter reads.
  auto e = run_cli("eval --task glue-sst2 --data " + shq(path("R/eval/gold.tsv")) + " --pred " +
                   shq(path("R/eval/pred.tsv")) + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_DOUBLE_EQ(last_json_line(e.out)["summary"]["accuracy"].get<double>(),
                   j["summary"]["accuracy"].get<double>());
  // The majority baseline: the most frequent label of the 400 training rows (ties: the first to
  // occur), for every eval row; its accuracy is that label's share of the eval rows, and the
  // model beats it (paired bootstrap, p < 0.05). Its row is printed under the model's.
  const int ones = static_cast<int>(std::count(labels.begin(), labels.begin() + 400, 1));
  const int majority = ones > 200 || (ones == 200 && labels[0] == 1) ? 1 : 0;
  const double expected = double(std::count(labels.begin() + 400, labels.end(), majority)) / 200.0;
  ASSERT_TRUE(j.contains("baselines")) << r.out;
  ASSERT_EQ(j["baselines"].size(), 1u);
  const auto& b = j["baselines"][0];
  EXPECT_EQ(b["name"], "majority");
  EXPECT_DOUBLE_EQ(b["summary"]["accuracy"].get<double>(), expected) << b.dump();
  EXPECT_NE(b["description"].get<std::string>().find(
                std::to_string(majority == 1 ? ones : 400 - ones) + " of 400"),
            std::string::npos)
      << b["description"];
  const auto majority_pred = core::read_lines(path("R/baselines/majority/pred.tsv"));
  ASSERT_EQ(majority_pred.size(), 201u);  // header + 200 rows
  for (size_t i = 1; i < majority_pred.size(); ++i)
    EXPECT_EQ(majority_pred[i], std::to_string(i - 1) + "\t" + std::to_string(majority)) << i;
  ASSERT_EQ(b["paired_bootstrap"]["scores"].size(), 1u);
  const auto& t = b["paired_bootstrap"]["scores"][0];
  EXPECT_EQ(t["score"], "accuracy");
  EXPECT_GT(t["delta"].get<double>(), 0.0);
  EXPECT_LT(t["p_value"].get<double>(), 0.05);
  const size_t model_row = r.out.find("| unieval-run:glue-sst2");
  const size_t baseline_row = r.out.find("| baseline: majority");
  ASSERT_NE(baseline_row, std::string::npos) << r.out;
  EXPECT_LT(model_row, baseline_row) << r.out;
  EXPECT_FALSE(j.contains("diagnostics"));  // labels, not generated text
  // A finished run prints the same result; other options are refused.
  auto again = run_cli(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(last_json_line(again.out)["summary"], j["summary"]);
  // Its eval/ folder deleted, a finished run predicts and scores again from its checkpoint.
  const std::string pred_before = core::read_file(path("R/eval/pred.tsv"));
  fs::remove_all(path("R/eval"));
  fs::remove(path("R/result.json"));
  auto rescored = run_cli(cmd);
  ASSERT_EQ(rescored.exit_code, 0) << rescored.err;
  EXPECT_EQ(last_json_line(rescored.out)["summary"], j["summary"]);
  EXPECT_EQ(core::read_file(path("R/eval/pred.tsv")), pred_before);
  auto other =
      run_cli("run --task glue-sst2 --data " + shq(path("SST-2")) +
              " --train-split 'dev[:300]' --eval-split 'dev[400:]'" + " --out " + shq(path("R")) +
              " --steps 120 --batch-size 16 --lr 2e-3 --max-seq-len 32" + model_flags());
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("train_split"), std::string::npos) << other.err;
}

// Data parallel (--nproc 2, Gloo): two ranks split each step's micro-batches and reproduce the
// one-process run: the same training log, predictions and accuracy; rank 0 alone writes RUN.
// Evaluate-only (#38): --no-train and --steps 0 make zero optimizer steps and predict with the
// initial model; the same predictions either way.
TEST_F(RunNluTest, NoTrainAndStepsZeroPredictWithTheInitialModel) {
  std::string tsv = "sentence\tlabel\n";
  for (int i = 0; i < 60; ++i) tsv += words(3) + " good \t1\n" + words(2) + " bad \t0\n";
  tmp.write("SST-2/dev.tsv", tsv);
  const std::string base = "run --task glue-sst2 --data " + shq(path("SST-2")) +
                           " --train-split 'dev[:80]' --eval-split 'dev[80:]'" +
                           " --batch-size 16 --lr 2e-3 --max-seq-len 32" + model_flags();
  for (const std::string flag : {"--no-train", "--steps 0"}) {
    const std::string out = flag == "--no-train" ? "NT" : "S0";
    auto r = run_cli(base + " --out " + shq(path(out)) + " " + flag);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto st =
        nlohmann::json::parse(core::read_file(path(out + "/checkpoint/trainer_state.json")));
    EXPECT_EQ(st["step"], 0) << flag;
    EXPECT_EQ(st["total_steps"], 0) << flag;
  }
  EXPECT_EQ(core::read_file(path("NT/eval/pred.tsv")), core::read_file(path("S0/eval/pred.tsv")));
}

// Word dropout (--token-dropout): recorded in the request as nlu.token_dropout (absent when off,
// so earlier runs' request.json stay the same), it changes training (other training losses from
// the same seed), and a rate outside [0, 1) exits 2 before a RUN is made.
TEST_F(RunNluTest, TokenDropoutIsRecordedChangesTrainingAndIsChecked) {
  const std::string base = small_sst2_run();
  auto off = run_cli(base + " --out " + shq(path("OFF")));
  ASSERT_EQ(off.exit_code, 0) << off.err << off.out;
  auto on = run_cli(base + " --out " + shq(path("ON")) + " --token-dropout 0.4");
  ASSERT_EQ(on.exit_code, 0) << on.err << on.out;
  const auto j_off = last_json_line(off.out), j_on = last_json_line(on.out);
  EXPECT_FALSE(j_off["run"]["request"]["nlu"].contains("token_dropout"));
  EXPECT_DOUBLE_EQ(j_on["run"]["request"]["nlu"]["token_dropout"].get<double>(), 0.4);
  const auto run_on = nlohmann::json::parse(core::read_file(path("ON/run.json")));
  EXPECT_DOUBLE_EQ(run_on["nlu"]["token_dropout"].get<double>(), 0.4) << run_on.dump();
  EXPECT_NE(core::read_file(path("ON/log.jsonl")), core::read_file(path("OFF/log.jsonl")));
  for (const std::string bad : {"1", "-0.1"}) {
    auto r = run_cli(base + " --out " + shq(path("BADTD")) + " --token-dropout " + bad);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--token-dropout must be in [0, 1)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("BADTD")));
  }
}

// The masked-LM auxiliary loss (--mlm-aux): recorded as nlu.mlm_aux (absent when off), the log
// has task_loss and mlm_loss, the run's checkpoint (with the MLM head) predicts, and a negative or
// non-numeric weight exits 2 before a RUN is made.
TEST_F(RunNluTest, MlmAuxIsRecordedLoggedAndChecked) {
  const std::string base = small_sst2_run();
  auto off = run_cli(base + " --out " + shq(path("OFF")));
  ASSERT_EQ(off.exit_code, 0) << off.err << off.out;
  auto on = run_cli(base + " --out " + shq(path("ON")) + " --mlm-aux 0.5");
  ASSERT_EQ(on.exit_code, 0) << on.err << on.out;
  const auto j_off = last_json_line(off.out), j_on = last_json_line(on.out);
  EXPECT_FALSE(j_off["run"]["request"]["nlu"].contains("mlm_aux"));
  EXPECT_DOUBLE_EQ(j_on["run"]["request"]["nlu"]["mlm_aux"].get<double>(), 0.5);
  const auto log = testing::read_jsonl(path("ON/log.jsonl"));
  int steps = 0;
  for (const auto& j : log) {
    if (!j.contains("step")) continue;
    ++steps;
    ASSERT_TRUE(j.contains("mlm_loss") && j.contains("task_loss")) << j.dump();
    EXPECT_GT(j["mlm_loss"].get<double>(), 0.0);
  }
  EXPECT_EQ(steps, 10);
  for (const auto& j : testing::read_jsonl(path("OFF/log.jsonl")))
    EXPECT_FALSE(j.contains("mlm_loss")) << j.dump();
  EXPECT_EQ(core::read_file(path("ON/eval/pred.tsv")).empty(), false);
  for (const std::string bad : {"-1", "nan", "x"}) {
    auto r = run_cli(base + " --out " + shq(path("BADAUX")) + " --mlm-aux " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("mlm-aux"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("BADAUX")));
  }
}

TEST_F(RunNluTest, TwoRanksEqualOneProcess) {
  std::string tsv = "sentence\tlabel\n";
  for (int i = 0; i < 200; ++i) {
    const int label = static_cast<int>(rng() % 2);
    tsv += words(2 + static_cast<int>(rng() % 3)) + " " + (label ? "good" : "bad") + " \t" +
           std::to_string(label) + "\n";
  }
  tmp.write("SST-2/dev.tsv", tsv);
  auto cmd = [&](const std::string& out) {
    return "run --task glue-sst2 --data " + shq(path("SST-2")) +
           " --train-split 'dev[:120]' --eval-split 'dev[120:]'" + " --out " + shq(path(out)) +
           " --steps 8 --batch-size 8 --accum 2 --lr 2e-3 --max-seq-len 32" + model_flags();
  };
  auto one = run_cli(cmd("one"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_cli(cmd("two") + " --nproc 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(last_json_line(two.out)["summary"], last_json_line(one.out)["summary"]);
  EXPECT_EQ(core::read_file(path("two/eval/pred.tsv")), core::read_file(path("one/eval/pred.tsv")));
  const auto l1 = testing::read_jsonl(tmp.path() / "one/log.jsonl"),
             l2 = testing::read_jsonl(tmp.path() / "two/log.jsonl");
  ASSERT_EQ(l1.size(), 8u);
  ASSERT_EQ(l2.size(), 8u);
  for (size_t i = 0; i < l1.size(); ++i) {
    EXPECT_NEAR(l2[i]["loss"].get<double>(), l1[i]["loss"].get<double>(), 1e-6) << i;
    EXPECT_EQ(l2[i]["tokens"], l1[i]["tokens"]) << i;
    EXPECT_TRUE(l2[i].contains("allreduce_s"));
  }
  // --accum below the ranks is refused before RUN is written.
  auto bad =
      run_cli("run --task glue-sst2 --data " + shq(path("SST-2")) +
              " --train-split 'dev[:120]' --eval-split 'dev[120:]'" + " --out " + shq(path("bad")) +
              " --steps 8 --batch-size 8 --max-seq-len 32 --nproc 2" + model_flags());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--accum"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(path("bad")));
}

TEST_F(RunNluTest, StsbRegressionAndStopResume) {
  std::string head =
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n";
  auto split = [&](int n) {
    std::string t = head;
    for (int i = 0; i < n; ++i) {
      const int k = static_cast<int>(rng() % 6);  // "good" words spread over both sentences
      std::string a = words(3), b = words(3);
      for (int g = 0; g < k; ++g) (g % 2 ? a : b) += " good";
      t += std::to_string(i) + "\tmain\tx\t2012\t0\tnone\tnone\t" + a + "\t" + b + "\t" +
           std::to_string(k) + ".0\n";
    }
    return t;
  };
  tmp.write("STS-B/train.tsv", split(400));
  tmp.write("STS-B/dev.tsv", split(150));
  const std::string cmd = "run --task glue-stsb --data " + shq(path("STS-B")) + " --out " +
                          shq(path("S")) +
                          " --steps 300 --batch-size 16 --lr 2e-3 --max-seq-len 32" + model_flags();
  auto first = run_cli(cmd + " --stop-after 40");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(last_json_line(first.out)["finished"], false);
  auto r = run_cli(cmd + " --stop-after 40");  // stop_after is not part of the request
  ASSERT_EQ(r.exit_code, 0) << r.err;
  while (last_json_line(r.out).contains("finished")) {
    r = run_cli(cmd);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  nlohmann::json j = last_json_line(r.out);
  EXPECT_EQ(j["run"]["head"], "regress");
  EXPECT_EQ(j["run"]["train"]["steps"], 300);
  EXPECT_GE(j["summary"]["pearson"].get<double>(), 0.9) << r.out;
  auto e = run_cli("eval --task glue-stsb --data " + shq(path("S/eval/gold.tsv")) + " --pred " +
                   shq(path("S/eval/pred.tsv")) + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NEAR(last_json_line(e.out)["summary"]["pearson"].get<double>(),
              j["summary"]["pearson"].get<double>(), 1e-5);
  // STS-B's majority baseline: the mean training score for every row (Pearson of a constant: null).
  double mean = 0;
  const auto train_lines = core::read_lines(path("STS-B/train.tsv"));
  for (size_t i = 1; i < train_lines.size(); ++i)
    mean += std::stod(train_lines[i].substr(train_lines[i].rfind('\t') + 1));
  mean /= double(train_lines.size() - 1);
  ASSERT_EQ(j["baselines"].size(), 1u);
  EXPECT_EQ(j["baselines"][0]["name"], "majority");
  EXPECT_TRUE(j["baselines"][0]["summary"]["pearson"].is_null()) << j["baselines"][0].dump();
  const auto stsb_pred = core::read_lines(path("S/baselines/majority/pred.tsv"));
  ASSERT_EQ(stsb_pred.size(), 151u);
  for (size_t i = 1; i < stsb_pred.size(); ++i)
    EXPECT_NEAR(std::stod(stsb_pred[i].substr(stsb_pred[i].find('\t') + 1)), mean, 1e-5)
        << stsb_pred[i];
}

// SQuAD 2.0: "... the code is X ..." answers "what is the code ?" with X; unanswerable contexts
// have no "code is".
nlohmann::json squad_file(std::mt19937& rng, int articles, const std::string& prefix,
                          const std::function<std::string(int)>& words) {
  nlohmann::json data = nlohmann::json::array();
  for (int a = 0; a < articles; ++a) {
    nlohmann::json pars = nlohmann::json::array();
    for (int p = 0; p < 2; ++p) {
      const bool answerable = rng() % 3 != 0;
      const std::string code = kCodes[rng() % kCodes.size()];
      std::string before = words(2 + static_cast<int>(rng() % 20));
      std::string ctx = before +
                        (answerable ? " the code is " + code + " . " : " the " + code + " end . ") +
                        words(2 + static_cast<int>(rng() % 20));
      const std::string id = prefix + std::to_string(a) + "_" + std::to_string(p);
      nlohmann::json qa = {
          {"id", id}, {"question", "what is the code ?"}, {"is_impossible", !answerable}};
      if (answerable) {
        const int64_t start =
            static_cast<int64_t>(before.size() + std::string(" the code is ").size());
        qa["answers"] = {{{"text", code}, {"answer_start", start}}};
      } else {
        qa["answers"] = nlohmann::json::array();
        qa["plausible_answers"] = {
            {{"text", code}, {"answer_start", static_cast<int64_t>(before.size() + 5)}}};
      }
      pars.push_back({{"context", ctx}, {"qas", {qa}}});
    }
    data.push_back({{"title", "t" + std::to_string(a)}, {"paragraphs", pars}});
  }
  return {{"version", "v2.0"}, {"data", data}};
}

TEST_F(RunNluTest, SquadV2WithWindowsAndTheNoAnswerThreshold) {
  auto w = [&](int k) { return words(k); };
  tmp.write("squad/train-v2.0.json", squad_file(rng, 200, "t", w).dump());
  tmp.write("squad/dev-v2.0.json", squad_file(rng, 50, "d", w).dump());
  // 32 tokens per input: contexts of up to ~48 tokens need two windows (stride 16).
  const std::string cmd =
      "run --task squad-v2 --data " + shq(path("squad")) + " --out " + shq(path("Q")) +
      " --steps 250 --batch-size 16 --lr 2e-3 --max-seq-len 32 --doc-stride 16 --max-query-len 8" +
      model_flags();
  auto r = run_cli(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_EQ(j["task"], "squad-v2");
  EXPECT_EQ(j["data"]["examples"], 100);
  for (const char* k :
       {"exact", "f1", "HasAns_exact", "NoAns_exact", "best_exact", "best_f1", "best_f1_thresh"})
    EXPECT_TRUE(j["summary"].contains(k)) << k;
  // Span extraction points at the answer; the threshold trades the answerable against the
  // unanswerable questions (the tiny model separates them only partly in 250 steps).
  EXPECT_GE(j["summary"]["HasAns_exact"].get<double>(), 90.0) << r.out;
  EXPECT_DOUBLE_EQ(j["summary"]["f1"].get<double>(), j["summary"]["best_f1"].get<double>());
  ASSERT_TRUE(j["run"].contains("na_threshold"));
  // The final predictions are "" exactly where score_diff (the na_prob file) exceeds the threshold.
  const double thresh = j["run"]["na_threshold"].get<double>();
  const auto preds = nlohmann::json::parse(core::read_file(path("Q/eval/predictions.json")));
  const auto na = nlohmann::json::parse(core::read_file(path("Q/eval/na_prob.json")));
  ASSERT_EQ(preds.size(), 100u);
  int empty = 0;
  for (const auto& [id, text] : preds.items()) {
    EXPECT_EQ(text.get<std::string>().empty(), na.at(id).get<double>() > thresh) << id;
    empty += text.get<std::string>().empty();
  }
  EXPECT_GT(empty, 0);
  EXPECT_NE(j["run"]["na_threshold_split"].get<std::string>().find("dev"), std::string::npos);
  // first-window: every answerable training answer is one word, so the first word of each
  // context, never no-answer; the model beats it on HasAns.
  ASSERT_EQ(j["baselines"].size(), 1u);
  EXPECT_EQ(j["baselines"][0]["name"], "first-window");
  const auto fw =
      nlohmann::json::parse(core::read_file(path("Q/baselines/first-window/predictions.json")));
  ASSERT_EQ(fw.size(), 100u);
  for (const auto& [id, text] : fw.items()) {
    EXPECT_FALSE(text.get<std::string>().empty()) << id;
    EXPECT_EQ(text.get<std::string>().find(' '), std::string::npos) << id << " " << text;
  }
  EXPECT_LT(j["baselines"][0]["summary"]["HasAns_exact"].get<double>(),
            j["summary"]["HasAns_exact"].get<double>());
  EXPECT_GT(j["run"]["eval_features"].get<int>(), 100);  // some questions have two windows
  // The official-format files are accepted by `unieval eval`, with the na_prob file.
  auto e = run_cli("eval --task squad-v2 --data " + shq(path("Q/eval/gold.json")) + " --pred " +
                   shq(path("Q/eval/predictions.json")) +
                   " --option na_prob_file=" + shq(path("Q/eval/na_prob.json")) + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_DOUBLE_EQ(last_json_line(e.out)["summary"]["best_f1"].get<double>(),
                   j["summary"]["best_f1"].get<double>());
  // Threshold tuned on an explicit dev split (here the first half of dev, scored on the second).
  auto d =
      run_cli("run --task squad-v2 --data " + shq(path("squad")) + " --out " + shq(path("Q2")) +
              " --eval-split 'dev[50:]' --dev-split 'dev[:50]' --steps 30 --batch-size 16 --lr "
              "2e-3 --max-seq-len 32"
              " --doc-stride 16 --max-query-len 8" +
              model_flags());
  ASSERT_EQ(d.exit_code, 0) << d.err;
  nlohmann::json jd = last_json_line(d.out);
  EXPECT_EQ(jd["run"]["na_threshold_split"], "dev[:50]");
  EXPECT_EQ(jd["data"]["examples"], 50);
}

TEST_F(RunNluTest, CoqaExtractive) {
  auto story_file = [&](int n, const std::string& prefix) {
    nlohmann::json data = nlohmann::json::array();
    for (int s = 0; s < n; ++s) {
      const std::string code = kCodes[rng() % kCodes.size()];
      const std::string before = words(3 + static_cast<int>(rng() % 6));
      const std::string story = before + " the code is " + code + " . " + words(4);
      const int64_t at = static_cast<int64_t>(before.size() + 13);
      nlohmann::json qs = {{{"input_text", "what is the code ?"}, {"turn_id", 1}},
                           {{"input_text", "is it good ?"}, {"turn_id", 2}}};
      nlohmann::json as = {{{"input_text", code},
                            {"span_start", at},
                            {"span_end", at + static_cast<int64_t>(code.size())},
                            {"span_text", code},
                            {"turn_id", 1}},
                           {{"input_text", "unknown"},
                            {"span_start", -1},
                            {"span_end", -1},
                            {"span_text", "unknown"},
                            {"turn_id", 2}}};
      data.push_back({{"source", "mctest"},
                      {"id", prefix + std::to_string(s)},
                      {"filename", "f"},
                      {"story", story},
                      {"questions", qs},
                      {"answers", as}});
    }
    return nlohmann::json{{"version", "1.0"}, {"data", data}};
  };
  tmp.write("coqa/coqa-train-v1.0.json", story_file(120, "t").dump());
  tmp.write("coqa/coqa-dev-v1.0.json", story_file(20, "d").dump());
  auto r = run_cli("run --task coqa --data " + shq(path("coqa")) + " --out " + shq(path("C")) +
                   " --steps 150 --batch-size 16 --lr 2e-3 --max-seq-len 48 --max-query-len 16" +
                   model_flags());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_EQ(j["task"], "coqa");
  EXPECT_EQ(j["run"]["head"], "span+class");
  EXPECT_GE(j["summary"]["f1"].get<double>(), 80.0) << r.out;
  auto e = run_cli("eval --task coqa --data " + shq(path("C/eval/gold.json")) + " --pred " +
                   shq(path("C/eval/predictions.json")) + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_DOUBLE_EQ(last_json_line(e.out)["summary"]["f1"].get<double>(),
                   j["summary"]["f1"].get<double>());
}

TEST_F(RunNluTest, BadInputExitsTwoNamingFileAndIdWithoutARun) {
  const std::string glue =
      tmp.write("BAD/train.tsv", "sentence\tlabel\ngood film\t1\nbad film\tpositive\n");
  tmp.write("BAD/dev.tsv", "sentence\tlabel\ngood film\t1\n");
  auto r = run_cli("run --task glue-sst2 --data " + shq(path("BAD")) + " --out " + shq(path("RB")) +
                   " --steps 2" + model_flags());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(glue + ":3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("positive"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("RB")));

  auto w = [&](int k) { return words(k); };
  nlohmann::json sq = squad_file(rng, 3, "x", w);
  for (auto& art : sq["data"])
    for (auto& par : art["paragraphs"])
      for (auto& qa : par["qas"])
        qa["is_impossible"] = false, qa["answers"] = {{{"text", "red"}, {"answer_start", 5000}}};
  const std::string sqf = tmp.write("sqbad/train-v2.0.json", sq.dump());
  tmp.write("sqbad/dev-v2.0.json", sq.dump());
  r = run_cli("run --task squad-v2 --data " + shq(path("sqbad")) + " --out " + shq(path("RS")) +
              " --steps 2" + model_flags());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(sqf), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("question id x"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("RS")));

  nlohmann::json cq = {{"version", "1.0"},
                       {"data",
                        {{{"id", "st9"},
                          {"source", "m"},
                          {"story", "the code is red ."},
                          {"questions", {{{"input_text", "what ?"}, {"turn_id", 1}}}},
                          {"answers", nlohmann::json::array()}}}}};
  const std::string cqf = tmp.write("cqbad/coqa-train-v1.0.json", cq.dump());
  tmp.write("cqbad/coqa-dev-v1.0.json", cq.dump());
  r = run_cli("run --task coqa --data " + shq(path("cqbad")) + " --out " + shq(path("RC")) +
              " --steps 2" + model_flags());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(cqf), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("story st9 turn 1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("RC")));
}

}  // namespace
}  // namespace unieval::run_nlu_e2e_test
