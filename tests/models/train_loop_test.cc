// Faults in long runs (models/training/train_loop.h): a NaN/inf loss stops training with the last
// checkpoint intact (or, asked, skips the update); a checkpoint write that fails leaves the
// previous checkpoint loadable; `kill -9` at random points of a run that checkpoints every step
// never leaves a run that cannot resume. The gradient all-reduce of data-parallel steps
// (dist::GradientBuckets): buckets started during the backward sum like one flat all-reduce.
#include "models/training/train_loop.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/io.h"
#include "models/dist/distributed.h"
#include "models/io/run_dir.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

namespace fs = std::filesystem;

// A tiny MLM model and a loss that trains it: the MLM logits of a fixed input pulled towards a
// fixed target. `nan_at` (0-based step) multiplies that step's loss by NaN.
struct Fixture {
  BertConfig cfg = BertConfig::tiny(40, 0.0);
  UnilmModel model;
  torch::Tensor ids = torch::tensor({{2, 7, 8, 9, 3}}, torch::kInt64);
  torch::Tensor labels = torch::tensor({7, 8, 9, 10, 11}, torch::kInt64);
  Fixture() : model(make()) {}
  UnilmModel make() {
    torch::manual_seed(5);
    UnilmHeads h;
    h.mlm = true;
    return UnilmModel(cfg, h);
  }
  LoopHooks hooks(int64_t nan_at,
                  std::vector<std::vector<torch::Tensor>>* weights_at_entry = nullptr) {
    LoopHooks h;
    h.micro_batches = [this, weights_at_entry](int64_t) {
      if (weights_at_entry) {
        std::vector<torch::Tensor> w;
        for (const auto& p : model->parameters()) w.push_back(p.detach().clone());
        weights_at_entry->push_back(std::move(w));
      }
      return int64_t{1};
    };
    h.micro_loss = [this, nan_at](int64_t step, int64_t) {
      BertOutput out = model->forward(ids, torch::zeros_like(ids), torch::ones_like(ids));
      torch::Tensor logits =
          model->mlm_logits(out.last_hidden_state.reshape({-1, cfg.hidden_size}));
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, labels);
      if (step == nan_at) loss = loss * std::numeric_limits<double>::quiet_NaN();
      return MicroLoss{loss, 1.0, ids.numel(), {}};
    };
    h.report = [](int64_t, const StepValues&, StepReport& r) { r.log["loss"] = r.loss; };
    return h;
  }
};

LoopOptions options(int64_t total) {
  LoopOptions o;
  o.optim.lr = 1e-2;
  o.total_steps = total;
  o.warmup_steps = 0;
  o.save_every = 1;
  o.progress = false;
  return o;
}

bool same_weights(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b[i])) return false;
  return true;
}

TEST(TrainLoopTest, NonFiniteLossStopsWithTheLastCheckpointIntact) {
  testing::TempDir tmp;
  Fixture f;
  RunDir run((tmp.path() / "run").string());
  run.create(nlohmann::ordered_json::object(), f.cfg, "v\n");
  std::vector<std::vector<torch::Tensor>> entry;
  try {
    run_train_loop(f.model, options(5), &run, false, f.hooks(/*nan_at=*/2, &entry));
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("step 3: the loss is nan"), std::string::npos) << msg;
    EXPECT_NE(msg.find("checkpoint of step 2 is intact"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--skip-nonfinite"), std::string::npos) << msg;
  }
  ASSERT_EQ(entry.size(), 3u);
  // The checkpoint on disk is step 2's: the weights at the entry of step 3.
  Fixture g;
  Optimizer opt(named_pairs(g.model->named_parameters()), options(5).optim);
  auto state = run.load_checkpoint(*g.model, opt);
  EXPECT_EQ(state["step"], 2);
  std::vector<torch::Tensor> loaded;
  for (const auto& p : g.model->parameters()) loaded.push_back(p.detach());
  EXPECT_TRUE(same_weights(loaded, entry[2]));
  // The log holds the two steps before it, nothing after.
  EXPECT_EQ(core::read_lines(run.file("log.jsonl")).size(), 2u);
  // Resuming without the fault finishes the run.
  LoopResult r = run_train_loop(g.model, options(5), &run, true, g.hooks(/*nan_at=*/-1));
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.steps_done, 5);
}

