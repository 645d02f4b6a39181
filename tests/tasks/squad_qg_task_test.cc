// squad-qg / squad-qg-reversed adapters and UniLM's fix_tokenization, on small files written here
// and on ../shared/data/squad_qg (skipped when absent).
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/io.h"
#include "metrics/bootstrap.h"
#include "metrics/protocol.h"
#include "pipelines/evaluate.h"
#include "tasks/squad_qg.h"
#include "tasks/task.h"
#include "tasks/unilm_text.h"
#include "tests/tasks/task_test_util.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using pipelines::evaluate;  // adapters are exercised through the evaluate flow

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

// The fixtures have no METEOR resources: METEOR is left out on request (without --skip-metric its
// absence is an error: MeteorPolicy below).
EvalRequest qg_request(const std::string& task, const std::string& data, const std::string& pred) {
  EvalRequest r = request(task, data, pred);
  r.skip_metrics = {"meteor"};
  return r;
}

bool has_note(const results::RunResult& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

TEST(UnilmFixTokenizationTest, RulesOfTheSpec) {
  EXPECT_EQ(unilm_fix_tokenization("( a ) [ b ] { c } [UNK] & < >"),
            "-lrb- a -rrb- -lsb- b -rsb- -lcb- c -rcb- UNK &amp; &lt; &gt;");
  EXPECT_EQ(unilm_fix_tokenization("he said \" yes \" and \" no \""),
            "he said `` yes '' and `` no ''");
  EXPECT_EQ(unilm_fix_tokenization("why don ' t you ?"), "why do n't you ?");
  EXPECT_EQ(unilm_fix_tokenization("it ' s john ' s and we ' d , we ' ll"),
            "it 's john 's and we 'd , we 'll");
  EXPECT_EQ(unilm_fix_tokenization("the ' best ' one"), "the ` best ' one");
  EXPECT_EQ(unilm_fix_tokenization("wait . . . what"), "wait ... what");
  EXPECT_EQ(unilm_fix_tokenization("$ 3 , 000 , 000 and 3 . 03"), "$ 3,000,000 and 3.03");
  // U . N . -> "U.N." and the script then sees the closing "." again.
  EXPECT_EQ(unilm_fix_tokenization("the U . N . said"), "the U.N. . said");
  EXPECT_EQ(unilm_fix_tokenization("u . n ."), "u . n .");  // lower case: no rule
  EXPECT_EQ(unilm_fix_tokenization("a well - known long - term plan"),
            "a well-known long-term plan");
  EXPECT_EQ(unilm_fix_tokenization("- start , end -"), "- start , end -");
  EXPECT_EQ(unilm_fix_tokenization("a - - b"), "a -- b");
  EXPECT_EQ(unilm_fix_tokenization("1990 - ( x )"), "1990 - -lrb- x -rrb-");
  // A lone "n ' t": the n-token becomes empty, i.e. a double space in the joined text.
  EXPECT_EQ(unilm_fix_tokenization("n ' t"), " n't");
  EXPECT_EQ(unilm_fix_tokenization("  spaced\tout\n"), "spaced out");
  EXPECT_EQ(wordpiece_detokenize("the hu ##gging face ##s"), "the hugging faces");
  EXPECT_EQ(wordpiece_detokenize("##x y"), "##x y");
  EXPECT_EQ(py2_lower("ÀBC Été"), "Àbc Été");  // ASCII only, as Python 2 byte strings
}

TEST(SquadQgTaskTest, SourceGroupingLastPredictionWins) {
  TempDir tmp;
  // Lines 1 and 2 share a source (case and outer spaces differ): two references, and the
  // prediction of line 2 is the one scored. It equals line 1's reference.
  tmp.write("qg/src-test.txt", "The cat sat .\n  the cat sat .  \na dog ran .\n");
  tmp.write("qg/tgt-test.txt", "what sat on it ?\nwho sat on the mat ?\nwhat ran away fast ?\n");
  auto pred =
      tmp.write("pred.txt", "completely wrong words\nWhat sat on it ?\nWhat ran away fast ?\n");
  auto r = evaluate(qg_request("squad-qg", (tmp.path() / "qg").string(), pred));
  EXPECT_EQ(r.task, "squad-qg");
  EXPECT_EQ(r.split, "test");
  EXPECT_EQ(r.examples, 2);
  EXPECT_DOUBLE_EQ(r.score("rougeL")->value, 1.0);
  EXPECT_GT(r.score("bleu4")->value, 0.9999999);
  EXPECT_LT(r.score("bleu4")->value, 1.0);  // coco's tiny/small constants
  EXPECT_TRUE(has_note(r, "1 with several questions"));
  EXPECT_TRUE(has_note(r, "meteor left out at the user's request (--skip-metric meteor)"));
  EXPECT_EQ(r.score("meteor"), nullptr);

  // The first prediction of the shared source does not count: swapping it in drops the score.
  auto first =
      tmp.write("first.txt", "What sat on it ?\ncompletely wrong words\nWhat ran away fast ?\n");
  auto f = evaluate(qg_request("squad-qg", (tmp.path() / "qg").string(), first));
  EXPECT_LT(f.score("rougeL")->value, 0.6);

  auto groups = group_qg_by_source({"a", "b", "a"}, {"r1", "r2", "r3"}, {"h1", "h2", "h3"});
  EXPECT_EQ(groups.keys, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(groups.hyps, (std::vector<std::string>{"h3", "h2"}));
  EXPECT_EQ(groups.refs[0], (std::vector<std::string>{"r1", "r3"}));
  EXPECT_EQ(groups.last_line, (std::vector<long>{3, 2}));
  EXPECT_EQ(groups.repeated_keys, 1);
}

TEST(SquadQgTaskTest, FixTokenizationAndLowercaseOnPredictions) {
  TempDir tmp;
  auto src = tmp.write("src-test.txt", "a sentence .\n");
  tmp.write("tgt-test.txt", "what is -lrb- a -rrb- ?\n");
  auto pred = tmp.write("p.txt", "What is ( A ) ?\n");
  auto r = evaluate(qg_request("squad-qg", src, pred));  // a src- file finds its tgt- partner
  EXPECT_DOUBLE_EQ(r.score("rougeL")->value, 1.0);
  auto req = qg_request("squad-qg", src, pred);
  req.options["fix_tokenization"] = "false";
  EXPECT_LT(evaluate(req).score("rougeL")->value, 1.0);
  req.options["fix_tokenization"] = "maybe";
  EXPECT_THROW(evaluate(req), InputError);
}

TEST(SquadQgTaskTest, FinalLineWithoutNewlineLosesItsLastCharacter) {
  TempDir tmp;
  auto src = tmp.write("src-test.txt", "s .\n");
  tmp.write("tgt-test.txt", "what is x ?\n");
  auto r = evaluate(qg_request("squad-qg", src, tmp.write("p.txt", "what is x ?")));
  EXPECT_LT(r.score("rougeL")->value, 1.0);  // scored as "what is x"
  EXPECT_TRUE(has_note(r, "line[:-1]"));
  bool clipped = false;
  EXPECT_EQ(read_lines_py_slice(tmp.write("q.txt", "ab\ncd"), &clipped),
            (std::vector<std::string>{"ab", "c"}));
  EXPECT_TRUE(clipped);
}

TEST(SquadQgTaskTest, ReversedSplitSwapsDevAndTest) {
  TempDir tmp;
  tmp.write("d/src-test.txt", "t1 .\nt2 .\nt3 .\n");
  tmp.write("d/tgt-test.txt", "q1 ?\nq2 ?\nq3 ?\n");
  tmp.write("d/src-dev.txt", "d1 .\nd2 .\n");
  tmp.write("d/tgt-dev.txt", "e1 ?\ne2 ?\n");
  std::string dir = (tmp.path() / "d").string();
  auto dev_pred = tmp.write("dev_pred.txt", "e1 ?\ne2 ?\n");
  auto rev = evaluate(qg_request("squad-qg-reversed", dir, dev_pred));  // its test = Du's dev files
  EXPECT_EQ(rev.task, "squad-qg-reversed");
  EXPECT_EQ(rev.split, "test");
  EXPECT_EQ(rev.examples, 2);
  EXPECT_DOUBLE_EQ(rev.score("rougeL")->value, 1.0);
  try {
    evaluate(qg_request("squad-qg", dir, dev_pred));  // Du's test has 3 lines
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dev_pred.txt"), std::string::npos) << e.what();
  }
  auto req = qg_request("squad-qg-reversed", dir, tmp.write("t.txt", "q1 ?\nq2 ?\nq3 ?\n"));
  req.split = "dev";  // reversed dev = Du's test files
  EXPECT_EQ(evaluate(req).examples, 3);
  req.split = "valid";
  EXPECT_THROW(evaluate(req), InputError);
}

TEST(SquadQgTaskTest, BadInputNamesTheFile) {
  TempDir tmp;
  tmp.write("only/src-test.txt", "a .\n");
  auto pred = tmp.write("p.txt", "x\n");
  try {
    evaluate(qg_request("squad-qg", (tmp.path() / "only").string(), pred));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tgt-test"), std::string::npos) << e.what();
  }
  EXPECT_THROW(evaluate(qg_request("squad-qg", tmp.write("other.txt", "a\n"), pred)), InputError);
  tmp.write("m/src-test.txt", "a .\nb .\n");
  tmp.write("m/tgt-test.txt", "q ?\n");
  try {
    evaluate(qg_request("squad-qg", (tmp.path() / "m").string(), tmp.write("p2.txt", "x\ny\n")));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tgt-test.txt"), std::string::npos) << e.what();
  }
  auto req = qg_request("squad-qg", (tmp.path() / "m").string(), pred);
  req.options["no_such"] = "1";
  EXPECT_THROW(evaluate(req), InputError);
}

TEST(SquadQgTaskTest, ErnieGenPipelineOnUnilmTokenizedReferences) {
  TempDir tmp;
  // UniLM qg_data layout: WordPiece references, a passage+answer source per line.
  tmp.write("qg_data/test/test.pa.tok.txt",
            "The Passage [SEP] answer\nthe passage [SEP] answer\nother [SEP] x\n");
  tmp.write("qg_data/test/test.q.tok.txt",
            "what is the ##ir name ?\nWho won ?\nwhere is it ( now ) ?\n");
  auto pred = tmp.write("p.txt", "x\nWhat is their NAME ?\nwhere is it ( now ) ?\n");
  auto req = qg_request("squad-qg", (tmp.path() / "qg_data").string(), pred);
  req.options["pipeline"] = "ernie-gen";
  auto r = evaluate(req);
  // "##ir" glued to "the" and lower-cased; predictions only lower-cased: "(" stays "(".
  EXPECT_EQ(r.examples, 2);
  EXPECT_DOUBLE_EQ(r.score("rougeL")->value, 1.0);
  // The UniLM pipeline keeps the pieces and turns "(" into -lrb-: no longer a match.
  auto unilm =
      evaluate(qg_request("squad-qg", (tmp.path() / "qg_data/test/test.q.tok.txt").string(), pred));
  EXPECT_LT(unilm.score("rougeL")->value, 1.0);
  req.options["fix_tokenization"] = "true";
  EXPECT_THROW(evaluate(req), InputError);
  req.options.erase("fix_tokenization");
  req.options["pipeline"] = "nqg";
  EXPECT_THROW(evaluate(req), InputError);
  EXPECT_EQ(py3_lower("\u00c9T\u00c9"), "\u00e9t\u00e9");
  EXPECT_EQ(wordpiece_detokenize("a\u00a0##b c", true), "ab c");
}

// Distinct stripped, lower-cased source lines (eval.py's keys), computed independently here.
size_t distinct_sources(const std::string& path) {
  std::set<std::string> keys;
  for (auto l : core::read_lines(path)) {
    size_t b = l.find_first_not_of(" \t\r"), e = l.find_last_not_of(" \t\r");
    l = b == std::string::npos ? "" : l.substr(b, e - b + 1);
    for (char& c : l)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    keys.insert(l);
  }
  return keys.size();
}

TEST(SquadQgTaskTest, RealDuSplitReferencesAgainstThemselves) {
  UNIEVAL_REQUIRE_SHARED("data/squad_qg/tgt-test.txt.gz");
  TempDir tmp;
  auto dir = shared_dir() / "data/squad_qg";
  for (const char* split : {"test", "dev"}) {
    // The references as predictions (Du's questions are lower-cased and tokenised already; no
    // fix_tokenization so that the text is unchanged): each key's scored prediction is one of
    // its references, so ROUGE-L is exactly 1, coco BLEU-4 1 up to its 1e-15/1e-9 constants and
    // METEOR 1 (every segment matched in one chunk).
    auto tgt = core::read_lines((dir / (std::string("tgt-") + split + ".txt.gz")).string());
    auto pred = tmp.write(std::string("pred-") + split + ".txt", unieval::testing::join_lines(tgt));
    std::string task = std::string(split) == "test" ? "squad-qg" : "squad-qg-reversed";
    auto req = request(task, dir.string(), pred);
    req.options["fix_tokenization"] = "false";
    if (std::filesystem::exists(shared_dir() / "data/meteor/function")) {
      req.skip_metrics.clear();
      req.options["meteor_data"] = (shared_dir() / "data/meteor").string();
      req.options["meteor_modules"] = "exact,stem,synonym";  // no paraphrase table in ../shared
    }
    auto r = evaluate(req);
    EXPECT_EQ(r.split, "test");
    EXPECT_EQ(static_cast<size_t>(r.examples),
              distinct_sources((dir / (std::string("src-") + split + ".txt.gz")).string()));
    EXPECT_TRUE(has_note(r, std::to_string(tgt.size()) + " pairs")) << tgt.size();
    EXPECT_DOUBLE_EQ(r.score("rougeL")->value, 1.0);
    EXPECT_NEAR(r.score("bleu4")->value, 1.0, 1e-8);
    if (req.options.count("meteor_data")) {
      ASSERT_NE(r.score("meteor"), nullptr);
      EXPECT_NEAR(r.score("meteor")->value, 1.0, 1e-9);
    }
  }
  // Default modules (-l en) without the paraphrase table: an error naming the table, the option
  // that scores without it and the opt-out; asked for explicitly, the same error.
  if (std::filesystem::exists(shared_dir() / "data/meteor/function") &&
      !std::filesystem::exists(shared_dir() / "data/meteor/paraphrase-en.gz")) {
    auto req = request("squad-qg", dir.string(), (dir / "tgt-test.txt.gz").string());
    req.options["meteor_data"] = (shared_dir() / "data/meteor").string();
    for (const char* modules : {"", "exact,stem,synonym,paraphrase"}) {
      if (*modules) req.options["meteor_modules"] = modules;
      try {
        evaluate(req);
        ADD_FAILURE() << modules;
      } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("paraphrase-en.gz"), std::string::npos) << what;
        EXPECT_NE(what.find("--option meteor_modules=exact,stem,synonym"), std::string::npos)
            << what;
        EXPECT_NE(what.find("--skip-metric meteor"), std::string::npos) << what;
      }
    }
  }
  // SOURCES.md: 11,877 test pairs, 10,570 dev pairs.
  EXPECT_EQ(core::read_lines((dir / "src-test.txt.gz").string()).size(), 11877u);
  EXPECT_EQ(core::read_lines((dir / "src-dev.txt.gz").string()).size(), 10570u);
}

