// Seq2seq training: packing and target masking, token-budget batches, label smoothing, and
// resume == uninterrupted.
#include "models/training/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/io.h"
#include "models/io/checkpoint.h"
#include "models/io/run_dir.h"
#include "models/io/safetensors.h"
#include "models/training/optim.h"
#include "models/training/seq2seq_data.h"
#include "models/training/train_loop.h"
#include "models/training/train_util.h"
#include "tests/models/tiny_ids.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

SpecialIds tiny_ids(int64_t vocab) { return testing::tiny_special_ids(vocab); }

TEST(Seq2SeqDataTest, PacksAndMasksTargetOnly) {
  std::vector<Seq2SeqExample> ex = {{{10, 11, 12}, {20, 21, 22, 23}}, {{13}, {24}}};
  Seq2SeqDataOptions o;
  o.mask_prob = 0.5;
  std::mt19937_64 rng(1);
  TrainBatch b = make_train_batch(ex, {0, 1}, o, tiny_ids(30), rng);
  // [CLS] 10 11 12 [SEP] 20 21 22 23 [SEP]  (T = 10); [CLS] 13 [SEP] 24 [SEP] + pad
  ASSERT_EQ(b.input_ids.sizes(), torch::IntArrayRef({2, 10}));
  auto in = b.input_ids.accessor<int64_t, 2>();
  auto ty = b.token_type_ids.accessor<int64_t, 2>();
  EXPECT_EQ(in[0][0], 2);
  EXPECT_EQ(in[0][4], 3);
  EXPECT_EQ(in[1][5], 0);  // padding
  EXPECT_EQ(ty[0][4], 0);
  EXPECT_EQ(ty[0][5], 1);
  EXPECT_EQ(ty[0][9], 1);
  // Example 0: round(0.5 * 5) = 2 (banker's? llround: 2.5 -> 3) masked target positions.
  std::vector<int64_t> masked(b.masked_index.data_ptr<int64_t>(),
                              b.masked_index.data_ptr<int64_t>() + b.masked_index.numel());
  std::vector<int64_t> labels(b.labels.data_ptr<int64_t>(),
                              b.labels.data_ptr<int64_t>() + b.labels.numel());
  int in_first = 0;
  const std::vector<int64_t> original0 = {2, 10, 11, 12, 3, 20, 21, 22, 23, 3};
  const std::vector<int64_t> original1 = {2, 13, 3, 24, 3};
  for (size_t k = 0; k < masked.size(); ++k) {
    const int64_t row = masked[k] / 10, pos = masked[k] % 10;
    EXPECT_EQ(in[row][pos], 4) << "masked positions hold [MASK]";
    if (row == 0) {
      ++in_first;
      EXPECT_GE(pos, 5);  // target only (final [SEP] included)
      EXPECT_EQ(labels[k], original0[pos]);
    } else {
      EXPECT_GE(pos, 3);
      EXPECT_LE(pos, 4);
      EXPECT_EQ(labels[k], original1[pos]);
    }
  }
  EXPECT_EQ(in_first, 3);
  EXPECT_EQ(masked.size(), 4u);  // example 1: max(1, round(0.5 * 2)) = 1
  // Seq2seq mask: source row sees the source only, target row its prefix.
  auto m = b.attention_mask.accessor<int64_t, 3>();
  EXPECT_EQ(m[0][2][4], 1);
  EXPECT_EQ(m[0][2][5], 0);
  EXPECT_EQ(m[0][6][5], 1);
  EXPECT_EQ(m[0][6][6], 1);
  EXPECT_EQ(m[0][6][7], 0);
  EXPECT_EQ(m[1][3][5], 0);  // padding key
}

TEST(Seq2SeqDataTest, FinalSepCanBeMaskedAndEverythingIsEventuallyMasked) {
  std::vector<Seq2SeqExample> ex = {{{10}, {20, 21}}};
  Seq2SeqDataOptions o;
  o.mask_prob = 0.3;  // one of 3 target positions
  std::mt19937_64 rng(5);
  std::set<int64_t> seen;
  for (int i = 0; i < 50; ++i) {
    TrainBatch b = make_train_batch(ex, {0}, o, tiny_ids(30), rng);
    ASSERT_EQ(b.labels.numel(), 1);
    seen.insert(b.masked_index[0].item<int64_t>());
  }
  EXPECT_EQ(seen, (std::set<int64_t>{3, 4, 5}));
}

