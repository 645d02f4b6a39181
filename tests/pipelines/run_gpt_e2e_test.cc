// `unieval run --arch gpt` through the binary, on fixtures written here (a word-level BPE
// vocabulary, tiny GPTs trained from scratch): SST-2 classification with the auxiliary LM loss
// (logged on its own), SNLI entailment without it (pairs without gold skipped), RACE and Story
// Cloze multiple choice, the zero-shot heuristics from a finished run's checkpoint; predictions accepted by
// `unieval eval`; bad options exit 2. `unieval decode --model` on the same vocabulary: no id past
// it is emitted, and a vocabulary past the config's vocab_size is refused.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <random>
#include <set>

#include "core/io.h"
#include "models/decoding/search_gpt.h"
#include "models/nn/gpt.h"
#include "models/tokenizer/bpe.h"
#include "models/training/gpt_finetune.h"
#include "tests/json_line.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::shq;
using testing::TempDir;

using testing::last_json_line;

const std::vector<std::string> kFiller = {"the", "a",     "film", "plot",  "story", "was",
                                          "is",  "quite", "long", "short", "music", "scene",
                                          "end", "and",   "of",   "it",    "this"};
const std::vector<std::string> kKeys = {"good",     "bad",      "maybe", "very",
                                        "positive", "negative", "yes",   "no"};

class RunGptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A BPE whose merges build every word whole: w1 w2 ... wn</w> -> one piece per word.
    std::set<std::string> pieces = {"<unk>", ".", ",</w>", ".</w>", "?</w>"};
    std::vector<std::pair<std::string, std::string>> merges;
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto* l : {&kFiller, &kKeys})
      for (const auto& w : *l) {
        std::string cur(1, w[0]);
        pieces.insert(cur);
        for (size_t i = 1; i < w.size(); ++i) {
          std::string next = std::string(1, w[i]) + (i + 1 == w.size() ? "</w>" : "");
          pieces.insert(next);
          if (seen.insert({cur, next}).second) merges.emplace_back(cur, next);
          cur += next;
          pieces.insert(cur);
        }
        if (w.size() == 1) pieces.insert(w + "</w>");
      }
    nlohmann::ordered_json enc;
    int id = 0;
    enc["<unk>"] = id++;
    for (const auto& p : pieces)
      if (p != "<unk>") enc[p] = id++;
    tmp.write("bpe/vocab.json", enc.dump());
    std::string m = "#version: 0.2\n";
    for (const auto& [a, b] : merges) m += a + " " + b + "\n";
    tmp.write("bpe/merges.txt", m);
    nlohmann::json cfg = {{"model_type", "openai-gpt"},
                          {"vocab_size", id},
                          {"n_embd", 32},
                          {"n_layer", 2},
                          {"n_head", 4},
                          {"n_positions", 64},
                          {"afn", "gelu"}};
    tmp.write("config.json", cfg.dump());
  }
  std::string words(int k) {
    std::string s;
    for (int i = 0; i < k; ++i) s += (s.empty() ? "" : " ") + kFiller[rng() % kFiller.size()];
    return s;
  }
  std::string path(const std::string& rel) const { return (tmp.path() / rel).string(); }
  std::string model_flags() const {
    return " --arch gpt --model-config " + shq(path("config.json")) + " --vocab " +
           shq(path("bpe")) +
           " --dropout 0 --classifier-dropout 0 --threads 2 --no-progress --json --lr 2e-3 "
           "--batch-size 16 --max-seq-len 40";
  }
  TempDir tmp;
  std::mt19937 rng{23};
};