TEST(TrainLoopTest, SkipNonFiniteLeavesTheWeightsAndCountsTheStep) {
  testing::TempDir tmp;
  Fixture f;
  RunDir run((tmp.path() / "run").string());
  run.create(nlohmann::ordered_json::object(), f.cfg, "v\n");
  LoopOptions o = options(5);
  o.skip_nonfinite = true;
  std::vector<std::vector<torch::Tensor>> entry;
  LoopResult r = run_train_loop(f.model, o, &run, false, f.hooks(/*nan_at=*/2, &entry));
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.steps_done, 5);
  EXPECT_EQ(r.skipped_steps, 1);
  ASSERT_EQ(entry.size(), 5u);
  EXPECT_FALSE(same_weights(entry[1], entry[2]));  // step 2 was applied
  EXPECT_TRUE(same_weights(entry[2], entry[3]));   // step 3 was not
  EXPECT_FALSE(same_weights(entry[3], entry[4]));  // step 4 was
  bool logged = false;
  for (const auto& line : core::read_lines(run.file("log.jsonl"))) {
    auto j = nlohmann::json::parse(line);
    if (j["step"] == 3) {
      EXPECT_EQ(j["skipped"], "nan");
      logged = true;
    }
  }
  EXPECT_TRUE(logged);
}

TEST(TrainLoopTest, AFailedCheckpointWriteLeavesThePreviousOneLoadable) {
  testing::TempDir tmp;
  Fixture f;
  RunDir run((tmp.path() / "run").string());
  run.create(nlohmann::ordered_json::object(), f.cfg, "v\n");
  LoopOptions o = options(2);
  run_train_loop(f.model, o, &run, false, f.hooks(-1));
  ASSERT_TRUE(run.has_checkpoint());
  // Every file write beyond 2 KiB fails (EFBIG; the signal that would kill the process is
  // ignored), as on a full disk: the next checkpoint cannot be written.
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 2048;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    Fixture g;
    run_train_loop(g.model, options(4), &run, true, g.hooks(-1));
  } catch (const std::exception& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find(run.path()), std::string::npos) << e.what();
  }
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  // Step 2's checkpoint is still there, loadable, and the run resumes from it to the end.
  Fixture h;
  Optimizer opt(named_pairs(h.model->named_parameters()), o.optim);
  EXPECT_EQ(run.load_checkpoint(*h.model, opt)["step"], 2);
  LoopResult r = run_train_loop(h.model, options(4), &run, true, h.hooks(-1));
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.losses.size(), 2u);
}

// `unieval pretrain` checkpointing every step, killed with SIGKILL at seeded random moments
// (most land inside a checkpoint write: a step of this model takes less time than its write);
// after every kill the run resumes, and at the end it finishes.
TEST(TrainLoopTest, KillNineDuringCheckpointWritesNeverLeavesARunThatCannotResume) {
  testing::TempDir tmp;
  std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
  const std::vector<std::string> words = {"the", "cat", "dog", "sat", "ran",
                                          "on",  "a",   "mat", "log", "."};
  for (const auto& w : words) vocab += w + "\n";
  const std::string vp = tmp.write("vocab.txt", vocab);
  std::string corpus;
  std::mt19937 gen(3);
  for (int d = 0; d < 30; ++d) {
    for (int s = 0; s < 4; ++s) {
      for (int w = 0; w < 6; ++w) corpus += words[gen() % words.size()] + " ";
      corpus += ".\n";
    }
    corpus += "\n";
  }
  const std::string cp = tmp.write("corpus.txt", corpus);
  const std::string config = tmp.write(
      "config.json",
      R"({"vocab_size": 15, "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 32, "max_position_embeddings": 64, "type_vocab_size": 6})");
  const std::string out = (tmp.path() / "run").string();
  const std::string devnull = "/dev/null";
  auto spawn = [&](bool resume) {
    std::vector<std::string> args = {UNIEVAL_BINARY, "pretrain", "--out",        out,
                                     "--threads",    "1",        "--no-progress"};
    if (resume) {
      args.push_back("--resume");
    } else {
      for (const char* a :
           {"--corpus", cp.c_str(), "--model-config", config.c_str(), "--vocab", vp.c_str(),
            "--steps", "100000", "--batch-size", "6", "--max-len", "24", "--save-every", "1"})
        args.emplace_back(a);
    }
    pid_t pid = fork();
    if (pid == 0) {
      FILE* sink = std::fopen(devnull.c_str(), "w");
      if (sink) dup2(fileno(sink), 1), dup2(fileno(sink), 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  };
  auto checkpoint_exists = [&]() {
    return fs::exists(fs::path(out) / "checkpoint" / "trainer_state.json") ||
           fs::exists(fs::path(out) / "checkpoint.old" / "trainer_state.json");
  };
  std::mt19937 delays(17);
  for (int round = 0; round < 6; ++round) {
    pid_t pid = spawn(round > 0);
    ASSERT_GT(pid, 0);
    // Until the run has a checkpoint (the first round), then a random 50-400 ms more.
    for (int i = 0; i < 600 && !checkpoint_exists(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + delays() % 350));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status))
        << "round " << round << ": the run ended before the kill (exit " << WEXITSTATUS(status)
        << ")";
    ASSERT_TRUE(checkpoint_exists()) << "round " << round;
  }
  // It resumes: a few more steps, then stops cleanly.
  auto r = testing::run_cli("pretrain --out " + testing::shq(out) +
                            " --resume --stop-after 3 --threads 1 --no-progress --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"steps\""), std::string::npos) << r.out;
}

