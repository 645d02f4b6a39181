// `unieval run --task squad-qg` end to end through the binary, on a small Du-format fixture
// written here (nqg src-/tgt- files: 200 training, 20 dev, 40 test pairs of a templated
// question-generation task), a tiny model trained from scratch: the result validates against
// results/schema, re-running the finished run prints the same result, a run stopped mid-training
// and re-run ends with the same checkpoint and scores as an uninterrupted one, and bad input
// (missing split, ragged files, vocabulary vs checkpoint, other options for an existing RUN)
// exits 2 naming the file with RUN left as it was. The result carries the hypotheses'
// diagnostics and the baselines constant and copy-source, which the trained model beats
// (paired bootstrap, p < 0.05); --no-baselines leaves them out.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "core/io.h"
#include "results/run_result.h"
#include "tests/json_line.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::shq;
using testing::TempDir;

using testing::last_json_line;

// Required fields present, every top-level field documented, and the reader accepts it; the
// "run" block's required fields and sha256 patterns.
void expect_valid_result(const nlohmann::json& j) {
  const auto schema = nlohmann::json::parse(core::read_file(
      std::string(UNIEVAL_SOURCE_DIR) + "/results/schema/run_result.v1.schema.json"));
  for (const auto& f : schema["required"]) EXPECT_TRUE(j.contains(f.get<std::string>())) << f;
  for (const auto& [k, v] : j.items())
    EXPECT_TRUE(schema["properties"].contains(k)) << k << " undocumented";
  EXPECT_NO_THROW(results::run_result_from_json(j, "result"));
  ASSERT_TRUE(j.contains("run"));
  for (const auto& f : schema["properties"]["run"]["required"])
    EXPECT_TRUE(j["run"].contains(f.get<std::string>())) << f;
  const std::string sha = j["run"]["checkpoint_sha256"].get<std::string>();
  EXPECT_EQ(sha.size(), 64u);
  EXPECT_EQ(sha.find_first_not_of("0123456789abcdef"), std::string::npos);
  for (const auto& k : schema["properties"]["run"]["properties"].items()) (void)k;
  for (const auto& [k, v] : j["run"].items())
    EXPECT_TRUE(schema["properties"]["run"]["properties"].contains(k))
        << "run." << k << " undocumented";
}

class RunCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A templated QG task: "the N V the O ." -> "what did the N V ?"
    const std::vector<std::string> nouns = {"cat",    "dog",   "king",  "queen",
                                            "farmer", "pilot", "judge", "baker"};
    const std::vector<std::string> verbs = {"see", "find", "build", "paint", "sell", "hold"};
    const std::vector<std::string> objs = {"house", "boat", "map", "tree", "bridge", "wall", "car"};
    std::mt19937 rng(7);
    auto write_split = [&](const std::string& split, int n, fs::path dir) {
      std::string src, tgt;
      for (int i = 0; i < n; ++i) {
        const auto& a = nouns[rng() % nouns.size()];
        const auto& v = verbs[rng() % verbs.size()];
        const auto& o = objs[rng() % objs.size()];
        src += "the " + a + " " + v + " the " + o + " .\n";
        tgt += "what did the " + a + " " + v + " ?\n";
      }
      tmp.write((dir / ("src-" + split + ".txt")).string(), src);
      tmp.write((dir / ("tgt-" + split + ".txt")).string(), tgt);
    };
    write_split("train", 200, "qg");
    write_split("dev", 20, "qg");
    write_split("test", 40, "qg");
    std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nwhat\ndid\n.\n?\n";
    for (const auto* list : {&nouns, &verbs, &objs})
      for (const auto& w : *list) vocab += w + "\n";
    vocab_size = static_cast<int>(core::split_lines(vocab, "vocab").size());
    tmp.write("vocab.txt", vocab);
    nlohmann::json cfg = {{"vocab_size", vocab_size},   {"hidden_size", 32},
                          {"num_hidden_layers", 2},     {"num_attention_heads", 4},
                          {"intermediate_size", 64},    {"max_position_embeddings", 40},
                          {"hidden_dropout_prob", 0.0}, {"attention_probs_dropout_prob", 0.0}};
    tmp.write("config.json", cfg.dump());
  }
  std::string path(const std::string& rel) const { return (tmp.path() / rel).string(); }
  // 500 steps by default: with 60 (and up to ~300) the tiny model writes one question for every
  // sentence and does not beat the constant baseline (the result's diagnostics and baselines say so).
  std::string run_cmd(const std::string& out, const std::string& extra = "",
                      const std::string& data = "qg", int steps = 500, int dev_every = 100) const {
    return "run --task squad-qg --data " + shq(path(data)) + " --out " + shq(path(out)) +
           " --model-config " + shq(path("config.json")) + " --vocab " + shq(path("vocab.txt")) +
           " --train-limit 200 --eval-limit 40 --steps " + std::to_string(steps) +
           " --batch-size 16 --lr 2e-3 --warmup 0.1 --dev-every " + std::to_string(dev_every) +
           " --max-src-len 12 --max-tgt-len 10 --max-len 10 --threads 2 --no-progress --json "
           "--skip-metric meteor " +
           extra;
  }
  TempDir tmp;
  int vocab_size = 0;
};

