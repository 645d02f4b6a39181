// Issue #36's reduced real-data run: `unieval run --preset squad-qg-scratch` on the first 3,000
// pairs of the Du et al. training split (../shared/data/squad_qg, skipped when absent), a
// 2-layer, 128-wide model with the 8,000-entry vocabulary `unieval vocab` builds from the training
// text, decoded on the first 400 test pairs. The model must read its source: it must beat the
// constant question the suite computes (the most frequent training question) on BLEU-4 and
// ROUGE-L with a paired bootstrap p < 0.01, return no empty question and print no special token.
// The full-size run and its figures are in results/experiments/from-scratch/.
//
// Measured with 30 epochs (results/experiments/from-scratch/squad-qg-3k): BLEU-4 1.50 / ROUGE-L
// 22.39 against the constant's 0.00 / 16.99 (p = 0.001 on both), 0 empty hypotheses. Since session
// 40 it trains 20 epochs on one thread beside the other tests (tests/CMakeLists.txt), which scored
// higher on a 2-vCPU AMD EPYC with the other core busy: BLEU-4 3.81 / ROUGE-L 24.39, 189 distinct
// questions of 254, in 406 s (12 epochs: 4.34 / 26.89 but 61 distinct, below the bar here).
// Copy-source (7.07 / 22.17) still wins BLEU-4 at this size, which is why this test does not ask
// for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/io.h"
#include "tests/json_line.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

namespace fs = std::filesystem;
using testing::last_json_line;
using testing::run_cli;
using testing::shared_dir;
using testing::shq;
using testing::TempDir;

TEST(FromScratchQgTest, ThreeThousandRealPairsBeatTheConstantQuestion) {
  for (const char* f : {"data/squad_qg/src-train.txt.gz", "data/squad_qg/tgt-train.txt.gz",
                        "data/squad_qg/src-test.txt.gz", "data/squad_qg/tgt-test.txt.gz",
                        "data/vocab/bert-uncased-vocab.txt"})
    UNIEVAL_REQUIRE_SHARED(f);
  TempDir tmp;
  const fs::path qg = shared_dir() / "data/squad_qg";
  const std::string vocab = (tmp.path() / "vocab.txt").string();
  auto v =
      run_cli("vocab --base " + shq((shared_dir() / "data/vocab/bert-uncased-vocab.txt").string()) +
              " --corpus " + shq((qg / "src-train.txt.gz").string()) + " " +
              shq((qg / "tgt-train.txt.gz").string()) + " --size 8000 --out " + shq(vocab));
  ASSERT_EQ(v.exit_code, 0) << v.err;
  tmp.write(
      "config.json",
      R"({"vocab_size": 8000, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                "intermediate_size": 512, "max_position_embeddings": 160, "type_vocab_size": 2})");
  const std::string run = (tmp.path() / "run").string();
  auto r = run_cli(
      "run --task squad-qg --data " + shq(qg.string()) + " --preset squad-qg-scratch" +
      " --train-split train --train-limit 3000 --dev-split none --eval-split test --eval-limit "
      "400" +
      " --model-config " + shq((tmp.path() / "config.json").string()) + " --vocab " + shq(vocab) +
      " --out " + shq(run) +
      " --epochs 20 --batch-size 32 --lr 2e-3 --warmup 200 --max-src-len 64 --max-tgt-len 24"
      " --max-len 24 --skip-metric meteor --threads 1 --no-progress --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = last_json_line(r.out);
  EXPECT_EQ(j["run"]["request"]["preset"], "squad-qg-scratch");
  EXPECT_EQ(j["diagnostics"]["empty"], 0) << j["diagnostics"].dump();
  EXPECT_LT(j["diagnostics"]["repeated"].get<int>(),
            j["diagnostics"]["hypotheses"].get<int>() / 20);
  EXPECT_GT(j["diagnostics"]["distinct"].get<int>(), j["diagnostics"]["hypotheses"].get<int>() / 2);
  for (const auto& h : core::read_lines(run + "/eval/hyp.txt"))
    for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[MASK]", "[unused"})
      EXPECT_EQ(h.find(special), std::string::npos) << h;
  const nlohmann::json* constant = nullptr;
  for (const auto& b : j["baselines"])
    if (b["name"] == "constant") constant = &b;
  ASSERT_NE(constant, nullptr) << j.dump();
  int beaten = 0;
  for (const auto& s : (*constant)["paired_bootstrap"]["scores"]) {
    const std::string name = s["score"].get<std::string>();
    if (name != "bleu4" && name != "rougeL") continue;
    EXPECT_GT(s["delta"].get<double>(), 0) << name << " " << s.dump();
    EXPECT_LT(s["p_value"].get<double>(), 0.01) << name << " " << s.dump();
    ++beaten;
  }
  EXPECT_EQ(beaten, 2) << (*constant).dump();
}

}  // namespace
}  // namespace unieval
