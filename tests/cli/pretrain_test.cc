// `unieval pretrain` through the binary: a short run on a generated corpus (JSON summary, log,
// checkpoint), its checkpoint fine-tuned by `unieval finetune --model`, and bad inputs (exit 2).
// Skipped when the binary was built without LibTorch.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/io.h"
#include "tests/json_line.h"
#include "tests/schema_check.h"
#include "tests/test_util.h"

namespace {

using unieval::testing::last_json_line;
using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;
namespace core = unieval::core;

#define SKIP_WITHOUT_PRETRAIN()                                                  \
  do {                                                                           \
    if (run_cli("pretrain --help").exit_code != 0)                               \
      GTEST_SKIP() << "this unieval was built without LibTorch (no `pretrain`)"; \
  } while (0)

std::vector<std::string> words() {
  std::vector<std::string> w;
  for (char a = 'a'; a <= 'f'; ++a)
    for (char b = 'a'; b <= 'e'; ++b) w.push_back(std::string("w") + a + b);
  return w;
}

struct Fixture {
  TempDir tmp;
  std::string vocab, config, corpus, data;
  explicit Fixture(bool with_mask = true) {
    std::string v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n";
    if (with_mask) v += "[MASK]\n";
    for (const auto& w : words()) v += w + "\n";
    vocab = tmp.write("vocab.txt", v);
    nlohmann::json c = {{"vocab_size", 40},        {"hidden_size", 32},
                        {"num_hidden_layers", 2},  {"num_attention_heads", 4},
                        {"intermediate_size", 64}, {"max_position_embeddings", 64},
                        {"type_vocab_size", 6}};
    config = tmp.write("config.json", c.dump());
    std::mt19937 rng(5);
    const auto w = words();
    std::string text;
    for (int d = 0; d < 20; ++d) {
      for (int s = 0; s < 5; ++s) {
        const int n = 5 + static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) text += (i ? " " : "") + w[rng() % w.size()];
        text += "\n";
      }
      text += "\n";
    }
    corpus = tmp.write("corpus.txt", text);
    std::string src, tgt;
    for (int i = 0; i < 12; ++i) {
      src += w[i] + " " + w[i + 1] + " " + w[i + 2] + "\n";
      tgt += w[i + 2] + " " + w[i] + "\n";
    }
    tmp.write("data/train.src", src);
    tmp.write("data/train.tgt", tgt);
    data = (tmp.path() / "data").string();
  }
  std::string run(const std::string& name) const { return (tmp.path() / name).string(); }
  std::string args(const std::string& corpus_path, const std::string& out) const {
    return "pretrain --corpus " + shq(corpus_path) + " --model-config " + shq(config) +
           " --vocab " + shq(vocab) + " --out " + shq(out) +
           " --threads 1 --no-progress --batch-size 12 --max-len 32 --lr 2e-3";
  }
};

