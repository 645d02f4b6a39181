// Task readers of `unieval run` (tasks/seq2seq_tasks.h) on small files written here, in each
// dataset's distributed format; bad input names the file; and the round trip the run scores
// through: references → WordPiece → decode detokeniser (pieces glued, no HF clean-up) → task
// post-processing → the task's adapter gives BLEU-4 = 1 (squad-qg) and ROUGE 100 (cnndm).
#include "tasks/seq2seq_tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "core/error.h"
#include "core/io.h"
#include "models/tokenizer/wordpiece.h"
#include "pipelines/evaluate.h"
#include "tasks/task.h"
#include "tasks/unilm_text.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using models::DetokenizeOptions;
using models::TokenizerOptions;
using models::Vocab;
using models::WordPieceTokenizer;
using testing::TempDir;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Seq2SeqTasks, SquadQgReadsNqgFilesAndTheReversedSplit) {
  TempDir d;
  d.write("src-dev.txt", "the cat -lrb- felis -rrb- sat on the mat .\nthe dog ran .\n");
  d.write("tgt-dev.txt", "what sat on the mat ?\nwhat ran ?\n");
  d.write("src-test.txt", "a test sentence .\n");
  d.write("tgt-test.txt", "what is `` this '' ?\n");
  Seq2SeqSplit s = read_seq2seq_split("squad-qg", d.path().string(), "dev");
  ASSERT_EQ(s.src.size(), 2u);
  EXPECT_EQ(s.src[0], "the cat ( felis ) sat on the mat .");
  EXPECT_EQ(s.tgt[1], "what ran ?");
  EXPECT_EQ(s.refs[0], "what sat on the mat ?");
  // Reversed: its test split is Du et al.'s dev files, its dev split the test files.
  Seq2SeqSplit r = read_seq2seq_split("squad-qg-reversed", d.path().string(), "dev");
  ASSERT_EQ(r.src.size(), 1u);
  EXPECT_EQ(r.tgt[0], "what is \" this \" ?");
  EXPECT_EQ(unptb_brackets("he does n't -lsb- x -rsb-"), "he doesn't [ x ]");
  EXPECT_EQ(r.refs[0], "what is `` this '' ?");
  EXPECT_EQ(read_seq2seq_split("squad-qg-reversed", d.path().string(), "test").src.size(), 2u);
  Seq2SeqReadOptions lim;
  lim.limit = 1;
  EXPECT_EQ(read_seq2seq_split("squad-qg", d.path().string(), "dev", lim).src.size(), 1u);
}

TEST(Seq2SeqTasks, BadInputNamesTheFile) {
  TempDir d;
  d.write("src-dev.txt", "a .\nb .\n");
  d.write("tgt-dev.txt", "q ?\n");
  std::string e = error_of([&] { read_seq2seq_split("squad-qg", d.path().string(), "dev"); });
  EXPECT_NE(e.find("tgt-dev.txt"), std::string::npos) << e;
  EXPECT_NE(e.find("line-aligned"), std::string::npos) << e;
  e = error_of([&] { read_seq2seq_split("squad-qg", d.path().string(), "train"); });
  EXPECT_NE(e.find("src-train.txt"), std::string::npos) << e;
  EXPECT_NE(e.find(d.path().string()), std::string::npos) << e;
  e = error_of([&] { read_seq2seq_split("glue-sst2", d.path().string(), "dev"); });
  EXPECT_NE(e.find("not a generation task"), std::string::npos) << e;
  d.write("conv/test.convos.txt", "h1\tr\t7\t1\tonly four columns\n");
  e = error_of([&] { read_seq2seq_split("dstc7", (d.path() / "conv").string(), "test"); });
  EXPECT_NE(e.find("test.convos.txt:1"), std::string::npos) << e;
}