TEST(Seq2SeqDataTest, BatchesRespectTokenBudget) {
  std::vector<int64_t> lengths;
  for (int i = 0; i < 100; ++i) lengths.push_back(5 + i % 17);
  std::mt19937_64 rng(3);
  auto batches = make_batches(lengths, 64, 6, rng);
  std::vector<int> count(100, 0);
  for (const auto& b : batches) {
    int64_t longest = 0;
    for (size_t i : b) longest = std::max(longest, lengths[i]), ++count[i];
    EXPECT_LE(static_cast<int64_t>(b.size()) * longest, 64);
    EXPECT_LE(b.size(), 6u);
  }
  for (int c : count) EXPECT_EQ(c, 1);
}

TEST(LossTest, LabelSmoothingMatchesTorchCrossEntropy) {
  torch::manual_seed(0);
  torch::Tensor logits = torch::randn({6, 11});
  torch::Tensor labels = torch::randint(0, 11, {6}, torch::kInt64);
  auto [loss, nll] = label_smoothed_nll(logits, labels, 0.1);
  namespace F = torch::nn::functional;
  torch::Tensor ref =
      F::cross_entropy(logits, labels, F::CrossEntropyFuncOptions().label_smoothing(0.1));
  torch::Tensor ref_nll = F::cross_entropy(logits, labels);
  EXPECT_NEAR(loss.item<double>(), ref.item<double>(), 1e-6);
  EXPECT_NEAR(nll.item<double>(), ref_nll.item<double>(), 1e-6);
}

// UniLM v1's LabelSmoothingLoss (unilm-v1/src/pytorch_pretrained_bert/modeling.py) written out as
// the module does it: one_hot = full(eps / (V - 2)), one_hot[0] = 0, scatter(label, 1 - eps), rows
// labelled 0 zeroed, F.kl_div(log_probs, q, reduction='none').sum(-1) (0 where q = 0).
torch::Tensor unilm_reference_kl(const torch::Tensor& logits, const torch::Tensor& labels,
                                 double eps) {
  const int64_t V = logits.size(1);
  torch::Tensor lp = torch::log_softmax(logits.to(torch::kDouble), -1);
  torch::Tensor q = torch::full({logits.size(0), V}, eps / double(V - 2), torch::kDouble);
  q.select(1, 0).fill_(0.0);
  q.scatter_(1, labels.view({-1, 1}), 1.0 - eps);
  q.masked_fill_((labels == 0).view({-1, 1}), 0.0);
  torch::Tensor term =
      torch::where(q > 0, q * (q.clamp_min(1e-300).log() - lp), torch::zeros_like(q));
  return term.sum(1).mean();
}

