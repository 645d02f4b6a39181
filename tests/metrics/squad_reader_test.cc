// The SQuAD dataset and prediction readers scan with a core::JsonCursor and fall back to a
// core::JsonDocument when the scan refuses; both paths must give the same dataset or the same
// error (message, file, line). Checked on hand-made layouts (escapes, repeated keys, wrong
// types, extra keys, whitespace and line breaks) and on thousands of seeded random mutations
// of them.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "metrics/squad.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

// What a read gave: the fields of the result, or the error, as one comparable string.
std::string describe(const SquadDataset& d) {
  std::string s =
      "version=" + d.version + " impossible=" + std::to_string(d.has_is_impossible) + "\n";
  for (const SquadQuestion& q : d.questions) {
    s += "q " + std::string(q.id) + " @" + std::to_string(q.line) + " [" +
         std::to_string(q.first_answer) + "+" + std::to_string(q.n_answers) + "]:";
    for (std::string_view a : d.answers(q)) s += " <" + std::string(a) + ">";
    s += "\n";
  }
  return s + "answers " + std::to_string(d.answer_texts.size());
}

std::string describe(const SquadPredictions& p) {
  std::string s;
  for (size_t i = 0; i < p.ids.size(); ++i) {
    const std::string_view* found = p.find(p.ids[i]);
    s += std::string(p.ids[i]) + " -> <" + std::string(p.answers[i]) +
         "> found=" + (found == &p.answers[i] ? "self" : "other") + "\n";
  }
  return s;
}

std::string describe(const SquadNaProbs& p) {
  std::string s;
  char buf[64];
  for (size_t i = 0; i < p.ids.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g", p.probs[i]);
    s += std::string(p.ids[i]) + " -> " + buf + " found=" + std::to_string(p.find(p.ids[i]) == i) +
         "\n";
  }
  return s;
}

template <class Read>
std::string outcome(Read&& read) {
  try {
    return "ok\n" + describe(read());
  } catch (const InputError& e) {
    return "error " + e.file() + ":" + std::to_string(e.line()) + ": " + e.what();
  }
}

std::string dataset_outcome(const std::string& text, bool document) {
  return outcome([&] {
    return document ? parse_squad_dataset_with_document(text, "dev.json")
                    : parse_squad_dataset(text, "dev.json");
  });
}

std::string predictions_outcome(const std::string& text, bool document) {
  return outcome([&] {
    return document ? parse_squad_predictions_with_document(text, "pred.json")
                    : parse_squad_predictions(text, "pred.json");
  });
}

std::string na_probs_outcome(const std::string& text, bool document) {
  return outcome([&] {
    return document ? parse_squad_na_probs_with_document(text, "na.json")
                    : parse_squad_na_probs(text, "na.json");
  });
}