TEST(Seq2SeqTasks, CnndmLineFilesAndStories) {
  TempDir d;
  d.write("cnn/test.src", "article one text .\narticle two .\n");
  d.write("cnn/test.tgt", "first sentence . <S_SEP> second one .\nonly sentence .\n");
  Seq2SeqSplit s = read_seq2seq_split("cnndm", (d.path() / "cnn").string(), "test");
  ASSERT_EQ(s.src.size(), 2u);
  EXPECT_EQ(s.tgt[0], "first sentence . [X_SEP] second one .");
  EXPECT_EQ(s.refs[0], "first sentence . <S_SEP> second one .");
  d.write("raw/stories/b.story",
          "Line one of B.\n\nLine two.\n\n@highlight\n\nHigh one\n\n@highlight\n\nHigh two\n");
  d.write("raw/stories/a.story", "Article A.\n\n@highlight\n\nOnly highlight\n");
  d.write("raw/test.list", "b\na.story\n");
  Seq2SeqSplit r = read_seq2seq_split("cnndm", (d.path() / "raw").string(), "test");
  ASSERT_EQ(r.src.size(), 2u);
  EXPECT_EQ(r.src[0], "Line one of B. Line two.");
  EXPECT_EQ(r.tgt[0], "High one [X_SEP] High two");
  EXPECT_EQ(r.refs[0], "High one <S_SEP> High two");
  EXPECT_EQ(r.ids[1], "a");
  d.write("raw2/test/x.story", "No highlights here.\n");
  std::string e =
      error_of([&] { read_seq2seq_split("cnndm", (d.path() / "raw2").string(), "test"); });
  EXPECT_NE(e.find("x.story"), std::string::npos) << e;
}

TEST(Seq2SeqTasks, GigawordOrgData) {
  TempDir d;
  d.write("test.src.txt",
          "australia 's current account deficit shrinks by a record #.## billion dlrs\n");
  d.write("test.tgt.txt", "australian current account deficit narrows sharply\n");
  Seq2SeqSplit s = read_seq2seq_split("gigaword", d.path().string(), "test");
  ASSERT_EQ(s.src.size(), 1u);
  EXPECT_EQ(s.tgt[0], "australian current account deficit narrows sharply");
}

TEST(Seq2SeqTasks, CoqaGenHistoryAndPassageWindow) {
  TempDir d;
  nlohmann::json doc = {
      {"version", "1.0"},
      {"data",
       {{{"id", "s1"},
         {"source", "wikipedia"},
         {"story", "w1 w2 w3 w4 w5 w6 cat w8 w9 w10 w11 w12"},
         {"questions",
          {{{"turn_id", 1}, {"input_text", "who is here?"}},
           {{"turn_id", 2}, {"input_text", "the cat?"}}}},
         {"answers",
          {{{"turn_id", 1}, {"input_text", "w1"}}, {{"turn_id", 2}, {"input_text", "yes"}}}}}}}};
  d.write("coqa-dev-v1.0.json", doc.dump());
  Seq2SeqReadOptions o;
  o.max_src_words = 8;
  Seq2SeqSplit s = read_seq2seq_split("coqa-gen", d.path().string(), "dev", o);
  ASSERT_EQ(s.src.size(), 2u);
  EXPECT_EQ(s.tgt[1], "yes");
  EXPECT_EQ(s.ids[1], "s1/2");
  // Turn 2: history "who is here? w1 the cat?" keeps its last 4 words; the passage window of the
  // other 4 words holds "cat" (the question's word).
  EXPECT_EQ(s.src[1].rfind("here? w1 the cat?", 0), 0u) << s.src[1];
  EXPECT_NE((" " + s.src[1] + " ").find(" cat "), std::string::npos) << s.src[1];
  EXPECT_EQ(py2_split(s.src[1]).size(), 8u) << s.src[1];
  // The subset JSON for the adapter holds the turns read.
  o.limit = 1;
  Seq2SeqSplit one = read_seq2seq_split("coqa-gen", d.path().string(), "dev", o);
  auto sub = nlohmann::json::parse(one.coqa_json);
  EXPECT_EQ(sub["data"][0]["questions"].size(), 1u);
}

