// glue-*, coqa, personachat adapters on small files written here, and on ../shared where present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/error.h"
#include "pipelines/evaluate.h"
#include "tasks/personachat.h"
#include "tasks/summarization.h"
#include "tasks/task.h"
#include "tests/tasks/task_test_util.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using pipelines::evaluate;  // adapters are exercised through the evaluate flow

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

TEST(GlueTaskTest, AccuracyAndMccOnSmallFiles) {
  TempDir tmp;
  auto data = tmp.write("dev.tsv", "sentence\tlabel\na\t1\nb\t0\nc\t1\nd\t0\n");
  auto pred = tmp.write("pred.txt", "1\n0\n0\n0\n");
  auto r = evaluate(request("glue-sst2", data, pred));
  EXPECT_EQ(r.task, "glue-sst2");
  EXPECT_DOUBLE_EQ(r.score("accuracy")->value, 0.75);
  auto cola = tmp.write("cola.tsv", "src\t1\t\ta\nsrc\t0\t\tb\nsrc\t1\t\tc\nsrc\t0\t\td\n");
  auto c = evaluate(request("glue-cola", cola, pred));
  // tp 1, tn 2, fp 0, fn 1: (1*2 - 0)/sqrt(1*2*3*2) = 2/sqrt(12)
  EXPECT_NEAR(c.score("mcc")->value, 2 / std::sqrt(12.0), 1e-12);
  auto short_pred = tmp.write("short.txt", "1\n0\n");
  try {
    evaluate(request("glue-sst2", data, short_pred));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short.txt"), std::string::npos);
  }
}

TEST(GlueTaskTest, RealRteAllEntailment) {
  UNIEVAL_REQUIRE_SHARED("data/glue/RTE.dev.hf-export.tsv.gz");
  TempDir tmp;
  std::string zeros;
  for (int i = 0; i < 277; ++i) zeros += "0\n";
  auto r =
      evaluate(request("glue-rte", (shared_dir() / "data/glue/RTE.dev.hf-export.tsv.gz").string(),
                       tmp.write("p.txt", zeros)));
  // SOURCES.md: 146 entailment (label 0) of 277.
  EXPECT_DOUBLE_EQ(r.score("accuracy")->value, 146.0 / 277.0);
}

TEST(CoqaTaskTest, OverallAndDomains) {
  TempDir tmp;
  auto data = tmp.write(
      "coqa.json", R"({"version": "1.0", "data": [{"source": "wikipedia", "id": "s1", "story": "x",
    "questions": [{"input_text": "q", "turn_id": 1}, {"input_text": "q2", "turn_id": 2}],
    "answers": [{"input_text": "white", "turn_id": 1}, {"input_text": "a dog", "turn_id": 2}]}]})");
  auto pred = tmp.write(
      "pred.json",
      R"([{"id": "s1", "turn_id": 1, "answer": "White"}, {"id": "s1", "turn_id": 2, "answer": "cat"}])");
  auto r = evaluate(request("coqa-gen", data, pred));
  EXPECT_EQ(r.task, "coqa-gen");
  EXPECT_DOUBLE_EQ(r.score("f1")->value, 50.0);
  EXPECT_DOUBLE_EQ(r.score("em")->value, 50.0);
  EXPECT_DOUBLE_EQ(r.score("in_domain_f1")->value, 50.0);
  auto unknown = tmp.write("u.json", R"([{"id": "s9", "turn_id": 1, "answer": "x"}])");
  EXPECT_THROW(evaluate(request("coqa", data, unknown)), InputError);
}

TEST(PersonachatTaskTest, ReadsConvai2AndCleansPredictions) {
  TempDir tmp;
  auto data = tmp.write(
      "valid.txt",
      "1 your persona: i like tea.\n2 hi there\thello how are you ?\n3 fine\tthat is good .\n"
      "1 your persona: i run.\n2 hey\ti ' m tired\t\tcand1|cand2\n");
  EXPECT_EQ(read_convai2_responses(data),
            (std::vector<std::string>{"hello how are you ?", "that is good .", "i ' m tired"}));
  EXPECT_EQ(ernie_gen_persona_clean("i do not know , it ' s a well - known fact i 've seen"),
            "i don't know , it's a well-known fact i've seen");
  auto pred = tmp.write("pred.txt", "hello how are you ?\nthat is good .\ni am tired\n");
  auto r = evaluate(request("personachat", data, pred));
  EXPECT_EQ(r.examples, 3);
  ASSERT_NE(r.score("bleu1"), nullptr);
  ASSERT_NE(r.score("distinct2"), nullptr);
  EXPECT_GT(r.score("distinct1")->value, 0.8);
  auto bad = tmp.write("bad.txt", "1 your persona: x\n2 no tab here\n");
  try {
    read_convai2_responses(bad);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2"), std::string::npos) << e.what();
  }
  auto short_pred = tmp.write("short.txt", "one line\n");
  EXPECT_THROW(evaluate(request("personachat", data, short_pred)), InputError);
}

TEST(PersonachatTaskTest, RealConvai2ValidationHas7801Responses) {
  UNIEVAL_REQUIRE_SHARED("data/personachat/convai2_valid_self_original_no_cands.txt.gz");
  auto refs = read_convai2_responses(
      (shared_dir() / "data/personachat/convai2_valid_self_original_no_cands.txt.gz").string());
  EXPECT_EQ(refs.size(), 7801u);  // SOURCES.md
}