// Two ranks in two threads of this process (Gloo on loopback): each backpropagates its own input
// through the same model; the bucketed, overlapped all-reduce leaves every gradient equal to the
// sum of the two ranks' gradients, with or without arm().
TEST(GradientBucketsTest, OverlappedBucketsSumLikeOneFlatAllReduce) {
  if (!dist::have_gloo()) GTEST_SKIP() << "this build has no c10d with Gloo";
  torch::manual_seed(3);
  auto make = [] {
    return torch::nn::Sequential(torch::nn::Linear(8, 16), torch::nn::Tanh(),
                                 torch::nn::Linear(16, 16), torch::nn::Tanh(),
                                 torch::nn::Linear(16, 4));
  };
  torch::nn::Sequential reference = make();
  torch::nn::Linear unused(3, 3);  // in the parameter list, never reached by backward
  auto copy_of = [&]() {
    torch::nn::Sequential m = make();
    torch::NoGradGuard ng;
    auto src = reference->parameters(), dst = m->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
    return m;
  };
  const torch::Tensor x[2] = {torch::randn({5, 8}), torch::randn({7, 8})};
  // The expected sums: both losses backpropagated into one copy.
  torch::nn::Sequential both = copy_of();
  (both->forward(x[0]).pow(2).sum() + both->forward(x[1]).pow(2).sum()).backward();

  for (bool armed : {true, false}) {
    torch::nn::Sequential models[2] = {copy_of(), copy_of()};
    const int port = dist::free_port();
    size_t buckets[2] = {0, 0}, early[2] = {0, 0};
    std::string errors[2];
    auto rank_main = [&](int r) {
      try {
        dist::DistEnv env;
        env.rank = r;
        env.world_size = 2;
        env.master_port = port;
        env.timeout_s = 60;
        dist::ProcessGroup group(env, "gloo", torch::kCPU);
        std::vector<torch::Tensor> params = models[r]->parameters();
        torch::nn::Linear own_unused(3, 3);
        for (const auto& p : own_unused->parameters()) params.push_back(p);
        dist::GradientBuckets b(group, params, /*bucket_bytes=*/256);  // several buckets
        torch::Tensor loss = models[r]->forward(x[r]).pow(2).sum();
        if (armed) b.arm(loss);  // the unused parameters (the first bucket) are ready at once
        loss.backward();
        b.finish();
        buckets[r] = b.buckets();
        early[r] = b.started_early();
        for (size_t k = params.size() - 2; k < params.size();
             ++k)  // the unused ones: zeros, defined
          if (!params[k].grad().defined() || params[k].grad().abs().max().item<double>() != 0)
            errors[r] += "unused ";
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    };
    std::thread t1(rank_main, 1);
    rank_main(0);
    t1.join();
    ASSERT_EQ(errors[0], "");
    ASSERT_EQ(errors[1], "");
    EXPECT_GT(buckets[0], 2u);
    EXPECT_EQ(buckets[0], buckets[1]);
    if (armed)
      EXPECT_EQ(early[0], buckets[0]);  // every bucket started during the backward
    else
      EXPECT_EQ(early[0], 0u);
    const auto expected = both->parameters();
    for (int r = 0; r < 2; ++r) {
      const auto got = models[r]->parameters();
      for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_LE((got[i].grad() - expected[i].grad()).abs().max().item<double>(), 1e-6)
            << "rank " << r << " param " << i;
    }
  }
}

// The backend a group gets: nccl for CUDA when the build has it, gloo otherwise; each refusal is
// an InputError naming the flag.
TEST(ProcessGroupTest, BackendChoiceAndRefusals) {
  const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA, 0);
  if (dist::have_gloo() || !dist::have_c10d()) {
    EXPECT_EQ(dist::resolve_backend("", cpu), "gloo");
  }
  EXPECT_EQ(dist::resolve_backend("", cuda), dist::have_nccl() ? "nccl" : "gloo");
  EXPECT_THROW(dist::resolve_backend("mpi", cpu), InputError);
  EXPECT_THROW(dist::resolve_backend("nccl", cpu), InputError);  // needs CUDA, whatever the build
  if (dist::have_nccl()) {
    EXPECT_EQ(dist::resolve_backend("nccl", cuda), "nccl");
  } else {
    EXPECT_THROW(dist::resolve_backend("nccl", cuda), InputError);
  }
  if (dist::have_c10d() && !dist::have_gloo()) {
    EXPECT_THROW(dist::resolve_backend("gloo", cpu), InputError);
  }
}

