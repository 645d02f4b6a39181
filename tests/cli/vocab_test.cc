// `unieval vocab` end to end: the exact vocabulary on a small fixture (plain and gzip corpus
// files), the report, determinism, bad input (exit 2, the file named, no output written), and the
// real SQuAD question-generation corpus with the BERT uncased vocabulary (skipped when absent).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/io.h"
#include "tests/gzip_util.h"
#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

// The fixture of tests/tokenizer/vocab_subset_test.cc: 5 specials (and two placeholders), 9
// longer pieces, 21 single characters.
const char* kBase =
    "[PAD]\n[unused0]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n[X_SEP]\n"
    "the\ncat\nhat\nsat\nand\ndog\n##s\n##at\nca\nth\n"
    "t\nh\ne\nc\na\ns\nn\nd\no\ng\n.\n"
    "##t\n##h\n##e\n##a\n##n\n##d\n##o\n##g\n##c\n";

nlohmann::json last_json_line(const std::string& out) {
  std::istringstream in(out);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return nlohmann::json::parse(last);
}

struct Fixture {
  TempDir tmp;
  std::string base = tmp.write("base.txt", kBase);
  std::string plain = tmp.write("a.txt", "The cat sat.\nthe hat and the cat\n");
  std::string gz = tmp.write("b.txt.gz", unieval::testing::gzip("cats, dogs!\n\na zebra\n"));
  std::string out = (tmp.path() / "out.txt").string();
  std::string args(const std::string& size, const std::string& extra = "") const {
    return "vocab --base " + shq(base) + " --corpus " + shq(plain) + " " + shq(gz) + " --size " +
           size + " --out " + shq(out) + " " + extra;
  }
};

