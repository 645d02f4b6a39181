// Golden vectors of ../shared/golden/rouge.jsonl (ROUGE-1.5.5 per instance and corpus with
// bootstrap, rouge-score, coco ROUGE-L), plus the REALSumm per-document ROUGE-1.5.5 scores.
#include "metrics/rouge.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/io.h"
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
    if (f == "-c")
      o.confidence = std::stod(next());
    else if (f == "-r")
      o.resamples = std::stoi(next());
    else if (f == "-n")
      o.max_n = std::stoi(next());
    else if (f == "-a") {
    } else if (f == "-m")
      o.stem = true;
    else if (f == "-s")
      o.remove_stopwords = true;
    else if (f == "-w")
      o.wlcs_weight = next();
    else if (f == "-2")
      o.skip_distance = next();
    else if (f == "-U")
      o.skip_both = true;
    else if (f == "-u")
      o.skip_unigram = true;
    else if (f == "-f")
      o.formula = next()[0];
    else if (f == "-p")
      o.alpha = std::stod(next());
    else if (f == "-l")
      o.length_limit = std::stol(next());
    else if (f == "-b")
      o.byte_limit = std::stol(next());
    else if (f == "-x")
      o.lcs = false;
    else
      ADD_FAILURE() << "unhandled flag " << f;
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

#define REQUIRE_ROUGE_GOLDEN()                  \
  UNIEVAL_REQUIRE_SHARED("golden/rouge.jsonl"); \
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
      corpus.push_back(
          {p["peer_sentences"].get<std::vector<std::string>>(), summaries(p["model_sentences"])});
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
          EXPECT_EQ(fmt5(got[k]->r), fmt5(e["R"][field[k]].get<double>()))
              << v.name << " R " << field[k];
          EXPECT_EQ(fmt5(got[k]->p), fmt5(e["P"][field[k]].get<double>()))
              << v.name << " P " << field[k];
          EXPECT_EQ(fmt5(got[k]->f), fmt5(e["F"][field[k]].get<double>()))
              << v.name << " F " << field[k];
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
// test documents, computed with pyrouge `-c 95 -n 2 -a -r 1000 -m -d` (REALSumm scoring/scorer.py
// -> gehrmann_rouge_opennmt/rouge_baselines/baseline.py). The pickle stores, per (system, doc), the
// summary line exactly as the scorer read it and the scores; the references come from the archive.
//
// How each input is rebuilt (every rule below is demonstrated by the test, see issue 3's report):
// 1. Summary sentences are taken as REALSumm's scorer takes them: re.findall(r'<t> (.+?) </t>')
//    (utils.get_sents_from_tags / baseline.split_sentences), then cut at the first '<' (pyrouge
//    writes SEE html, which ROUGE-1.5.5 reads with ([^<]+)). Text after the last "</t>" is never
//    scored: 4 bottom_up summaries (docs 4, 6, 30, 58) end in such an unterminated "<t> ..."
//    fragment, and their stored precisions count only the tokens before it (doc 4: P-1 = 23/64,
//    not 23/77 with the 13-token fragment).
// 2. A system's reference is the ref.txt next to the archive file whose lines ARE the stored
//    summaries. For the abstractive "bart_out.txt" that is ext/bart/out.txt (100/100 lines; the
//    archive's abs/bart/out.txt matches 1/100), so its reference is ext/bart/ref.txt, not
//    abs/bart/ref.txt (a byte copy of abs/semsim/ref.txt, tokenised differently: on docs 4, 32,
//    43, 67, 69, 74, 89 it has 1-2 tokens fewer, e.g. doc 4 R-1 = 23/56 needs 56 reference tokens,
//    abs/bart/ref.txt has 54). Likewise ext "neusumm_out.txt" lives in abs/neusumm/.
// 3. Reference lines: <t>...</t> sentences, and inside them or in untagged lines (the archive's
//    extractive refs) sentences separated by three spaces.
// 4. banditsumm's archive ref.txt is not the file REALSumm scored it with: where its three-space
//    breaks follow a piece that does not end in . ! or ? (docs 3, 4, 24, 33, e.g. "... until you
//    came '   victim has said ..."), the stored ROUGE-L is that of a reference without that break,
//    while ROUGE-1/2 (which do not see sentence breaks) match as they are. Joining such pieces to
//    the next one reproduces all 100 banditsumm documents; the test checks both halves.
RougeSummary split_three_spaces(const std::string& text) { return split_summary(text, "   "); }

