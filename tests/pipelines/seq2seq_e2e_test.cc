// End to end through the `unieval` binary: the demo trains a tiny UniLM from scratch on a
// generated task (reverse 3-6 pseudo-words), decodes the 200 held-out examples with beam search,
// and must reach exact match >= 0.9 with a falling loss. Then finetune/decode on a small task:
// a stopped run resumed gives the same parameters as an uninterrupted one, and decode is
// resumable and batch-size invariant, decodes a repeated source once, and never emits an id the
// vocabulary has no line for.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io.h"
#include "models/io/safetensors.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/seq2seq_data.h"
#include "results/run_summary.h"
#include "tests/json_line.h"
#include "tests/schema_check.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

using testing::run_cli;
using testing::shq;
using testing::TempDir;

using testing::last_json_line;

TEST(DemoTest, TrainsDecodesAndReachesExactMatch) {
  auto r = run_cli("demo --json --threads 2 --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = last_json_line(r.out);
  ASSERT_TRUE(j.contains("exact_match")) << r.out;
  EXPECT_GE(j["exact_match"].get<double>(), 0.9) << r.out;
  EXPECT_LE(j["exact_match"].get<double>(), 1.0);
  EXPECT_LT(j["last_loss"].get<double>(), j["first_loss"].get<double>());
  EXPECT_EQ(j["examples"].get<int>(), 200);
}

// The same demo trained ERNIE-GEN's way (multi-flow, noised targets) and decoded by infilling.
TEST(DemoTest, ErnieGenArchReachesExactMatch) {
  auto r = run_cli("demo --json --threads 2 --no-progress --arch ernie-gen");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = last_json_line(r.out);
  EXPECT_GE(j["exact_match"].get<double>(), 0.9) << r.out;
  EXPECT_LT(j["last_loss"].get<double>(), j["first_loss"].get<double>());
  EXPECT_NE(r.out.find("| ernie-gen-tiny (demo) |"), std::string::npos) << r.out;
}

class FinetuneCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    models::SyntheticTaskOptions o;
    o.kind = "copy";
    o.n_words = 10;
    o.n_train = 64;
    o.n_dev = 4;
    o.n_test = 12;
    models::write_synthetic_task(models::make_synthetic_task(o), (tmp.path() / "data").string());
    nlohmann::json cfg = {{"vocab_size", 15},           {"hidden_size", 32},
                          {"num_hidden_layers", 2},     {"num_attention_heads", 4},
                          {"intermediate_size", 64},    {"max_position_embeddings", 32},
                          {"hidden_dropout_prob", 0.1}, {"attention_probs_dropout_prob", 0.1}};
    tmp.write("config.json", cfg.dump());
  }
  std::string finetune(const std::string& run, const std::string& extra) {
    return testing::finetune_args(
        "copy", tmp.path() / "config.json", tmp.path() / "data", tmp.path() / run,
        "--steps 12 --batch-size 8 --lr 1e-3 --threads 1 --no-progress --json " + extra);
  }
  TempDir tmp;
};

