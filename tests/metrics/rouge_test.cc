// Golden vectors of ../shared/golden/rouge.jsonl (ROUGE-1.5.5 per instance and corpus with
// bootstrap, rouge-score, coco ROUGE-L), plus the REALSumm per-document ROUGE-1.5.5 scores.
#include "metrics/rouge.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "metrics/core/io.h"
#include "metrics/rouge_coco.h"
#include "metrics/rouge_score.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using nlohmann::json;
using testing::read_jsonl;
using testing::shared_dir;

// The Perl flags of a golden line mapped onto the options struct.
Rouge155Options options_from_flags(const std::vector<std::string>& flags) {
  Rouge155Options o;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    auto next = [&]() { return flags.at(++i); };
    if (f == "-c") o.confidence = std::stod(next());
    else if (f == "-r") o.resamples = std::stoi(next());
    else if (f == "-n") o.max_n = std::stoi(next());
    else if (f == "-a") {}
    else if (f == "-m") o.stem = true;
    else if (f == "-s") o.remove_stopwords = true;
    else if (f == "-w") o.wlcs_weight = next();
    else if (f == "-2") o.skip_distance = next();
    else if (f == "-U") o.skip_both = true;
    else if (f == "-u") o.skip_unigram = true;
    else if (f == "-f") o.formula = next()[0];
    else if (f == "-p") o.alpha = std::stod(next());
    else if (f == "-l") o.length_limit = std::stol(next());
    else if (f == "-b") o.byte_limit = std::stol(next());
    else if (f == "-x") o.lcs = false;
    else ADD_FAILURE() << "unhandled flag " << f;
  }
  return o;
}

std::vector<RougeSummary> summaries(const json& j) {
  std::vector<RougeSummary> out;
  for (const auto& m : j) out.push_back(m.get<std::vector<std::string>>());
  return out;
}

const RougeResources& resources() {
  static RougeResources r = RougeResources::load((shared_dir() / "data/rouge155").string());
  return r;
}

#define REQUIRE_ROUGE_GOLDEN()                       \
  UNIEVAL_REQUIRE_SHARED("golden/rouge.jsonl");      \
  UNIEVAL_REQUIRE_SHARED("data/rouge155/WordNet-2.0-Exceptions/adj.exc")

std::string fmt5(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.5f", x);
  return buf;
}

TEST(Rouge155Test, ResourcesAreTheClassicWordNetTable) {
  REQUIRE_ROUGE_GOLDEN();
  EXPECT_EQ(resources().exceptions.size(), 5930u);
  EXPECT_EQ(resources().exceptions_tag(), "wn2.0");
  ASSERT_NE(resources().exceptions.lookup("best"), nullptr);
  EXPECT_EQ(*resources().exceptions.lookup("best"), "well");
  EXPECT_EQ(*resources().exceptions.lookup("went"), "go");
  EXPECT_EQ(*resources().exceptions.lookup("testes"), "testes");
  EXPECT_EQ(*resources().exceptions.lookup("offer"), "offer");
  EXPECT_EQ(resources().exceptions.lookup("cat"), nullptr);
  EXPECT_TRUE(resources().stopwords.count("the"));
}