TEST(LossTest, UnilmKlMatchesTheOfficialLabelSmoothingLoss) {
  torch::manual_seed(1);
  torch::Tensor logits = torch::randn({7, 13});
  torch::Tensor labels =
      torch::tensor({3, 0, 12, 5, 1, 7, 3}, torch::kInt64);  // one [PAD] row: counts 0
  for (double eps : {0.1, 0.3}) {
    torch::Tensor kl;
    auto [loss, nll] = label_smoothed_nll(logits, labels, eps, &kl);
    EXPECT_NEAR(kl.item<double>(), unilm_reference_kl(logits, labels, eps).item<double>(), 1e-5)
        << eps;
    EXPECT_FALSE(kl.requires_grad());
    // Not our training loss (cross-entropy to the uniformly smoothed distribution).
    EXPECT_GT(std::abs(loss.item<double>() - kl.item<double>()), 0.1) << eps;
  }
  // eps = 0: modeling.py uses CrossEntropyLoss(reduction='none'), the plain NLL of every row.
  torch::Tensor kl0;
  auto [l0, n0] = label_smoothed_nll(logits, labels, 0.0, &kl0);
  EXPECT_NEAR(kl0.item<double>(), n0.item<double>(), 1e-6);
  // The gap: with uniform logits over V = 28996 (lp = -log V everywhere) ours is log V and
  // the official KL is log V - H(q), H(q) = 1.3526 nats.
  const int64_t V = 28996;
  torch::Tensor flat = torch::zeros({1, V});
  torch::Tensor one = torch::tensor({100}, torch::kInt64);
  torch::Tensor klu;
  auto [lu, nu] = label_smoothed_nll(flat, one, 0.1, &klu);
  const double h = -(0.9 * std::log(0.9) + 0.1 * std::log(0.1 / (V - 2)));  // H(q) = 1.3526
  EXPECT_NEAR(h, 1.3526, 1e-4);
  EXPECT_NEAR(klu.item<double>(), std::log(double(V)) - h, 1e-4);
  EXPECT_NEAR(lu.item<double>() - klu.item<double>(), h, 1e-4);  // ours = official + 1.3526 here
}

// The two forms' gradients with respect to the logits are softmax(logits) - q, q the smoothed
// target: uniform (1 - eps)·onehot + eps/V; unilm 1 - eps on the label, eps/(V-2) on the others
// but [PAD] (id 0), 0 on [PAD]. The unilm form's loss is the KL that UniLM v1 logs.
TEST(LossTest, UnilmFormTrainsOnTheOfficialKlAndItsGradient) {
  torch::manual_seed(2);
  const int64_t N = 5, V = 9;
  const double eps = 0.2;
  torch::Tensor labels = torch::tensor({3, 8, 1, 5, 3}, torch::kInt64);
  for (const LabelSmoothing form : {LabelSmoothing::kUniform, LabelSmoothing::kUnilm}) {
    torch::Tensor logits = torch::randn({N, V}, torch::kDouble).requires_grad_();
    torch::Tensor kl;
    auto [loss, nll] = label_smoothed_nll(logits, labels, eps, &kl, form);
    loss.backward();
    torch::Tensor q;
    if (form == LabelSmoothing::kUniform) {
      q = torch::full({N, V}, eps / V, torch::kDouble);
      q.scatter_add_(1, labels.view({-1, 1}), torch::full({N, 1}, 1.0 - eps, torch::kDouble));
    } else {
      q = torch::full({N, V}, eps / double(V - 2), torch::kDouble);
      q.select(1, 0).fill_(0.0);
      q.scatter_(1, labels.view({-1, 1}), 1.0 - eps);
      EXPECT_NEAR(loss.item<double>(),
                  unilm_reference_kl(logits.detach(), labels, eps).item<double>(), 1e-6);
      EXPECT_NEAR(loss.item<double>(), kl.item<double>(), 1e-12);  // "loss" == "loss_unilm"
    }
    torch::Tensor expected = (torch::softmax(logits.detach(), -1) - q) / double(N);
    EXPECT_LT((logits.grad() - expected).abs().max().item<double>(), 1e-6) << to_string(form);
  }
  EXPECT_EQ(parse_label_smoothing("unilm"), LabelSmoothing::kUnilm);
  EXPECT_THROW(parse_label_smoothing("kl"), InputError);
}

// run.json keeps the two new keys only when set; a bad value is an InputError.
TEST(TrainOptionsTest, SmoothingAndClipKeys) {
  TrainOptions o;
  EXPECT_FALSE(o.to_json().contains("smoothing"));
  EXPECT_FALSE(o.to_json().contains("clip"));
  o.smoothing = LabelSmoothing::kUnilm;
  o.clip = ClipMode::kPerParameter;
  const auto j = o.to_json();
  EXPECT_EQ(j.at("smoothing"), "unilm");
  EXPECT_EQ(j.at("clip"), "per_parameter");
  TrainOptions back;
  back.update_from_json(j, "run.json");
  EXPECT_EQ(back.smoothing, LabelSmoothing::kUnilm);
  EXPECT_EQ(back.clip, ClipMode::kPerParameter);
  EXPECT_THROW(back.update_from_json(nlohmann::json{{"clip", "each"}}, "run.json"), InputError);
  TrainOptions eg = o;
  eg.arch = "ernie-gen";
  EXPECT_NO_THROW(eg.validate());  // each flow takes the chosen form
}

