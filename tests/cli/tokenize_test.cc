// `unieval tokenize` end to end: every golden WordPiece case through the binary, output formats
// and errors.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "tests/test_util.h"

namespace {

using unieval::testing::read_jsonl;
using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

std::string vocab_path(const std::string& name) {
  return (shared_dir() / "data/vocab" / name).string();
}

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> v;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) v.push_back(nlohmann::json::parse(line));
  return v;
}

TEST(TokenizeCliTest, EveryGoldenCaseThroughTheBinary) {
  UNIEVAL_REQUIRE_SHARED("golden/wordpiece.jsonl");
  UNIEVAL_REQUIRE_SHARED("data/vocab/unilm-cased-vocab.txt");
  auto cases = read_jsonl(shared_dir() / "golden/wordpiece.jsonl");
  ASSERT_FALSE(cases.empty());
  // Texts without a newline go through --input files (one per vocab/case setting, one line per
  // text; NUL can only travel this way); texts with one go through --text (one input).
  std::map<std::pair<std::string, bool>, std::vector<size_t>> batches;
  std::vector<size_t> singles;
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string text = cases[i]["text"];
    if (text.find('\n') != std::string::npos)
      singles.push_back(i);
    else
      batches[{cases[i]["vocab"].get<std::string>(), cases[i]["do_lower_case"].get<bool>()}]
          .push_back(i);
  }
  TempDir tmp;
  size_t checked = 0;
  auto check = [&](size_t i, const nlohmann::json& got) {
    const auto& exp = cases[i]["expected"];
    EXPECT_EQ(got["tokens"], exp["wordpiece_tokens"]) << cases[i]["id"];
    EXPECT_EQ(got["ids"], exp["ids"]) << cases[i]["id"];
    ++checked;
  };
  for (const auto& [key, idx] : batches) {
    std::string content;
    for (size_t i : idx) content += cases[i]["text"].get<std::string>() + "\n";
    auto file = tmp.write("batch.txt", content);
    auto r = run_cli("tokenize --vocab " + shq(vocab_path(key.first)) +
                     (key.second ? " --lowercase" : " --no-lowercase") + " --input " + shq(file) +
                     " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto got = json_lines(r.out);
    ASSERT_EQ(got.size(), idx.size());
    for (size_t k = 0; k < idx.size(); ++k) check(idx[k], got[k]);
  }
  for (size_t i : singles) {
    auto r = run_cli("tokenize --vocab " + shq(vocab_path(cases[i]["vocab"].get<std::string>())) +
                     (cases[i]["do_lower_case"].get<bool>() ? " --lowercase" : " --no-lowercase") +
                     " --json --text " + shq(cases[i]["text"].get<std::string>()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto got = json_lines(r.out);
    ASSERT_EQ(got.size(), 1u) << cases[i]["id"];
    check(i, got[0]);
  }
  EXPECT_EQ(checked, cases.size());
}

TEST(TokenizeCliTest, PlainOutputIdsAndCaseFromTheVocab) {
  UNIEVAL_REQUIRE_SHARED("data/vocab/bert-uncased-vocab.txt");
  UNIEVAL_REQUIRE_SHARED("data/vocab/unilm-cased-vocab.txt");
  auto r = run_cli("tokenize --vocab " + shq(vocab_path("bert-uncased-vocab.txt")) + " --text " +
                   shq("UNwant\u00E9d,running"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "unwanted , running\n");  // the real vocab has the whole word
  r = run_cli("tokenize --vocab " + shq(vocab_path("bert-uncased-vocab.txt")) + " --ids --text " +
              shq("Hello, world!"));
  EXPECT_EQ(r.out, "7592 1010 2088 999\n");
  // No case flag: the cased vocab keeps case, the uncased one lower-cases.
  r = run_cli("tokenize --vocab " + shq(vocab_path("unilm-cased-vocab.txt")) + " --text Hello");
  EXPECT_EQ(r.out, "Hello\n");
  r = run_cli("tokenize --vocab " + shq(vocab_path("bert-uncased-vocab.txt")) + " --text Hello");
  EXPECT_EQ(r.out, "hello\n");
  // Lines of a file, an empty line included, and --hf keeping [CLS] whole.
  TempDir tmp;
  auto in = tmp.write("in.txt", "a b\n\n[CLS] x\n");
  r = run_cli("tokenize --vocab " + shq(vocab_path("bert-uncased-vocab.txt")) + " --input " +
              shq(in));
  EXPECT_EQ(r.out, "a b\n\n[ cl ##s ] x\n");
  r = run_cli("tokenize --hf --vocab " + shq(vocab_path("bert-uncased-vocab.txt")) +
              " --json --input " + shq(in));
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["tokens"], (nlohmann::json{"[CLS]", "x"}));
  EXPECT_EQ(lines[2]["ids"][0], 101);
}

TEST(TokenizeCliTest, BadInputExitsTwoWithWhere) {
  TempDir tmp;
  auto vocab = tmp.write("vocab.txt", "[PAD]\n[UNK]\na\n");
  auto r = run_cli("tokenize --vocab " + shq((tmp.path() / "absent.txt").string()) + " --text a");
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("tokenize --vocab " + shq(vocab) + " --text a --input " + shq(vocab));
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("tokenize --vocab " + shq(vocab) + " --lowercase --no-lowercase --text a");
  EXPECT_EQ(r.exit_code, 2);
  auto bad = tmp.write("bad.txt", "a\nb\xC3(\n");
  r = run_cli("tokenize --vocab " + shq(vocab) + " --input " + shq(bad));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.txt:2"), std::string::npos) << r.err;
  auto no_unk = tmp.write("nounk.txt", "a\nb\n");
  r = run_cli("tokenize --vocab " + shq(no_unk) + " --text a");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("[UNK]"), std::string::npos) << r.err;
}

TEST(TokenizeCliTest, GptBpeThroughTheBinary) {
  UNIEVAL_REQUIRE_SHARED("data/vocab/gpt/encoder_bpe_40000.json.gz");
  const std::string dir = (shared_dir() / "data/vocab/gpt").string();
  auto r = run_cli("tokenize --bpe " + shq(dir) + " --json --text " + shq("The cat, the CAT!"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tokens"],
            (nlohmann::json{"the</w>", "cat</w>", ",</w>", "the</w>", "cat</w>", "!</w>"}));
  EXPECT_EQ(j["ids"][0], 481);
  EXPECT_EQ(j["ids"][1], j["ids"][4]);
  r = run_cli("tokenize --bpe " + shq(dir) + " --vocab " + shq(dir) + " --text a");
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("tokenize --bpe " + shq(dir) + " --hf --text a");
  EXPECT_EQ(r.exit_code, 2);
  TempDir tmp;
  r = run_cli("tokenize --bpe " + shq(tmp.path().string()) + " --text a");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("encoder_bpe_40000.json"), std::string::npos) << r.err;
}

}  // namespace
