#include "core/fs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::core {
namespace {

namespace fs = std::filesystem;
using unieval::testing::TempDir;

TEST(RemoveTreeTest, RemovesNestedFoldersAndNeverFollowsLinks) {
  TempDir dir;
  const fs::path keep = dir.path() / "keep";
  dir.write("keep/precious.txt", "x");
  dir.write("tree/a.txt", "a");
  dir.write("tree/sub/b.txt", "b");
  dir.write("tree/sub/deeper/c.txt", "c");
  fs::create_symlink(keep, dir.path() / "tree/sub/link-to-keep");
  fs::create_symlink(keep / "precious.txt", dir.path() / "tree/file-link");
  std::error_code ec;
  // 3 files + 2 links + 3 folders (tree, sub, deeper).
  EXPECT_EQ(remove_tree((dir.path() / "tree").string(), ec), 8u);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_FALSE(fs::exists(dir.path() / "tree"));
  EXPECT_TRUE(fs::exists(keep / "precious.txt"));  // what the links pointed to survives
}

TEST(RemoveTreeTest, MissingPathIsNoErrorAndAFileIsRemoved) {
  TempDir dir;
  std::error_code ec;
  EXPECT_EQ(remove_tree((dir.path() / "absent").string(), ec), 0u);
  EXPECT_FALSE(ec);
  const std::string f = dir.write("f.txt", "x");
  EXPECT_EQ(remove_tree(f, ec), 1u);
  EXPECT_FALSE(ec);
  EXPECT_FALSE(fs::exists(f));
}

TEST(RemoveTreeTest, AFolderThatCannotBeEmptiedSetsTheError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may remove anything";
  TempDir dir;
  dir.write("locked/inner/f.txt", "x");
  fs::permissions(dir.path() / "locked/inner", fs::perms::owner_read | fs::perms::owner_exec);
  std::error_code ec;
  remove_tree((dir.path() / "locked").string(), ec);
  EXPECT_TRUE(ec);
  fs::permissions(dir.path() / "locked/inner", fs::perms::owner_all);
}

TEST(ListFilesTest, RelativeSortedRegularFilesWithFileLinksButNotFolderLinks) {
  TempDir dir;
  dir.write("outside/o.txt", "o");
  dir.write("root/b.txt", "b");
  dir.write("root/a/z.json", "z");
  dir.write("root/a/y/x.txt", "x");
  fs::create_directories(dir.path() / "root/empty");
  fs::create_symlink(dir.path() / "outside/o.txt", dir.path() / "root/link.txt");
  fs::create_symlink(dir.path() / "outside", dir.path() / "root/dirlink");
  EXPECT_EQ(list_files((dir.path() / "root").string()),
            (std::vector<std::string>{"a/y/x.txt", "a/z.json", "b.txt", "link.txt"}));
  // A trailing slash on the root changes nothing.
  EXPECT_EQ(list_files((dir.path() / "root").string() + "/").size(), 4u);
}

TEST(ListFilesTest, MissingRootIsAnInputErrorNamingIt) {
  TempDir dir;
  const std::string missing = (dir.path() / "nope").string();
  try {
    list_files(missing);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace unieval::core