// A tiny generated task, tokenised by word index.
std::vector<Seq2SeqExample> tiny_task(int64_t* vocab) {
  SyntheticTaskOptions o;
  o.n_words = 12;
  o.n_train = 48;
  o.n_dev = 1;
  o.n_test = 1;
  SyntheticTask t = make_synthetic_task(o);
  std::map<std::string, int64_t> id;
  for (size_t i = 0; i < t.words.size(); ++i) id[t.words[i]] = 5 + static_cast<int64_t>(i);
  *vocab = 5 + static_cast<int64_t>(t.words.size());
  auto enc = [&](const std::string& s) {
    std::vector<int64_t> v;
    std::istringstream in(s);
    std::string w;
    while (in >> w) v.push_back(id.at(w));
    return v;
  };
  std::vector<Seq2SeqExample> ex;
  for (size_t i = 0; i < t.train_src.size(); ++i)
    ex.push_back({enc(t.train_src[i]), enc(t.train_tgt[i])});
  return ex;
}

UnilmModel fresh_model(int64_t vocab) {
  torch::manual_seed(11);
  UnilmHeads heads;
  heads.pooler = false;
  UnilmModel m(BertConfig::tiny(vocab, 0.1), heads);  // dropout on: the RNG must resume too
  m->init_weights();
  return m;
}

