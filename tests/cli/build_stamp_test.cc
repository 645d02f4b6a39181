// The commit a program records (core/build_info.h): cmake/build_stamp.cmake on throw-away git
// repositories, and the built programs against the source tree's HEAD.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/test_util.h"

namespace {

namespace fs = std::filesystem;
using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;

// A shell command's stdout without trailing newlines, and whether it exited 0 (stderr dropped).
struct Shell {
  bool ok = false;
  std::string out;
};
Shell sh(const std::string& cmd) {
  Shell r;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The commit the stamp script writes for SOURCE_DIR `dir`, read back from the generated source.
std::string stamp(const fs::path& dir, const fs::path& out) {
  std::string script = std::string(UNIEVAL_SOURCE_DIR) + "/cmake/build_stamp.cmake";
  Shell r = sh("cmake -DSOURCE_DIR=" + shq(dir.string()) + " -DOUT=" + shq(out.string()) + " -P " +
               shq(script));
  EXPECT_TRUE(r.ok) << "cmake -P " << script;
  std::string text = read_file(out);
  auto at = text.find("return \"");
  if (at == std::string::npos) return "<no return in " + text + ">";
  at += 8;
  return text.substr(at, text.find('"', at) - at);
}

bool have_tools() { return sh("git --version").ok && sh("cmake --version").ok; }

}  // namespace

TEST(BuildStampTest, StampsHeadMarksTrackedChangesAndRewritesOnlyOnChange) {
  if (!have_tools()) GTEST_SKIP() << "git or cmake not on PATH";
  TempDir tmp;
  fs::path repo = tmp.path() / "repo", out = tmp.path() / "build_stamp.cc";
  fs::create_directories(repo);
  std::string git = "git -C " + shq(repo.string()) + " ";
  ASSERT_TRUE(sh(git + "init -q").ok);
  std::ofstream(repo / "a.txt") << "one\n";
  ASSERT_TRUE(sh(git + "add a.txt").ok);
  ASSERT_TRUE(sh(git + "-c user.name=t -c user.email=t@t commit -q -m one").ok);
  std::string head = sh(git + "rev-parse --short=12 HEAD").out;
  ASSERT_EQ(head.size(), 12u);

  EXPECT_EQ(stamp(repo, out), head);

  // Unchanged state: the file is not rewritten (so nothing recompiles or relinks).
  auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(out, old_time);
  EXPECT_EQ(stamp(repo, out), head);
  EXPECT_EQ(fs::last_write_time(out), old_time);

  // An untracked file leaves it clean; a changed tracked file marks it dirty.
  std::ofstream(repo / "untracked.txt") << "x\n";
  EXPECT_EQ(stamp(repo, out), head);
  std::ofstream(repo / "a.txt") << "two\n";
  EXPECT_EQ(stamp(repo, out), head + "-dirty");
  EXPECT_NE(fs::last_write_time(out), old_time);

  // A new commit is stamped as such, without a new configure.
  ASSERT_TRUE(sh(git + "-c user.name=t -c user.email=t@t commit -q -am two").ok);
  std::string head2 = sh(git + "rev-parse --short=12 HEAD").out;
  ASSERT_NE(head2, head);
  EXPECT_EQ(stamp(repo, out), head2);

  // Outside a git checkout.
  fs::path plain = tmp.path() / "plain";
  fs::create_directories(plain);
  EXPECT_EQ(stamp(plain, out), "unknown");
}

TEST(BuildStampTest, ProgramsNameTheCommitTheyWereBuiltFrom) {
  if (!have_tools()) GTEST_SKIP() << "git or cmake not on PATH";
  Shell head = sh("git -C " + shq(UNIEVAL_SOURCE_DIR) + " rev-parse --short=12 HEAD");
  if (!head.ok) GTEST_SKIP() << UNIEVAL_SOURCE_DIR << " is not a git checkout";
  // The build stamps HEAD (with "-dirty" when tracked files differed) at every build: a program
  // built after the last commit names it, whatever commit the build tree was configured at.
  auto r = run_cli("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.find("(" + head.out + ")") != std::string::npos ||
              r.out.find("(" + head.out + "-dirty)") != std::string::npos)
      << r.out << " (HEAD " << head.out << ")";
  // A result file records the same commit (tool.commit).
  fs::path qg = fs::path(UNIEVAL_SOURCE_DIR) / "tests/tasks/fixtures/eval/qg";
  auto e = run_cli("eval --task squad-qg --data " + shq(qg.string()) + " --pred " +
                   shq((qg / "pred-test.txt").string()) + " --skip-metric meteor --json");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  std::string commit = nlohmann::json::parse(e.out)["tool"]["commit"].get<std::string>();
  EXPECT_TRUE(commit == head.out || commit == head.out + "-dirty") << commit;
  EXPECT_NE(r.out.find("(" + commit + ")"), std::string::npos) << r.out;
  auto sibling = fs::path(UNIEVAL_BINARY).parent_path() / "unieval-model";
  if (fs::exists(sibling)) {
    Shell model = sh(shq(sibling.string()) + " --help");
    EXPECT_NE(model.out.find(head.out), std::string::npos) << model.out;
  }
}