TEST_F(FinetuneCliTest, KilledRunResumesToTheSameParameters) {
  auto full = run_cli(finetune("full", ""));
  ASSERT_EQ(full.exit_code, 0) << full.err;
  auto part = run_cli(finetune("part", "--stop-after 5"));
  ASSERT_EQ(part.exit_code, 0) << part.err;
  EXPECT_FALSE(last_json_line(part.out)["finished"].get<bool>());
  // The run summary for dashboards, under its published schema.
  const auto summary_schema = nlohmann::json::parse(core::read_file(
      std::string(UNIEVAL_SOURCE_DIR) + "/results/schema/run_summary.v1.schema.json"));
  auto summary = [&](const std::string& rel) {
    auto j = nlohmann::json::parse(core::read_file((tmp.path() / rel).string()));
    EXPECT_EQ(testing::schema_problems(j, summary_schema), std::vector<std::string>{}) << rel;
    EXPECT_NO_THROW(results::validate_run_summary(j, rel));
    return j;
  };
  EXPECT_EQ(summary("part/summary.json")["status"], "stopped");
  EXPECT_EQ(summary("part/summary.json")["summary"]["steps"], 5);
  auto again = run_cli(finetune("part", ""));
  EXPECT_EQ(again.exit_code, 2) << "a second run into the same directory needs --resume";
  auto resumed = run_cli("finetune --out " + shq((tmp.path() / "part").string()) +
                         " --resume --no-progress --json");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_TRUE(last_json_line(resumed.out)["finished"].get<bool>());
  EXPECT_EQ(summary("part/summary.json")["status"], "finished");
  EXPECT_EQ(summary("part/summary.json")["command"], "finetune");
  EXPECT_EQ(summary("full/summary.json")["summary"]["last_loss"],
            last_json_line(full.out)["last_loss"]);
  EXPECT_EQ(last_json_line(resumed.out)["last_loss"], last_json_line(full.out)["last_loss"]);
  // Same weights byte for byte.
  const std::string a =
      core::read_file((tmp.path() / "full/checkpoint/model.safetensors").string());
  const std::string b =
      core::read_file((tmp.path() / "part/checkpoint/model.safetensors").string());
  EXPECT_TRUE(a == b);
  // And the same log, step by step (elapsed time aside).
  auto la = core::split_lines(core::read_file((tmp.path() / "full/log.jsonl").string()), "a");
  auto lb = core::split_lines(core::read_file((tmp.path() / "part/log.jsonl").string()), "b");
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) {
    auto ja = nlohmann::json::parse(la[i]), jb = nlohmann::json::parse(lb[i]);
    EXPECT_EQ(ja["step"], jb["step"]);
    EXPECT_EQ(ja["loss"], jb["loss"]);
  }

  // Decode: batch sizes 1 and 5 give the same output; an interrupted decode continues.
  const std::string run = shq((tmp.path() / "full").string());
  auto d1 = run_cli("decode --run " + run +
                    " --split test --beam 3 --max-len 8 --batch-size 1 --no-progress --out " +
                    shq((tmp.path() / "b1.txt").string()));
  ASSERT_EQ(d1.exit_code, 0) << d1.err;
  auto d5 = run_cli("decode --run " + run +
                    " --split test --beam 3 --max-len 8 --batch-size 5 --no-progress --out " +
                    shq((tmp.path() / "b5.txt").string()));
  ASSERT_EQ(d5.exit_code, 0) << d5.err;
  const std::string t1 = core::read_file((tmp.path() / "b1.txt").string());
  EXPECT_EQ(t1, core::read_file((tmp.path() / "b5.txt").string()));
  EXPECT_EQ(core::split_lines(t1, "b1").size(), 12u);
  // An interrupted decode (stopped after 2 batches of 5) continues where it stopped.
  const std::string pout = shq((tmp.path() / "p.txt").string());
  const std::string dcmd =
      "decode --run " + run +
      " --split test --beam 3 --max-len 8 --batch-size 5 --no-progress --json --out " + pout;
  auto d2 = run_cli(dcmd + " --stop-after 2");
  ASSERT_EQ(d2.exit_code, 0) << d2.err;
  EXPECT_FALSE(last_json_line(d2.out)["complete"].get<bool>());
  EXPECT_EQ(summary("p.txt.summary.json")["status"], "stopped");
  EXPECT_EQ(summary("p.txt.summary.json")["command"], "decode");
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "p.txt"));
  EXPECT_EQ(core::split_lines(core::read_file((tmp.path() / "p.txt.partial").string()), "p").size(),
            10u);
  auto d3 = run_cli(dcmd);
  ASSERT_EQ(d3.exit_code, 0) << d3.err;
  EXPECT_EQ(last_json_line(d3.out)["decoded_now"].get<int>(), 2);
  EXPECT_EQ(summary("p.txt.summary.json")["status"], "finished");
  EXPECT_EQ(summary("p.txt.summary.json")["summary"]["examples"], 12);
  EXPECT_EQ(core::read_file((tmp.path() / "p.txt").string()), t1);
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "p.txt.partial"));

  // Repeated source lines are decoded once: the 12 test lines with 5 repeats give 17 lines, each
  // its source's output from the run above, and only the 12 distinct sources are decoded (also
  // across a stop and resume). --no-dedupe decodes all 17 and writes the same file.
  const std::vector<std::string> src =
      core::split_lines(core::read_file((tmp.path() / "data/test.src").string()), "test.src");
  const std::vector<std::string> hyp1 = core::split_lines(t1, "b1");
  ASSERT_EQ(src.size(), 12u);
  const std::vector<size_t> order = {0, 1, 0, 2, 3, 4, 5, 11, 6, 7, 8, 9, 10, 11, 3, 3, 0};
  std::string rep_src, expected;
  for (const size_t i : order) {
    rep_src += src[i] + "\n";
    expected += hyp1[i] + "\n";
  }
  std::filesystem::create_directories(tmp.path() / "rep");
  tmp.write("rep/test.src", rep_src);
  const std::string rcmd = "decode --run " + run + " --data " + shq((tmp.path() / "rep").string()) +
                           " --split test --beam 3 --max-len 8 --batch-size 5 --no-progress --json";
  const std::string rout = shq((tmp.path() / "r.txt").string());
  auto r1 = run_cli(rcmd + " --stop-after 1 --out " + rout);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_EQ(core::split_lines(core::read_file((tmp.path() / "r.txt.partial").string()), "r").size(),
            5u);
  auto r2 = run_cli(rcmd + " --out " + rout);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const nlohmann::json j2 = last_json_line(r2.out);
  EXPECT_EQ(j2["examples"].get<int>(), 17);
  EXPECT_EQ(j2["distinct"].get<int>(), 12);
  EXPECT_EQ(j2["decoded_now"].get<int>(), 7);
  EXPECT_EQ(core::read_file((tmp.path() / "r.txt").string()), expected);
  auto r3 = run_cli(rcmd + " --no-dedupe --out " + shq((tmp.path() / "r_all.txt").string()));
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  EXPECT_EQ(last_json_line(r3.out)["distinct"].get<int>(), 17);
  EXPECT_EQ(last_json_line(r3.out)["decoded_now"].get<int>(), 17);
  EXPECT_EQ(core::read_file((tmp.path() / "r_all.txt").string()), expected);
}

