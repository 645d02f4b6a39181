#pragma once
// Helpers shared by the test suites: where ../shared is, golden-vector reading, temp files and
// running the `unieval` binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/fs.h"

namespace unieval::testing {

// ../shared beside the checkout, or $UNIEVAL_SHARED.
inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("UNIEVAL_SHARED")) return env;
  return std::filesystem::path(UNIEVAL_SOURCE_DIR).parent_path() / "shared";
}

// Skips the current test (with a message) when a shared resource is absent.
#define UNIEVAL_REQUIRE_SHARED(relpath)                                         \
  do {                                                                          \
    if (!std::filesystem::exists(::unieval::testing::shared_dir() / (relpath))) \
      GTEST_SKIP() << "shared resource absent: "                                \
                   << (::unieval::testing::shared_dir() / (relpath));           \
  } while (0)

// Every JSON object of a .jsonl file.
inline std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

// A fresh temporary directory, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "unieval_test_XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    core::remove_tree(path_.string(), ec);  // not fs::remove_all: see core/fs.h
  }
  const std::filesystem::path& path() const { return path_; }
  // Writes text to a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// Lines joined with '\n' and a final newline.
inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `unieval ARGS` (ARGS is a shell-quoted string) and captures stdout, stderr, exit code.
inline CliResult run_cli(const std::string& args) {
  TempDir tmp;
  std::string err_path = (tmp.path() / "stderr").string();
  std::string cmd = std::string("'") + UNIEVAL_BINARY + "' " + args + " 2>'" + err_path + "'";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_path);
  r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  return r;
}

// Single-quotes a string for the shell.
inline std::string shq(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

// `finetune --task TASK --model-config CONFIG --data DATA --out RUN FLAGS` (paths shell-quoted).
inline std::string finetune_args(const std::string& task, const std::filesystem::path& config,
                                 const std::filesystem::path& data,
                                 const std::filesystem::path& run, const std::string& flags) {
  return "finetune --task " + task + " --model-config " + shq(config.string()) + " --data " +
         shq(data.string()) + " --out " + shq(run.string()) + " " + flags;
}

// 1-3 random edits of text (a byte deleted, or one of `alphabet` inserted or written over a
// byte), for fuzz tests that hold two readers to the same outcome; seeded by the caller's rng.
inline std::string mutate(std::string text, std::mt19937& rng, const std::string& alphabet) {
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = rng() % text.size();
    char c = alphabet[rng() % alphabet.size()];
    switch (rng() % 3) {
      case 0:
        text.erase(at, 1);
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        text[at] = c;
    }
  }
  return text;
}

// A seeded corpus of n segments with two reference streams, for tests that hold a metric's
// threaded path to its sequential one: lines of 1-14 words drawn from a list with punctuation,
// accents, CJK and articles; with a marker, every 97th second reference is that marker.
struct TextCorpus {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;
};
inline TextCorpus random_text_corpus(int n, uint32_t seed, const std::string& missing_marker = "") {
  std::mt19937 rng(seed);
  const std::vector<std::string> words = {
      "the", "The",   "cat",   "sat,",         "on", "mat.", "d\u00e9j\u00e0",
      "(x)", "1,000", "don't", "\u4e2d\u6587", "-",  "a",    "an"};
  auto line = [&] {
    std::string s;
    for (int k = 0, len = 1 + static_cast<int>(rng() % 14); k < len; ++k)
      s += (k ? " " : "") + words[rng() % words.size()];
    return s;
  };
  TextCorpus c;
  c.refs.resize(2);
  for (int i = 0; i < n; ++i) {
    c.hyps.push_back(line());
    c.refs[0].push_back(line());
    c.refs[1].push_back(!missing_marker.empty() && i % 97 == 3 ? missing_marker : line());
  }
  return c;
}

}  // namespace unieval::testing