TEST_F(RunGptTest, Sst2WithAuxiliaryLmThenZeroShotFromItsCheckpoint) {
  std::string tsv = "sentence\tlabel\n";
  std::vector<int> labels;
  for (int i = 0; i < 500; ++i) {
    const int label = static_cast<int>(rng() % 2);
    labels.push_back(label);
    tsv += words(1 + static_cast<int>(rng() % 3)) + " " + (label ? "good" : "bad") + " " +
           words(static_cast<int>(rng() % 3)) + " \t" + std::to_string(label) + "\n";
  }
  tmp.write("SST-2/dev.tsv", tsv);
  auto r = run_cli("run --task glue-sst2 --data " + shq(path("SST-2")) +
                   " --train-split 'dev[:400]' --eval-split 'dev[400:]'" + " --out " +
                   shq(path("R")) + " --steps 100" + model_flags());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_EQ(j["task"], "glue-sst2");
  EXPECT_GE(j["summary"]["accuracy"].get<double>(), 0.9) << j.dump();
  EXPECT_EQ(j["run"]["arch"], "gpt");
  EXPECT_EQ(j["run"]["input_form"], "[start] a [extract]");
  // The majority baseline: the training split's most frequent label (ties: the first to occur),
  // for every eval row, scored and tested against the model.
  int ones = 0;
  for (int i = 0; i < 400; ++i) ones += labels[i];
  const int majority = ones * 2 > 400 ? 1 : ones * 2 < 400 ? 0 : labels[0];
  int hits = 0;
  for (int i = 400; i < 500; ++i) hits += labels[i] == majority;
  ASSERT_EQ(j["baselines"].size(), 1u) << j.dump();
  EXPECT_EQ(j["baselines"][0]["name"], "majority");
  EXPECT_NE(j["baselines"][0]["description"].get<std::string>().find(
                "'" + std::to_string(majority) + "'"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(j["baselines"][0]["summary"]["accuracy"].get<double>(), hits / 100.0);
  EXPECT_LT(j["baselines"][0]["paired_bootstrap"]["scores"][0]["p_value"].get<double>(), 0.05);
  EXPECT_TRUE(fs::exists(tmp.path() / "R/baselines/majority/pred.tsv"));
  auto log = testing::read_jsonl(tmp.path() / "R/log.jsonl");
  ASSERT_EQ(log.size(), 100u);
  EXPECT_TRUE(log.back().contains("lm_loss"));
  EXPECT_LT(log.back()["lm_loss"].get<double>(), log.front()["lm_loss"].get<double>());
  // The predictions are what `unieval eval` reads.
  auto e = run_cli("eval --task glue-sst2 --data " + shq(path("R/eval/gold.tsv")) + " --pred " +
                   shq(path("R/eval/pred.tsv")) + " --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_DOUBLE_EQ(last_json_line(e.out)["summary"]["accuracy"].get<double>(),
                   j["summary"]["accuracy"].get<double>());
  // A finished run prints its result again.
  auto again = run_cli("run --task glue-sst2 --data " + shq(path("SST-2")) +
                       " --train-split 'dev[:400]' --eval-split 'dev[400:]'" + " --out " +
                       shq(path("R")) + " --steps 100" + model_flags());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(last_json_line(again.out)["summary"], j["summary"]);
  // The checkpoint carries the run's BPE files verbatim: it is a complete --model folder.
  for (const char* name : {"vocab.json", "merges.txt"})
    EXPECT_EQ(core::read_file((tmp.path() / "R/checkpoint" / name).string()),
              core::read_file(path(std::string("bpe/") + name)))
        << name;
  // Zero-shot (§5) from the fine-tuned checkpoint (an openai-gpt folder, no --vocab) runs end to end.
  auto z = run_cli("run --arch gpt --zero-shot --task glue-sst2 --data " + shq(path("SST-2")) +
                   " --eval-split 'dev[400:]' --model " + shq(path("R/checkpoint")) + " --out " +
                   shq(path("Z")) + " --max-seq-len 40 --threads 2 --no-progress --json");
  ASSERT_EQ(z.exit_code, 0) << z.err << z.out;
  nlohmann::json zj = last_json_line(z.out);
  EXPECT_EQ(zj["run"]["head"], "zero-shot");
  EXPECT_TRUE(fs::exists(tmp.path() / "Z/eval/pred.tsv"));

  // The Winograd schemas of §5 (DPRD), zero-shot from the same checkpoint: one prediction per
  // example that `unieval eval --task dprd` scores to the run's accuracy.
  std::string dprd;
  for (int i = 0; i < 12; ++i)
    dprd += "the film " + words(2) + " and it was " + words(2) + " .\nit\nfilm,plot\n" +
            (i % 2 ? "plot" : "film") + "\n\n";
  tmp.write("DPRD/test.c.txt", dprd);
  const std::string dprd_cmd = "run --arch gpt --task dprd --data " + shq(path("DPRD")) +
                               " --model " + shq(path("R/checkpoint")) +
                               " --max-seq-len 40 --threads 2 --no-progress --json";
  auto d = run_cli(dprd_cmd + " --zero-shot --out " + shq(path("D")));
  ASSERT_EQ(d.exit_code, 0) << d.err << d.out;
  nlohmann::json dj = last_json_line(d.out);
  auto de = run_cli("eval --task dprd --data " + shq(path("DPRD/test.c.txt")) + " --pred " +
                    shq(path("D/eval/pred.tsv")) + " --json");
  ASSERT_EQ(de.exit_code, 0) << de.err;
  EXPECT_EQ(last_json_line(de.out)["data"]["examples"], 12);
  EXPECT_DOUBLE_EQ(last_json_line(de.out)["summary"]["accuracy"].get<double>(),
                   dj["summary"]["accuracy"].get<double>());
  // DPRD has no training split, so no majority baseline, and the result says why.
  EXPECT_FALSE(dj.contains("baselines") && !dj["baselines"].is_null() && !dj["baselines"].empty())
      << dj.dump();
  EXPECT_NE(dj["notes"].dump().find("no majority baseline"), std::string::npos)
      << dj["notes"].dump();
  auto fine_tuned = run_cli(dprd_cmd + " --out " + shq(path("D2")));
  EXPECT_EQ(fine_tuned.exit_code, 2);
  EXPECT_NE(fine_tuned.err.find("--zero-shot"), std::string::npos) << fine_tuned.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "D2"));
}