// REALSumm's summary sentences (rule 1 above); `unterminated` is set when text follows the last
// "</t>" (a sentence the scorer never saw).
RougeSummary realsumm_scored_sentences(const std::string& text, bool* unterminated = nullptr) {
  RougeSummary out;
  size_t pos = 0, last_end = 0;
  while ((pos = text.find("<t> ", pos)) != std::string::npos) {
    // (.+?) then " </t>": at least one character, the first " </t>" after it.
    size_t close = text.find(" </t>", pos + 5);
    if (close == std::string::npos) break;  // no later "<t> " can match either
    std::string s = text.substr(pos + 4, close - pos - 4);
    out.push_back(s.substr(0, s.find('<')));
    pos = close + 5;
    last_end = pos;
  }
  if (unterminated)
    *unterminated = text.find_first_not_of(" \t\r\n", last_end) != std::string::npos;
  return out;
}

// A reference line of the archive (rule 3).
RougeSummary realsumm_reference(const std::string& text) {
  if (text.find("<t>") == std::string::npos) return split_three_spaces(text);
  RougeSummary out;
  size_t pos = 0;
  while ((pos = text.find("<t>", pos)) != std::string::npos) {
    size_t end = text.find("</t>", pos + 3);
    if (end == std::string::npos) end = text.size();
    std::string s = text.substr(pos + 3, end - pos - 3);
    s = s.substr(0, s.find('<'));
    for (auto& piece : split_three_spaces(s)) out.push_back(piece);
    pos = end;
  }
  return out;
}

