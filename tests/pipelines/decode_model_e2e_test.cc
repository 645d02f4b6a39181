// `unieval decode --model CKPT` on a checkpoint saved as microsoft/unilm's run_seq2seq.py saves one
// (legacy pickle and zip .bin), against the official decode_seq2seq.py / gen_seq_from_trace.py run
// on it (tests/parity/fixtures/unilm_decode, made by tests/parity/gen/unilm_decode.py): UniLM's
// beam search, its greedy path (which ignores --min_len and the n-gram ban), --tokenized_input and
// gen_seq_from_trace --alpha as the script runs (--trace-selection official), line for line (#38).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/io.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/seq2seq_data.h"
#include "pipelines/seq2seq.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

using testing::run_cli;
using testing::shq;
using testing::TempDir;

const std::filesystem::path kFixture =
    std::filesystem::path(UNIEVAL_SOURCE_DIR) / "tests/parity/fixtures/unilm_decode";

struct Decoded {
  int exit_code;
  std::string err;
  std::vector<std::string> lines;
};

Decoded decode(const std::string& ckpt, const std::string& split, const std::string& flags) {
  TempDir tmp;
  const std::string out = (tmp.path() / "hyp.txt").string();
  auto r = run_cli("decode --model " + shq((kFixture / ckpt / "model.bin").string()) + " --data " +
                   shq((kFixture / "data").string()) + " --split " + split + " --out " + shq(out) +
                   " --max-len 12 --batch-size 5 --no-clean-up --threads 1 --no-progress " + flags);
  Decoded d{r.exit_code, r.err, {}};
  if (r.exit_code == 0) d.lines = core::read_lines(out);
  return d;
}

std::vector<std::string> expected(const std::string& name) {
  return core::read_lines((kFixture / "expected" / (name + ".txt")).string());
}

TEST(DecodeModelTest, UnilmBeamSearchAsDecodeSeq2seq) {
  for (const char* ckpt : {"ckpt", "ckpt_zip"}) {  // legacy pickle and zip .bin
    const Decoded d =
        decode(ckpt, "test", "--search unilm --beam 3 --no-repeat-ngram 3 --ngram-ignore .");
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(d.lines, expected("beam3")) << ckpt;
  }
}

TEST(DecodeModelTest, GreedyIsTheOfficialGreedyPathWithAWarning) {
  // decode_seq2seq.py --beam_size 1 --min_len 6 --forbid_duplicate_ngrams --ngram_size 2 ignores both.
  const Decoded d =
      decode("ckpt", "test", "--search unilm --beam 1 --min-len 6 --no-repeat-ngram 2");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.lines, expected("greedy"));
  EXPECT_NE(d.err.find("ignores min_len 6, no_repeat_ngram 2"), std::string::npos) << d.err;
  // --search exact applies them: another output.
  const Decoded e =
      decode("ckpt", "test", "--search exact --beam 1 --min-len 6 --no-repeat-ngram 2");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.lines, expected("greedy"));
  EXPECT_EQ(e.err.find("ignores"), std::string::npos) << e.err;
}

TEST(DecodeModelTest, TokenizedInputAsTheOfficialTokenizedInput) {
  Decoded d = decode("ckpt", "tok", "--tokenized-input --search unilm --beam 3 --length-penalty 1");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.lines, expected("beam3_tok"));
  d = decode("ckpt_zip", "tok", "--tokenized-input --search unilm --beam 1");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.lines, expected("greedy_tok"));
}

TEST(DecodeModelTest, TraceReRankingAsGenSeqFromTraceRuns) {
  Decoded d = decode("ckpt", "test", "--search unilm --beam 4");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.lines, expected("trace4"));
  for (const char* alpha : {"1.0", "0.6"}) {
    d = decode("ckpt", "test", std::string("--search unilm --beam 4 --trace-alpha ") + alpha);
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(d.lines, expected(std::string("trace4_alp") + alpha)) << alpha;
  }
  // What the script meant differs on these traces (its empty lines are the [SEP]/[PAD] swap).
  d = decode("ckpt", "test",
             "--search unilm --beam 4 --trace-alpha 1.0 --trace-selection intended");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.lines, expected("trace4_alp1.0"));
  int empty = 0;
  for (const auto& l : d.lines) empty += l.empty();
  EXPECT_LT(empty, 10);  // the official selection leaves 18 of the 24 lines empty here
}