TEST(TrainerTest, ResumeEqualsUninterruptedRun) {
  int64_t vocab = 0;
  auto data = tiny_task(&vocab);
  TrainOptions o;
  o.optim.lr = 1e-3;
  o.max_steps = 8;
  o.warmup_steps = 2;
  o.batch_tokens = 16 * 12;
  o.batch_size = 16;
  o.accum = 2;
  o.progress = false;
  o.data.max_src_len = 10;
  o.data.max_tgt_len = 10;
  testing::TempDir tmp;
  const auto ids = tiny_ids(vocab);

  RunDir full((tmp.path() / "full").string());
  full.create(o.to_json(), BertConfig::tiny(vocab, 0.1), "v\n");
  UnilmModel a = fresh_model(vocab);
  TrainResult ra = train_seq2seq(a, data, ids, o, &full, false);
  ASSERT_TRUE(ra.finished);
  ASSERT_EQ(ra.losses.size(), 8u);

  RunDir part((tmp.path() / "part").string());
  part.create(o.to_json(), BertConfig::tiny(vocab, 0.1), "v\n");
  TrainOptions first = o;
  first.stop_after = 3;
  UnilmModel b = fresh_model(vocab);
  TrainResult rb = train_seq2seq(b, data, ids, first, &part, false);
  EXPECT_FALSE(rb.finished);
  EXPECT_EQ(rb.steps_done, 3);
  ASSERT_TRUE(part.has_checkpoint());
  namespace fs = std::filesystem;
  const fs::path opt_file = fs::path(part.checkpoint_dir()) / kRunOptimizerFile;
  std::map<std::string, torch::Tensor> saved;
  {
    SafetensorsFile f = SafetensorsFile::open(opt_file.string());
    for (const auto& info : f.tensors()) saved[info.name] = f.tensor(info);
  }
  EXPECT_EQ(saved.at("step").item<int64_t>(), 3);
  EXPECT_EQ(saved.size(), 2 * a->named_parameters().size() + 1);  // exp_avg, exp_avg_sq each, step
  // A checkpoint of an older build holds optimizer.pt (a LibTorch archive) instead: resume reads it.
  RunDir legacy((tmp.path() / "legacy").string());
  fs::copy(part.path(), legacy.path(), fs::copy_options::recursive);
  fs::remove(fs::path(legacy.checkpoint_dir()) / kRunOptimizerFile);
  core::write_file_atomic((fs::path(legacy.checkpoint_dir()) / "optimizer.pt").string(),
                          serialize_tensors(saved));
  // A moment of the wrong shape is refused, naming the file.
  RunDir bad((tmp.path() / "bad").string());
  fs::copy(part.path(), bad.path(), fs::copy_options::recursive);
  const fs::path bad_file = fs::path(bad.checkpoint_dir()) / kRunOptimizerFile;
  {
    std::vector<std::pair<std::string, torch::Tensor>> wrong(saved.begin(), saved.end());
    wrong.front().second = torch::zeros({3});
    write_safetensors(bad_file.string(), wrong);
    UnilmModel m = fresh_model(vocab);
    EXPECT_THROW(
        {
          try {
            train_seq2seq(m, data, ids, o, &bad, true);
          } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(bad_file.string()), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("wrong shape"), std::string::npos) << e.what();
            throw;
          }
        },
        InputError);
  }
  // A new process would start from a differently initialised model: make that explicit.
  auto resume = [&](RunDir& run) {
    torch::manual_seed(999);
    UnilmModel c = fresh_model(vocab);
    {
      torch::NoGradGuard g;
      for (auto& p : c->parameters()) p.add_(torch::randn_like(p));
    }
    TrainResult rc = train_seq2seq(c, data, ids, o, &run, true);
    EXPECT_TRUE(rc.finished);
    EXPECT_EQ(rc.losses.size(), 5u);
    for (size_t i = 0; i < 5 && i < rc.losses.size(); ++i)
      EXPECT_EQ(rc.losses[i], ra.losses[3 + i]) << run.path() << " step " << 4 + i;
    return c;
  };
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(rb.losses[i], ra.losses[i]);
  UnilmModel c = resume(part);
  UnilmModel c_legacy = resume(legacy);
  auto pa = a->named_parameters();
  auto pc = c->named_parameters();
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pc[item.key()])) << item.key();
  for (const auto& item : pa)
    EXPECT_TRUE(torch::equal(item.value(), c_legacy->named_parameters()[item.key()]));
  // The log holds exactly steps 1..8 once.
  std::ifstream log(part.file("log.jsonl"));
  std::string line;
  int64_t expect = 1;
  while (std::getline(log, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["step"].get<int64_t>(), expect++);
    // Both losses (#38): ours (cross-entropy to the smoothed distribution) and UniLM's KL form,
    // below it by about H(q) on this vocabulary.
    ASSERT_TRUE(j.contains("loss_unilm")) << line;
    EXPECT_LT(j["loss_unilm"].get<double>(), j["loss"].get<double>()) << line;
    EXPECT_GT(j["loss_unilm"].get<double>(), 0.0) << line;
  }
  EXPECT_EQ(expect, 9);
  // The checkpoint holds safetensors weights that load back to the same parameters.
  UnilmModel d = fresh_model(vocab);
  load_model_weights(d, (std::filesystem::path(part.checkpoint_dir()) / kRunWeightsFile).string());
  for (const auto& item : pa)
    EXPECT_TRUE(torch::equal(item.value(), d->named_parameters()[item.key()]));
}

// The dev loss of the weights in a checkpoint directory (config.json + model.safetensors), worked
// out from models/training/trainer.h's description of the dev evaluation rather than by calling dev_loss:
// the model loaded by load_checkpoint, in eval mode; masks drawn by make_train_batch from a
// generator seeded by (seed, 0x4000); the mean NLL (no label smoothing) of the masked target
// tokens, here in float64. make_train_batch draws each example's masks in turn, from its target
// length and the generator alone, so the batching does not change them: all dev examples are one
// batch here (the trainer cuts batches by batch_tokens).
double independent_dev_loss(const std::string& dir, const std::vector<Seq2SeqExample>& dev,
                            const SpecialIds& ids, const TrainOptions& o) {
  UnilmHeads heads;
  heads.pooler = false;
  LoadReport report;
  UnilmModel m = load_checkpoint(dir, heads, &report);
  EXPECT_TRUE(report.complete()) << report.summary();
  m->eval();
  torch::NoGradGuard no_grad;
  std::mt19937_64 rng(seed_mix(o.seed, 0x4000));
  std::vector<size_t> all(dev.size());
  std::iota(all.begin(), all.end(), size_t{0});
  const TrainBatch b = make_train_batch(dev, all, o.data, ids, rng);
  const BertOutput out = m->forward(b.input_ids, b.token_type_ids, b.attention_mask);
  const int64_t H = out.last_hidden_state.size(-1);
  const torch::Tensor h = out.last_hidden_state.reshape({-1, H}).index_select(0, b.masked_index);
  const torch::Tensor logp = torch::log_softmax(m->mlm_logits(h).to(torch::kFloat64), -1);
  return -logp.gather(1, b.labels.unsqueeze(1)).mean().item<double>();
}

