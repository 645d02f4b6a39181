#include "core/io.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "core/error.h"
#include "tests/gzip_util.h"
#include "tests/test_util.h"

namespace unieval {
namespace {

using testing::gzip;
using testing::TempDir;

TEST(IoTest, ReadLinesKeepsEmptyLinesAndDropsFinalNewline) {
  TempDir t;
  auto p = t.write("a.txt", "one\n\nthree\n");
  EXPECT_EQ(core::read_lines(p), (std::vector<std::string>{"one", "", "three"}));
  auto q = t.write("b.txt", "one\ntwo");
  EXPECT_EQ(core::read_lines(q), (std::vector<std::string>{"one", "two"}));
}

TEST(IoTest, ReadLinesStripsCarriageReturn) {
  TempDir t;
  auto p = t.write("a.txt", "one\r\ntwo\r\n");
  EXPECT_EQ(core::read_lines(p), (std::vector<std::string>{"one", "two"}));
}

TEST(IoTest, InvalidUtf8NamesFileAndLine) {
  TempDir t;
  auto p = t.write("bad.txt", "fine\nbad \xff here\n");
  try {
    core::read_lines(p);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("bad.txt:2"), std::string::npos) << e.what();
  }
}

TEST(IoTest, Utf8Validation) {
  EXPECT_EQ(core::find_invalid_utf8("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80"),
            std::string::npos);
  EXPECT_EQ(core::find_invalid_utf8("\xc0\xaf"), 0u);        // overlong '/'
  EXPECT_EQ(core::find_invalid_utf8("ab\xed\xa0\x80"), 2u);  // surrogate
  EXPECT_EQ(core::find_invalid_utf8("abc\xe2\x82"), 3u);     // truncated
}

TEST(IoTest, MissingFileIsInputError) {
  EXPECT_THROW(core::read_lines("/nonexistent/unieval/file.txt"), InputError);
}

TEST(IoTest, GzipIsReadTransparently) {
  TempDir t;
  auto p = (t.path() / "a.txt.gz").string();
  gzFile gz = gzopen(p.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  std::string text = "alpha\nbeta\n";
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  EXPECT_EQ(core::read_lines(p), (std::vector<std::string>{"alpha", "beta"}));
}

TEST(IoTest, CorpusLineCountMismatchIsAnError) {
  TempDir t;
  auto h = t.write("h.txt", "a\nb\n");
  auto r = t.write("r.txt", "a\n");
  try {
    core::read_corpus(h, {r});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("1 lines"), std::string::npos) << e.what();
  }
}

TEST(IoTest, AtomicWriteReplacesAndLeavesNoTemp) {
  TempDir t;
  auto p = (t.path() / "out.json").string();
  core::write_file_atomic(p, "first");
  core::write_file_atomic(p, "second");
  EXPECT_EQ(core::read_file(p), "second");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(t.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_THROW(core::write_file_atomic((t.path() / "no/such/dir/x").string(), "x"), InputError);
}

// The whole-buffer inflater takes exactly one member that fits; anything else is left to the
// streaming reader (several members) or reported by it (damage).
TEST(IoTest, SingleMemberInflaterAcceptsOnlyOneWholeMember) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + " caf\xc3\xa9\n";
  std::string gz = gzip(text);
  std::string out;
  ASSERT_TRUE(core::gunzip_single(gz, out));
  EXPECT_EQ(text, out);
  std::vector<char> small(text.size() - 1);
  EXPECT_EQ(static_cast<size_t>(-1), core::gunzip_single_member(gz, small.data(), small.size()));
  std::string two = gz + gzip("tail\n");
  EXPECT_FALSE(core::gunzip_single(two, out));
  EXPECT_EQ(text + "tail\n", core::gunzip(two, "two.gz"));
  EXPECT_FALSE(core::gunzip_single(gz.substr(0, gz.size() - 5), out));
  std::string flipped = gz;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  EXPECT_FALSE(core::gunzip_single(flipped, out));
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 1);
  EXPECT_FALSE(core::gunzip_single(bad_crc, out));
  try {
    core::gunzip(bad_crc, "bad.gz");
    FAIL() << "a wrong CRC was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.gz"), std::string::npos) << e.what();
  }
}

TEST(IoTest, MappedFileSeesTheBytesOrNothing) {
  TempDir t;
  core::RawFile f(t.write("a.bin", std::string("ab\0cd", 5)));
  core::MappedFile m(f);
  EXPECT_EQ(std::string("ab\0cd", 5), std::string(m.bytes()));
  core::RawFile e(t.write("e.bin", ""));
  core::MappedFile empty(e);
  EXPECT_TRUE(empty.bytes().empty());
}

TEST(IoTest, ConcatenatedGzipFilesAreReadWhole) {
  TempDir t;
  auto p = t.write("m.txt.gz", gzip("alpha\n") + gzip("beta\n"));
  EXPECT_EQ(core::read_lines(p), (std::vector<std::string>{"alpha", "beta"}));
}

}  // namespace
}  // namespace unieval