// With a length function (`unieval run` passes WordPiece token counts), the budget counts its
// units: here a word of n characters counts n.
TEST(Seq2SeqTasks, CoqaGenBudgetInTheLengthFunctionsUnits) {
  TempDir d;
  nlohmann::json doc = {
      {"version", "1.0"},
      {"data",
       {{{"id", "s1"},
         {"source", "wikipedia"},
         {"story", "w1 w2 w3 w4 w5 w6 cat w8 w9 w10 w11 w12"},
         {"questions",
          {{{"turn_id", 1}, {"input_text", "who is here?"}},
           {{"turn_id", 2}, {"input_text", "the cat?"}}}},
         {"answers",
          {{{"turn_id", 1}, {"input_text", "w1"}}, {{"turn_id", 2}, {"input_text", "yes"}}}}}}}};
  d.write("coqa-dev-v1.0.json", doc.dump());
  Seq2SeqReadOptions o;
  o.max_src_words = 12;
  o.length = [](const std::string& w) { return w.size(); };
  o.length_unit = "characters";
  Seq2SeqSplit s = read_seq2seq_split("coqa-gen", d.path().string(), "dev", o);
  ASSERT_EQ(s.src.size(), 2u);
  // Turn 1: the history keeps "here?" (5 <= 6 = budget / 2, "is here?" would be 7); the passage
  // window of 7: "w1 w2 w3" (6; no word in common with the question, so the first window).
  EXPECT_EQ(s.src[0], "here? w1 w2 w3");
  // Turn 2: "cat?" (4); room 8: the first window holding "cat" is "w5 w6 cat" (7).
  EXPECT_EQ(s.src[1], "cat? w5 w6 cat");
  EXPECT_NE(s.reader.find("12 characters"), std::string::npos) << s.reader;
}

TEST(Seq2SeqTasks, Dstc7ConvosAndFacts) {
  TempDir d;
  d.write("test.convos.txt", "h1\tr/x\tc1\t5\tSTART EOS hi there EOS how are you\tfine thanks\n");
  d.write("test.facts.txt", "h1\tr/x\tc1\tex.com\t<p> a fact </p>\nh1\tr/x\tc9\tex.com\tother\n");
  Seq2SeqSplit s = read_seq2seq_split("dstc7", d.path().string(), "test");
  ASSERT_EQ(s.src.size(), 1u);
  EXPECT_EQ(s.src[0], "START hi there how are you <p> a fact </p>");
  EXPECT_EQ(s.tgt[0], "fine thanks");
  EXPECT_EQ(s.ids[0], "h1");
}

TEST(Seq2SeqTasks, PersonachatConvai2Text) {
  TempDir d;
  d.write("valid_self_original_no_cands.txt",
          "1 your persona: i like cats.\n2 hello there\thi !\n3 do you like pets ?\tyes , cats .\n"
          "1 your persona: i run.\n2 hey\tyo\n");
  Seq2SeqSplit s = read_seq2seq_split("personachat", d.path().string(), "valid");
  ASSERT_EQ(s.src.size(), 3u);
  EXPECT_EQ(s.src[0], "i like cats. hello there");
  EXPECT_EQ(s.src[1], "i like cats. hello there hi ! do you like pets ?");
  EXPECT_EQ(s.tgt[1], "yes , cats .");
  EXPECT_EQ(s.src[2], "i run. hey");
  d.write("bad/valid.txt", "1 your persona: x\n2 no tab here\n");
  std::string e =
      error_of([&] { read_seq2seq_split("personachat", (d.path() / "bad").string(), "valid"); });
  EXPECT_NE(e.find("valid.txt:2"), std::string::npos) << e;
}

// ---- references scored as predictions through the run's decode + post-processing -----------

// A vocabulary holding every WordPiece word of the texts (basic tokenizer output) and the specials.
WordPieceTokenizer vocab_for(const std::vector<std::string>& texts) {
  std::set<std::string> words;
  WordPieceTokenizer probe(Vocab({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}),
                           TokenizerOptions::bert(true));
  for (const auto& t : texts)
    for (const auto& w : probe.basic_tokenize(t)) words.insert(w);
  std::vector<std::string> v = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  v.insert(v.end(), words.begin(), words.end());
  return WordPieceTokenizer(Vocab(v), TokenizerOptions::bert(true));
}

