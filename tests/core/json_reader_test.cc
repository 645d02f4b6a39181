// The JSON reader's file path (read straight into the document, single-member gzip inflated
// in place, everything else through unieval::core::read_file) and its error reporting.
#include "core/json_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/io.h"
#include "core/json_cursor.h"
#include "tests/gzip_util.h"
#include "tests/test_util.h"

namespace unieval::core {
namespace {

using unieval::testing::gzip;
using unieval::testing::TempDir;

// A document big enough for the huge-page buffers (> 1 MiB of text, ~100k nodes), with
// escapes and non-ASCII text.
std::string big_document() {
  std::string s = "{\"version\": \"1.1\", \"data\": [";
  for (int i = 0; i < 20000; ++i) {
    if (i) s += ", ";
    s += "{\"id\": \"q" + std::to_string(i) + "\", \"text\": \"caf\\u00e9 \\\"" +
         std::to_string(i) +
         "\\\" na\xc3\xafve, padding padding padding\", \"n\": " + std::to_string(i) +
         ".5, \"ok\": true}";
  }
  return s + "]}";
}

void expect_big_document(const JsonDocument& d) {
  JsonValue data = d.root()["data"];
  ASSERT_EQ(20000u, data.size());
  long i = 0;
  for (JsonValue v : data.array_items()) {
    ASSERT_EQ("q" + std::to_string(i), v["id"].as_string());
    ASSERT_EQ("caf\xc3\xa9 \"" + std::to_string(i) + "\" na\xc3\xafve, padding padding padding",
              v["text"].as_string());
    ASSERT_EQ(static_cast<double>(i) + 0.5, v["n"].as_double());
    ASSERT_TRUE(v["ok"].as_bool());
    ++i;
  }
  EXPECT_EQ("1.1", d.root()["version"].as_string());
}

TEST(JsonReaderTest, PlainAndGzipFilesGiveTheSameDocumentAsParse) {
  TempDir t;
  std::string text = big_document();
  expect_big_document(JsonDocument::parse(text, "mem"));
  expect_big_document(JsonDocument::parse_file(t.write("a.json", text)));
  expect_big_document(JsonDocument::parse_file(t.write("a.json.gz", gzip(text))));
}

TEST(JsonReaderTest, MultiMemberGzipFallsBackToTheGeneralReader) {
  TempDir t;
  // `cat a.gz b.gz`: the trailer's ISIZE is only the last member's.
  auto p = t.write("m.json.gz", gzip("{\"a\": [1, 2,") + gzip(" 3], \"b\": \"x\"}"));
  JsonDocument d = JsonDocument::parse_file(p);
  EXPECT_EQ(3u, d.root()["a"].size());
  EXPECT_EQ("x", d.root()["b"].as_string());
}

// Integers take a short path (below 10^15); every length, sign and -0 must still give exactly
// what the general conversion (Python's float()) gives.
TEST(JsonReaderTest, IntegersOfEveryLengthConvertExactly) {
  std::string digits = "98765432109876543210123";
  for (size_t len = 1; len <= digits.size(); ++len) {
    for (const std::string sign : {"", "-"}) {
      std::string num = sign + digits.substr(0, len);
      JsonDocument d = JsonDocument::parse("[" + num + ", " + sign + "0]", "mem");
      auto it = d.root().array_items().begin();
      JsonValue v = *it;
      EXPECT_TRUE(v.is_integer()) << num;
      double want = std::strtod(num.c_str(), nullptr), got = v.as_double();
      EXPECT_EQ(0, std::memcmp(&want, &got, sizeof want)) << num << " " << got;
      ++it;
      EXPECT_EQ(sign == "-", std::signbit((*it).as_double())) << num;
    }
  }
}

// A named pipe (or /dev/stdin) cannot be mapped: the reader reads it instead, plain, gzip and
// multi-member gzip alike, and reads it only once.
TEST(JsonReaderTest, PipesAreReadOnceWhateverTheirContent) {
  TempDir t;
  std::string text = big_document();
  std::string two_members = gzip("{\"a\": [1, 2,") + gzip(" 3], \"b\": \"x\"}");
  for (const std::string& content : {text, gzip(text), two_members}) {
    auto fifo = (t.path() / "pipe.json").string();
    ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
    std::thread writer([&] {
      std::ofstream out(fifo, std::ios::binary);
      out.write(content.data(), static_cast<std::streamsize>(content.size()));
    });
    JsonDocument d = JsonDocument::parse_file(fifo);
    writer.join();
    if (content == two_members) {
      EXPECT_EQ(3u, d.root()["a"].size());
    } else {
      expect_big_document(d);
    }
    std::filesystem::remove(fifo);
  }
}

TEST(JsonReaderTest, BadFilesAreInputErrorsNamingTheFile) {
  TempDir t;
  auto expect_error = [](const std::string& path, const std::string& needle) {
    try {
      JsonDocument::parse_file(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const InputError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  expect_error((t.path() / "absent.json").string(), "cannot open");
  std::string gz = gzip("{\"a\": 1}");
  expect_error(t.write("trunc.json.gz", gz.substr(0, gz.size() - 6)), "gzip");
  // Invalid UTF-8 after a long ASCII run (the 8-byte skip) is found, with its line.
  std::string bad = "{\"a\":\n\"" + std::string(100, 'x') + "\xff\"}";
  expect_error(t.write("bad.json", bad), ":2:");
  expect_error(t.write("syntax.json", "{\"a\": 1,\n}"), "expected a string key");
  expect_error(t.write("empty.json", ""), "");
  std::string two = gzip("{\"a\": 1}") + gzip("{\"b\": 2}");
  expect_error(t.write("garbage.json.gz", two.substr(0, two.size() - 3)), "gzip");
}

// The reader's UTF-8 check (ASCII skipped 8 bytes at a time) reports the byte that
// unieval::core::find_invalid_utf8 reports, for each kind of bad sequence at each alignment.
TEST(JsonReaderTest, InvalidUtf8IsReportedAtTheSameByteAsFindInvalidUtf8) {
  const std::vector<std::string> bad = {
      "\x80",         "\xbf",         "\xc0\x80",         "\xc1\xbf",
      "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80",
      "\xff",         "\xc3",         "\xe2\x82",         "\xf0\x9f\x98"};
  for (size_t pad = 0; pad < 10; ++pad) {
    for (const auto& b : bad) {
      for (const std::string& tail : {std::string("\"}"), std::string("")}) {
        std::string text = "{\"k\": \"" + std::string(pad, 'a') + "\xc3\xa9" + b + tail;
        size_t want = core::find_invalid_utf8(text);
        ASSERT_NE(std::string::npos, want);
        try {
          JsonDocument::parse(text, "mem");
          ADD_FAILURE() << "accepted invalid UTF-8, pad " << pad;
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("invalid UTF-8 at byte " + std::to_string(want)),
                    std::string::npos)
              << e.what() << " pad " << pad;
        }
      }
    }
  }
  // Valid multi-byte text at every alignment, and escapes inside long strings.
  for (size_t pad = 0; pad < 10; ++pad) {
    std::string body =
        std::string(pad, 'a') + "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 long enough to span words";
    JsonDocument d = JsonDocument::parse("{\"k\": \"" + body + "\\n\\\"x\"}", "mem");
    EXPECT_EQ(body + "\n\"x", d.root()["k"].as_string());
  }
}

// The string scan stops at the first quote, backslash or control character wherever it falls
// in a 16-byte block: strings of every length 0..40 end exactly, control characters are errors.
TEST(JsonReaderTest, StringScanFindsTheEndAndControlCharactersAtEveryOffset) {
  for (size_t len = 0; len <= 40; ++len) {
    std::string body;
    for (size_t i = 0; i < len; ++i) body += static_cast<char>('a' + i % 26);
    JsonDocument d = JsonDocument::parse("[\"" + body + "\", \"" + body + "\\\\\"]", "mem");
    ASSERT_EQ(body, d.root().array_items().begin().operator*().as_string()) << len;
    std::string with_ctl = body + '\x1f';
    EXPECT_THROW(JsonDocument::parse("[\"" + with_ctl + "\"]", "mem"), InputError) << len;
    std::string with_del = body + '\x7f' + "\xc3\xa9";  // DEL and non-ASCII are plain characters
    EXPECT_EQ(with_del, JsonDocument::parse("[\"" + with_del + "\"]", "mem")
                            .root()
                            .array_items()
                            .begin()
                            .
                            operator*()
                            .as_string());
  }
}

TEST(JsonReaderTest, SizeOfScalarsIsZeroAndBomIsSkipped) {
  JsonDocument d = JsonDocument::parse("\xEF\xBB\xBF{\"s\": \"abc\", \"n\": 7, \"o\": {}}", "mem");
  EXPECT_EQ(0u, d.root()["s"].size());
  EXPECT_EQ(0u, d.root()["n"].size());
  EXPECT_EQ(0u, d.root()["o"].size());
  EXPECT_TRUE(d.root()["n"].is_integer());
  EXPECT_EQ(7.0, d.root()["n"].as_double());
}

// --- JsonCursor: accepts exactly what the parser accepts, and decodes strings as it does --------

// True when JsonDocument::parse_checked accepts the (checked) text.
bool parser_accepts(const std::string& text) {
  try {
    JsonDocument::parse_checked(
        JsonDocument::check_text(core::HugeVector<char>(text.begin(), text.end()), "mem"), "mem");
    return true;
  } catch (const InputError&) {
    return false;
  }
}

bool cursor_accepts(const std::string& text) {
  try {
    JsonCursor c(text.data(), text.size());
    c.skip();
    c.finish();
    return true;
  } catch (const JsonCursor::Refused&) {
    return false;
  }
}

// The strings of a top-level array, through the cursor (decoded after the scan) and through
// the document.
std::vector<std::string> cursor_strings(std::string text) {
  std::vector<JsonCursor::Span> spans;
  JsonCursor c(text.data(), text.size());
  for (auto e = c.array(); e.next();) {
    if (c.peek() == '"') {
      spans.push_back(c.string());
    } else {
      c.skip();
    }
  }
  c.finish();
  std::vector<std::string> out;
  for (JsonCursor::Span s : spans) out.emplace_back(JsonCursor::decode(text.data(), s));
  return out;
}
std::vector<std::string> document_strings(const std::string& text) {
  std::vector<std::string> out;
  JsonDocument d = JsonDocument::parse(text, "mem");
  for (JsonValue v : d.root().array_items())
    if (v.is_string()) out.emplace_back(v.as_string());
  return out;
}

const std::vector<std::string>& cursor_seeds() {
  static const std::vector<std::string> seeds = {
      R"(["plain", "esc \" \\ \/ \b \f \n \r \t", "\u00e9\u20AC\ud83d\ude00", "lone \ud800 high", "\udc00 low", 1, -0.5e-3, 2E+10, 0, -0])",
      R"({"a": [true, false, null, NaN, Infinity, -Infinity, {"b": {}}, []], "c": "d"})",
      "[\n  \"line\",\n  {\"k\":\n 1}\n]\n",
      R"(["caf\u00E9", "x\u0000y", "\ud83d\u0041", 123456789012345678901234567890, 1e999])",
  };
  return seeds;
}

TEST(JsonReaderTest, CursorAcceptsWhatTheParserAcceptsAndDecodesStringsAlike) {
  for (const std::string& text : cursor_seeds()) {
    ASSERT_TRUE(parser_accepts(text)) << text;
    EXPECT_TRUE(cursor_accepts(text)) << text;
  }
  EXPECT_EQ(document_strings(cursor_seeds()[0]), cursor_strings(cursor_seeds()[0]));
  EXPECT_EQ(document_strings(cursor_seeds()[3]), cursor_strings(cursor_seeds()[3]));
  EXPECT_EQ("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", cursor_strings(cursor_seeds()[0])[2]);
  // Nesting: the parser takes containers at depths 0..999.
  EXPECT_TRUE(parser_accepts(std::string(1000, '[') + std::string(1000, ']')));
  EXPECT_TRUE(cursor_accepts(std::string(1000, '[') + std::string(1000, ']')));
  EXPECT_FALSE(parser_accepts(std::string(1001, '[') + std::string(1001, ']')));
  EXPECT_FALSE(cursor_accepts(std::string(1001, '[') + std::string(1001, ']')));
  for (const std::string bad :
       {"", " ", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "[1] 2", "\"\\x\"", "\"\\u12\"", "tru", "-",
        "1.", "1e", "01", "{1: 2}", "[\"a\tb\"]", "\"abc", "[", "{\"a\":"}) {
    EXPECT_FALSE(parser_accepts(bad)) << bad;
    EXPECT_FALSE(cursor_accepts(bad)) << bad;
  }
}

// Seeded random edits of the seeds: the cursor accepts a text exactly when the parser does,
// and then decodes its strings the same.
TEST(JsonReaderTest, CursorAgreesWithTheParserOnRandomMutations) {
  const std::string alphabet = "{}[]\",: \n\t\\u0123456789abcdefABCDEFEe.-+tnrlsNIy/";
  std::mt19937 rng(42);
  int accepted = 0, refused = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text =
        testing::mutate(cursor_seeds()[rng() % cursor_seeds().size()], rng, alphabet);
    if (core::find_invalid_utf8(text) != std::string_view::npos)
      continue;  // check_text's, not the parser's
    bool want = parser_accepts(text);
    ASSERT_EQ(want, cursor_accepts(text)) << text;
    if (want && text.find_first_not_of(" \n\t\r") != std::string::npos &&
        text[text.find_first_not_of(" \n\t\r")] == '[') {
      ASSERT_EQ(document_strings(text), cursor_strings(text)) << text;
    }
    (want ? accepted : refused)++;
  }
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(refused, 2000);
}

}  // namespace
}  // namespace unieval::core

// Fuzz finding (fuzz/json_fuzz.cc under ASan): text whose length is a multiple of 32 and all ASCII
// made the UTF-8 check read the byte after the text, and loop for ever when that byte was >= 0x80.
// Here the byte after the text is 0xFF (inside the vector's capacity): the check must stop at the end.
TEST(JsonReaderTest, Utf8CheckStopsAtTheEndOfAllAsciiTextOf32Bytes) {
  for (size_t n : {32u, 64u, 96u}) {
    unieval::core::HugeVector<char> text;
    text.reserve(n + 8);
    text.assign(n, ' ');
    text[0] = '[';
    text[n - 1] = ']';
    text.push_back('\xff');
    text.pop_back();  // capacity keeps the 0xFF right after the text
    auto checked = unieval::core::JsonDocument::check_text(std::move(text), "t.json");
    EXPECT_EQ(checked.size(), n);
    EXPECT_EQ(
        unieval::core::JsonDocument::parse_checked(std::move(checked), "t.json").root().size(), 0u);
  }
}