// Data parallel (--nproc 2, Gloo): the two micro-batches of each step on two ranks give the
// one-process run's training log, predictions and score; zero-shot trains nothing and refuses it.
// Evaluate-only (#38): --no-train and --steps 0 make zero optimizer steps.
TEST_F(RunGptTest, NoTrainAndStepsZeroPredictWithTheInitialModel) {
  std::string tsv = "sentence\tlabel\n";
  for (int i = 0; i < 40; ++i) tsv += words(2) + " good \t1\n" + words(2) + " bad \t0\n";
  tmp.write("SST-2/dev.tsv", tsv);
  for (const std::string flag : {"--no-train", "--steps 0"}) {
    const std::string out = flag == "--no-train" ? "NT" : "S0";
    auto r = run_cli("run --task glue-sst2 --data " + shq(path("SST-2")) +
                     " --train-split 'dev[:60]' --eval-split 'dev[60:]'" + " --out " +
                     shq(path(out)) + " " + flag + model_flags());
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto st =
        nlohmann::json::parse(core::read_file(path(out + "/checkpoint/trainer_state.json")));
    EXPECT_EQ(st["step"], 0) << flag;
    EXPECT_EQ(st["total_steps"], 0) << flag;
  }
  EXPECT_EQ(core::read_file(path("NT/eval/pred.tsv")), core::read_file(path("S0/eval/pred.tsv")));
}