TEST(Rouge155Test, GoldenPerInstance) {
  REQUIRE_ROUGE_GOLDEN();
  int checked = 0, errors = 0;
  for (const auto& g : read_jsonl(shared_dir() / "golden/rouge.jsonl")) {
    if (g["metric"] != "rouge155_instance") continue;
    SCOPED_TRACE(g["id"].get<std::string>());
    Rouge155Options opt = options_from_flags(g["options"]["flags"].get<std::vector<std::string>>());
    RougeInstance inst{g["inputs"]["peer_sentences"].get<std::vector<std::string>>(),
                       summaries(g["inputs"]["model_sentences"])};
    const json& exp = g["expected"];
    if (exp.contains("error")) {
      EXPECT_THROW(rouge155({inst}, opt, resources()), RougeEmptyModelError);
      ++errors;
      continue;
    }
    Rouge155Result res = rouge155({inst}, opt, resources());
    ASSERT_EQ(res.variants.size(), exp.size());
    for (const auto& v : res.variants) {
      ASSERT_TRUE(exp.contains(v.name)) << v.name;
      const auto& e = exp[v.name];
      EXPECT_EQ(fmt5(v.instances[0].r), fmt5(e["R"].get<double>())) << v.name << " R";
      EXPECT_EQ(fmt5(v.instances[0].p), fmt5(e["P"].get<double>())) << v.name << " P";
      EXPECT_EQ(fmt5(v.instances[0].f), fmt5(e["F"].get<double>())) << v.name << " F";
      // One instance: every bootstrap sample is that instance.
      EXPECT_EQ(fmt5(v.average.f), fmt5(e["F"].get<double>())) << v.name << " Average_F";
    }
    ++checked;
  }
  EXPECT_EQ(checked + errors, 276);
  EXPECT_EQ(errors, 3);
}

TEST(Rouge155Test, GoldenCorpusWithBootstrap) {
  REQUIRE_ROUGE_GOLDEN();
  int corpora = 0;
  for (const auto& g : read_jsonl(shared_dir() / "golden/rouge.jsonl")) {
    if (g["metric"] != "rouge155_corpus") continue;
    SCOPED_TRACE(g["id"].get<std::string>());
    Rouge155Options opt = options_from_flags(g["options"]["flags"].get<std::vector<std::string>>());
    std::vector<RougeInstance> corpus;
    for (const auto& p : g["inputs"]["pairs"])
      corpus.push_back({p["peer_sentences"].get<std::vector<std::string>>(), summaries(p["model_sentences"])});
    for (int threads : {1, 3}) {
      opt.threads = threads;
      Rouge155Result res = rouge155(corpus, opt, resources());
      const json& avg = g["expected"]["averages"];
      const json& per = g["expected"]["per_instance"];
      ASSERT_EQ(res.variants.size(), avg.size());
      for (const auto& v : res.variants) {
        const auto& e = avg[v.name];
        const RougePRF* got[3] = {&v.average, &v.ci_low, &v.ci_high};
        const char* field[3] = {"avg", "ci_low", "ci_high"};
        for (int k = 0; k < 3; ++k) {
          EXPECT_EQ(fmt5(got[k]->r), fmt5(e["R"][field[k]].get<double>())) << v.name << " R " << field[k];
          EXPECT_EQ(fmt5(got[k]->p), fmt5(e["P"][field[k]].get<double>())) << v.name << " P " << field[k];
          EXPECT_EQ(fmt5(got[k]->f), fmt5(e["F"][field[k]].get<double>())) << v.name << " F " << field[k];
        }
        for (size_t i = 0; i < corpus.size(); ++i) {
          const auto& pe = per[std::to_string(i + 1) + ".X"][v.name];
          EXPECT_EQ(fmt5(v.instances[i].r), fmt5(pe["R"].get<double>())) << v.name << " " << i + 1;
          EXPECT_EQ(fmt5(v.instances[i].p), fmt5(pe["P"].get<double>())) << v.name << " " << i + 1;
          EXPECT_EQ(fmt5(v.instances[i].f), fmt5(pe["F"].get<double>())) << v.name << " " << i + 1;
        }
      }
    }
    ++corpora;
  }
  EXPECT_EQ(corpora, 2);
}

TEST(Rouge155Test, EmptyModelWithRougeWIsAnError) {
  Rouge155Options opt;
  opt.wlcs_weight = "1.2";
  RougeInstance inst{{"a cat ."}, {{"..."}}};
  try {
    rouge155({inst}, opt, RougeResources{});
    FAIL() << "expected an error";
  } catch (const RougeEmptyModelError& e) {
    EXPECT_EQ(e.instance(), 0u);
    EXPECT_EQ(e.model(), 0u);
    EXPECT_NE(std::string(e.what()).find("Illegal division by zero"), std::string::npos);
  }
}

