// `unieval` execs `unieval-model` for the model commands (#24 item 3): OMP_WAIT_POLICY=PASSIVE is
// set in the child's environment unless the user set it. The child here is a script standing in
// for unieval-model (UNIEVAL_MODEL_BINARY) that prints what it received.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

}  // namespace
