// Keeps THIRD_PARTY_NOTICES.md and the "// Follows X (licence)" headers in step: every file a
// notice lists exists and names that source in its header, and every file with such a header is
// listed under each source it names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = UNIEVAL_SOURCE_DIR;
constexpr const char* kNotices = "THIRD_PARTY_NOTICES.md";

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Source name (the "## " heading) -> files its "Files:" line lists (backquoted, repo-relative).
std::map<std::string, std::vector<std::string>> read_notices() {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(read_all(kRoot / kNotices));
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      section = line.substr(3);
    } else if (line.rfind("Files:", 0) == 0 && !section.empty()) {
      for (size_t a = line.find('`'); a != std::string::npos; a = line.find('`', a)) {
        size_t b = line.find('`', a + 1);
        if (b == std::string::npos) break;
        out[section].push_back(line.substr(a + 1, b - a - 1));
        a = b + 1;
      }
    }
  }
  return out;
}

// The "// Follows ... see THIRD_PARTY_NOTICES.md." comment among the first 40 lines of a file
// (possibly wrapped over a few lines), or "" when there is none.
std::string follows_header(const fs::path& p) {
  std::ifstream in(p);
  std::string line, block;
  for (int n = 0; n < 40 && std::getline(in, line); ++n) {
    if (block.empty() && line.rfind("// Follows ", 0) != 0) continue;
    if (line.rfind("//", 0) != 0) return "";  // the comment ended before naming the notices
    block += line.substr(2);
    if (line.find(kNotices) != std::string::npos) return block;
    if (block.size() > 600) return "";
  }
  return "";
}

TEST(Notices, LicenseIsApache2) {
  std::string text = read_all(kRoot / "LICENSE");
  EXPECT_NE(text.find("Apache License"), std::string::npos);
  EXPECT_NE(text.find("Version 2.0, January 2004"), std::string::npos);
  EXPECT_NE(text.find("END OF TERMS AND CONDITIONS"), std::string::npos);  // the full text
}

TEST(Notices, ListedFilesExistAndNameTheirSource) {
  auto notices = read_notices();
  ASSERT_GE(notices.size(), 10u) << "no 'Files:' lines parsed from " << kNotices;
  for (const auto& [source, files] : notices) {
    EXPECT_FALSE(files.empty()) << source;
    for (const auto& f : files) {
      SCOPED_TRACE(source + ": " + f);
      ASSERT_TRUE(fs::exists(kRoot / f)) << "listed in " << kNotices << " but missing";
      std::string header = follows_header(kRoot / f);
      ASSERT_FALSE(header.empty()) << "no '// Follows X (licence) ... " << kNotices << "' header";
      EXPECT_NE(header.find(source), std::string::npos) << "header does not name " << source
                                                        << ": " << header;
    }
  }
}

TEST(Notices, EveryFollowsHeaderIsListedUnderEachSourceItNames) {
  auto notices = read_notices();
  std::map<std::string, std::set<std::string>> listed;
  for (const auto& [source, files] : notices) listed[source].insert(files.begin(), files.end());
  int seen = 0;
  for (const char* dir : {"core", "metrics", "models", "tasks", "pipelines", "results", "apps"}) {
    if (!fs::exists(kRoot / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
      std::string header = follows_header(e.path());
      if (header.empty()) continue;
      ++seen;
      std::string rel = fs::relative(e.path(), kRoot).generic_string();
      bool named_any = false;
      for (const auto& [source, files] : listed) {
        if (header.find(source) == std::string::npos) continue;
        named_any = true;
        EXPECT_TRUE(files.count(rel)) << rel << " follows " << source << " but " << kNotices
                                      << " does not list it there";
      }
      EXPECT_TRUE(named_any) << rel << ": its header names no source of " << kNotices;
    }
  }
  EXPECT_GT(seen, 0);
}

}  // namespace