TEST(Rouge155Test, StemmingWithoutExceptionsNeedsExplicitOptOut) {
  Rouge155Options opt;
  opt.max_n = 1;
  opt.stem = true;
  RougeInstance inst{{"he went home"}, {{"he goes home"}}};
  EXPECT_THROW(rouge155({inst}, opt, RougeResources{}), InputError);
  opt.use_exceptions = false;
  Rouge155Result r = rouge155({inst}, opt, RougeResources{});
  EXPECT_EQ(fmt5(r.variants[0].instances[0].r), "0.66667");  // went != goe (no exception table)
}

TEST(Rouge155Test, SplitSummaryTrimsAndDropsEmptyPieces) {
  EXPECT_EQ(split_summary("a b <q> c d <q>  <q> e", "<q>"), (RougeSummary{"a b", "c d", "e"}));
  EXPECT_EQ(split_summary("  one line ", ""), (RougeSummary{"one line"}));
  EXPECT_TRUE(split_summary("   ", "").empty());
}

TEST(Rouge155Test, OptionValidation) {
  Rouge155Options o;
  o.confidence = 101;
  EXPECT_THROW(o.validate(), InputError);
  o = {};
  o.alpha = 1.5;
  EXPECT_THROW(o.validate(), InputError);
  o = {};
  o.resamples = 0;
  EXPECT_THROW(o.validate(), InputError);
  o = {};
  o.length_limit = 10;
  o.byte_limit = 10;
  EXPECT_THROW(o.validate(), InputError);
  o = {};
  o.wlcs_weight = "abc";
  EXPECT_THROW(o.validate(), InputError);
}

// REALSumm (Bhandari et al. 2020): per-document ROUGE-1.5.5 scores of 25 systems on 100 CNN/DM
// test documents, computed with pyrouge `-c 95 -n 2 -a -r 1000 -m` on the <t>...</t> sentences.
RougeSummary realsumm_sentences(const std::string& text) {
  RougeSummary out;
  if (text.find("<t>") == std::string::npos) {
    // The extractive systems' files separate sentences by three spaces instead of <t> tags.
    return split_summary(text, "   ");
  }
  size_t pos = 0;
  while ((pos = text.find("<t>", pos)) != std::string::npos) {
    size_t end = text.find("</t>", pos + 3);
    if (end == std::string::npos) end = text.size();
    std::string s = text.substr(pos + 3, end - pos - 3);
    // pyrouge writes SEE html; ROUGE-1.5.5 reads a sentence with ([^<]+).
    s = s.substr(0, s.find('<'));
    // Some systems' files also separate sentences inside one <t> by three spaces.
    for (auto& piece : split_summary(s, "   ")) out.push_back(piece);
    pos = end;
  }
  return out;
}

