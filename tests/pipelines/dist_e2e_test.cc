// Data-parallel fine-tuning and sharded decoding through the `unieval` binary (models/dist/distributed.h):
// 2 Gloo processes on loopback train the demo-size model to the parameters of one process with
// the same global batch (dropout on: every micro-batch re-seeds torch's generator, so the dropout
// streams do not depend on the rank), a 2-rank run resumes in 1 process, the sharded decode is
// byte-identical to the 1-process one, and a killed worker ends the run with an error naming its
// rank while the last checkpoint stays loadable. One thread per rank. The same for `unieval
// pretrain` (both objective sets, many small all-reduce buckets too) and `unieval run` (data,
// training, sharded decode and the score).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/io.h"
#include "models/dist/distributed.h"
#include "models/io/safetensors.h"
#include "models/training/seq2seq_data.h"
#include "tests/json_line.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::shq;

class DistTest : public ::testing::Test {
 protected:
  void SetUp() override {
    models::SyntheticTaskOptions o;  // the demo's task, smaller
    o.kind = "reverse";
    o.n_train = 96;
    o.n_dev = 4;
    o.n_test = 13;
    models::write_synthetic_task(models::make_synthetic_task(o), data().string());
    const auto vocab = core::read_lines((data() / "vocab.txt").string());
    // The demo's model (pipelines/seq2seq.cc DemoOptions::demo_config), with dropout on.
    nlohmann::json cfg = {{"vocab_size", vocab.size()},
                          {"hidden_size", 64},
                          {"num_hidden_layers", 2},
                          {"num_attention_heads", 4},
                          {"intermediate_size", 128},
                          {"max_position_embeddings", 32},
                          {"type_vocab_size", 2},
                          {"hidden_dropout_prob", 0.1},
                          {"attention_probs_dropout_prob", 0.1}};
    tmp.write("config.json", cfg.dump());
  }
  fs::path data() const { return tmp.path() / "data"; }
  std::string run(const std::string& name) const { return (tmp.path() / name).string(); }
  // Global batch: 2 micro-batches of 8 examples per step.
  std::string finetune(const std::string& name, const std::string& extra) const {
    return testing::finetune_args(
        "reverse", tmp.path() / "config.json", data(), run(name),
        "--steps 8 --batch-size 8 --accum 2 --lr 1e-3 --threads 1 --no-progress --json " + extra);
  }
  std::string decode(const std::string& name, const std::string& out,
                     const std::string& extra) const {
    return "decode --run " + shq(run(name)) + " --split test --out " + shq(run(out)) +
           " --batch-size 3 --beam 3 --max-len 8 --min-len 3 --threads 1 --no-progress --json " +
           extra;
  }
  // Max |a - b| over every parameter of two checkpoints (infinity when the names differ).
  static double max_abs_diff(const std::string& a_path, const std::string& b_path) {
    auto a = models::SafetensorsFile::open(a_path);
    auto b = models::SafetensorsFile::open(b_path);
    if (a.tensors().size() != b.tensors().size()) return INFINITY;
    double m = 0;
    for (const auto& info : a.tensors()) {
      if (!b.contains(info.name)) return INFINITY;
      m = std::max(m, (a.tensor(info.name) - b.tensor(info.name)).abs().max().item<double>());
    }
    return m;
  }
  std::string weights(const std::string& name) const {
    return run(name) + "/checkpoint/model.safetensors";
  }
  testing::TempDir tmp;
};