std::vector<std::string> decode_round_trip(const WordPieceTokenizer& tok, const std::string& task,
                                           const std::vector<std::string>& targets) {
  DetokenizeOptions o;
  o.skip_special = true;
  o.clean_up_spaces = false;  // as `unieval run` decodes
  std::vector<std::string> out;
  for (const auto& t : targets) {
    std::vector<int32_t> ids;
    tok.encode_ids(t, &ids);
    out.push_back(postprocess_hypothesis(task, tok.decode(ids, o)));
  }
  return out;
}

results::RunResult score_references(const Seq2SeqSplit& s, const WordPieceTokenizer& tok,
                                    const std::string& dir) {
  EvalFiles e = write_eval_files(s, dir);
  write_predictions(s, decode_round_trip(tok, s.task, s.tgt), e.pred);
  EvalRequest req;
  req.task = s.task;
  req.data = e.data;
  req.pred = e.pred;
  req.split = s.split;
  req.options = e.options;
  // ROUGE-1.5.5's -m without the WordNet table (not the published setting; enough for identity).
  if (s.task == "cnndm") req.options["wordnet_exceptions"] = "false";
  // No METEOR resources in the fixtures: left out on request.
  if (s.task == "squad-qg" || s.task == "squad-qg-reversed" || s.task == "dstc7")
    req.skip_metrics = {"meteor"};
  return pipelines::evaluate(req);
}

TEST(Seq2SeqTasks, SquadQgReferencesThroughTheDecoderScoreBleu4One) {
  TempDir d;
  d.write("src-test.txt",
          "the us -lrb- united states -rrb- paid 3,000 dollars in 1990 .\n"
          "he said `` do n't go '' to the well-known man 's house .\n"
          "it scored 24 -- 10 in the 3.5 hour game .\n");
  d.write("tgt-test.txt",
          "how much did the us -lrb- united states -rrb- pay in 1990 ?\n"
          "what did he say `` do n't go '' about the well-known man 's house ?\n"
          "what was the score -- 24 -- 10 -- of the 3.5 hour game ?\n");
  Seq2SeqSplit s = read_seq2seq_split("squad-qg", d.path().string(), "test");
  WordPieceTokenizer tok = vocab_for(s.tgt);
  results::RunResult r = score_references(s, tok, (d.path() / "eval").string());
  ASSERT_NE(r.score("bleu4"), nullptr);
  EXPECT_NEAR(r.score("bleu4")->value, 1.0, 1e-9);
  EXPECT_NEAR(r.score("rougeL")->value, 1.0, 1e-12);
}

// The real dev references through the decoder. Not 1: a WordPiece round trip loses what the
// vocabulary cannot spell. Uncased (bert-uncased-vocab, lower-casing): accents are stripped
// ("é" -> "e") and characters outside the vocabulary become [UNK]; UniLM's QG used
// bert-large-cased without --do_lower_case (unilm-v1 README), where only [UNK] remains (qg/eval.py
// turns it into "UNK", then "unk"). Every reference that does not survive is one of those.
struct RoundTripCheck {
  double bleu4 = 0;
  size_t differing = 0;  // references whose decoded text differs (before the adapter's fix-ups)
  size_t unk = 0;        // ... holding a character the vocabulary lacks ([UNK])
  size_t accents = 0;    // ... with accents, stripped by uncased BERT tokenization
  size_t split = 0;      // ... that differ by spaces only: BERT splits punctuation ("'s" -> "' s",
                         // "win/loss" -> "win / loss"); qg/eval.py's fix_tokenization re-joins some
  size_t explained() const { return unk + accents + split; }
};