// Lines of a REALSumm text file (no trailing newline in these files).
std::vector<std::string> realsumm_lines(const std::filesystem::path& p) {
  std::string text = read_file(p.string());
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

TEST(Rouge155Test, RealSummPerDocumentScores) {
  UNIEVAL_REQUIRE_SHARED("data/cnndm/realsumm_scores_abs.jsonl.gz");
  UNIEVAL_REQUIRE_SHARED("data/cnndm/realsumm_selected_docs_for_human_eval.tar.xz");
  UNIEVAL_REQUIRE_SHARED("data/rouge155/WordNet-2.0-Exceptions/adj.exc");
  // Each system was scored against its own ref.txt (tokenised like its data), in the archive.
  testing::TempDir tmp;
  std::string cmd = "tar -xJf " + testing::shq((shared_dir() / "data/cnndm/realsumm_selected_docs_for_human_eval.tar.xz").string()) +
                    " -C " + testing::shq(tmp.path().string()) + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "could not unpack the REALSumm archive (tar/xz absent)";
  const auto root = tmp.path() / "selected_docs_for_human_eval";
  Rouge155Options opt;
  opt.max_n = 2;
  opt.stem = true;
  opt.resamples = 1;  // per-document values do not depend on the bootstrap
  std::vector<RougeInstance> corpus;
  std::vector<json> expected;
  std::vector<std::string> names;
  for (const char* kind : {"abs", "ext"}) {
    std::string file = std::string("data/cnndm/realsumm_scores_") + kind + ".jsonl.gz";
    std::string text = read_file((shared_dir() / file).string());
    for (const auto& line : split_lines(text, file)) {
      if (line.empty()) continue;
      json doc = json::parse(line);
      size_t id = doc["doc_id"].get<size_t>();
      for (const auto& [sys, entry] : doc["system_summaries"].items()) {
        size_t cut = sys.find("_out");
        std::filesystem::path dir = root / kind / sys.substr(0, cut);
        if (!std::filesystem::exists(dir)) dir = root / (kind == std::string("abs") ? "ext" : "abs") / sys.substr(0, cut);
        auto refs = realsumm_lines(dir / "ref.txt");
        ASSERT_LT(id, refs.size()) << sys;
        corpus.push_back({realsumm_sentences(entry["system_summary"]), {realsumm_sentences(refs[id])}});
        expected.push_back(entry["scores"]);
        names.push_back(std::string(kind) + "/" + sys + " doc " + std::to_string(id));
      }
    }
  }
  ASSERT_EQ(corpus.size(), 2500u);
  Rouge155Result res = rouge155(corpus, opt, resources());
  ASSERT_EQ(res.variants.size(), 3u);
  const char* keys[3] = {"rouge_1", "rouge_2", "rouge_l"};
  // 15 (system, document) pairs whose stored scores we do not reproduce from the files in the
  // archive: their R/P denominators (bart, bottom_up) or sentence splits (banditsumm ROUGE-L)
  // differ, i.e. REALSumm scored a slightly different text than the one it stored. They are
  // listed so that any other mismatch fails; see the report of issue 3.
  const std::set<std::string> known_input_differences = {
      "abs/bart_out.txt doc 4",        "abs/bart_out.txt doc 32",       "abs/bart_out.txt doc 43",
      "abs/bart_out.txt doc 67",       "abs/bart_out.txt doc 69",       "abs/bart_out.txt doc 74",
      "abs/bart_out.txt doc 89",       "abs/bottom_up_out.txt doc 4",   "abs/bottom_up_out.txt doc 6",
      "abs/bottom_up_out.txt doc 30",  "abs/bottom_up_out.txt doc 58",  "ext/banditsumm_out.txt doc 3",
      "ext/banditsumm_out.txt doc 4",  "ext/banditsumm_out.txt doc 24", "ext/banditsumm_out.txt doc 33"};
  int matched = 0, known = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    std::string diff;
    for (int v = 0; v < 3; ++v) {
      const json& e = expected[i];
      const RougePRF& got = res.variants[v].instances[i];
      std::string want = fmt5(e[std::string(keys[v]) + "_recall"].get<double>()) + "/" +
                         fmt5(e[std::string(keys[v]) + "_precision"].get<double>()) + "/" +
                         fmt5(e[std::string(keys[v]) + "_f_score"].get<double>());
      std::string have = fmt5(got.r) + "/" + fmt5(got.p) + "/" + fmt5(got.f);
      if (want != have) diff += " " + res.variants[v].name + " want " + want + " got " + have;
    }
    if (diff.empty()) ++matched;
    else if (known_input_differences.count(names[i])) ++known;
    else ADD_FAILURE() << "REALSumm mismatch: " << names[i] << diff;
  }
  EXPECT_EQ(matched, 2485);
  EXPECT_EQ(known, 15);
}

// ---------------------------------------------------------------------------------------------
// rouge-score and coco
// ---------------------------------------------------------------------------------------------

void expect_values(const json& exp, const std::vector<std::string>& types,
                   const std::vector<RougeScoreValue>& got) {
  for (size_t t = 0; t < types.size(); ++t) {
    const auto& e = exp[types[t]];
    EXPECT_NEAR(got[t].precision, e["precision"].get<double>(), 1e-12) << types[t];
    EXPECT_NEAR(got[t].recall, e["recall"].get<double>(), 1e-12) << types[t];
    EXPECT_NEAR(got[t].fmeasure, e["fmeasure"].get<double>(), 1e-12) << types[t];
  }
}

