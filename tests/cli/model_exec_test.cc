// `unieval` execs `unieval-model` for the model commands (#24 item 3): OMP_WAIT_POLICY=PASSIVE is
// set in the child's environment unless the user set it. The child here is a script standing in
// for unieval-model (UNIEVAL_MODEL_BINARY) that prints what it received; the real unieval-model
// records the policy it ran under, with its thread pools, in run.json's "runtime".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_util.h"

namespace {

using unieval::testing::shq;
using unieval::testing::TempDir;

std::string fake_model_binary(const TempDir& dir) {
  const auto path = dir.path() / "fake-unieval-model";
  std::ofstream(path) << "#!/bin/sh\necho \"args=$*\"\necho \"policy=${OMP_WAIT_POLICY-unset}\"\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path.string();
}

TEST(ModelExecTest, PassiveWaitPolicyUnlessSet) {
  TempDir dir;
  const std::string bin = fake_model_binary(dir);
  const std::string prefix = "env -u OMP_WAIT_POLICY UNIEVAL_MODEL_BINARY=" + shq(bin) + " ";
  auto cmd = [&](const std::string& env) {
    std::string full = env + "'" + std::string(UNIEVAL_BINARY) + "' decode --beam 5";
    FILE* p = popen(full.c_str(), "r");
    std::string out;
    char buf[256];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
    return out;
  };
  EXPECT_EQ(cmd(prefix), "args=decode --beam 5\npolicy=PASSIVE\n");
  EXPECT_EQ(cmd(prefix + "OMP_WAIT_POLICY=ACTIVE "), "args=decode --beam 5\npolicy=ACTIVE\n");
}

// A one-step fine-tune of a tiny model from scratch; returns the "runtime" line of its run.json.
std::string runtime_of_finetune(const TempDir& dir, const std::string& name,
                                const std::string& env) {
  const auto d = dir.path();
  const auto run = d / name;
  const std::string cmd =
      env + "'" + std::string(UNIEVAL_BINARY) + "' finetune --task t --model-config " +
      shq((d / "config.json").string()) + " --data " + shq(d.string()) + " --out " +
      shq(run.string()) + " --steps 1 --batch-size 2 --threads 2 --no-progress >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return "finetune failed: " + cmd;
  std::ifstream in(run / "run.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string json = ss.str();
  const auto at = json.find("\"runtime\"");
  return at == std::string::npos ? json : json.substr(at, json.find('\n', at) - at);
}

TEST(ModelExecTest, RunRecordsWaitPolicyAndThreadPools) {
  auto sibling = std::filesystem::path(UNIEVAL_BINARY).parent_path() / "unieval-model";
  if (!std::filesystem::exists(sibling)) GTEST_SKIP() << "built without LibTorch: no " << sibling;
  TempDir dir;
  std::ofstream(dir.path() / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\nc\n";
  std::ofstream(dir.path() / "config.json")
      << R"({"vocab_size": 8, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 16, "max_position_embeddings": 16})";
  std::ofstream(dir.path() / "train.src") << "a b\nb c\n";
  std::ofstream(dir.path() / "train.tgt") << "c\na\n";
  const std::string base = runtime_of_finetune(dir, "default", "env -u OMP_WAIT_POLICY ");
  EXPECT_NE(base.find("OMP_WAIT_POLICY PASSIVE"), std::string::npos) << base;
  EXPECT_NE(base.find("intra-op 2"), std::string::npos) << base;
  const std::string user = runtime_of_finetune(dir, "user", "OMP_WAIT_POLICY=ACTIVE ");
  EXPECT_NE(user.find("OMP_WAIT_POLICY ACTIVE"), std::string::npos) << user;
}

}  // namespace