TEST_F(FinetuneCliTest, BadInputsAreClearErrors) {
  auto r = run_cli("finetune --model-config " + shq((tmp.path() / "config.json").string()) +
                   " --data " + shq((tmp.path() / "nowhere").string()) + " --out " +
                   shq((tmp.path() / "x").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nowhere/"), std::string::npos)
      << "the error names the missing file: " << r.err;
  auto p = run_cli("finetune --preset nope --model-config x --data y --out z");
  EXPECT_EQ(p.exit_code, 2);
  if (!torch::cuda::is_available()) {
    auto c = run_cli(finetune("cuda", "--device cuda"));
    EXPECT_EQ(c.exit_code, 2) << "no CUDA here: a clear error, not a crash";
    EXPECT_NE(c.err.find("cuda"), std::string::npos) << c.err;
  }
  auto d = run_cli("decode --run " + shq((tmp.path() / "none").string()) + " --out x");
  EXPECT_EQ(d.exit_code, 2);
}

// A checkpoint whose config vocab_size is larger than its vocab.txt (the padded embedding rows
// of HF checkpoints): whatever the weights favour, no search emits an id without a vocabulary
// line (models/decoding/vocab_limit.h). The padded rows get the largest output bias, so without the mask
// every search picks them and decode fails on "token id out of range".
TEST_F(FinetuneCliTest, DecodeNeverEmitsAnIdWithoutAVocabularyEntry) {
  const int64_t padded = 40;
  nlohmann::json cfg =
      nlohmann::json::parse(core::read_file((tmp.path() / "config.json").string()));
  cfg["vocab_size"] = padded;
  tmp.write("padded.json", cfg.dump());
  const auto run = tmp.path() / "padded";
  auto f =
      run_cli(testing::finetune_args("copy", tmp.path() / "padded.json", tmp.path() / "data", run,
                                     "--steps 2 --batch-size 8 --threads 1 --no-progress"));
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto ckpt = run / "checkpoint";
  const models::Vocab vocab = models::Vocab::from_file((ckpt / "vocab.txt").string());
  const int64_t n = static_cast<int64_t>(vocab.size());
  ASSERT_LT(n, padded) << "the test needs padded rows";
  const std::string weights = (ckpt / "model.safetensors").string();
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  {
    auto st = models::SafetensorsFile::open(weights);
    for (const auto& info : st.tensors()) tensors.emplace_back(info.name, st.tensor(info));
  }
  bool biased = false;
  for (auto& [name, t] : tensors)
    if (name == "cls.predictions.bias") {
      t.narrow(0, n, padded - n).fill_(100.0);
      biased = true;
    }
  ASSERT_TRUE(biased) << "no cls.predictions.bias in " << weights;
  models::write_safetensors(weights, tensors);

  for (const std::string search :
       {"--beam 1", "--beam 3", "--beam 3 --search unilm", "--sample --seed 1"}) {
    const auto out = tmp.path() / "padded.txt";
    std::filesystem::remove(out);
    auto d = run_cli("decode --run " + shq(run.string()) +
                     " --split test --max-len 6 --threads 1 --no-progress " + search + " --out " +
                     shq(out.string()));
    ASSERT_EQ(d.exit_code, 0) << search << ": " << d.err;
    const auto lines = core::split_lines(core::read_file(out.string()), out.string());
    ASSERT_EQ(lines.size(), 12u) << search;
    for (const auto& line : lines) {
      std::istringstream words(line);
      for (std::string w; words >> w;)
        EXPECT_TRUE(vocab.contains(w)) << search << ": '" << w << "' in '" << line << "'";
    }
  }
}

}  // namespace
}  // namespace unieval