TEST_F(RunGptTest, TwoRanksEqualOneProcess) {
  std::string tsv = "sentence\tlabel\n";
  for (int i = 0; i < 160; ++i) {
    const int label = static_cast<int>(rng() % 2);
    tsv += words(1 + static_cast<int>(rng() % 3)) + " " + (label ? "good" : "bad") + " \t" +
           std::to_string(label) + "\n";
  }
  tmp.write("SST-2/dev.tsv", tsv);
  auto cmd = [&](const std::string& out) {
    return "run --task glue-sst2 --data " + shq(path("SST-2")) +
           " --train-split 'dev[:120]' --eval-split 'dev[120:]'" + " --out " + shq(path(out)) +
           " --steps 6 --accum 2" + model_flags();
  };
  auto one = run_cli(cmd("one"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_cli(cmd("two") + " --nproc 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(last_json_line(two.out)["summary"], last_json_line(one.out)["summary"]);
  EXPECT_EQ(core::read_file(path("two/eval/pred.tsv")), core::read_file(path("one/eval/pred.tsv")));
  const auto l1 = testing::read_jsonl(tmp.path() / "one/log.jsonl"),
             l2 = testing::read_jsonl(tmp.path() / "two/log.jsonl");
  ASSERT_EQ(l1.size(), 6u);
  ASSERT_EQ(l2.size(), 6u);
  for (size_t i = 0; i < l1.size(); ++i) {
    for (const char* k : {"loss", "task_loss", "lm_loss"})
      EXPECT_NEAR(l2[i][k].get<double>(), l1[i][k].get<double>(), 1e-6) << k << " step " << i;
    EXPECT_EQ(l2[i]["tokens"], l1[i]["tokens"]);
  }
  auto z = run_cli("run --arch gpt --zero-shot --task glue-sst2 --data " + shq(path("SST-2")) +
                   " --eval-split 'dev[120:]' --model " + shq(path("one/checkpoint")) + " --out " +
                   shq(path("Z")) + " --max-seq-len 40 --threads 1 --no-progress --nproc 2");
  EXPECT_EQ(z.exit_code, 2);
  EXPECT_NE(z.err.find("--zero-shot trains nothing"), std::string::npos) << z.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "Z"));
}

TEST_F(RunGptTest, SnliEntailmentWithoutAuxiliaryLm) {
  // Hypothesis word decides: good -> entailment, bad -> contradiction, maybe -> neutral.
  const std::vector<std::string> key = {"good", "maybe", "bad"},
                                 gold = {"entailment", "neutral", "contradiction"};
  auto file = [&](int n, bool with_dash) {
    std::string s;
    for (int i = 0; i < n; ++i) {
      const int k = static_cast<int>(rng() % 3);
      nlohmann::json o = {{"sentence1", words(2 + static_cast<int>(rng() % 3))},
                          {"sentence2", words(1) + " " + key[k]},
                          {"gold_label", with_dash && i % 10 == 0 ? "-" : gold[k]},
                          {"pairID", "p" + std::to_string(i)}};
      s += o.dump() + "\n";
    }
    return s;
  };
  tmp.write("snli/snli_1.0_train.jsonl", file(400, true));
  tmp.write("snli/snli_1.0_test.jsonl", file(120, true));
  auto r = run_cli("run --task snli --data " + shq(path("snli")) + " --out " + shq(path("S")) +
                   " --steps 100 --lm-coef 0" + model_flags());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_GE(j["summary"]["accuracy"].get<double>(), 0.9) << j.dump();
  EXPECT_EQ(j["run"]["train_examples"], 360);  // the 40 pairs without gold are skipped
  auto log = testing::read_jsonl(tmp.path() / "S/log.jsonl");
  EXPECT_FALSE(log.back().contains("lm_loss"));
  EXPECT_EQ(j["run"]["request"]["lm_coef"], 0.0);
}

TEST_F(RunGptTest, RaceMultipleChoiceAndZeroShot) {
  // The correct option is the one holding "yes"; articles in middle/ and high/ folders.
  auto article = [&](const std::string& dir, int n, int idx) {
    nlohmann::json a;
    a["id"] = dir + std::to_string(idx) + ".txt";
    a["article"] = words(6);
    a["questions"] = nlohmann::json::array();
    a["options"] = nlohmann::json::array();
    a["answers"] = nlohmann::json::array();
    for (int q = 0; q < n; ++q) {
      const int right = static_cast<int>(rng() % 4);
      nlohmann::json opts = nlohmann::json::array();
      for (int k = 0; k < 4; ++k) opts.push_back(words(1) + (k == right ? " yes" : " no"));
      a["questions"].push_back(words(2) + " ?");
      a["options"].push_back(opts);
      a["answers"].push_back(std::string(1, static_cast<char>('A' + right)));
    }
    return a.dump();
  };
  for (int i = 0; i < 60; ++i)
    tmp.write(
        "RACE/train/" + std::string(i % 2 ? "high" : "middle") + "/" + std::to_string(i) + ".txt",
        article(i % 2 ? "high" : "middle", 5, i));
  for (int i = 0; i < 20; ++i)
    tmp.write(
        "RACE/test/" + std::string(i % 2 ? "high" : "middle") + "/" + std::to_string(i) + ".txt",
        article(i % 2 ? "high" : "middle", 5, i));
  auto r = run_cli("run --task race --data " + shq(path("RACE")) + " --out " + shq(path("M")) +
                   " --steps 120" + model_flags());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_GE(j["summary"]["accuracy"].get<double>(), 0.9) << j.dump();
  EXPECT_EQ(j["run"]["head"], "multiple-choice");
  ASSERT_EQ(j["baselines"].size(), 1u) << j.dump();
  EXPECT_NE(j["baselines"][0]["description"].get<std::string>().find("most frequent answer"),
            std::string::npos);
  EXPECT_LT(j["baselines"][0]["summary"]["accuracy"].get<double>(),
            0.5);  // 4 options, drawn uniformly
  auto z =
      run_cli("run --arch gpt --zero-shot --task race --data " + shq(path("RACE")) + " --model " +
              shq(path("M/checkpoint")) + " --vocab " + shq(path("bpe")) + " --out " +
              shq(path("MZ")) + " --max-seq-len 40 --threads 2 --no-progress --json");
  ASSERT_EQ(z.exit_code, 0) << z.err << z.out;
  EXPECT_TRUE(last_json_line(z.out)["summary"].contains("accuracy"));
}

TEST_F(RunGptTest, StoryClozeTrainsOnValidationAndScoresTest) {
  // The right ending holds "good", the wrong one "bad"; GPT fine-tunes on the validation stories.
  auto csv = [&](int n) {
    std::string s =
        "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,"
        "RandomFifthSentenceQuiz1,"
        "RandomFifthSentenceQuiz2,AnswerRightEnding\n";
    for (int i = 0; i < n; ++i) {
      const int right = 1 + static_cast<int>(rng() % 2);
      s += "s" + std::to_string(i) + "," + words(2) + "," + words(2) + "," + words(1) + "," +
           words(2) + "," + words(1) + (right == 1 ? " good" : " bad") + "," + words(1) +
           (right == 2 ? " good" : " bad") + "," + std::to_string(right) + "\n";
    }
    return s;
  };
  tmp.write("cloze/cloze_test_val__spring2016 - cloze_test_ALL_val.csv", csv(300));
  tmp.write("cloze/cloze_test_test__spring2016 - cloze_test_ALL_test.csv", csv(100));
  auto r = run_cli("run --task story-cloze --data " + shq(path("cloze")) +
                   " --train-split val --eval-split test --out " + shq(path("C")) + " --steps 80" +
                   model_flags());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_GE(j["summary"]["accuracy"].get<double>(), 0.9) << j.dump();
  EXPECT_EQ(j["data"]["examples"], 100);
  // No train split of Story Cloze: an error naming the split, before RUN is written.
  auto bad = run_cli("run --task story-cloze --data " + shq(path("cloze")) + " --out " +
                     shq(path("C2")) + model_flags());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("train"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "C2"));
}