TEST_F(RunCliTest, TrainsDecodesScoresAndResumes) {
  auto r = run_cli(run_cmd("run1"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  expect_valid_result(j);
  EXPECT_EQ(j["task"], "squad-qg");
  EXPECT_EQ(j["split"], "test");
  EXPECT_GT(j["data"]["examples"].get<int>(), 0);
  EXPECT_LE(j["data"]["examples"].get<int>(), 40);
  for (const char* s : {"bleu1", "bleu2", "bleu3", "bleu4", "rougeL"})
    EXPECT_TRUE(j["summary"].contains(s)) << s;
  EXPECT_EQ(j["run"]["eval_examples"], 40);
  EXPECT_EQ(j["run"]["train_examples"], 200);
  EXPECT_EQ(j["run"]["dev_examples"], 20);
  EXPECT_EQ(j["run"]["checkpoint"], "best");
  EXPECT_EQ(j["run"]["request"]["preset"], "squad-qg");
  EXPECT_EQ(j["run"]["request"]["decode"]["beam"], 1);  // the preset's (UniLM README) decoding
  EXPECT_EQ(j["run"]["data_files"].size(), 6u);         // train, dev, test src/tgt
  // The task is learnable: a tiny model gets most of the template right.
  EXPECT_GT(j["summary"]["bleu1"].get<double>(), 0.5) << r.out;
  // Dev loss in the log, and the best checkpoint kept.
  int dev_lines = 0;
  for (const auto& l : testing::read_jsonl(tmp.path() / "run1" / "log.jsonl"))
    dev_lines += l.contains("dev_loss");
  EXPECT_EQ(dev_lines, 5);
  EXPECT_TRUE(fs::exists(tmp.path() / "run1" / "best" / "model.safetensors"));
  // The leaderboard row.
  EXPECT_NE(r.out.find("unieval-run:squad-qg"), std::string::npos) << r.out;
  // Diagnostics of the hypotheses as scored.
  ASSERT_TRUE(j.contains("diagnostics")) << r.out;
  EXPECT_EQ(j["diagnostics"]["hypotheses"], j["data"]["examples"]);
  EXPECT_GT(j["diagnostics"]["mean_ref_words"].get<double>(), 0.0);
  EXPECT_NE(r.out.find("diagnostics: "), std::string::npos) << r.out;
  // The baselines, scored by the same adapter, each beaten by the trained model on BLEU-4 and
  // ROUGE-L with a paired-bootstrap p < 0.05 (1000 resamples, the run's seed), and printed as rows
  // under the model's row.
  ASSERT_TRUE(j.contains("baselines")) << r.out;
  EXPECT_FALSE(nlohmann::json::parse(core::read_file(path("run1/request.json")))
                   .contains("baselines"));  // on: absent
  std::map<std::string, nlohmann::json> baselines;
  for (const auto& b : j["baselines"]) baselines[b["name"].get<std::string>()] = b;
  ASSERT_EQ(baselines.size(), 2u) << j["baselines"].dump();
  for (const char* name : {"constant", "copy-source"}) {
    ASSERT_TRUE(baselines.count(name)) << name;
    const auto& b = baselines[name];
    EXPECT_EQ(b["pred"], path(std::string("run1/baselines/") + name + "/pred.txt"));
    EXPECT_EQ(core::read_lines(b["pred"].get<std::string>()).size(), 40u);
    EXPECT_FALSE(b["description"].get<std::string>().empty());
    for (const char* s : {"bleu1", "bleu4", "rougeL"})
      EXPECT_TRUE(b["summary"].contains(s)) << name << " " << s;
    const auto& pb = b["paired_bootstrap"];
    EXPECT_EQ(pb["resamples"], 1000);
    EXPECT_EQ(pb["seed"], j["run"]["request"]["finetune"]["seed"]);
    std::map<std::string, nlohmann::json> tests;
    for (const auto& t : pb["scores"]) tests[t["score"].get<std::string>()] = t;
    for (const char* s : {"bleu4", "rougeL"}) {
      ASSERT_TRUE(tests.count(s)) << name << " " << s << " " << pb.dump();
      EXPECT_GT(tests[s]["delta"].get<double>(), 0.0) << name << " " << s << " " << pb.dump();
      EXPECT_LT(tests[s]["p_value"].get<double>(), 0.05) << name << " " << s << " " << pb.dump();
      EXPECT_DOUBLE_EQ(tests[s]["baseline"].get<double>(), b["summary"][s].get<double>())
          << name << " " << s;
      EXPECT_DOUBLE_EQ(tests[s]["system"].get<double>(), j["summary"][s].get<double>())
          << name << " " << s;
    }
    const size_t model_row = r.out.find("| unieval-run:squad-qg");
    const size_t row = r.out.find(std::string("| baseline: ") + name);
    ASSERT_NE(row, std::string::npos) << r.out;
    EXPECT_LT(model_row, row) << r.out;
  }
  // constant: the most frequent training target, the same line for every example.
  const auto constant = core::read_lines(path("run1/baselines/constant/pred.txt"));
  for (const auto& line : constant) EXPECT_EQ(line, constant.front());
  EXPECT_EQ(constant.front().rfind("what did the ", 0), 0u) << constant.front();
  // copy-source: the first 6 words of each source (training targets are 6 words long).
  const auto copy = core::read_lines(path("run1/baselines/copy-source/pred.txt"));
  const auto sources = core::read_lines(path("run1/data/eval.src"));
  ASSERT_EQ(copy.size(), sources.size());
  for (size_t i = 0; i < copy.size(); ++i)
    EXPECT_EQ(copy[i], sources[i]) << i;  // "the N V the O ." is 6 words
  // The training curves beside the result, and `unieval plot` draws them again.
  const std::string curves = core::read_file(path("run1/curves.svg"));
  EXPECT_EQ(curves.rfind("<?xml", 0), 0u);
  for (const char* series :
       {"data-series=\"loss\"", "data-series=\"dev loss\"", "data-series=\"lr\""})
    EXPECT_NE(curves.find(series), std::string::npos) << series;
  auto plot = run_cli("plot --run " + shq(path("run1")) + " --out " + shq(path("c.svg")));
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_NE(core::read_file(path("c.svg")).find("data-series=\"dev loss\""), std::string::npos);

  // Re-running the finished run gives the same result (file untouched) and prints the same table.
  const std::string result_text = core::read_file(path("run1/result.json"));
  auto again = run_cli(run_cmd("run1"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(last_json_line(again.out), j);
  EXPECT_EQ(core::read_file(path("run1/result.json")), result_text);
  auto from_table = [](const std::string& out) {
    return out.substr(std::min(out.find("**squad-qg"), out.size()));
  };
  EXPECT_EQ(from_table(again.out), from_table(r.out));
  EXPECT_NE(from_table(again.out).find("| baseline: copy-source"), std::string::npos) << again.out;

  // Killed mid-training (--stop-after) and re-run: the same checkpoint and scores.
  auto part = run_cli(run_cmd("run2", "--stop-after 25"));
  ASSERT_EQ(part.exit_code, 0) << part.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "run2" / "result.json"));
  EXPECT_TRUE(fs::exists(tmp.path() / "run2" / "checkpoint"));
  auto rest = run_cli(run_cmd("run2"));
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  nlohmann::json j2 = last_json_line(rest.out);
  EXPECT_EQ(j2["run"]["checkpoint_sha256"], j["run"]["checkpoint_sha256"]);
  EXPECT_EQ(j2["run"]["hypotheses_sha256"], j["run"]["hypotheses_sha256"]);
  EXPECT_EQ(j2["summary"], j["summary"]);

  // Other options for an existing RUN: exit 2 naming request.json, the result untouched.
  auto other = run_cli(run_cmd("run1", "--beam 3"));
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("request.json"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("decode.beam"), std::string::npos) << other.err;
  EXPECT_EQ(core::read_file(path("run1/result.json")), result_text);
  // --no-baselines is part of the request: refused for run1, recorded in a new run, which has
  // the same model scores and no baselines.
  auto nob_other = run_cli(run_cmd("run1", "--no-baselines"));
  EXPECT_EQ(nob_other.exit_code, 2);
  EXPECT_NE(nob_other.err.find("baselines"), std::string::npos) << nob_other.err;
  auto nob = run_cli(run_cmd("run5", "--no-baselines"));
  ASSERT_EQ(nob.exit_code, 0) << nob.err;
  nlohmann::json j5 = last_json_line(nob.out);
  EXPECT_FALSE(j5.contains("baselines"));
  EXPECT_EQ(j5["summary"], j["summary"]);
  EXPECT_EQ(j5["run"]["request"]["baselines"], false);
  EXPECT_FALSE(fs::exists(tmp.path() / "run5" / "baselines"));
  EXPECT_EQ(nob.out.find("baseline: "), std::string::npos) << nob.out;

  // A checkpoint whose vocabulary size disagrees with --vocab: exit 2 naming the vocab file.
  tmp.write("vocab_big.txt", core::read_file(path("vocab.txt")) + "extra\n");
  auto mism = run_cli("run --task squad-qg --data " + shq(path("qg")) + " --out " +
                      shq(path("run3")) + " --model " + shq(path("run1/checkpoint")) + " --vocab " +
                      shq(path("vocab_big.txt")) + " --no-progress --skip-metric meteor");
  EXPECT_EQ(mism.exit_code, 2);
  EXPECT_NE(mism.err.find("vocab_big.txt"), std::string::npos) << mism.err;
  EXPECT_NE(mism.err.find("more than the vocab_size"), std::string::npos) << mism.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "run3"));

  // A checkpoint padded past its vocabulary (HF checkpoints pad vocab_size): accepted, as finetune
  // accepts it, and the row without an entry ("car", the last one) is never decoded.
  std::string small = core::read_file(path("vocab.txt"));
  small.erase(small.rfind("car\n"));
  tmp.write("vocab_small.txt", small);
  auto padded = run_cli(
      "run --task squad-qg --data " + shq(path("qg")) + " --out " + shq(path("run4")) +
      " --model " + shq(path("run1/checkpoint")) + " --vocab " + shq(path("vocab_small.txt")) +
      " --train-limit 40 --eval-limit 8 --steps 2 --batch-size 8 --max-src-len 12 --max-tgt-len 10"
      " --max-len 10 --threads 2 --no-progress --json --skip-metric meteor");
  ASSERT_EQ(padded.exit_code, 0) << padded.err;
  EXPECT_EQ(last_json_line(padded.out)["run"]["eval_examples"], 8);
  const auto hyps = core::read_lines(path("run4/eval/hyp.txt"));
  ASSERT_EQ(hyps.size(), 8u);
  for (const auto& h : hyps) EXPECT_EQ((" " + h + " ").find(" car "), std::string::npos) << h;
}