TEST(TrainerTest, DevLossKeepsTheBestWeightsAndStopsEarly) {
  int64_t vocab = 0;
  auto data = tiny_task(&vocab);
  std::vector<Seq2SeqExample> dev(data.begin(), data.begin() + 8);
  TrainOptions o;
  // A high rate: the dev loss falls, then rises (here 3.052, 2.503, 2.556 at steps 4, 8, 12), so
  // RUN/best must keep step 8's weights through the worse step 12.
  o.optim.lr = 5e-2;
  o.max_steps = 12;
  o.warmup_steps = 0;
  o.batch_tokens = 16 * 12;
  o.batch_size = 16;
  o.progress = false;
  o.data.max_src_len = 10;
  o.data.max_tgt_len = 10;
  o.dev_every = 4;
  testing::TempDir tmp;
  const auto ids = tiny_ids(vocab);
  RunDir run((tmp.path() / "run").string());
  run.create(o.to_json(), BertConfig::tiny(vocab, 0.0), "v\n");
  UnilmModel a = fresh_model(vocab);
  TrainResult r = train_seq2seq(a, data, ids, o, &run, false, &dev);
  ASSERT_TRUE(r.finished);
  std::vector<std::pair<int64_t, double>> evals;
  for (const auto& l : testing::read_jsonl(run.file("log.jsonl")))
    if (l.contains("dev_loss"))
      evals.push_back({l["step"].get<int64_t>(), l["dev_loss"].get<double>()});
  ASSERT_EQ(evals.size(), 3u);  // steps 4, 8, 12
  EXPECT_EQ(evals[0].first, 4);
  EXPECT_EQ(evals[2].first, 12);
  auto best = std::min_element(evals.begin(), evals.end(),
                               [](auto& x, auto& y) { return x.second < y.second; });
  EXPECT_EQ(r.best_step, best->first);
  EXPECT_DOUBLE_EQ(r.best_dev_loss, best->second);
  // RUN/best holds the weights of that step: their dev loss, computed here from RUN/best's files
  // alone, is best.json's and the logged one.
  auto info = nlohmann::json::parse(
      core::read_file((std::filesystem::path(run.best_dir()) / "best.json").string()));
  EXPECT_EQ(info["step"].get<int64_t>(), best->first);
  EXPECT_DOUBLE_EQ(info["dev_loss"].get<double>(), best->second);
  const double best_loss = independent_dev_loss(run.best_dir(), dev, ids, o);
  EXPECT_NEAR(best_loss, info["dev_loss"].get<double>(), 1e-6);
  // (The trainer sums float32 NLLs batch by batch: the two agreed within 2e-7.) The final weights
  // (RUN/checkpoint, step 12) are not the best: their dev loss is step 12's, another value, so
  // RUN/best holding them (or any other step's) would fail the check above.
  ASSERT_NE(r.best_step, evals.back().first)
      << "the options no longer make the last step worse than the best";
  const double final_loss = independent_dev_loss(run.checkpoint_dir(), dev, ids, o);
  EXPECT_NEAR(final_loss, evals.back().second, 1e-6);
  EXPECT_GT(final_loss - best_loss, 1e-4);

  // lr 0: the dev loss never improves after the first evaluation, so early_stop 1 ends the run
  // at the second evaluation (step 8 of 12), as finished.
  TrainOptions z = o;
  z.optim.lr = 0.0;
  z.early_stop = 1;
  RunDir run2((tmp.path() / "run2").string());
  run2.create(z.to_json(), BertConfig::tiny(vocab, 0.0), "v\n");
  UnilmModel c = fresh_model(vocab);
  TrainResult r2 = train_seq2seq(c, data, ids, z, &run2, false, &dev);
  EXPECT_TRUE(r2.finished);
  EXPECT_TRUE(r2.early_stopped);
  EXPECT_EQ(r2.steps_done, 8);
  EXPECT_EQ(r2.best_step, 4);
}