TEST(RougeScoreTest, GoldenPairs) {
  UNIEVAL_REQUIRE_SHARED("golden/rouge.jsonl");
  int checked = 0;
  for (const auto& g : read_jsonl(shared_dir() / "golden/rouge.jsonl")) {
    if (g["metric"] != "rouge_score") continue;
    SCOPED_TRACE(g["id"].get<std::string>());
    RougeScoreOptions opt;
    opt.types = g["options"]["rouge_types"].get<std::vector<std::string>>();
    opt.stem = g["options"]["use_stemmer"].get<bool>();
    const auto& in = g["inputs"];
    std::vector<RougeScoreValue> got =
        in.contains("targets")
            ? rouge_score_multi(in["targets"].get<std::vector<std::string>>(), in["prediction"], opt)
            : rouge_score_pair(in["target"], in["prediction"], opt);
    expect_values(g["expected"], opt.types, got);
    ++checked;
  }
  EXPECT_EQ(checked, 92);
}

TEST(RougeScoreTest, GoldenCorpusMean) {
  UNIEVAL_REQUIRE_SHARED("golden/rouge.jsonl");
  int checked = 0;
  for (const auto& g : read_jsonl(shared_dir() / "golden/rouge.jsonl")) {
    if (g["metric"] != "rouge_score_corpus") continue;
    SCOPED_TRACE(g["id"].get<std::string>());
    RougeScoreOptions opt;
    opt.types = g["options"]["rouge_types"].get<std::vector<std::string>>();
    opt.stem = g["options"]["use_stemmer"].get<bool>();
    std::vector<std::string> preds;
    std::vector<std::vector<std::string>> refs(1);
    for (const auto& p : g["inputs"]["pairs"]) {
      preds.push_back(p["prediction"]);
      refs[0].push_back(p["target"]);
    }
    RougeScoreCorpus c = rouge_score_corpus(preds, refs, opt);
    expect_values(g["expected"]["mean"], opt.types, c.mean);
    for (size_t i = 0; i < preds.size(); ++i) expect_values(g["expected"]["per_pair"][i], opt.types, c.per_pair[i]);
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(CocoRougeLTest, Golden) {
  UNIEVAL_REQUIRE_SHARED("golden/rouge.jsonl");
  int checked = 0;
  for (const auto& g : read_jsonl(shared_dir() / "golden/rouge.jsonl")) {
    if (g["metric"] != "coco_rouge_l") continue;
    SCOPED_TRACE(g["id"].get<std::string>());
    double got = coco_rouge_l(g["inputs"]["candidate"], g["inputs"]["refs"].get<std::vector<std::string>>());
    EXPECT_NEAR(got, g["expected"]["ROUGE_L"].get<double>(), 1e-12);
    ++checked;
  }
  EXPECT_EQ(checked, 46);
}

TEST(CocoRougeLTest, NumpyMeanIsPairwise) {
  // 1e16 + 1 + 1 - 1e16 ...: a sequential sum and numpy's blocked sum differ; check the block
  // structure on a case computed by hand: 9 values -> 8 accumulators then the 9th added.
  std::vector<double> v = {1e16, 1, 1, 1, 1, 1, 1, 1, 1};
  // r0 = 1e16, r1..r7 = 1 -> ((1e16+1)+(1+1)) + ((1+1)+(1+1)) = 1e16 + 6 (1e16+1 rounds to 1e16)
  // then + 1 -> 1e16 + 6 (+1 lost) ; sequential would give 1e16.
  double expect = (((1e16 + 1) + (1.0 + 1)) + ((1.0 + 1) + (1.0 + 1))) + 1;
  EXPECT_EQ(coco_rouge_mean(v), expect / 9);
  EXPECT_EQ(coco_rouge_mean({}), 0.0);
}

}  // namespace
}  // namespace unieval::metrics