// --arch ernie-gen: ERNIE-GEN's preset (Table 1) with the flags on top, multi-flow fine-tuning and
// infilling decoding, a valid result.
// Evaluate-only runs (#38): --no-train and --steps 0 (zero, not "unset": the preset's epochs
// would run) make zero optimizer steps; the checkpoint is the initial model, decoded and scored.
// A run from that checkpoint with --model ... --no-train decodes the same hypotheses.
TEST_F(RunCliTest, NoTrainAndStepsZeroEvaluateTheInitialModel) {
  for (const std::string arch : {"unilm", "ernie-gen"}) {
    SCOPED_TRACE(arch);
    auto a = run_cli(run_cmd("nt-" + arch, "--arch " + arch + " --no-train"));
    ASSERT_EQ(a.exit_code, 0) << a.err << a.out;
    nlohmann::json j = last_json_line(a.out);
    expect_valid_result(j);
    EXPECT_EQ(j["run"]["train"]["steps"], 0);
    EXPECT_EQ(j["run"]["train"]["total_steps"], 0);
    const auto st = nlohmann::json::parse(
        core::read_file(path("nt-" + arch + "/checkpoint/trainer_state.json")));
    EXPECT_EQ(st["step"], 0);
    auto b = run_cli(run_cmd("s0-" + arch, "--arch " + arch, "qg", 0));
    ASSERT_EQ(b.exit_code, 0) << b.err << b.out;
    EXPECT_EQ(last_json_line(b.out)["run"]["train"]["total_steps"], 0);
    EXPECT_EQ(core::read_file(path("nt-" + arch + "/eval/hyp.txt")),
              core::read_file(path("s0-" + arch + "/eval/hyp.txt")));
    auto c = run_cli("run --task squad-qg --data " + shq(path("qg")) + " --out " +
                     shq(path("ck-" + arch)) + " --model " +
                     shq(path("nt-" + arch + "/checkpoint")) + " --arch " + arch +
                     " --no-train --eval-limit 40 --max-src-len 12 --max-tgt-len 10 --max-len 10 "
                     "--threads 2 --no-progress"
                     " --json --skip-metric meteor");
    ASSERT_EQ(c.exit_code, 0) << c.err << c.out;
    EXPECT_EQ(last_json_line(c.out)["run"]["train"]["total_steps"], 0);
    EXPECT_EQ(core::read_file(path("nt-" + arch + "/eval/hyp.txt")),
              core::read_file(path("ck-" + arch + "/eval/hyp.txt")));
  }
  auto neg = run_cli(run_cmd("neg", "", "qg", -1));
  EXPECT_EQ(neg.exit_code, 2) << neg.err;
}