// A summarization request that stems without the WordNet table (no ROUGE data needed).
EvalRequest summarization_request(const std::string& task, const std::string& data,
                                  const std::string& pred) {
  EvalRequest r = request(task, data, pred);
  r.options["wordnet_exceptions"] = "false";
  return r;
}

TEST(SummarizationTaskTest, SentenceMarkersAndRouge) {
  EXPECT_EQ(summary_sentences("a b . <S_SEP> c d ."), (std::vector<std::string>{"a b .", "c d ."}));
  EXPECT_EQ(summary_sentences("<t> a b . </t> <t> c . </t>"),
            (std::vector<std::string>{"a b .", "c ."}));
  EXPECT_EQ(summary_sentences("one [X_SEP] two"), (std::vector<std::string>{"one", "two"}));
  TempDir tmp;
  auto ref =
      tmp.write("ref.txt", "the cat sat on the mat . <q> it was happy .\npolice arrest a man .\n");
  auto same = evaluate(summarization_request(
      "cnndm", ref,
      tmp.write("same.txt",
                "the cat sat on the mat . <q> it was happy .\npolice arrest a man .\n")));
  EXPECT_DOUBLE_EQ(same.score("rouge1_f")->value, 1.0);
  EXPECT_DOUBLE_EQ(same.score("rougeL_f")->value, 1.0);
  auto other = evaluate(summarization_request(
      "gigaword", ref, tmp.write("o.txt", "a dog ran .\npolice arrest a woman .\n")));
  EXPECT_LT(other.score("rouge2_f")->value, 0.5);
  ASSERT_TRUE(other.score("rouge1_f")->ci.has_value());
  EXPECT_EQ(other.score("rouge1_f")->ci->method, "rouge-1.5.5-bootstrap");
  EXPECT_THROW(evaluate(summarization_request("cnndm", ref, tmp.write("short.txt", "x\n"))),
               InputError);
}

// Restores an environment variable when the test ends.
struct EnvGuard {
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
  }
  ~EnvGuard() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  const char* name_;
  std::optional<std::string> old_;
};

std::string rouge_signature(const results::RunResult& r) {
  for (const auto& m : r.metrics)
    if (m.id == "rouge-1.5.5") return m.signature;
  return "";
}

// One ROUGE resource policy (metrics/rouge.h find_rouge_resources), the same as
// `unieval score --metric rouge -m` (tests/cli/score_rouge_test.cc): -m without the WordNet data is
// an error naming the option, the variable and the opt-out, never a silent fallback.
TEST(SummarizationTaskTest, StemmingWithoutRougeDataIsAnErrorWithTheFix) {
  EnvGuard env("UNIEVAL_ROUGE_DATA");
  unsetenv("UNIEVAL_ROUGE_DATA");
  TempDir tmp;
  auto ref = tmp.write("ref.txt", "police went home .\n");
  auto pred = tmp.write("pred.txt", "police go home .\n");
  try {
    evaluate(request("cnndm", ref, pred));
    ADD_FAILURE() << "no InputError without ROUGE data";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("--option rouge_data=DIR"), std::string::npos) << msg;
    EXPECT_NE(msg.find("UNIEVAL_ROUGE_DATA"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--option wordnet_exceptions=false"), std::string::npos) << msg;
  }
  auto req = request("cnndm", ref, pred);
  req.options["rouge_data"] = tmp.path().string() + "/no-such-dir";
  EXPECT_THROW(evaluate(req), InputError);
  // Without stemming no resource is needed; the opt-out is recorded in signature and notes.
  req = request("gigaword", ref, pred);
  req.options["stem"] = "false";
  EXPECT_NE(rouge_signature(evaluate(req)).find("|m:0|exc:-|"), std::string::npos);
  auto noexc = evaluate(summarization_request("gigaword", ref, pred));
  EXPECT_NE(rouge_signature(noexc).find("|m:1|exc:none|"), std::string::npos);
  bool noted = false;
  for (const auto& n : noexc.notes)
    noted |= n.find("wordnet_exceptions=false") != std::string::npos;
  EXPECT_TRUE(noted);
  req = request("gigaword", ref, pred);
  req.options["wordnet_exceptions"] = "maybe";
  EXPECT_THROW(evaluate(req), InputError);
}

TEST(SummarizationTaskTest, StemmingWithRougeDataUsesTheWordNetTable) {
  UNIEVAL_REQUIRE_SHARED("data/rouge155/WordNet-2.0-Exceptions/verb.exc");
  EnvGuard env("UNIEVAL_ROUGE_DATA");
  unsetenv("UNIEVAL_ROUGE_DATA");
  TempDir tmp;
  auto ref = tmp.write("ref.txt", "went\n");
  auto pred = tmp.write("pred.txt", "go\n");
  auto req = request("gigaword", ref, pred);
  req.options["rouge_data"] = (shared_dir() / "data/rouge155").string();
  auto r = evaluate(req);
  EXPECT_NE(rouge_signature(r).find("|exc:wn2.0|"), std::string::npos) << rouge_signature(r);
  EXPECT_DOUBLE_EQ(r.score("rouge1_f")->value, 1.0);  // went -> go through the exception table
  setenv("UNIEVAL_ROUGE_DATA", (shared_dir() / "data/rouge155").string().c_str(), 1);
  EXPECT_NE(rouge_signature(evaluate(request("gigaword", ref, pred))).find("|exc:wn2.0|"),
            std::string::npos);
}

}  // namespace
}  // namespace unieval::tasks