TEST_F(DistTest, TwoRanksMatchOneRankAndResumeWithOtherWorldSize) {
  auto one = run_cli(finetune("one", ""));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_cli(finetune("two", "--nproc 2"));
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_LE(max_abs_diff(weights("one"), weights("two")), 1e-5);
  // The logs agree step by step (loss summed over ranks, global token counts); rank 0 wrote them.
  const auto l1 = testing::read_jsonl(run("one") + "/log.jsonl");
  const auto l2 = testing::read_jsonl(run("two") + "/log.jsonl");
  ASSERT_EQ(l1.size(), 8u);
  ASSERT_EQ(l2.size(), 8u);
  for (size_t i = 0; i < l1.size(); ++i) {
    EXPECT_NEAR(l1[i]["loss"].get<double>(), l2[i]["loss"].get<double>(), 1e-6) << i;
    EXPECT_EQ(l1[i]["tokens"], l2[i]["tokens"]) << i;
    EXPECT_TRUE(l2[i].contains("allreduce_s"));
    EXPECT_FALSE(l1[i].contains("allreduce_s"));  // one process: the log is as it always was
  }
  // 2 ranks stopped after 3 steps, resumed in 1 process; 1 rank stopped, resumed with 2.
  auto a = run_cli(finetune("a", "--nproc 2 --stop-after 3"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto a2 = run_cli(finetune("a", "--resume"));
  ASSERT_EQ(a2.exit_code, 0) << a2.err;
  EXPECT_LE(max_abs_diff(weights("one"), weights("a")), 1e-5);
  auto b = run_cli(finetune("b", "--stop-after 5"));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto b2 = run_cli(finetune("b", "--resume --nproc 2"));
  ASSERT_EQ(b2.exit_code, 0) << b2.err;
  EXPECT_LE(max_abs_diff(weights("one"), weights("b")), 1e-5);
}

TEST_F(DistTest, ShardedDecodeIsByteIdentical) {
  auto t = run_cli(finetune("one", ""));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto d1 = run_cli(decode("one", "one.hyp", ""));
  ASSERT_EQ(d1.exit_code, 0) << d1.err;
  const std::string expected = core::read_file(run("one.hyp"));
  ASSERT_EQ(core::split_lines(expected, "one.hyp").size(), 13u);
  ASSERT_NE(expected.find_first_not_of('\n'), std::string::npos);  // not all empty
  for (int n : {2, 3}) {
    const std::string out = "sharded" + std::to_string(n) + ".hyp";
    auto d = run_cli(decode("one", out, "--nproc " + std::to_string(n)));
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(core::read_file(run(out)), expected) << n;
    EXPECT_EQ(testing::last_json_line(d.out)["decoded_now"].get<int>(), 13);
    for (int r = 0; r < n; ++r)  // the shards were merged and removed
      EXPECT_FALSE(
          fs::exists(run(out) + ".shard-" + std::to_string(r) + "-of-" + std::to_string(n)));
  }
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

// The pids whose parent is `parent` and whose environment holds `var`.
std::vector<pid_t> children_with_env(pid_t parent, const std::string& var) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string s((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = s.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(s.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != parent)
      continue;
    std::ifstream env(e.path() / "environ", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
    if (text.find(std::string(1, '\0') + var + '\0') != std::string::npos ||
        text.rfind(var + '\0', 0) == 0)
      out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

TEST_F(DistTest, KilledWorkerStopsTheRunAndLeavesTheCheckpointLoadable) {
  const std::string err_path = run("launcher.err");
  const std::string cmd =
      std::string("exec '") + UNIEVAL_BINARY + "' " +
      replace(finetune("k", "--nproc 2 --save-every 2"), "--steps 8", "--steps 100000") +
      " >/dev/null 2>" + shq(err_path);
  const pid_t launcher = ::fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for a checkpoint, then kill rank 1.
  const auto start = std::chrono::steady_clock::now();
  const std::string state = run("k") + "/checkpoint/trainer_state.json";
  while (!fs::exists(state) && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(state)) << core::read_file(err_path);
  std::vector<pid_t> rank1 = children_with_env(launcher, "RANK=1");
  ASSERT_EQ(rank1.size(), 1u);
  ::kill(rank1[0], SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  int status = 0;
  ASSERT_EQ(::waitpid(launcher, &status, 0), launcher);
  EXPECT_LT(std::chrono::steady_clock::now() - killed, std::chrono::seconds(20));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string err = core::read_file(err_path);
  EXPECT_NE(err.find("rank 1 of 2 was killed by signal 9"), std::string::npos) << err;
  EXPECT_TRUE(children_with_env(launcher, "RANK=0").empty());
  // The checkpoint loads: one more step in one process, and a decode with it.
  auto resumed = run_cli(finetune("k", "--resume --stop-after 1"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto d = run_cli(decode("k", "k.hyp", ""));
  EXPECT_EQ(d.exit_code, 0) << d.err;
}

TEST_F(DistTest, PortInUseAndTooFewMicroBatchesAreInputErrors) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::listen(fd, 1);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const int port = ntohs(a.sin_port);
  auto r = run_cli(finetune("p", "--nproc 2 --master-port " + std::to_string(port)));
  ::close(fd);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find("--master-port " + std::to_string(port) + ": the port of 127.0.0.1 is in use"),
      std::string::npos)
      << r.err;
  auto accum = run_cli(replace(finetune("q", "--nproc 2"), "--accum 2", "--accum 1"));
  EXPECT_EQ(accum.exit_code, 2);
  EXPECT_NE(accum.err.find("--accum 1 is below the 2 ranks"), std::string::npos) << accum.err;
  EXPECT_FALSE(fs::exists(run("q")));  // refused before the run directory is written
  // Both ranks refuse; the launcher names whichever exited first.
  EXPECT_TRUE(accum.err.find("rank 0 of 2 exited with status 2") != std::string::npos ||
              accum.err.find("rank 1 of 2 exited with status 2") != std::string::npos)
      << accum.err;
  // A backend or device no worker could use is refused once, before any worker starts.
  if (!models::dist::have_nccl()) {
    auto nccl = run_cli(finetune("n", "--nproc 2 --backend nccl"));
    EXPECT_EQ(nccl.exit_code, 2);
    EXPECT_NE(nccl.err.find("--backend nccl"), std::string::npos) << nccl.err;
    EXPECT_EQ(nccl.err.find("rank "), std::string::npos) << "no worker was started: " << nccl.err;
    EXPECT_FALSE(fs::exists(run("n")));
  }
  if (!torch::cuda::is_available()) {
    auto cuda = run_cli(finetune("c", "--nproc 2 --device cuda"));
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_NE(cuda.err.find("--device cuda: CUDA is not available"), std::string::npos) << cuda.err;
    EXPECT_EQ(cuda.err.find("rank "), std::string::npos) << "no worker was started: " << cuda.err;
  }
}

// The corpus of the pre-training tests: sentences of the synthetic task's words, documents of 4.
std::string corpus_of(const std::string& vocab_path) {
  std::vector<std::string> words;
  for (const auto& w : core::read_lines(vocab_path))
    if (!w.empty() && w[0] != '[') words.push_back(w);
  std::mt19937 rng(11);
  std::string text;
  for (int d = 0; d < 24; ++d) {
    for (int s = 0; s < 4; ++s) {
      const int n = 4 + static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) text += (i ? " " : "") + words[rng() % words.size()];
      text += "\n";
    }
    text += "\n";
  }
  return text;
}

// Sets an environment variable for the scope (the CLI runs inherit it).
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};

TEST_F(DistTest, PretrainTwoRanksMatchOneProcessBothObjectiveSetsAndResumeAcrossWorldSizes) {
  const std::string corpus = tmp.write("corpus.txt", corpus_of((data() / "vocab.txt").string()));
  for (const std::string objectives : {"unified", "ernie-gen"}) {
    auto pretrain = [&](const std::string& name, const std::string& extra) {
      return "pretrain --corpus " + shq(corpus) + " --model-config " +
             shq((tmp.path() / "config.json").string()) + " --vocab " +
             shq((data() / "vocab.txt").string()) + " --out " + shq(run(objectives + name)) +
             " --objectives " + objectives +
             " --segments bert --steps 4 --batch-size 6 --accum 2 --max-len 24" +
             " --lr 1e-3 --save-every 2 --threads 1 --no-progress --json " + extra;
    };
    auto one = run_cli(pretrain("-one", ""));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    auto two = run_cli(pretrain("-two", "--nproc 2"));
    ASSERT_EQ(two.exit_code, 0) << two.err;
    const std::string w1 = run(objectives + "-one") + "/checkpoint/model.safetensors";
    EXPECT_LE(max_abs_diff(w1, run(objectives + "-two") + "/checkpoint/model.safetensors"), 1e-5)
        << objectives;
    // The summary and the log lines say the whole step's values (every rank's part summed).
    const auto j1 = testing::last_json_line(one.out), j2 = testing::last_json_line(two.out);
    EXPECT_EQ(j2["tokens_seen"], j1["tokens_seen"]);
    for (const auto& [k, v] : j1["objective_loss"].items())
      EXPECT_NEAR(j2["objective_loss"][k].get<double>(), v.get<double>(), 1e-6)
          << objectives << " " << k;
    const auto l1 = testing::read_jsonl(run(objectives + "-one") + "/log.jsonl");
    const auto l2 = testing::read_jsonl(run(objectives + "-two") + "/log.jsonl");
    ASSERT_EQ(l1.size(), 4u);
    ASSERT_EQ(l2.size(), 4u);
    for (size_t i = 0; i < l1.size(); ++i) {
      EXPECT_TRUE(l2[i].contains("allreduce_s")) << i;  // two ranks really ran
      for (const auto& [k, v] : l1[i].items()) {
        if (k == "elapsed_s") continue;
        ASSERT_TRUE(l2[i].contains(k)) << k;
        if (v.is_number_float())
          EXPECT_NEAR(l2[i][k].get<double>(), v.get<double>(), 1e-6)
              << objectives << " " << k << " " << i;
        else
          EXPECT_EQ(l2[i][k], v) << objectives << " " << k << " " << i;
      }
    }
    // Buckets of 2 KiB: the all-reduce runs in many pieces, started during the backward.
    {
      ScopedEnv small("UNIEVAL_DIST_BUCKET_MB", "0.002");
      auto b = run_cli(pretrain("-buckets", "--nproc 2"));
      ASSERT_EQ(b.exit_code, 0) << b.err;
    }
    EXPECT_LE(max_abs_diff(w1, run(objectives + "-buckets") + "/checkpoint/model.safetensors"),
              1e-5)
        << objectives;
    // Stopped with 2 ranks, resumed in one process.
    auto a = run_cli(pretrain("-resumed", "--nproc 2 --stop-after 2"));
    ASSERT_EQ(a.exit_code, 0) << a.err;
    auto a2 = run_cli("pretrain --out " + shq(run(objectives + "-resumed")) +
                      " --resume --threads 1 --no-progress");
    ASSERT_EQ(a2.exit_code, 0) << a2.err;
    EXPECT_LE(max_abs_diff(w1, run(objectives + "-resumed") + "/checkpoint/model.safetensors"),
              1e-5)
        << objectives;
  }
}

TEST_F(DistTest, RunTwoRanksEqualsOneProcess) {
  // The synthetic task in the SQuAD-QG layout (nqg's processed files).
  for (const char* split : {"train", "dev", "test"}) {
    tmp.write("qg/src-" + std::string(split) + ".txt",
              core::read_file((data() / (std::string(split) + ".src")).string()));
    tmp.write("qg/tgt-" + std::string(split) + ".txt",
              core::read_file((data() / (std::string(split) + ".tgt")).string()));
  }
  auto cmd = [&](const std::string& name) {
    return "run --task squad-qg --data " + shq(run("qg")) + " --out " + shq(run(name)) +
           " --model-config " + shq((tmp.path() / "config.json").string()) + " --vocab " +
           shq((data() / "vocab.txt").string()) +
           " --steps 8 --batch-size 8 --accum 2 --lr 1e-3 --max-src-len 12 --max-tgt-len 12 "
           "--max-len 8 --beam 3" +
           " --decode-batch 3 --skip-metric meteor --threads 1 --no-progress --json";
  };
  auto one = run_cli(cmd("run-one"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_cli(cmd("run-two") + " --nproc 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const auto j1 = testing::last_json_line(one.out), j2 = testing::last_json_line(two.out);
  EXPECT_EQ(j2["summary"], j1["summary"]);
  EXPECT_EQ(j2["run"]["hypotheses_sha256"], j1["run"]["hypotheses_sha256"]);
  EXPECT_EQ(core::read_file(run("run-two") + "/eval/hyp.txt"),
            core::read_file(run("run-one") + "/eval/hyp.txt"));
  EXPECT_LE(max_abs_diff(run("run-one") + "/checkpoint/model.safetensors",
                         run("run-two") + "/checkpoint/model.safetensors"),
            1e-5);
  for (const auto& line : testing::read_jsonl(run("run-two") + "/log.jsonl"))
    if (line.contains("grad_norm")) {
      EXPECT_TRUE(line.contains("allreduce_s"));  // trained on two ranks
    }
  // A finished run asked again with another world size prints its result (N is not part of the request).
  auto again = run_cli(cmd("run-two"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(testing::last_json_line(again.out)["summary"], j1["summary"]);
}

TEST_F(DistTest, AMalformedBucketSizeIsRefusedBeforeAnythingIsWritten) {
  ScopedEnv bad("UNIEVAL_DIST_BUCKET_MB", "abc");
  auto r = run_cli(finetune("bucket", "--nproc 2"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("UNIEVAL_DIST_BUCKET_MB='abc' is not a positive number of MiB"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(run("bucket")));
}

}  // namespace
}  // namespace unieval