TEST(TrainerTest, LossFallsOnAToyTask) {
  int64_t vocab = 0;
  auto data = tiny_task(&vocab);
  TrainOptions o;
  o.optim.lr = 3e-3;
  o.epochs = 15;
  o.batch_tokens = 16 * 12;
  o.batch_size = 16;
  o.progress = false;
  UnilmModel m = fresh_model(vocab);
  TrainResult r = train_seq2seq(m, data, tiny_ids(vocab), o, nullptr, false);
  ASSERT_GE(r.losses.size(), 20u);
  // From the untrained first step (about log V) to the last five steps' mean.
  double tail = 0;
  for (size_t i = 0; i < 5; ++i) tail += r.losses[r.losses.size() - 1 - i] / 5;
  EXPECT_LT(tail, r.losses[0] * 0.95);
}

// --length-groups: a batch computed as length-sorted micro-batches holds the same examples, and
// without dropout or random masks gives the same losses and weights as the whole batch, with
// fewer padded positions.
TEST(TrainerTest, LengthGroupsSplitTheBatchNotTheUpdate) {
  const std::vector<int64_t> len = {5, 2, 9, 2, 7};
  const auto parts = split_by_length({0, 1, 2, 3, 4}, len, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], (std::vector<size_t>{1, 3, 0}));  // shortest first, ties by index
  EXPECT_EQ(parts[1], (std::vector<size_t>{4, 2}));
  EXPECT_EQ(split_by_length({4}, len, 3), (std::vector<std::vector<size_t>>{{4}}));
  EXPECT_EQ(split_by_length({2, 0}, len, 5).size(), 2u);  // never an empty micro-batch
  EXPECT_EQ(split_by_length({2, 0, 1}, len, 1), (std::vector<std::vector<size_t>>{{2, 0, 1}}));

  int64_t vocab = 0;
  const auto data = tiny_task(&vocab);
  std::vector<int64_t> lengths;
  for (const auto& ex : data) lengths.push_back(packed_length(ex));
  ASSERT_NE(*std::min_element(lengths.begin(), lengths.end()),
            *std::max_element(lengths.begin(), lengths.end()));  // something to sort
  TrainOptions o;
  o.arch = "ernie-gen";  // the from-scratch QG recipe's; no noise: nothing random but dropout
  o.optim.lr = 3e-3;
  o.max_steps = 4;
  o.batch_tokens = 1 << 20;
  o.batch_size = 16;
  o.progress = false;
  // The same epoch order and steps: next() only splits each batch.
  {
    TrainOptions g = o;
    g.length_groups = 3;
    EpochBatches whole = fine_tuning_batches(lengths, o), split = fine_tuning_batches(lengths, g);
    // Positions computed: each micro-batch is padded to its longest example.
    auto padded = [&](const std::vector<std::vector<size_t>>& micro) {
      int64_t n = 0;
      for (const auto& m : micro) {
        int64_t longest = 0;
        for (size_t i : m) longest = std::max(longest, lengths[i]);
        n += longest * static_cast<int64_t>(m.size());
      }
      return n;
    };
    int64_t padded_whole = 0, padded_split = 0;
    for (int step = 0; step < 5; ++step) {
      const auto a = whole.next(), b = split.next();
      ASSERT_EQ(a.size(), 1u);
      ASSERT_EQ(b.size(), 3u);
      std::multiset<size_t> in_a(a[0].begin(), a[0].end()), in_b;
      for (const auto& m : b) in_b.insert(m.begin(), m.end());
      EXPECT_EQ(in_a, in_b);
      EXPECT_LE(lengths[b[0].back()], lengths[b[1].front()]);
      EXPECT_LE(lengths[b[1].back()], lengths[b[2].front()]);
      padded_whole += padded(a);
      padded_split += padded(b);
    }
    EXPECT_LT(padded_split, padded_whole);
  }
  std::map<int64_t, std::vector<double>> losses;
  std::map<int64_t, std::vector<torch::Tensor>> weights;
  for (const int64_t groups : {1, 4}) {
    TrainOptions g = o;
    g.length_groups = groups;
    torch::manual_seed(11);
    UnilmHeads heads;
    heads.pooler = false;
    UnilmModel m(BertConfig::tiny(vocab, 0.0), heads);
    m->init_weights();
    const TrainResult r = train_seq2seq(m, data, tiny_ids(vocab), g, nullptr, false);
    ASSERT_TRUE(r.finished);
    losses[groups] = r.losses;
    for (const auto& p : m->parameters()) weights[groups].push_back(p.detach().clone());
  }
  ASSERT_EQ(losses[1].size(), 4u);
  ASSERT_EQ(losses[4].size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(losses[1][i], losses[4][i], 1e-5) << "step " << i;
  for (size_t i = 0; i < weights[1].size(); ++i)
    EXPECT_TRUE(torch::allclose(weights[1][i], weights[4][i], 1e-4, 1e-6)) << "parameter " << i;
  // A run.json without the key is an ungrouped run; 0 groups is refused.
  EXPECT_FALSE(o.to_json().contains("length_groups"));
  TrainOptions bad = o;
  bad.length_groups = 0;
  EXPECT_THROW(bad.validate(), InputError);
  EXPECT_THROW(fine_tuning_batches(lengths, bad), InputError);
}