TEST(VocabCliTest, WritesTheFrequencyChosenSubsetAndReportsIt) {
  Fixture f;
  auto r = run_cli(f.args("30", "--json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(unieval::core::read_file(f.out),
            "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nhat\nsat\n##s\n"
            "t\nh\ne\nc\na\ns\nn\nd\no\ng\n.\n##t\n##h\n##e\n##a\n##n\n##d\n##o\n##g\n##c\n");
  auto j = last_json_line(r.out);
  EXPECT_EQ(j["size"], 30);
  EXPECT_EQ(j["base_size"], 37);
  EXPECT_EQ(j["lowercase"], true);  // an uncased base
  EXPECT_EQ(j["lines"], 5);
  EXPECT_EQ(j["words"], 15);
  EXPECT_EQ(j["pieces_base"], 17);
  EXPECT_EQ(j["pieces_new"], 21);  // and -> a ##n ##d, dog -> d ##o ##g
  EXPECT_EQ(j["unk_base"], 3);
  EXPECT_EQ(j["unk_new"], 3);
  EXPECT_EQ(j["unk_growth"], 0);
  EXPECT_EQ(j["unk_growth_per_1000"], 0.0);
  EXPECT_EQ(j["specials"], 5);
  EXPECT_EQ(j["characters"], 21);
  EXPECT_EQ(j["frequent"], 4);
  EXPECT_EQ(j["unseen"], 0);
  EXPECT_DOUBLE_EQ(j["pieces_per_word_new"].get<double>(), 21.0 / 15.0);
  EXPECT_DOUBLE_EQ(j["coverage"].get<double>(), 15.0 / 17.0);

  // The same file from one thread or several; the text report goes to stderr.
  const std::string first = unieval::core::read_file(f.out);
  auto again = run_cli(f.args("30", "--threads 3"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(unieval::core::read_file(f.out), first);
  EXPECT_TRUE(again.out.empty()) << again.out;
  EXPECT_NE(again.err.find("[UNK]: 3 with the base, 3 with the new vocab"), std::string::npos)
      << again.err;

  // Every corpus line tokenises with the new vocabulary with no more [UNK] than with the base.
  for (const std::string& corpus : {f.plain, f.gz}) {
    auto old_tok = run_cli("tokenize --vocab " + shq(f.base) + " --input " + shq(corpus));
    auto new_tok = run_cli("tokenize --vocab " + shq(f.out) + " --input " + shq(corpus));
    ASSERT_EQ(old_tok.exit_code, 0) << old_tok.err;
    ASSERT_EQ(new_tok.exit_code, 0) << new_tok.err;
    std::istringstream a(old_tok.out), b(new_tok.out);
    std::string la, lb;
    auto unk = [](const std::string& line) {
      size_t n = 0;
      for (size_t p = line.find("[UNK]"); p != std::string::npos; p = line.find("[UNK]", p + 1))
        ++n;
      return n;
    };
    while (std::getline(a, la)) {
      ASSERT_TRUE(std::getline(b, lb));
      EXPECT_LE(unk(lb), unk(la)) << la << " | " << lb;
    }
  }
}

TEST(VocabCliTest, HelpListsEveryOption) {
  auto r = run_cli("vocab --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* o : {"--base", "--corpus", "--size", "--out", "--lowercase", "--no-lowercase",
                        "--threads", "--json"})
    EXPECT_NE(r.out.find(o), std::string::npos) << o;
  auto top = run_cli("--help");
  EXPECT_NE(top.out.find("  vocab "), std::string::npos);
}

TEST(VocabCliTest, BadInputExitsTwoNamingTheFileAndWritesNothing) {
  Fixture f;
  const std::string missing = (f.tmp.path() / "missing.txt").string();
  const std::string empty = f.tmp.write("empty.txt", "");
  const std::string no_mask = f.tmp.write("no_mask.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n");
  const std::string bad_utf8 = f.tmp.write("bad.txt", "the cat\nthe \xff cat\n");
  struct Case {
    std::string args;
    std::vector<std::string> in_error;
  };
  const std::string out = " --out " + shq(f.out);
  const std::vector<Case> cases = {
      {"vocab --base " + shq(missing) + " --corpus " + shq(f.plain) + " --size 30" + out,
       {"missing.txt"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(f.plain) + " " + shq(missing) +
           " --size 30" + out,
       {"missing.txt"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(empty) + " --size 30" + out,
       {"empty.txt", "empty"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(bad_utf8) + " --size 30" + out,
       {"bad.txt:2"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(f.plain) + " --size 25" + out,
       {"minimum 26", "base.txt"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(f.plain) + " --size 99" + out,
       {"35 entries"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(f.plain) + " --size 0" + out, {"--size"}},
      {"vocab --base " + shq(no_mask) + " --corpus " + shq(f.plain) + " --size 30" + out,
       {"no_mask.txt", "[MASK]"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(f.plain) + " --size 30 --out " +
           shq((f.tmp.path() / "no/such/dir/out.txt").string()),
       {"out.txt", "no/such/dir"}},
      {"vocab --base " + shq(f.base) + " --corpus " + shq(f.plain) + out, {"--size"}},
      {"vocab --base " + shq(f.base) + " --size 30" + out, {"--corpus"}},
  };
  for (const auto& c : cases) {
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    for (const auto& s : c.in_error)
      EXPECT_NE(r.err.find(s), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(f.out)) << c.args;
    for (const auto& e : std::filesystem::directory_iterator(f.tmp.path()))
      EXPECT_EQ(e.path().filename().string().find("out.txt"), std::string::npos)
          << c.args << ": " << e.path();
  }
}

// The real corpus: SQuAD question generation (Du et al.) train sources and targets, 8,000 entries of
// the BERT uncased vocabulary. Measured: 151,444 lines, 3,577,777 words; 5 specials, 1,994 single
// characters, 6,001 by frequency; 1.0958 pieces per word with the base, 1.2581 with the new vocab;
// [UNK] 873 with both: growth 0, i.e. 0.0000 per 1,000 pieces (every character of the base is
// kept, so a word the base covers stays covered); coverage 90.49%. The bounds leave a little room
// for tokenizer changes, none for a broken choice (dropping the characters loses whole words).
TEST(VocabCliTest, SquadQgEightThousandBarelyGrowsUnknownPieces) {
  UNIEVAL_REQUIRE_SHARED("data/vocab/bert-uncased-vocab.txt");
  UNIEVAL_REQUIRE_SHARED("data/squad_qg/src-train.txt.gz");
  UNIEVAL_REQUIRE_SHARED("data/squad_qg/tgt-train.txt.gz");
  TempDir tmp;
  const std::string out = (tmp.path() / "vocab-8k.txt").string();
  auto r =
      run_cli("vocab --base " + shq((shared_dir() / "data/vocab/bert-uncased-vocab.txt").string()) +
              " --corpus " + shq((shared_dir() / "data/squad_qg/src-train.txt.gz").string()) + " " +
              shq((shared_dir() / "data/squad_qg/tgt-train.txt.gz").string()) +
              " --size 8000 --out " + shq(out) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = last_json_line(r.out);
  EXPECT_EQ(j["size"], 8000);
  EXPECT_EQ(j["unseen"], 0);
  EXPECT_EQ(j["lines"], 151444);
  EXPECT_LE(j["unk_growth_per_1000"].get<double>(), 0.01) << j.dump();
  EXPECT_LE(j["pieces_per_word_new"].get<double>(), 1.27) << j.dump();
  EXPECT_GE(j["coverage"].get<double>(), 0.90) << j.dump();
  auto lines = unieval::core::read_lines(out);
  ASSERT_EQ(lines.size(), 8000u);
  EXPECT_EQ(lines[0], "[PAD]");
}

}  // namespace