// Rule 4: pieces not ending in . ! ? joined to the next one.
RougeSummary join_unfinished_sentences(const RougeSummary& pieces) {
  RougeSummary out;
  std::string cur;
  for (const auto& p : pieces) {
    cur += cur.empty() ? p : " " + p;
    char last = p.empty() ? ' ' : p.back();
    if (last == '.' || last == '!' || last == '?') {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Lines of a REALSumm text file (no trailing newline in these files).
std::vector<std::string> realsumm_lines(const std::filesystem::path& p) {
  std::string text = core::read_file(p.string());
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

// Words of a summary line without the <t> tags (to find the archive file holding a summary; one
// stored semsim summary has a U+00A0 the archive line lacks, which ROUGE drops anyway).
std::string realsumm_words(std::string text) {
  for (const char* tag : {"</t>", "<t>", "\xC2\xA0"})
    for (size_t pos = 0; (pos = text.find(tag, pos)) != std::string::npos;)
      text.replace(pos, std::strlen(tag), " ");
  std::istringstream in(text);
  std::string w, out;
  while (in >> w) out += (out.empty() ? "" : " ") + w;
  return out;
}

struct RealSummDoc {
  std::string name;  // "abs/bart_out.txt doc 4"
  std::string system;
  size_t doc = 0;
  RougeInstance instance;
  json scores;
  bool unterminated = false;
};

// "R/P/F" of ROUGE-1, ROUGE-2, ROUGE-L (5 decimals) as stored and as computed.
std::array<std::string, 3> realsumm_want(const json& e) {
  std::array<std::string, 3> out;
  const char* keys[3] = {"rouge_1", "rouge_2", "rouge_l"};
  for (int v = 0; v < 3; ++v)
    out[v] = fmt5(e[std::string(keys[v]) + "_recall"].get<double>()) + "/" +
             fmt5(e[std::string(keys[v]) + "_precision"].get<double>()) + "/" +
             fmt5(e[std::string(keys[v]) + "_f_score"].get<double>());
  return out;
}
std::array<std::string, 3> realsumm_got(const Rouge155Result& res, size_t i) {
  std::array<std::string, 3> out;
  for (int v = 0; v < 3; ++v) {
    const RougePRF& g = res.variants[v].instances[i];
    out[v] = fmt5(g.r) + "/" + fmt5(g.p) + "/" + fmt5(g.f);
  }
  return out;
}

TEST(Rouge155Test, RealSummPerDocumentScores) {
  UNIEVAL_REQUIRE_SHARED("data/cnndm/realsumm_scores_abs.jsonl.gz");
  UNIEVAL_REQUIRE_SHARED("data/cnndm/realsumm_scores_ext.jsonl.gz");
  UNIEVAL_REQUIRE_SHARED("data/cnndm/realsumm_selected_docs_for_human_eval.tar.xz");
  UNIEVAL_REQUIRE_SHARED("data/rouge155/WordNet-2.0-Exceptions/adj.exc");
  namespace fs = std::filesystem;
  testing::TempDir tmp;
  std::string cmd =
      "tar -xJf " +
      testing::shq(
          (shared_dir() / "data/cnndm/realsumm_selected_docs_for_human_eval.tar.xz").string()) +
      " -C " + testing::shq(tmp.path().string()) + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0)
    GTEST_SKIP() << "could not unpack the REALSumm archive (tar/xz absent)";
  const fs::path root = tmp.path() / "selected_docs_for_human_eval";

  // Every system output file of the archive, as word strings per line.
  std::map<std::string, std::vector<std::string>> out_files;  // "ext/bart/out.txt" -> lines
  for (const char* kind : {"abs", "ext"})
    for (const auto& sys : fs::directory_iterator(root / kind))
      for (const auto& f : fs::directory_iterator(sys.path())) {
        std::string name = f.path().filename().string();
        if (name.rfind("out", 0) != 0) continue;
        std::vector<std::string> words;
        for (const auto& l : realsumm_lines(f.path())) words.push_back(realsumm_words(l));
        out_files[std::string(kind) + "/" + sys.path().filename().string() + "/" + name] = words;
      }

  std::vector<RealSummDoc> docs;
  std::map<std::string, std::map<size_t, std::string>> stored;  // system -> doc -> summary words
  for (const char* kind : {"abs", "ext"}) {
    std::string file = std::string("data/cnndm/realsumm_scores_") + kind + ".jsonl.gz";
    std::string text = core::read_file((shared_dir() / file).string());
    for (const auto& line : core::split_lines(text, file)) {
      if (line.empty()) continue;
      json doc = json::parse(line);
      for (const auto& [sys, entry] : doc["system_summaries"].items()) {
        RealSummDoc d;
        d.system = std::string(kind) + "/" + sys;
        d.doc = doc["doc_id"].get<size_t>();
        d.name = d.system + " doc " + std::to_string(d.doc);
        std::string summary = entry["system_summary"].get<std::string>();
        d.instance.peer = realsumm_scored_sentences(summary, &d.unterminated);
        d.scores = entry["scores"];
        stored[d.system][d.doc] = realsumm_words(summary);
        docs.push_back(std::move(d));
      }
    }
  }
  ASSERT_EQ(docs.size(), 2500u);
  ASSERT_EQ(stored.size(), 25u);

  // Rule 2: the one archive file that holds all 100 stored summaries of a system.
  std::map<std::string, std::vector<std::string>> refs;  // system -> its ref.txt lines
  for (const auto& [sys, by_doc] : stored) {
    std::vector<std::string> holders;
    for (const auto& [path, lines] : out_files) {
      bool all = by_doc.size() == 100;
      for (const auto& [id, words] : by_doc) all = all && id < lines.size() && lines[id] == words;
      if (all) holders.push_back(path);
    }
    ASSERT_EQ(holders.size(), 1u) << sys << ": " << holders.size()
                                  << " archive files hold its summaries";
    if (sys == "abs/bart_out.txt") {
      EXPECT_EQ(holders[0], "ext/bart/out.txt");
    }
    refs[sys] = realsumm_lines(root / fs::path(holders[0]).parent_path() / "ref.txt");
  }
  for (auto& d : docs) {
    ASSERT_LT(d.doc, refs[d.system].size()) << d.name;
    d.instance.models = {realsumm_reference(refs[d.system][d.doc])};
  }

  // Rule 1: exactly these stored summaries carry text the scorer never read.
  std::set<std::string> unterminated,
      expect_unterminated = {"abs/bottom_up_out.txt doc 4", "abs/bottom_up_out.txt doc 6",
                             "abs/bottom_up_out.txt doc 30", "abs/bottom_up_out.txt doc 58"};
  for (const auto& d : docs)
    if (d.unterminated) unterminated.insert(d.name);
  EXPECT_EQ(unterminated, expect_unterminated);

  Rouge155Options opt;
  opt.max_n = 2;
  opt.stem = true;
  opt.resamples = 1;  // per-document values do not depend on the bootstrap
  std::vector<RougeInstance> corpus;
  for (const auto& d : docs) corpus.push_back(d.instance);
  Rouge155Result res = rouge155(corpus, opt, resources());
  ASSERT_EQ(res.variants.size(), 3u);
  ASSERT_EQ(res.variants[2].name, "ROUGE-L");

  // Rule 4: with the archive's banditsumm reference exactly these four differ, and only in ROUGE-L.
  const std::set<std::string> banditsumm_breaks = {
      "ext/banditsumm_out.txt doc 3", "ext/banditsumm_out.txt doc 4",
      "ext/banditsumm_out.txt doc 24", "ext/banditsumm_out.txt doc 33"};
  int matched = 0;
  std::set<std::string> differing;
  for (size_t i = 0; i < docs.size(); ++i) {
    auto want = realsumm_want(docs[i].scores);
    auto got = realsumm_got(res, i);
    if (want == got) {
      ++matched;
      continue;
    }
    differing.insert(docs[i].name);
    std::string diff;
    for (int v = 0; v < 3; ++v)
      if (want[v] != got[v])
        diff += " " + res.variants[v].name + " want " + want[v] + " got " + got[v];
    if (!banditsumm_breaks.count(docs[i].name)) {
      ADD_FAILURE() << "REALSumm mismatch: " << docs[i].name << diff;
    } else {
      EXPECT_EQ(want[0], got[0]) << docs[i].name << diff;  // ROUGE-1 and -2 see no sentence breaks
      EXPECT_EQ(want[1], got[1]) << docs[i].name << diff;
    }
  }
  EXPECT_EQ(matched, 2496);
  EXPECT_EQ(differing, banditsumm_breaks);

  // ... and joining the unfinished pieces of banditsumm's references reproduces all 100.
  std::vector<RougeInstance> bandit;
  std::vector<size_t> bandit_index;
  for (size_t i = 0; i < docs.size(); ++i)
    if (docs[i].system == "ext/banditsumm_out.txt") {
      RougeInstance inst = docs[i].instance;
      inst.models[0] = join_unfinished_sentences(inst.models[0]);
      bandit.push_back(inst);
      bandit_index.push_back(i);
    }
  ASSERT_EQ(bandit.size(), 100u);
  Rouge155Result joined = rouge155(bandit, opt, resources());
  for (size_t k = 0; k < bandit.size(); ++k)
    EXPECT_EQ(realsumm_want(docs[bandit_index[k]].scores), realsumm_got(joined, k))
        << docs[bandit_index[k]].name << " with unfinished reference pieces joined";
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
        in.contains("targets") ? rouge_score_multi(in["targets"].get<std::vector<std::string>>(),
                                                   in["prediction"], opt)
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
    for (size_t i = 0; i < preds.size(); ++i)
      expect_values(g["expected"]["per_pair"][i], opt.types, c.per_pair[i]);
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
    double got =
        coco_rouge_l(g["inputs"]["candidate"], g["inputs"]["refs"].get<std::vector<std::string>>());
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