TEST_F(RunGptTest, BadOptionsExitTwo) {
  tmp.write("SST-2/dev.tsv", "sentence\tlabel\ngood\t1\nbad\t0\n");
  auto r = run_cli("run --task glue-sst2 --zero-shot --data " + shq(path("SST-2")) +
                   " --model-config " + shq(path("config.json")) + " --vocab " + shq(path("bpe")) +
                   " --out " + shq(path("X")));
  EXPECT_EQ(r.exit_code, 2) << r.err;  // --zero-shot without --arch gpt
  r = run_cli("run --task squad-v2 --data " + shq(path("SST-2")) + " --out " + shq(path("X")) +
              model_flags());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_cli("run --task glue-rte --zero-shot --data " + shq(path("SST-2")) + " --out " +
              shq(path("X")) + model_flags());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "X"));
}

// A GPT whose vocab_size is padded past its BPE vocabulary (the encoder's entries and the three
// specials): the padded rows get the largest logit at every position, so without the mask
// (models/decoding/vocab_limit.h) every search picks them and decode fails on "token id outside the BPE
// vocabulary". With it, greedy and beam search continue with the best real token and sampling
// stays inside the vocabulary.
TEST_F(RunGptTest, DecodeNeverEmitsAnIdWithoutAVocabularyEntry) {
  const models::BpeTokenizer tok = models::BpeTokenizer::from_dir(path("bpe"));
  const int64_t n = tok.size(), padded = n + 8;
  const int32_t good = tok.id("good</w>"), eos = tok.id(".</w>");
  ASSERT_GE(good, 0);
  ASSERT_GE(eos, 0);
  torch::manual_seed(1);
  models::GptModel model(models::GptConfig::tiny(padded, 0.0));
  {
    // The last block's output is the constant e_0 (ln_2: weight 0, bias e_0), so every position's
    // logits are column 0 of the tied token matrix: the padded rows 12, "good" 10, the EOS piece
    // -50 (never chosen), every other row 0. (The mask does not renormalise: padded rows far
    // above the rest would leave every real token so unlikely that beam search ends at once.)
    torch::NoGradGuard ng;
    auto& last = model->transformer->blocks.back();
    last->ln_2->weight.zero_();
    last->ln_2->bias.zero_();
    last->ln_2->bias[0] = 1.0;
    torch::Tensor col = model->transformer->tokens_embed->weight.select(1, 0);
    col.zero_();
    col.narrow(0, n, padded - n).fill_(12.0);
    col[good] = 10.0;
    col[eos] = -50.0;
  }
  {
    models::GptScorer unmasked(model, {{good}}, 4);
    models::StepRequest first;
    first.example = {0};
    ASSERT_GE(unmasked.step(first).argmax(-1).item<int64_t>(), n)
        << "the test needs the padded rows to win unmasked";
  }
  models::save_gpt_checkpoint(model, path("padded"));
  tmp.write("prompts.txt", "the film was\ngood\nit is quite long\n");
  for (const std::string search : {"--beam 1", "--beam 3", "--sample --seed 1"}) {
    const std::string out = path("padded.txt");
    fs::remove(out);
    auto d = run_cli("decode --model " + shq(path("padded")) + " --bpe " + shq(path("bpe")) +
                     " --input " + shq(path("prompts.txt")) + " --eos-token " + shq(".</w>") +
                     " --max-len 4 --threads 1 " + search + " --out " + shq(out));
    ASSERT_EQ(d.exit_code, 0) << search << ": " << d.err;
    const auto lines = core::split_lines(core::read_file(out), out);
    ASSERT_EQ(lines.size(), 3u) << search;
    for (const auto& line : lines) {
      if (search == "--sample --seed 1")
        EXPECT_FALSE(line.empty()) << search;  // EOS cannot come first
      else
        EXPECT_EQ(line, "good good good good") << search;
    }
  }
}

// A BPE encoder with more entries than the config's vocab_size: ids past the token rows. decode
// refuses it naming both files, before writing anything.
TEST_F(RunGptTest, DecodeRefusesABpeVocabularyLargerThanTheConfig) {
  const models::BpeTokenizer tok = models::BpeTokenizer::from_dir(path("bpe"));
  models::GptModel model(models::GptConfig::tiny(tok.encoder_size() - 1, 0.0));
  models::save_gpt_checkpoint(model, path("small"));
  tmp.write("prompts.txt", "the film\n");
  const std::string out = path("small.txt");
  auto d = run_cli("decode --model " + shq(path("small")) + " --bpe " + shq(path("bpe")) +
                   " --input " + shq(path("prompts.txt")) + " --eos-token " + shq(".</w>") +
                   " --threads 1 --out " + shq(out));
  EXPECT_EQ(d.exit_code, 2) << d.err;
  EXPECT_NE(d.err.find("bpe/vocab.json: has " + std::to_string(tok.encoder_size()) + " entries"),
            std::string::npos)
      << d.err;
  EXPECT_NE(d.err.find("small/config.json"), std::string::npos) << d.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace unieval