TEST(DecodeModelTest, BadModelInputsAreClearErrors) {
  TempDir tmp;
  auto r = run_cli("decode --model " + shq((kFixture / "ckpt" / "model.bin").string()) + " --out " +
                   shq((tmp.path() / "x").string()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--data"), std::string::npos) << r.err;
  r = run_cli("decode --model " + shq((kFixture / "ckpt" / "model.bin").string()) + " --run " +
              shq(tmp.path().string()) + " --out " + shq((tmp.path() / "x").string()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("one of --run and --model"), std::string::npos) << r.err;
}

// An ERNIE-GEN checkpoint (a run's, no run around it): decode --model --arch ernie-gen is decode --run,
// as a directory and as a .safetensors file.
TEST(DecodeModelTest, ErnieGenCheckpointDecodesAsItsRun) {
  TempDir tmp;
  models::SyntheticTaskOptions o;
  o.kind = "copy";
  o.n_words = 10;
  o.n_train = 64;
  o.n_dev = 4;
  o.n_test = 16;
  models::write_synthetic_task(models::make_synthetic_task(o), (tmp.path() / "data").string());
  tmp.write(
      "config.json",
      R"({"vocab_size": 16, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 64, "max_position_embeddings": 40})");
  auto r = run_cli(testing::finetune_args(
      "copy", tmp.path() / "config.json", tmp.path() / "data", tmp.path() / "run",
      "--arch ernie-gen --steps 6 --batch-size 8 --lr 1e-3 --threads 1 --no-progress"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto hyps = [&](const std::string& how, const std::string& name) {
    const std::string out = (tmp.path() / name).string();
    auto d = run_cli("decode " + how + " --split test --out " + shq(out) +
                     " --beam 3 --min-len 4 --max-len 8 --threads 1 --no-progress");
    EXPECT_EQ(d.exit_code, 0) << d.err;
    return d.exit_code == 0 ? core::read_lines(out) : std::vector<std::string>{};
  };
  const auto ckpt = tmp.path() / "run" / "checkpoint";
  const std::string data = " --data " + shq((tmp.path() / "data").string());
  const auto by_run = hyps("--run " + shq((tmp.path() / "run").string()), "a");
  ASSERT_EQ(by_run.size(), 16u);
  ASSERT_FALSE(by_run[0].empty());
  EXPECT_EQ(hyps("--model " + shq(ckpt.string()) + " --arch ernie-gen" + data, "b"), by_run);
  EXPECT_EQ(
      hyps("--model " + shq((ckpt / "model.safetensors").string()) + " --arch ernie-gen" + data,
           "c"),
      by_run);
  // The run's checkpoints say ERNIE-GEN themselves, so decode --model without --arch infills too
  // (before, config.json did not say it and decode --model RUN/best silently used UniLM decoding).
  EXPECT_EQ(nlohmann::json::parse(core::read_file((ckpt / "config.json").string()))
                .value("unieval_arch", ""),
            "ernie-gen");
  EXPECT_EQ(hyps("--model " + shq(ckpt.string()) + data, "d"), by_run);
}

// --tokenized-input: pieces looked up as they are; unknown pieces are [UNK].
TEST(TokenizedInputTest, PiecesAsTheyAre) {
  const models::Vocab v(std::vector<std::string>{"[PAD]", "[UNK]", "The", "##s", "cat", "."});
  EXPECT_EQ(pipelines::pretokenized_ids(v, "The cat ##s ."), (std::vector<int64_t>{2, 4, 3, 5}));
  EXPECT_EQ(pipelines::pretokenized_ids(v, "  the\tcats  "),
            (std::vector<int64_t>{1, 1}));  // no lower-casing, no splitting
  EXPECT_TRUE(pipelines::pretokenized_ids(v, "   ").empty());
  const models::Vocab no_unk(std::vector<std::string>{"[PAD]", "a"});
  EXPECT_THROW(pipelines::pretokenized_ids(no_unk, "a b"), InputError);
}

// `run --tokenized-input` is refused where no WordPiece seq2seq lines are read (not a silent no-op).
TEST(TokenizedInputTest, RunRefusesItForUnderstandingTasks) {
  TempDir tmp;
  tmp.write("sst/train.tsv", "sentence\tlabel\nhi\t1\n");
  auto r = run_cli("run --task glue-sst2 --data " + shq((tmp.path() / "sst").string()) +
                   " --model " + shq((kFixture / "ckpt").string()) + " --tokenized-input --out " +
                   shq((tmp.path() / "run").string()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--tokenized-input is for the UniLM/ERNIE-GEN generation tasks"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "run"));
}

// Casing follows the checkpoint: tokenizer_config.json, else the vocabulary; flags override.
TEST(CasingTest, DecidedByTheCheckpointFlagsOverride) {
  TempDir tmp;
  tmp.write("cased/vocab.txt", "[PAD]\n[UNK]\n[CLS]\nThe\ncat\n");
  tmp.write("uncased/vocab.txt", "[PAD]\n[UNK]\n[CLS]\nthe\ncat\n");
  const std::string cased = (tmp.path() / "cased").string(),
                    uncased = (tmp.path() / "uncased").string();
  auto d = pipelines::decide_lowercase(std::nullopt, cased, "");
  EXPECT_FALSE(d.lowercase);
  EXPECT_TRUE(d.warnings.empty());
  d = pipelines::decide_lowercase(std::nullopt, uncased, "");
  EXPECT_TRUE(d.lowercase);
  // A weights file: the folder's files.
  tmp.write("cased/model.bin", "weights");
  d = pipelines::decide_lowercase(std::nullopt, cased + "/model.bin", "");
  EXPECT_FALSE(d.lowercase);
  // tokenizer_config.json decides over the vocabulary; the contradiction is a warning naming both.
  tmp.write("cased/tokenizer_config.json", R"({"do_lower_case": true})");
  d = pipelines::decide_lowercase(std::nullopt, cased, "");
  EXPECT_TRUE(d.lowercase);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("tokenizer_config.json do_lower_case true"), std::string::npos)
      << d.warnings[0];
  EXPECT_NE(d.warnings[0].find("vocab.txt (upper-case pieces: cased)"), std::string::npos)
      << d.warnings[0];
  // A flag overrides; contradicting the checkpoint it warns, naming both.
  d = pipelines::decide_lowercase(false, uncased, "");
  EXPECT_FALSE(d.lowercase);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("--no-lowercase contradicts"), std::string::npos) << d.warnings[0];
  EXPECT_NE(d.warnings[0].find("uncased"), std::string::npos) << d.warnings[0];
  d = pipelines::decide_lowercase(true, uncased, "");
  EXPECT_TRUE(d.lowercase);
  EXPECT_TRUE(d.warnings.empty());
  // --vocab given: that vocabulary speaks when no tokenizer_config.json does.
  d = pipelines::decide_lowercase(std::nullopt, "", cased + "/vocab.txt");
  EXPECT_FALSE(d.lowercase);
  tmp.write("uncased/tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_THROW(pipelines::decide_lowercase(std::nullopt, uncased, ""), InputError);
}

// `finetune` without a casing flag on a cased checkpoint trains cased (run.json lowercase false).
TEST(CasingTest, FinetuneFollowsTheCheckpoint) {
  TempDir tmp;
  const auto ckpt = (kFixture / "ckpt" / "model.bin").string();
  tmp.write("data/train.src", "The cat\nBob ran home\n");
  tmp.write("data/train.tgt", "cat\nhome\n");
  auto r =
      run_cli("finetune --model " + shq(ckpt) + " --data " + shq((tmp.path() / "data").string()) +
              " --out " + shq((tmp.path() / "run").string()) +
              " --task tiny --steps 1 --batch-size 2 --threads 1 --no-progress --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto info =
      nlohmann::json::parse(core::read_file((tmp.path() / "run" / "run.json").string()));
  EXPECT_FALSE(info.at("lowercase").get<bool>());
  r = run_cli("finetune --model " + shq(ckpt) + " --data " + shq((tmp.path() / "data").string()) +
              " --out " + shq((tmp.path() / "run2").string()) +
              " --task tiny --lowercase --tokenized-input --steps 1 --batch-size 2 --threads 1 "
              "--no-progress --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--lowercase contradicts"), std::string::npos) << r.err;
  const auto info2 =
      nlohmann::json::parse(core::read_file((tmp.path() / "run2" / "run.json").string()));
  EXPECT_TRUE(info2.at("lowercase").get<bool>());
  EXPECT_TRUE(info2.at("tokenized_input").get<bool>());
}

}  // namespace
}  // namespace unieval