TEST_F(RunCliTest, ErnieGenArchTrainsDecodesAndScores) {
  auto r = run_cli(run_cmd("eg", "--arch ernie-gen --noise-prob 0.2", "qg", 60, 20));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = last_json_line(r.out);
  expect_valid_result(j);
  EXPECT_EQ(j["run"]["request"]["preset"], "ernie-gen-base-squad-qg");
  EXPECT_EQ(j["run"]["request"]["finetune"]["arch"], "ernie-gen");
  EXPECT_EQ(j["run"]["request"]["finetune"]["noise_prob"], 0.2);
  const auto info = nlohmann::json::parse(core::read_file(path("eg/run.json")));
  EXPECT_EQ(info["train"]["arch"], "ernie-gen");
  // Learnable with infilling decoding too.
  EXPECT_GT(j["summary"]["bleu1"].get<double>(), 0.5) << r.out;
  // The official scripts' layout ([CLS] opens the target) trains and decodes as well.
  auto bos =
      run_cli(run_cmd("eg-bos", "--arch ernie-gen --noise-prob 0.2 --target-bos", "qg", 60, 20));
  ASSERT_EQ(bos.exit_code, 0) << bos.err;
  EXPECT_EQ(nlohmann::json::parse(core::read_file(path("eg-bos/run.json")))["train"]["target_bos"],
            true);
  EXPECT_GT(last_json_line(bos.out)["summary"]["bleu1"].get<double>(), 0.5) << bos.out;
  EXPECT_NE(last_json_line(bos.out)["run"]["hypotheses_sha256"], j["run"]["hypotheses_sha256"]);
  // UniLM's masking with the ERNIE-GEN layout is refused before anything is written.
  auto mixed = run_cli(run_cmd("eg-mixed", "--arch unilm --target-bos"));
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("target_bos"), std::string::npos) << mixed.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "eg-mixed"));
  // A checkpoint whose config.json names the architecture: run resolves it before it writes the
  // request, so request.json and the result say ernie-gen without --arch.
  fs::create_directories(tmp.path() / "egck");
  for (const char* f : {"model.safetensors", "vocab.txt"})
    fs::copy_file(tmp.path() / "eg" / "checkpoint" / f, tmp.path() / "egck" / f);
  auto ck_cfg = nlohmann::json::parse(core::read_file(path("eg/checkpoint/config.json")));
  ck_cfg["unieval_arch"] = "ernie-gen";
  tmp.write("egck/config.json", ck_cfg.dump());
  auto from_ck = run_cli("run --task squad-qg --data " + shq(path("qg")) + " --out " +
                         shq(path("eg-ck")) + " --model " + shq(path("egck")) +
                         " --steps 2 --eval-limit 4 --max-len 6 --threads 1"
                         " --no-progress --json --skip-metric meteor");
  ASSERT_EQ(from_ck.exit_code, 0) << from_ck.err;
  EXPECT_EQ(last_json_line(from_ck.out)["run"]["request"]["finetune"]["arch"], "ernie-gen");
  EXPECT_EQ(nlohmann::json::parse(core::read_file(path("eg-ck/run.json")))["train"]["arch"],
            "ernie-gen");
  auto bad = run_cli(run_cmd("eg-bad", "--arch xlnet"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("xlnet"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "eg-bad"));
}