// Layouts the readers meet or must refuse. The first is a plain SQuAD file; the others each
// hold one thing the cursor's scan leaves to the document or must check like it.
const std::vector<std::string>& dataset_cases() {
  static const std::vector<std::string> cases = {
      R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "The cat sat.", "qas": [
  {"answers": [{"answer_start": 4, "text": "cat"}, {"answer_start": 0, "text": "The cat"}], "question": "Who?", "id": "q1"},
  {"id": "q2", "question": "Where \"exactly\"?", "answers": [{"text": "caf\u00e9 \ud83d\ude00 \\ \/ \n", "answer_start": 1}]}]},
  {"context": "x", "qas": []}]}, {"title": "U", "paragraphs": []}]})",
      // v2.0: is_impossible, plausible answers, empty answers, numbers of every form
      "{\n  \"version\": \"v2.0\",\n  \"data\": [\n    {\"paragraphs\": [{\"qas\": [\n      "
      "{\"id\": \"a\", "
      "\"is_impossible\": true, \"answers\": [], \"plausible_answers\": [{\"text\": \"p\"}]},\n    "
      "  "
      "{\"id\": \"b\", \"answers\": [{\"text\": \"\", \"answer_start\": -0.5e+3}], \"x\": [NaN, "
      "-Infinity, "
      "Infinity, 1E5, null, false, true, {}, []]}\n    ]}]}\n  ]\n}\n",
      // version not a string (ignored), keys in another order, duplicate question ids
      R"({"data": [{"paragraphs": [{"qas": [{"answers": [{"text": "x"}], "id": "d"}, {"id": "d", "answers": []}], "context": "c"}]}], "version": 2.0})",
      // repeated keys: the last one counts (the document's lookups)
      R"({"version": "1.1", "version": "2.0", "data": [{"paragraphs": [{"qas": [{"id": "x", "id": "y", "answers": [{"text": "a", "text": "b"}]}]}]}]})",
      R"({"data": [], "data": [{"paragraphs": [{"qas": [{"id": "z", "answers": [{"text": "a"}], "answers": []}]}]}]})",
      R"({"data": [{"paragraphs": [{"qas": [{"id": "z", "answers": []}], "qas": [{"id": "w", "answers": []}]}], "paragraphs": []}]})",
      // escaped keys
      R"({"d\u0061ta": [{"paragraphs": [{"qas": [{"\u0069d": "e", "answers": [{"te\u0078t": "t"}]}]}]}]})",
      // wrong types and missing keys
      R"({"data": {"paragraphs": []}})",
      R"({"data": [{"paragraphs": [{"qas": [{"id": 5, "answers": []}]}]}]})",
      R"({"data": [{"paragraphs": [{"qas": [{"id": "m"}]}]}]})",
      R"({"data": [{"paragraphs": [{"qas": [{"id": "m", "answers": [{"answer_start": 3}]}]}]}]})",
      R"({"data": [{"paragraphs": [{"qas": [{"id": "m", "answers": ["text"]}]}]}]})",
      R"({"data": [{"paragraphs": [{"context": "c"}]}]})",
      R"({"data": [{"title": "no paragraphs"}]})",
      R"({"version": "1.1"})",
      R"([{"data": []}])",
      R"({"data": [{"paragraphs": [{"qas": "none"}]}]})",
      // syntax errors inside values the scan skips, and after the top-level value
      "{\"data\": [{\"paragraphs\": [{\"context\": \"tab\there\", \"qas\": []}]}]}",
      R"({"data": [{"paragraphs": [{"context": "bad \x", "qas": []}]}]})",
      R"({"data": [{"paragraphs": [{"context": "c", "qas": [], "n": 01}]}]})",
      R"({"data": [{"paragraphs": [{"context": "c", "qas": [], "n": [1,]}]}]})",
      R"({"data": []} {})",
      "\xEF\xBB\xBF{\"data\": []}",
      "",
  };
  return cases;
}

TEST(SquadReaderTest, CursorAndDocumentReadEveryLayoutAlike) {
  for (const std::string& text : dataset_cases())
    EXPECT_EQ(dataset_outcome(text, true), dataset_outcome(text, false)) << text;
  // The cases hold both outcomes, and the plain file reads as written.
  std::string first = dataset_outcome(dataset_cases()[0], false);
  EXPECT_EQ(
      "ok\nversion=1.1 impossible=0\nq q1 @2 [0+2]: <cat> <The cat>\n"
      "q q2 @3 [2+1]: <caf\xc3\xa9 \xf0\x9f\x98\x80 \\ / \n>\nanswers 3",
      first);
  EXPECT_EQ("ok\nversion=v2.0 impossible=1\nq a @5 [0+0]:\nq b @6 [0+1]: <>\nanswers 1",
            dataset_outcome(dataset_cases()[1], false));
  EXPECT_EQ("ok\nversion=2.0 impossible=0\nq y @1 [0+1]: <b>\nanswers 1",
            dataset_outcome(dataset_cases()[3], false));
  EXPECT_NE(std::string::npos,
            dataset_outcome(dataset_cases()[8], false).find("'id': expected a string"));
  EXPECT_NE(std::string::npos, dataset_outcome(dataset_cases()[18], false).find("invalid escape"));
}

TEST(SquadReaderTest, PredictionLayoutsReadAlike) {
  const std::vector<std::string> cases = {
      R"({"q1": "cat", "q2": "", "q\u00e9": "\u00e9\"", "q1": "dog"})",
      "{\n\"a\": \"x\",\n\"b\" \"y\"}",
      R"({"a": 1})",
      R"(["a"])",
      R"({"a": "x",})",
      R"({})",
  };
  for (const std::string& text : cases)
    EXPECT_EQ(predictions_outcome(text, true), predictions_outcome(text, false)) << text;
  EXPECT_EQ(
      "ok\nq1 -> <dog> found=self\nq2 -> <> found=self\nq\xc3\xa9 -> <\xc3\xa9\"> found=self\n",
      predictions_outcome(cases[0], false));
}