// A group of one rank on each backend this build has (Gloo on the CPU; NCCL on cuda:0 when the
// build has it and a GPU is here): the collectives the pipelines use leave values unchanged, the
// host-side sum helper works whatever the group's device, and bucketed gradients equal the plain
// backward's. NCCL cannot put two ranks on one GPU, so this is its check on a one-GPU machine.
TEST(ProcessGroupTest, GroupOfOneOnEveryBackendOfThisBuild) {
  std::vector<std::pair<std::string, torch::Device>> cases;
  if (dist::have_gloo()) cases.emplace_back("gloo", torch::Device(torch::kCPU));
  if (dist::have_nccl() && torch::cuda::is_available())
    cases.emplace_back("nccl", torch::Device(torch::kCUDA, 0));
  if (cases.empty()) GTEST_SKIP() << "this build has no c10d backend this machine can run";
  for (const auto& [backend, device] : cases) {
    SCOPED_TRACE(backend);
    dist::DistEnv env;
    env.master_port = dist::free_port();
    env.timeout_s = 60;
    dist::ProcessGroup group(env, backend, device);
    EXPECT_EQ(group.backend(), backend);
    EXPECT_EQ(group.device(), device);
    torch::manual_seed(5);
    torch::Tensor t = torch::randn({37}, torch::TensorOptions().device(device));
    const torch::Tensor before = t.clone();
    group.all_reduce_sum(t);
    EXPECT_TRUE(torch::equal(t, before));
    group.broadcast(t, 0);
    EXPECT_TRUE(torch::equal(t, before));
    group.barrier();
    std::vector<double> sums{1.5, -2.25, 1e300};
    dist::all_reduce_sum(group, sums);
    EXPECT_EQ(sums, (std::vector<double>{1.5, -2.25, 1e300}));

    torch::nn::Linear a(6, 5), b(6, 5);
    a->to(device);
    b->to(device);
    {
      torch::NoGradGuard ng;
      b->weight.copy_(a->weight);
      b->bias.copy_(a->bias);
    }
    const torch::Tensor x = torch::randn({4, 6}, torch::TensorOptions().device(device));
    a->forward(x).pow(2).sum().backward();
    dist::GradientBuckets buckets(group, b->parameters(), /*bucket_bytes=*/64);
    torch::Tensor loss = b->forward(x).pow(2).sum();
    buckets.arm(loss);
    loss.backward();
    buckets.finish();
    EXPECT_TRUE(torch::equal(b->weight.grad(), a->weight.grad()));
    EXPECT_TRUE(torch::equal(b->bias.grad(), a->bias.grad()));
  }
}

}  // namespace
}  // namespace unieval::models
