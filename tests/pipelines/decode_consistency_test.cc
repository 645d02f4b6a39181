// Decoding feeds the model what training fed it (#36), checked through the pipeline rather than
// the model alone: a `unieval run --preset squad-qg-scratch` (ERNIE-GEN, no noise) on real Du et
// al. pairs (../shared/data/squad_qg, skipped when absent), read back the way `unieval decode`
// reads it (decode_setup: the run's tokenizer and lower-casing, special ids, run.json's data
// options and query token; load_decode_model; decode_source), and the pairs as the trainer
// prepared them (training_examples), with --max-src-len 24 so that most sources are cut. For each
// pair: decode's source ids equal the trainer's, the
// trainer's labels are the reference target then [SEP], and the decode scorer teacher-forced along
// them gives the trainer's word-flow NLL (models::dev_loss) within 1e-4.
// models/ tests check the same equality for a hand-built model and batch
// (ErnieGenDecodingTest.InfillingStepsEqualTheTrainingWordFlow); this one covers the files, the
// tokenisation, the truncation and the options in between.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/io.h"
#include "models/decoding/search_unilm.h"
#include "models/training/ernie_gen.h"
#include "models/training/trainer.h"
#include "pipelines/seq2seq.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::shared_dir;
using testing::shq;
using testing::TempDir;

std::vector<int64_t> ids_of(const torch::Tensor& t) {
  const auto c = t.to(torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

TEST(DecodeConsistencyTest, DecodeFeedsTheModelWhatTrainingFedItOnRealPairs) {
  for (const char* f : {"data/squad_qg/src-train.txt.gz", "data/squad_qg/tgt-train.txt.gz",
                        "data/squad_qg/src-test.txt.gz", "data/squad_qg/tgt-test.txt.gz",
                        "data/vocab/bert-uncased-vocab.txt"})
    UNIEVAL_REQUIRE_SHARED(f);
  TempDir tmp;
  tmp.write(
      "config.json",
      R"({"vocab_size": 30522, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                "intermediate_size": 256, "max_position_embeddings": 160, "type_vocab_size": 2})");
  const std::string run = (tmp.path() / "run").string();
  auto r = run_cli(
      "run --task squad-qg --data " + shq((shared_dir() / "data/squad_qg").string()) +
      " --preset squad-qg-scratch --train-split train --train-limit 64 --dev-split none" +
      " --eval-split test --eval-limit 4 --model-config " +
      shq((tmp.path() / "config.json").string()) + " --vocab " +
      shq((shared_dir() / "data/vocab/bert-uncased-vocab.txt").string()) + " --out " + shq(run) +
      " --steps 40 --batch-size 16 --warmup 4 --max-src-len 24 --skip-metric meteor" +
      " --no-baselines --threads 2 --no-progress --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;

  const pipelines::DecodeSetup setup = pipelines::decode_setup(run, "", "", std::nullopt);
  ASSERT_EQ(setup.train.arch, "ernie-gen") << "the preset trains ERNIE-GEN";
  ASSERT_EQ(setup.query_token, setup.ids.attn);
  models::UnilmModel model = pipelines::load_decode_model(setup, torch::kCPU);
  const int max_len = pipelines::run_search_defaults(run).max_len;
  const std::string data = setup.data_dir;
  const auto src = core::split_lines(core::read_file(data + "/train.src"), data + "/train.src");
  const auto tgt = core::split_lines(core::read_file(data + "/train.tgt"), data + "/train.tgt");
  ASSERT_EQ(src.size(), 64u);
  const auto examples = pipelines::training_examples(*setup.tok, src, tgt, setup.train.data,
                                                     setup.cfg.max_position_embeddings);

  int checked = 0, truncated = 0;
  for (size_t i = 0; i < 24; ++i) {
    SCOPED_TRACE("pair " + std::to_string(i) + ": " + tgt[i]);
    const models::Seq2SeqExample& ex = examples[i];
    EXPECT_EQ(pipelines::decode_source(*setup.tok, src[i], setup.train.data,
                                       setup.cfg.max_position_embeddings, max_len),
              ex.src);
    truncated += setup.tok->encode(src[i]).ids.size() > ex.src.size();
    // The trainer's labels for this pair: its target, then [SEP] (what ends a decoded output).
    std::mt19937_64 rng(0);
    const models::ErnieGenBatch eb = models::make_ernie_gen_batch(
        {ex}, {0}, setup.train.data, models::ErnieGenOptions{}, setup.ids, nullptr, rng);
    std::vector<int64_t> expected = ex.tgt;
    expected.push_back(setup.ids.sep);
    const std::vector<int64_t> labels = ids_of(eb.labels);
    ASSERT_EQ(labels, expected);
    // The decode scorer, teacher-forced along the labels.
    torch::NoGradGuard ng;
    models::UnilmStepScorer scorer(model, {ex.src}, setup.ids, setup.train.data, /*use_cache=*/true,
                                   setup.query_token);
    double nll = 0.0;
    for (size_t t = 0; t < labels.size(); ++t) {
      models::StepRequest req;
      req.step = static_cast<int>(t);
      req.example = {0};
      if (t > 0) {
        req.parent = {0};
        req.last_token = {labels[t - 1]};
      }
      nll -= scorer.step(req)[0][labels[t]].item<double>();
    }
    nll /= static_cast<double>(labels.size());
    const double trained =
        models::dev_loss(model, {ex}, setup.ids, setup.train.data, 1 << 20, 0, "ernie-gen");
    EXPECT_NEAR(nll, trained, 1e-4);
    ++checked;
  }
  EXPECT_EQ(checked, 24);
  EXPECT_GE(truncated, 12)
      << "--max-src-len 24 cuts most Du sentences: the truncation is compared too";
}

}  // namespace
}  // namespace unieval