TEST(SquadQgTaskTest, MeteorPolicy) {
  // No METEOR resources named anywhere: an error saying what to set and how to leave METEOR out,
  // before any data is read; left out on request, the result says so and has no METEOR score.
  unsetenv("UNIEVAL_METEOR_DATA");
  TempDir tmp;
  auto src = tmp.write("src-test.txt", "a sentence .\n");
  tmp.write("tgt-test.txt", "what is it ?\n");
  auto pred = tmp.write("p.txt", "what is it ?\n");
  auto req = request("squad-qg", src, pred);
  try {
    evaluate(req);
    ADD_FAILURE();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--option meteor_data=DIR"), std::string::npos) << what;
    EXPECT_NE(what.find("UNIEVAL_METEOR_DATA"), std::string::npos) << what;
    EXPECT_NE(what.find("--skip-metric meteor"), std::string::npos) << what;
  }
  EXPECT_THROW(pipelines::check_eval_resources(req), InputError);  // what `unieval run` calls first
  req.data.clear();  // (run checks before its data is written)
  EXPECT_THROW(pipelines::check_eval_resources(req), InputError);
  req.skip_metrics = {"meteor"};
  EXPECT_NO_THROW(pipelines::check_eval_resources(req));
  req.data = src;
  auto r = evaluate(req);
  EXPECT_EQ(r.score("meteor"), nullptr);
  EXPECT_EQ(r.metric("meteor"), nullptr);
  EXPECT_DOUBLE_EQ(r.score("rougeL")->value, 1.0);
  EXPECT_TRUE(has_note(r, "--skip-metric meteor"));
  // Only metrics of the task's set can be skipped.
  req.skip_metrics = {"rouge"};
  try {
    evaluate(req);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bleu-coco meteor rouge-l-coco"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace unieval::tasks

namespace unieval::tasks {
namespace {

TEST(SquadQgTaskTest, BootstrapCisOfCocoBleuFromTheMetricsResampling) {
  // eval --bootstrap: coco BLEU-1..4 get percentile CIs from the metric's own resampling function
  // (per-key statistics re-summed, metrics/protocol.h run_metric), through the one bootstrap
  // (metrics/bootstrap.h, the draw eval uses); deterministic for a seed, bracketing the score.
  const std::string dir = std::string(UNIEVAL_SOURCE_DIR) + "/tests/tasks/fixtures/eval/qg";
  auto req = qg_request("squad-qg", dir, dir + "/pred-test.txt");
  req.bootstrap = 400;
  req.seed = 5;
  req.per_example = true;
  auto r = evaluate(req);
  auto again = evaluate(req);
  for (int n = 1; n <= 4; ++n) {
    const results::Score* s = r.score("bleu" + std::to_string(n));
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->ci.has_value()) << n;
    EXPECT_LE(s->ci->low, s->value) << n;
    EXPECT_GE(s->ci->high, s->value) << n;
    EXPECT_LT(s->ci->low, s->ci->high) << n;
    EXPECT_EQ(s->ci->method, "bootstrap-percentile");
    EXPECT_EQ(s->ci->resamples, 400);
    EXPECT_EQ(s->ci->seed, 5u);
    EXPECT_EQ(again.score("bleu" + std::to_string(n))->ci->low, s->ci->low);
    EXPECT_EQ(again.score("bleu" + std::to_string(n))->ci->high, s->ci->high);
  }
  // coco ROUGE-L is the mean of the sentence scores: its CI resamples them (the eval draw).
  const results::Score* rl = r.score("rougeL");
  ASSERT_TRUE(rl->ci.has_value());
  std::vector<double> rouge_values;
  for (const auto& e : r.per_example) rouge_values.push_back(e.scores.at("rougeL"));
  const auto rl_ci = pipelines::bootstrap_mean_ci(rouge_values, 400, 5, 0.95, 1.0);
  EXPECT_EQ(rl->ci->low, rl_ci.low);
  EXPECT_EQ(rl->ci->high, rl_ci.high);
  EXPECT_LE(rl->ci->low, rl->value + 1e-12);
  EXPECT_GE(rl->ci->high, rl->value - 1e-12);
  // The same numbers as the protocol's resampling run through bootstrap_ci directly.
  auto src = core::read_lines(dir + "/src-test.txt"), tgt = core::read_lines(dir + "/tgt-test.txt"),
       pred = core::read_lines(dir + "/pred-test.txt");
  for (auto& s : src) s = py2_lower(py2_strip(s));
  for (auto& t : tgt) t = py2_strip(t);
  for (auto& h : pred) h = py2_lower(unilm_fix_tokenization(py2_strip(h)));
  QgGroups g = group_qg_by_source(src, tgt, pred);
  metrics::MetricRun run = metrics::run_metric({"bleu-coco", {}}, g.hyps, g.refs, {}, true);
  metrics::BootstrapOptions o;
  o.resamples = 400;
  o.seed = 5;
  o.draw = metrics::BootstrapDraw::kUniformInt;
  auto ci = metrics::bootstrap_ci(run.items, run.resample, o);
  EXPECT_EQ(ci[3].low, r.score("bleu4")->ci->low);
  EXPECT_EQ(ci[3].high, r.score("bleu4")->ci->high);
  EXPECT_EQ(ci[3].score, r.score("bleu4")->value);
  // Without --bootstrap, no CI.
  req.bootstrap = 0;
  EXPECT_FALSE(evaluate(req).score("bleu4")->ci.has_value());
}

// 60 distinct sentences with one question each; `good` predicts the reference of all but every
// tenth line, `bad` one constant question.
struct PairedFixture {
  TempDir tmp;
  std::string data, good, bad;
  PairedFixture() {
    std::string src, tgt, good_text, bad_text;
    for (int i = 0; i < 60; ++i) {
      const std::string n = std::to_string(i);
      src += "sentence number " + n + " talks about topic " + n + " and its history .\n";
      tgt += "what does sentence " + n + " talk about ?\n";
      good_text += (i % 10 == 0 ? std::string("who wrote the history ?")
                                : "what does sentence " + n + " talk about ?") +
                   "\n";
      bad_text += "what is the name of the ?\n";
    }
    tmp.write("qg/src-test.txt", src);
    tmp.write("qg/tgt-test.txt", tgt);
    data = (tmp.path() / "qg").string();
    good = tmp.write("good.txt", good_text);
    bad = tmp.write("bad.txt", bad_text);
  }
};

TEST(SquadQgTaskTest, PairedBootstrapAgainstABaselinesPredictions) {
  // eval --paired-pred: both systems resampled on the same indices (sacreBLEU's paired test) for
  // every score with a CI: coco BLEU-1..4 (statistics re-summed) and ROUGE-L (sentence mean).
  PairedFixture f;
  auto req = qg_request("squad-qg", f.data, f.good);
  req.bootstrap = 300;
  req.seed = 7;
  req.paired_pred = f.bad;
  req.paired_system = "constant";
  const results::RunResult r = evaluate(req);
  auto base_req = qg_request("squad-qg", f.data, f.bad);
  const results::RunResult b = evaluate(base_req);
  ASSERT_TRUE(r.extra.contains("paired_bootstrap"));
  const auto& p = r.extra["paired_bootstrap"];
  EXPECT_EQ(p["baseline"], "constant");
  EXPECT_EQ(p["resamples"], 300);
  std::set<std::string> tested;
  for (const auto& t : p["scores"]) {
    const std::string name = t["score"];
    tested.insert(name);
    EXPECT_DOUBLE_EQ(t["system"].get<double>(), r.score(name)->value) << name;
    EXPECT_DOUBLE_EQ(t["baseline"].get<double>(), b.score(name)->value) << name;
    EXPECT_DOUBLE_EQ(t["delta"].get<double>(), r.score(name)->value - b.score(name)->value) << name;
    EXPECT_GT(t["delta"].get<double>(), 0.3) << name;
    // The difference is far outside the resampled differences' spread.
    EXPECT_LT(t["p_value"].get<double>(), 0.01) << name;
    EXPECT_GE(t["p_value"].get<double>(), 1.0 / 301.0) << name;
  }
  EXPECT_EQ(tested, (std::set<std::string>{"bleu1", "bleu2", "bleu3", "bleu4", "rougeL"}));

  // A system against itself: no difference on any resample, p = 1.
  req.paired_pred = f.good;
  const results::RunResult self =
      evaluate(req);  // (not iterated as a temporary: it would be destroyed first)
  for (const auto& t : self.extra.at("paired_bootstrap").at("scores")) {
    EXPECT_EQ(t["delta"].get<double>(), 0.0);
    EXPECT_EQ(t["p_value"].get<double>(), 1.0);
  }
}

TEST(SquadQgTaskTest, PairedBootstrapBadInput) {
  PairedFixture f;
  auto req = qg_request("squad-qg", f.data, f.good);
  req.paired_pred = f.bad;
  req.bootstrap = 0;  // the test needs resamples
  EXPECT_THROW(evaluate(req), InputError);
  req.bootstrap = 100;
  req.paired_pred = (f.tmp.path() / "missing.txt").string();
  EXPECT_THROW(evaluate(req), InputError);
  // A baseline with another number of lines: the adapter's own error, naming its file.
  req.paired_pred = f.tmp.write("short.txt", "what ?\n");
  try {
    evaluate(req);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short.txt"), std::string::npos) << e.what();
  }
}

TEST(SquadQgTaskTest, MeteorCiFromItsSegmentStatistics) {
  // METEOR's system score comes from summed segment statistics (not their mean): its resampling
  // re-sums the statistics of the drawn segments; on all segments it gives the score itself.
  UNIEVAL_REQUIRE_SHARED("data/meteor/synonym/english.synsets.gz");
  PairedFixture f;
  auto req = request("squad-qg", f.data, f.good);
  req.options["meteor_data"] = (shared_dir() / "data/meteor").string();
  req.options["meteor_modules"] = "exact,stem,synonym";  // ../shared has no paraphrase table
  req.bootstrap = 200;
  req.paired_pred = f.bad;
  const results::RunResult r = evaluate(req);
  const results::Score* m = r.score("meteor");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->ci.has_value());
  EXPECT_LE(m->ci->low, m->value);
  EXPECT_GE(m->ci->high, m->value);
  EXPECT_LT(m->ci->low, m->ci->high);
  bool tested = false;
  for (const auto& t : r.extra["paired_bootstrap"]["scores"])
    if (t["score"] == "meteor") {
      tested = true;
      EXPECT_DOUBLE_EQ(t["system"].get<double>(), m->value);
    }
  EXPECT_TRUE(tested);
}

}  // namespace
}  // namespace unieval::tasks