TEST(SquadReaderTest, NaProbLayoutsReadAlike) {
  const std::vector<std::string> cases = {
      R"({"q1": 0.25, "q2": 1e-3, "q\u00e9": -0.0, "q1": 0.75, "n": NaN, "i": Infinity, "m": -Infinity, "b": 1e999, "t": 123456789012345678})",
      R"({"a": "0.5"})",
      R"({"a": 01})",
      R"({"a": .5})",
      R"([0.5])",
      R"({"a": 0.5,})",
      R"({})",
      "{\n\"a\":\n 1 2}",
  };
  for (const std::string& text : cases)
    EXPECT_EQ(na_probs_outcome(text, true), na_probs_outcome(text, false)) << text;
  EXPECT_EQ(
      "ok\nq1 -> 0.75 found=1\nq2 -> 0.001 found=1\nq\xc3\xa9 -> -0 found=1\nn -> nan found=1\n"
      "i -> inf found=1\nm -> -inf found=1\nb -> inf found=1\nt -> 1.2345678901234568e+17 "
      "found=1\n",
      na_probs_outcome(cases[0], false));
}

// The cursor path is the one taken for ordinary files: it leaves the text of skipped strings
// as written, where the document decodes every string in place.
TEST(SquadReaderTest, PlainFilesTakeTheCursorPath) {
  const std::string context = R"(Caf\u00e9 \"quoted\")";
  std::string text = R"({"data": [{"paragraphs": [{"context": ")" + context +
                     R"(", "qas": [{"id": "q\u0031", "answers": [{"text": "caf\u00e9"}]}]}]}]})";
  auto view = [](const SquadDataset& d) {
    return std::string_view(d.text->data(), d.text->size());
  };
  SquadDataset fast = parse_squad_dataset(text, "d");
  EXPECT_NE(std::string_view::npos, view(fast).find(context));
  EXPECT_EQ("q1", fast.questions[0].id);
  EXPECT_EQ("caf\xc3\xa9", fast.answer_texts[0]);
  SquadDataset doc = parse_squad_dataset_with_document(text, "d");
  EXPECT_EQ(std::string_view::npos, view(doc).find(context));
  // A repeated key is left to the document.
  text.insert(1, R"("data": [], )");
  EXPECT_EQ(std::string_view::npos, view(parse_squad_dataset(text, "d")).find(context));
}

// Random edits of the layouts above (bytes deleted, inserted or replaced by JSON's structural
// characters, escapes, digits, letters of the literals, whitespace): whatever the document
// makes of a text, the cursor path makes the same.
TEST(SquadReaderTest, RandomMutationsReadAlike) {
  const std::string alphabet = "{}[]\",: \n\t\\u0123456789abcdefEe.-+tnrlsNIy/";
  std::mt19937 rng(20261124);
  std::vector<std::string> seeds = dataset_cases();
  seeds.push_back(R"({"q1": "cat", "q2": "", "q\u00e9": "\u00e9\"", "q1": "dog"})");
  seeds.push_back(
      R"({"q1": 0.25, "q2": 1e-3, "q\u00e9": -0.0, "q1": 0.75, "n": NaN, "m": -Infinity})");
  int ok = 0, errors = 0;
  for (int round = 0; round < 12000; ++round) {
    // Mostly layouts that read (dataset cases 0-6, then the prediction and na-prob files), so
    // that many mutants still read; now and then any case.
    size_t pick = rng() % 8, n = seeds.size();
    size_t seed = pick < 5 ? rng() % 7 : pick == 5 ? n - 2 : pick == 6 ? n - 1 : rng() % n;
    std::string text = testing::mutate(seeds[seed], rng, alphabet);
    std::string want = dataset_outcome(text, true);
    ASSERT_EQ(want, dataset_outcome(text, false)) << text;
    ASSERT_EQ(predictions_outcome(text, true), predictions_outcome(text, false)) << text;
    ASSERT_EQ(na_probs_outcome(text, true), na_probs_outcome(text, false)) << text;
    (want.rfind("ok", 0) == 0 ? ok : errors)++;
  }
  // Both kinds of outcome are exercised.
  EXPECT_GT(ok, 1000);
  EXPECT_GT(errors, 1000);
}

}  // namespace
}  // namespace unieval::metrics