TEST_F(RunCliTest, BadInputExitsTwoNamingTheFileAndWritesNothing) {
  auto missing = run_cli(run_cmd("bad1", "--eval-split nosuch"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("src-nosuch.txt"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find(path("qg")), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "bad1"));

  tmp.write("ragged/src-train.txt", "the cat see the map .\nthe dog see the map .\n");
  tmp.write("ragged/tgt-train.txt", "what did the cat see ?\n");
  tmp.write("ragged/src-test.txt", "the cat see the map .\n");
  tmp.write("ragged/tgt-test.txt", "what did the cat see ?\n");
  auto ragged = run_cli(run_cmd("bad2", "", "ragged"));
  EXPECT_EQ(ragged.exit_code, 2);
  EXPECT_NE(ragged.err.find("tgt-train.txt"), std::string::npos) << ragged.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "bad2"));

  // A decoding word the vocabulary lacks: refused before training, not after it.
  auto word = run_cli(run_cmd("bad5", "--not-predict '[NOPE]'"));
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_NE(word.err.find("not-predict word '[NOPE]'"), std::string::npos) << word.err;
  EXPECT_NE(word.err.find(path("vocab.txt")), std::string::npos) << word.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "bad5"));

  // METEOR (squad-qg's metric set) without its resources: refused at the data stage, before any
  // training, naming what to set and the opt-out; nothing written.
  {
    std::string cmd = run_cmd("bad4");
    cmd.replace(cmd.find(" --skip-metric meteor"), std::string(" --skip-metric meteor").size(), "");
    unsetenv("UNIEVAL_METEOR_DATA");
    auto nometeor = run_cli(cmd);
    EXPECT_EQ(nometeor.exit_code, 2);
    EXPECT_NE(nometeor.err.find("--option meteor_data=DIR"), std::string::npos) << nometeor.err;
    EXPECT_NE(nometeor.err.find("--skip-metric meteor"), std::string::npos) << nometeor.err;
    EXPECT_FALSE(fs::exists(tmp.path() / "bad4"));
  }

  // A RUN folder that is not a run is left alone.
  tmp.write("bad3/keep.txt", "x");
  auto notrun = run_cli(run_cmd("bad3"));
  EXPECT_EQ(notrun.exit_code, 2);
  EXPECT_EQ(core::read_file(path("bad3/keep.txt")), "x");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path() / "bad3"), fs::directory_iterator()),
            1);

  // --segment-ids: malformed, or beyond the config's type_vocab_size (2): exit 2, nothing written.
  for (const char* bad : {"--segment-ids 4", "--segment-ids a,b", "--segment-ids 4,5"}) {
    auto seg = run_cli(run_cmd("bad4", bad));
    EXPECT_EQ(seg.exit_code, 2) << bad;
    EXPECT_NE(seg.err.find("segment"), std::string::npos) << bad << seg.err;
    EXPECT_FALSE(fs::exists(tmp.path() / "bad4")) << bad;
  }
}

