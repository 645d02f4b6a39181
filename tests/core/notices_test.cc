// Keeps THIRD_PARTY_NOTICES.md and the "// Follows X (licence)" headers in step: every file a
// notice lists exists and names that source in its header, and every file with such a header is
// listed under each source it names. Also: no file describes itself with the term the notices
// dropped as untrue (see NoFileClaimsAnUnseenOrigin), every port ("Follows the structure of")
// is named in the notices, and the LGPL-2.1 METEOR component is marked and built on its own.
#include <gtest/gtest.h>

#include <cctype>
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

// The files of the LGPL-2.1 component unieval_meteor (metrics/CMakeLists.txt).
const std::vector<std::string> kLgplFiles = {"metrics/meteor.h", "metrics/meteor.cc",
                                             "metrics/text/meteor_normalize.h",
                                             "metrics/text/meteor_normalize.cc"};
constexpr const char* kLgplSpdx = "SPDX-License-Identifier: LGPL-2.1-only";

const std::vector<std::string> kCodeDirs = {"core",      "metrics", "models", "tasks",
                                            "pipelines", "results", "apps"};

// Every .h / .cc under the code folders, repository-relative.
std::vector<std::string> code_files() {
  std::vector<std::string> out;
  for (const auto& dir : kCodeDirs) {
    if (!fs::exists(kRoot / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".h" || ext == ".cc"))
        out.push_back(fs::relative(e.path(), kRoot).generic_string());
    }
  }
  return out;
}

std::string first_lines(const fs::path& p, int n) {
  std::ifstream in(p);
  std::string line, out;
  for (int i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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
      EXPECT_NE(header.find(source), std::string::npos)
          << "header does not name " << source << ": " << header;
    }
  }
}

TEST(Notices, EveryFollowsHeaderIsListedUnderEachSourceItNames) {
  auto notices = read_notices();
  std::map<std::string, std::set<std::string>> listed;
  for (const auto& [source, files] : notices) listed[source].insert(files.begin(), files.end());
  int seen = 0;
  for (const auto& rel : code_files()) {
    std::string header = follows_header(kRoot / rel);
    if (header.empty()) continue;
    ++seen;
    bool named_any = false;
    for (const auto& [source, files] : listed) {
      if (header.find(source) == std::string::npos) continue;
      named_any = true;
      EXPECT_TRUE(files.count(rel))
          << rel << " follows " << source << " but " << kNotices << " does not list it there";
    }
    EXPECT_TRUE(named_any) << rel << ": its header names no source of " << kNotices;
  }
  EXPECT_GT(seen, 0);
}

// The files were written by people who had read the originals' source, and several are ports of
// named routines, so no file may claim to have been written without sight of them (issue #39).
// The words of that claim are assembled here so that this file does not contain them.
TEST(Notices, NoFileClaimsAnUnseenOrigin) {
  const std::vector<std::string> terms = {std::string("clean") + "-room",
                                          std::string("clean") + " room",
                                          std::string("clean") + "room"};
  const std::set<std::string> exts = {".h",  ".cc", ".py",  ".md",   ".txt", ".cmake",
                                      ".in", ".sh", ".cfg", ".toml", ".yml", ".yaml"};
  std::vector<fs::path> files = {kRoot / "LICENSE", kRoot / kNotices, kRoot / "README.md",
                                 kRoot / "CMakeLists.txt"};
  for (const char* dir : {"core", "metrics", "models", "tasks", "pipelines", "results", "apps",
                          "python", "tests", "docs", "ci", "bench", "fuzz", "cmake", "LICENSES"}) {
    if (!fs::exists(kRoot / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      if (!e.is_regular_file()) continue;
      std::string name = e.path().filename().string();
      if (exts.count(e.path().extension().string()) || name == "CMakeLists.txt") {
        files.push_back(e.path());
      }
    }
  }
  int scanned = 0;
  for (const auto& f : files) {
    if (!fs::exists(f) || fs::file_size(f) > (8u << 20)) continue;
    ++scanned;
    std::string text = lower(read_all(f));
    for (const auto& t : terms) {
      EXPECT_EQ(text.find(t), std::string::npos)
          << fs::relative(f, kRoot).generic_string() << " says \"" << t
          << "\"; say what is true instead (THIRD_PARTY_NOTICES.md, first section)";
    }
  }
  EXPECT_GT(scanned, 100);
}

// A port says "Follows the structure of X's ..." in its header, and the notices' first section
// names it among the ports.
TEST(Notices, EveryPortIsNamedInTheNotices) {
  std::string notices = read_all(kRoot / kNotices);
  std::string preamble = notices.substr(0, notices.find("\n## "));
  int ports = 0;
  for (const auto& rel : code_files()) {
    std::string header = follows_header(kRoot / rel);
    if (header.find("Follows the structure of") == std::string::npos) continue;
    ++ports;
    EXPECT_NE(preamble.find("`" + rel + "`"), std::string::npos)
        << rel << " is a port but the first section of " << kNotices << " does not name it";
  }
  EXPECT_GE(ports, 9);
}

// METEOR 1.5 is LGPL-2.1 and meteor.cc / meteor_normalize.cc are ports of it: they (and their
// headers) carry the LGPL-2.1 notice, are the only files that do, and are built as the library
// unieval_meteor, which the notices and the licence text accompany.
TEST(Notices, MeteorIsASeparateLgplComponent) {
  std::set<std::string> lgpl(kLgplFiles.begin(), kLgplFiles.end());
  for (const auto& rel : code_files()) {
    bool marked = first_lines(kRoot / rel, 12).find(kLgplSpdx) != std::string::npos;
    EXPECT_EQ(marked, lgpl.count(rel) == 1)
        << rel
        << (marked ? " carries the LGPL-2.1 notice but is not in unieval_meteor"
                   : " is in unieval_meteor but lacks the LGPL-2.1 notice");
  }
  std::string cmake = read_all(kRoot / "metrics" / "CMakeLists.txt");
  size_t a = cmake.find("set(unieval_meteor_sources");
  ASSERT_NE(a, std::string::npos) << "metrics/CMakeLists.txt defines no unieval_meteor_sources";
  std::string sources = cmake.substr(a, cmake.find(')', a) - a);
  for (const auto& f : kLgplFiles) {
    if (f.size() > 3 && f.compare(f.size() - 3, 3, ".cc") == 0) {
      EXPECT_NE(sources.find("/" + f), std::string::npos) << f << " is not built in unieval_meteor";
    }
  }
  EXPECT_NE(cmake.find("unieval_library_from(meteor"), std::string::npos);
  std::string licence = read_all(kRoot / "LICENSES" / "LGPL-2.1.txt");
  EXPECT_NE(licence.find("GNU LESSER GENERAL PUBLIC LICENSE"), std::string::npos);
  EXPECT_NE(licence.find("Version 2.1, February 1999"), std::string::npos);
  EXPECT_NE(licence.find("END OF TERMS AND CONDITIONS"), std::string::npos);  // the full text
  std::string notices = read_all(kRoot / kNotices);
  EXPECT_NE(notices.find("## The LGPL-2.1 component: unieval_meteor"), std::string::npos);
  EXPECT_NE(notices.find("§6"), std::string::npos) << "say what §6 asks of a redistributor";
  EXPECT_NE(read_all(kRoot / "LICENSE").find("LICENSES/LGPL-2.1.txt"), std::string::npos);
}

}  // namespace