TEST(PretrainCliTest, RunsToTheStepBudgetAndItsCheckpointFineTunes) {
  SKIP_WITHOUT_PRETRAIN();
  Fixture f;
  const std::string p = f.run("pt");
  auto r = run_cli(f.args(f.corpus, p) + " --steps 50 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = last_json_line(r.out);
  EXPECT_EQ(j["steps"], 50);
  EXPECT_TRUE(j["finished"].get<bool>());
  ASSERT_TRUE(j["loss"].is_number());
  EXPECT_LT(j["loss"].get<double>(), j["first_loss"].get<double>());
  for (const char* k : {"bidirectional", "seq2seq", "left-to-right", "right-to-left", "nsp"})
    EXPECT_TRUE(j["objective_loss"].contains(k)) << k;
  EXPECT_TRUE(
      std::filesystem::exists(std::filesystem::path(p) / "checkpoint" / "model.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(p) / "corpus.shard"));
  std::ifstream log(std::filesystem::path(p) / "log.jsonl");
  int lines = 0;
  for (std::string l; std::getline(log, l);) ++lines;
  EXPECT_EQ(lines, 50);
  // The run summary for dashboards, under its published schema.
  std::ifstream schema_in(std::string(UNIEVAL_SOURCE_DIR) +
                          "/results/schema/run_summary.v1.schema.json");
  std::ifstream summary_in(std::filesystem::path(p) / "summary.json");
  const auto schema = nlohmann::json::parse(schema_in), summary = nlohmann::json::parse(summary_in);
  EXPECT_EQ(unieval::testing::schema_problems(summary, schema), std::vector<std::string>{});
  EXPECT_EQ(summary["command"], "pretrain");
  EXPECT_EQ(summary["status"], "finished");
  EXPECT_EQ(summary["summary"]["steps"], 50);
  // The curves: one per objective (several here), and the learning rate.
  auto plot = run_cli("plot --run " + shq(p) + " --out -");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  for (const char* s :
       {"\"loss\"", "\"loss bidirectional\"", "\"loss seq2seq\"", "\"loss left-to-right\"",
        "\"loss right-to-left\"", "\"loss nsp\"", "\"lr\"", "\"tokens/s\""})
    EXPECT_NE(plot.out.find(std::string("<path data-series=") + s), std::string::npos) << s;
  // A second call without --resume refuses to overwrite; with --resume it is already done.
  EXPECT_EQ(run_cli(f.args(f.corpus, p) + " --steps 50").exit_code, 2);
  auto again = run_cli("pretrain --out " + shq(p) + " --resume --json --no-progress");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(last_json_line(again.out)["steps"], 50);
  EXPECT_FALSE(last_json_line(again.out)["shard_built"].get<bool>());

  // The pretrained checkpoint is a --model directory for fine-tuning.
  auto ft = run_cli("finetune --model " + shq(p + "/checkpoint") + " --data " + shq(f.data) +
                    " --out " + shq(f.run("ft")) + " --steps 3 --threads 1 --no-progress --json");
  ASSERT_EQ(ft.exit_code, 0) << ft.err;
  EXPECT_EQ(last_json_line(ft.out)["steps"], 3);
}

std::vector<nlohmann::json> log_lines(const std::string& run) {
  std::ifstream in(std::filesystem::path(run) / "log.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(nlohmann::json::parse(l));
  return out;
}

nlohmann::json run_json(const std::string& run) {
  std::ifstream in(std::filesystem::path(run) / "run.json");
  return nlohmann::json::parse(in);
}

// --resume with --steps / --tokens raises a run's budget, also after it finished: the run goes on
// with the learning rate a run of the raised budget has at those steps, and run.json says so. A
// lower budget is refused (exit 2, run.json untouched); the same budget is a plain resume.
TEST(PretrainCliTest, ResumeWithALargerBudgetFollowsTheRaisedSchedule) {
  SKIP_WITHOUT_PRETRAIN();
  Fixture f;
  const std::string a = f.run("a"), b = f.run("b");
  const std::string common = " --warmup 0.1 --save-every 5 --objectives bidirectional --json";
  ASSERT_EQ(run_cli(f.args(f.corpus, a) + common + " --steps 20").exit_code, 0);
  auto raised = run_cli("pretrain --out " + shq(a) + " --resume --steps 30 --threads 1 --json");
  ASSERT_EQ(raised.exit_code, 0) << raised.err;
  EXPECT_EQ(last_json_line(raised.out)["steps"], 30);
  EXPECT_EQ(last_json_line(raised.out)["objectives"], "bidirectional");  // run.json's, not null
  EXPECT_TRUE(last_json_line(raised.out)["finished"].get<bool>());
  ASSERT_EQ(run_cli(f.args(f.corpus, b) + common + " --steps 30").exit_code, 0);
  const auto la = log_lines(a), lb = log_lines(b);
  ASSERT_EQ(la.size(), 30u);
  ASSERT_EQ(lb.size(), 30u);
  bool before_differs = false;
  for (size_t i = 0; i < 30; ++i) {
    ASSERT_EQ(la[i]["step"], static_cast<int>(i) + 1);
    if (i < 20)
      before_differs = before_differs || la[i]["lr"] != lb[i]["lr"];
    else
      EXPECT_EQ(la[i]["lr"].get<double>(), lb[i]["lr"].get<double>()) << "step " << i + 1;
  }
  EXPECT_TRUE(before_differs) << "the first 20 steps ran on the 20-step schedule";
  EXPECT_GT(la[20]["lr"].get<double>(), la[19]["lr"].get<double>());  // 0 at the old end
  auto info = run_json(a);
  EXPECT_EQ(info["total_steps"], 30);
  EXPECT_EQ(info["train"]["max_steps"], 30);
  ASSERT_EQ(info["budget_changes"].size(), 1u);
  EXPECT_EQ(
      info["budget_changes"][0],
      (nlohmann::json{
          {"at_step", 20}, {"total_steps_before", 20}, {"total_steps_after", 30}, {"steps", 30}}));

  // Lower: refused, naming run.json and both budgets; nothing changes.
  auto lower = run_cli("pretrain --out " + shq(a) + " --resume --steps 25 --threads 1");
  EXPECT_EQ(lower.exit_code, 2);
  EXPECT_NE(lower.err.find("run.json"), std::string::npos) << lower.err;
  EXPECT_NE(lower.err.find("25 steps, fewer than the run's 30"), std::string::npos) << lower.err;
  EXPECT_EQ(run_json(a), info);
  EXPECT_EQ(log_lines(a).size(), 30u);
  // The same budget: a plain resume of a finished run.
  auto same = run_cli("pretrain --out " + shq(a) + " --resume --steps 30 --threads 1 --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(last_json_line(same.out)["steps"], 30);
  EXPECT_EQ(run_json(a), info);
  // In input positions: 12 examples x 32 tokens a step, so 15,360 positions are 40 steps.
  auto tokens = run_cli("pretrain --out " + shq(a) + " --resume --tokens 15360 --threads 1 --json");
  ASSERT_EQ(tokens.exit_code, 0) << tokens.err;
  EXPECT_EQ(last_json_line(tokens.out)["steps"], 40);
  info = run_json(a);
  EXPECT_EQ(info["total_steps"], 40);
  EXPECT_EQ(info["train"]["tokens"], 15360);
  ASSERT_EQ(info["budget_changes"].size(), 2u);
  EXPECT_EQ(info["budget_changes"][1]["at_step"], 30);
  EXPECT_EQ(info["budget_changes"][1]["tokens"], 15360);
  EXPECT_EQ(log_lines(a).size(), 40u);
}

// A raised budget reaches run.json only once every input check of the resumed run has passed: a
// resume that fails later (here its vocabulary) leaves run.json as it was, byte for byte.
TEST(PretrainCliTest, ARaiseWhoseLaterChecksFailLeavesRunJsonAsItWas) {
  SKIP_WITHOUT_PRETRAIN();
  Fixture f;
  const std::string a = f.run("a");
  ASSERT_EQ(run_cli(f.args(f.corpus, a) + " --objectives bidirectional --steps 10").exit_code, 0);
  const std::string run_json_path = a + "/run.json", before = core::read_file(run_json_path);
  const std::string vocab_path = a + "/vocab.txt", vocab = core::read_file(vocab_path);
  core::write_file_atomic(vocab_path, "w1\nw2\n");  // no [CLS], [SEP], [MASK]
  auto r = run_cli("pretrain --out " + shq(a) + " --resume --steps 20 --threads 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("vocab.txt"), std::string::npos) << r.err;
  EXPECT_EQ(core::read_file(run_json_path), before);
  // With the vocabulary back, the same call raises the run and records it.
  core::write_file_atomic(vocab_path, vocab);
  auto ok = run_cli("pretrain --out " + shq(a) + " --resume --steps 20 --threads 1 --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(last_json_line(ok.out)["steps"], 20);
  const auto info = nlohmann::json::parse(core::read_file(run_json_path));
  EXPECT_EQ(info["total_steps"], 20);
  ASSERT_EQ(info["budget_changes"].size(), 1u);
  EXPECT_EQ(info["budget_changes"][0]["at_step"], 10);
}

// ERNIE-GEN pre-training (--objectives ernie-gen): fragments + multi-flow loss, resumable to the same
// weights, and its checkpoint carries the architecture into fine-tuning and decoding.
TEST(PretrainCliTest, ErnieGenObjectiveTrainsResumesAndCarriesItsArchitecture) {
  SKIP_WITHOUT_PRETRAIN();
  Fixture f;
  const std::string p = f.run("eg");
  const std::string base =
      f.args(f.corpus, p) + " --objectives ernie-gen --span-bigrams 20 --span-trigrams 5";
  auto r = run_cli(base + " --steps 30 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = last_json_line(r.out);
  EXPECT_EQ(j["steps"], 30);
  EXPECT_LT(j["loss"].get<double>(), j["first_loss"].get<double>());
  EXPECT_TRUE(j["objective_loss"].contains("word"));
  EXPECT_TRUE(j["objective_loss"].contains("span"));
  const auto cfg = nlohmann::json::parse(core::read_file(p + "/checkpoint/config.json"));
  EXPECT_EQ(cfg["unieval_arch"], "ernie-gen");
  const auto info = nlohmann::json::parse(core::read_file(p + "/run.json"));
  EXPECT_EQ(info["train"]["span_lambda"], 0.5);
  EXPECT_EQ(info["train"]["noise_prob"], 0.05);
  const auto log = core::read_file(p + "/log.jsonl");
  EXPECT_NE(log.find("\"span\""), std::string::npos);
  // Stopped after 12 steps and resumed: the same weights as 30 uninterrupted steps.
  const std::string q = f.run("eg2");
  ASSERT_EQ(run_cli(f.args(f.corpus, q) +
                    " --objectives ernie-gen --span-bigrams 20 --span-trigrams 5 --steps 30 "
                    "--stop-after 12")
                .exit_code,
            0);
  // The same thread count as the first call (bit identity holds per thread count; LibTorch's default
  // is one thread per physical core, 2 on a 2-core VM without hyperthreads).
  ASSERT_EQ(run_cli("pretrain --out " + shq(q) + " --resume --threads 1 --no-progress").exit_code,
            0);
  EXPECT_EQ(core::read_file(q + "/checkpoint/model.safetensors"),
            core::read_file(p + "/checkpoint/model.safetensors"));
  // Fine-tuning from it uses multi-flow training without being told, and decodes by infilling.
  auto ft = run_cli("finetune --model " + shq(p + "/checkpoint") + " --data " + shq(f.data) +
                    " --out " + shq(f.run("ft")) + " --steps 3 --threads 1 --no-progress --json");
  ASSERT_EQ(ft.exit_code, 0) << ft.err;
  const auto ft_info = nlohmann::json::parse(core::read_file(f.run("ft") + "/run.json"));
  EXPECT_EQ(ft_info["train"]["arch"], "ernie-gen");
  auto dec = run_cli("decode --run " + shq(f.run("ft")) + " --split train --out " +
                     shq(f.run("ft/train.hyp")) + " --max-len 4 --threads 1 --no-progress");
  ASSERT_EQ(dec.exit_code, 0) << dec.err;
  EXPECT_EQ(core::read_lines(f.run("ft/train.hyp")).size(), 12u);
  // --arch unilm overrides the checkpoint's architecture.
  auto ft2 =
      run_cli("finetune --model " + shq(p + "/checkpoint") + " --data " + shq(f.data) + " --out " +
              shq(f.run("ft2")) + " --steps 1 --arch unilm --threads 1 --no-progress");
  ASSERT_EQ(ft2.exit_code, 0) << ft2.err;
  EXPECT_FALSE(
      nlohmann::json::parse(core::read_file(f.run("ft2") + "/run.json"))["train"].contains("arch"));
  // Bad values exit 2.
  EXPECT_EQ(run_cli(f.args(f.corpus, f.run("bad")) +
                    " --objectives ernie-gen --span-lambda 1.5 --steps 1")
                .exit_code,
            2);
  EXPECT_EQ(run_cli("finetune --model " + shq(p + "/checkpoint") + " --data " + shq(f.data) +
                    " --out " + shq(f.run("bad2")) + " --steps 1 --arch xlnet --no-progress")
                .exit_code,
            2);
}

// Casing follows the vocabulary as in finetune/run (issue #38): an all-lower-case vocabulary
// pre-trains uncased, one with upper-case pieces cased; --lowercase / --no-lowercase override,
// both at once is exit 2. run.json records the choice (a resumed run keeps it).
TEST(PretrainCliTest, CasingFollowsTheVocabularyUnlessAFlagSays) {
  SKIP_WITHOUT_PRETRAIN();
  Fixture f;
  auto lowercase_of = [&](const std::string& out) {
    return nlohmann::json::parse(core::read_file(out + "/run.json")).at("lowercase").get<bool>();
  };
  ASSERT_EQ(run_cli(f.args(f.corpus, f.run("u")) + " --steps 1").exit_code, 0);
  EXPECT_TRUE(lowercase_of(f.run("u")));
  // The same vocabulary with two cased pieces (still 40 entries).
  std::string v = core::read_file(f.vocab);
  v.replace(v.find("wfe\n"), 4, "Wfe\n");
  v.replace(v.find("wfd\n"), 4, "Wfd\n");
  const std::string cased_vocab = f.tmp.write("cased/vocab.txt", v);
  const std::string cased_args =
      "pretrain --corpus " + shq(f.corpus) + " --model-config " + shq(f.config) + " --vocab " +
      shq(cased_vocab) + " --threads 1 --no-progress --batch-size 12 --max-len 32 --steps 1";
  ASSERT_EQ(run_cli(cased_args + " --out " + shq(f.run("c"))).exit_code, 0);
  EXPECT_FALSE(lowercase_of(f.run("c")));
  ASSERT_EQ(run_cli(cased_args + " --lowercase --out " + shq(f.run("cl"))).exit_code, 0);
  EXPECT_TRUE(lowercase_of(f.run("cl")));
  ASSERT_EQ(run_cli(f.args(f.corpus, f.run("un")) + " --steps 1 --no-lowercase").exit_code, 0);
  EXPECT_FALSE(lowercase_of(f.run("un")));
  EXPECT_EQ(
      run_cli(f.args(f.corpus, f.run("both")) + " --steps 1 --lowercase --no-lowercase").exit_code,
      2);
}

TEST(PretrainCliTest, BadInputsExitTwo) {
  SKIP_WITHOUT_PRETRAIN();
  Fixture f;
  auto empty = run_cli(f.args(f.tmp.write("empty.txt", "\n\n"), f.run("e")) + " --steps 2");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(f.run("e")) / "checkpoint"));

  auto bad = run_cli(f.args(f.tmp.write("bad.txt", "waa wab\nwac \xc3\x28 wad\n"), f.run("b")) +
                     " --steps 2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.txt:2"), std::string::npos) << bad.err;

  Fixture no_mask(false);
  auto nm = run_cli(no_mask.args(no_mask.corpus, no_mask.run("m")) + " --steps 2");
  EXPECT_EQ(nm.exit_code, 2);
  EXPECT_NE(nm.err.find("[MASK]"), std::string::npos) << nm.err;

  auto unknown = run_cli(f.args(f.corpus, f.run("u")) + " --steps 2 --objectives sideways");
  EXPECT_EQ(unknown.exit_code, 2);
}

}  // namespace