// --segment-ids overrides the checkpoint family's ids: recorded in request.json and run.json.
TEST_F(RunCliTest, SegmentIdsOverrideRecorded) {
  auto r = run_cli(run_cmd("seg", "--segment-ids 1,0 --stop-after 1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto request = nlohmann::json::parse(core::read_file(path("seg/request.json")));
  EXPECT_EQ(request["segment_ids"], nlohmann::json::array({1, 0}));
  auto info = nlohmann::json::parse(core::read_file(path("seg/run.json")));
  EXPECT_EQ(info["train"]["source_type"], 1);
  EXPECT_EQ(info["train"]["target_type"], 0);
  EXPECT_EQ(info["segment_ids_from"], "--segment-ids");
  // Without the flag: the family's (0,1 for type_vocab_size 2), and no key in the request.
  auto d = run_cli(run_cmd("seg0", "--stop-after 1"));
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_FALSE(
      nlohmann::json::parse(core::read_file(path("seg0/request.json"))).contains("segment_ids"));
  auto info0 = nlohmann::json::parse(core::read_file(path("seg0/run.json")));
  EXPECT_EQ(info0["train"]["source_type"], 0);
  EXPECT_EQ(info0["segment_ids_from"], "checkpoint family");
}

// coqa-gen under `run`: the source budget counts WordPiece tokens of the run's vocabulary.
TEST_F(RunCliTest, CoqaBudgetCountsWordPieces) {
  // "catdog" is two pieces (cat ##dog) in this vocabulary.
  tmp.write("vocab_wp.txt", core::read_file(path("vocab.txt")) + "##dog\nwho\nyes\n");
  nlohmann::json cfg = nlohmann::json::parse(core::read_file(path("config.json")));
  cfg["vocab_size"] = vocab_size + 3;
  tmp.write("config_wp.json", cfg.dump());
  std::string story;
  for (int i = 0; i < 12; ++i) story += "catdog ";
  nlohmann::json doc = {{"version", "1.0"},
                        {"data",
                         {{{"id", "s1"},
                           {"source", "wikipedia"},
                           {"story", story},
                           {"questions", {{{"turn_id", 1}, {"input_text", "who"}}}},
                           {"answers", {{{"turn_id", 1}, {"input_text", "yes"}}}}}}}};
  tmp.write("coqa/coqa-train-v1.0.json", doc.dump());
  tmp.write("coqa/coqa-dev-v1.0.json", doc.dump());
  auto r = run_cli("run --task coqa-gen --data " + shq(path("coqa")) + " --out " +
                   shq(path("coqa_run")) + " --model-config " + shq(path("config_wp.json")) +
                   " --vocab " + shq(path("vocab_wp.txt")) +
                   " --max-src-words 9 --max-src-len 12 --max-tgt-len 4 --stop-after 1 --threads 2 "
                   "--no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Budget 9 tokens: "who" (1) + 4 passage words of 2 pieces each = 9 (counting words: 8 words).
  const auto src = core::read_lines(path("coqa_run/data/eval.src"));
  ASSERT_EQ(src.size(), 1u);
  EXPECT_EQ(src[0], "who catdog catdog catdog catdog");
  const auto manifest = nlohmann::json::parse(core::read_file(path("coqa_run/data/manifest.json")));
  EXPECT_NE(manifest["reader"].get<std::string>().find("WordPiece tokens"), std::string::npos)
      << manifest["reader"];
}

}  // namespace
}  // namespace unieval

namespace unieval {
namespace {

// --lexicon-train: decoding writes only words of the training pairs and the source (recorded in
// the request). The data use 3 of the 8 nouns; the untrained model writes nouns of the vocabulary
// that are words of neither without it. Refused for an understanding task.
TEST_F(RunCliTest, LexiconTrainWritesOnlyWordsOfTheTrainingPairs) {
  for (const std::string split : {"train", "dev", "test"}) {
    std::string src, tgt;
    const std::vector<std::string> nouns = {"dog", "king", "queen"};
    for (int i = 0; i < 30; ++i) {
      const std::string& n = nouns[i % 3];
      src += "the " + n + (i % 2 ? " see" : " find") + " the house .\n";
      tgt += "what did the " + n + (i % 2 ? " see" : " find") + " ?\n";
    }
    tmp.write("qgl/src-" + split + ".txt", src);
    tmp.write("qgl/tgt-" + split + ".txt", tgt);
  }
  const auto cmd = [&](const std::string& out, const std::string& extra) {
    return "run --task squad-qg --data " + shq(path("qgl")) + " --out " + shq(path(out)) +
           " --model-config " + shq(path("config.json")) + " --vocab " + shq(path("vocab.txt")) +
           " --no-baselines --no-train --max-src-len 12 --max-tgt-len 10 --max-len 10 "
           "--threads 2 --no-progress --json --skip-metric meteor" +
           extra;
  };
  auto plain = run_cli(cmd("lex0", ""));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  auto lex = run_cli(cmd("lex1", " --lexicon-train"));
  ASSERT_EQ(lex.exit_code, 0) << lex.err;
  EXPECT_EQ(nlohmann::json::parse(core::read_file(path("lex1/request.json")))["lexicon"], "train");
  EXPECT_FALSE(
      nlohmann::json::parse(core::read_file(path("lex0/request.json"))).contains("lexicon"));
  std::set<std::string> words;
  for (const char* f : {"qgl/src-train.txt", "qgl/tgt-train.txt", "qgl/src-test.txt"})
    for (const std::string& line : core::split_lines(core::read_file(path(f)), f)) {
      std::istringstream in(line);
      for (std::string w; in >> w;) words.insert(w);
    }
  const auto outside = [&](const std::string& run) {
    int n = 0, total = 0;
    for (const std::string& line :
         core::split_lines(core::read_file(path(run + "/eval/hyp.txt")), run)) {
      std::istringstream in(line);
      for (std::string w; in >> w; ++total) n += words.count(w) == 0;
    }
    EXPECT_GT(total, 0) << run;
    return n;
  };
  EXPECT_GT(outside("lex0"), 0) << core::read_file(path("lex0/eval/hyp.txt"));
  EXPECT_EQ(outside("lex1"), 0) << core::read_file(path("lex1/eval/hyp.txt"));
  auto nlu = run_cli("run --task glue-sst2 --data " + shq(path("qgl")) + " --out " +
                     shq(path("lex_nlu")) + " --model-config " + shq(path("config.json")) +
                     " --vocab " + shq(path("vocab.txt")) + " --lexicon-train --no-progress");
  EXPECT_EQ(nlu.exit_code, 2) << nlu.err;
  EXPECT_NE(nlu.err.find("--lexicon-train"), std::string::npos) << nlu.err;
  EXPECT_FALSE(fs::exists(path("lex_nlu")));
}

}  // namespace
}  // namespace unieval