// The official forms end to end: smoothing unilm trains on the logged KL (log.jsonl "loss" ==
// "loss_unilm" on every line); per-parameter clipping logs the global norm and gives other
// weights than global clipping from the same start when the norm exceeds the threshold.
TEST(TrainerTest, UnilmSmoothingAndPerParameterClipping) {
  int64_t vocab = 0;
  auto data = tiny_task(&vocab);
  TrainOptions o;
  o.optim.lr = 3e-3;
  o.max_steps = 3;
  o.batch_tokens = 16 * 12;
  o.batch_size = 16;
  o.max_grad_norm = 0.05;  // below every step's norm: both modes clip
  o.progress = false;
  o.smoothing = LabelSmoothing::kUnilm;
  std::map<std::string, torch::Tensor> weights;
  for (const ClipMode clip : {ClipMode::kGlobal, ClipMode::kPerParameter}) {
    o.clip = clip;
    testing::TempDir tmp;
    const std::string dir = (tmp.path() / "run").string();
    RunDir run(dir);
    run.create(o.to_json(), BertConfig::tiny(vocab, 0.1), "v\n");
    UnilmModel m = fresh_model(vocab);
    train_seq2seq(m, data, tiny_ids(vocab), o, &run, false);
    std::ifstream log(dir + "/log.jsonl");
    std::string line;
    int lines = 0;
    while (std::getline(log, line)) {
      const auto j = nlohmann::json::parse(line);
      if (!j.contains("loss_unilm")) continue;
      EXPECT_DOUBLE_EQ(j.at("loss").get<double>(), j.at("loss_unilm").get<double>()) << line;
      EXPECT_GT(j.at("grad_norm").get<double>(), o.max_grad_norm);
      ++lines;
    }
    EXPECT_EQ(lines, 3);
    weights[to_string(clip)] =
        m->named_parameters()["bert.embeddings.word_embeddings.weight"].clone();
    std::filesystem::remove_all(dir);
  }
  EXPECT_FALSE(torch::allclose(weights["global"], weights["per_parameter"]));
}

}  // namespace
}  // namespace unieval::models