RoundTripCheck real_round_trip(const std::string& vocab, bool lowercase, const std::string& dir) {
  Seq2SeqReadOptions o;
  o.limit = 2000;
  Seq2SeqSplit s =
      read_seq2seq_split("squad-qg", (testing::shared_dir() / "data/squad_qg").string(), "dev", o);
  WordPieceTokenizer tok = WordPieceTokenizer::from_file(
      (testing::shared_dir() / "data/vocab" / vocab).string(), TokenizerOptions::bert(lowercase));
  RoundTripCheck c;
  c.bleu4 = score_references(s, tok, dir).score("bleu4")->value;
  const auto back = decode_round_trip(tok, s.task, s.tgt);
  const int32_t unk = tok.vocab().id("[UNK]");
  for (size_t i = 0; i < s.tgt.size(); ++i) {
    if (back[i] == s.tgt[i]) continue;
    ++c.differing;
    std::vector<int32_t> ids;
    tok.encode_ids(s.tgt[i], &ids);
    const bool has_unk = std::find(ids.begin(), ids.end(), unk) != ids.end();
    const bool non_ascii =
        std::any_of(s.tgt[i].begin(), s.tgt[i].end(), [](char ch) { return (ch & 0x80) != 0; });
    auto no_spaces = [](std::string x) {
      x.erase(std::remove(x.begin(), x.end(), ' '), x.end());
      return x;
    };
    if (has_unk)
      ++c.unk;
    else if (lowercase && non_ascii)
      ++c.accents;
    else if (no_spaces(back[i]) == no_spaces(s.tgt[i]))
      ++c.split;
  }
  return c;
}

TEST(Seq2SeqTasks, SquadQgRealReferencesThroughTheDecoder) {
  UNIEVAL_REQUIRE_SHARED("data/squad_qg/tgt-dev.txt.gz");
  UNIEVAL_REQUIRE_SHARED("data/vocab/bert-uncased-vocab.txt");
  UNIEVAL_REQUIRE_SHARED("data/vocab/unilm-cased-vocab.txt");
  TempDir d;
  const RoundTripCheck uncased =
      real_round_trip("bert-uncased-vocab.txt", true, (d.path() / "u").string());
  const RoundTripCheck cased =
      real_round_trip("unilm-cased-vocab.txt", false, (d.path() / "c").string());
  RecordProperty("bleu4_uncased", std::to_string(uncased.bleu4));
  RecordProperty("bleu4_cased", std::to_string(cased.bleu4));
  for (const auto* c : {&uncased, &cased})
    std::cerr << (c == &uncased ? "uncased" : "cased") << ": bleu4 " << c->bleu4 << ", "
              << c->differing << " of 2000 differ: " << c->split << " punctuation split, " << c->unk
              << " [UNK], " << c->accents << " accents\n";
  // Every loss is a punctuation split, an [UNK] or (uncased) an accent (HF clean-up, which glued
  // "?" to the word, took the uncased trip to 0.84); UniLM's cased setting keeps the accents.
  EXPECT_GT(uncased.differing, 0u);
  EXPECT_EQ(uncased.explained(), uncased.differing);
  EXPECT_EQ(cased.explained(), cased.differing);
  EXPECT_GT(uncased.accents, 0u);
  EXPECT_EQ(cased.accents, 0u);
  EXPECT_GT(uncased.bleu4, 0.99);
  EXPECT_GE(cased.bleu4, uncased.bleu4);
}

TEST(Seq2SeqTasks, CnndmReferencesThroughTheDecoderScoreRouge100) {
  TempDir d;
  d.write("test.src", "an article .\nanother article .\n");
  d.write(
      "test.tgt",
      "the first sentence of the summary is here . <S_SEP> a second sentence follows it closely .\n"
      "only one sentence in this reference summary .\n");
  Seq2SeqSplit s = read_seq2seq_split("cnndm", d.path().string(), "test");
  WordPieceTokenizer tok = vocab_for(s.tgt);
  results::RunResult r = score_references(s, tok, (d.path() / "eval").string());
  ASSERT_NE(r.score("rouge1_f"), nullptr);
  EXPECT_NEAR(r.score("rouge1_f")->value, 1.0, 1e-9);
  EXPECT_NEAR(r.score("rouge2_f")->value, 1.0, 1e-9);
  EXPECT_NEAR(r.score("rougeL_f")->value, 1.0, 1e-9);
}

}  // namespace
}  // namespace unieval::tasks
