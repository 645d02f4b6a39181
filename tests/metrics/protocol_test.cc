// The metric protocol (metrics/protocol.h): the registry, option specs, typed values, the
// generated Markdown, scoring through the registry, and the resampling serialiser.
#include "metrics/protocol.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "core/error.h"
#include "core/io.h"
#include "metrics/bleu.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using unieval::testing::TempDir;

TEST(MetricProtocolTest, RegistryHoldsEveryScoreMetricOnce) {
  const std::vector<std::string> expected = {
      "bleu",      "chrf", "chrf++",     "ter",      "bleu-multi",   "bleu-nltk", "bleu-plato",
      "bleu-coco", "nist", "nist-nltk",  "rouge",    "rouge-l-coco", "meteor",    "squad",
      "coqa",      "glue", "glue-score", "distinct", "entropy"};
  std::vector<std::string> names;
  for (const auto& m : metric_registry()) {
    names.push_back(m.name);
    EXPECT_FALSE(m.summary.empty()) << m.name;
    EXPECT_TRUE(m.run) << m.name;
    EXPECT_EQ(find_metric(m.name), &m);
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(find_metric("no-such-metric"), nullptr);
  EXPECT_THROW(score_metric("no-such-metric", OptionValues{}, nullptr), InputError);
}

TEST(MetricProtocolTest, SpecsAreWellFormed) {
  std::set<std::string> common;
  for (const auto& s : common_option_specs()) common.insert(s.name);
  EXPECT_EQ(common, (std::set<std::string>{"metric", "hyp", "ref", "json"}));
  for (const auto& m : metric_registry()) {
    std::set<std::string> seen;
    std::set<char> shorts;
    for (const auto& s : m.options) {
      EXPECT_TRUE(seen.insert(s.name).second) << m.name << ": --" << s.name << " twice";
      EXPECT_EQ(common.count(s.name), 0u)
          << m.name << ": --" << s.name << " shadows a common option";
      EXPECT_EQ(s.name.find(','), std::string::npos) << s.name;
      EXPECT_FALSE(s.help.empty()) << m.name << ": --" << s.name;
      if (s.short_name) {
        EXPECT_TRUE(shorts.insert(s.short_name).second) << m.name << ": -" << s.short_name;
      }
      if (!s.default_value) continue;
      // The default holds the declared type (the CLI's typed Boost value reads it as such).
      size_t want = 0;
      switch (s.type) {
        case OptionType::kFlag:
          want = 0;
          break;
        case OptionType::kInt:
          want = 1;
          break;
        case OptionType::kLong:
          want = 2;
          break;
        case OptionType::kUInt64:
          want = 3;
          break;
        case OptionType::kDouble:
          want = 4;
          break;
        case OptionType::kString:
          want = 5;
          break;
        case OptionType::kStringList:
          want = 6;
          break;
      }
      EXPECT_EQ(s.default_value->index(), want) << m.name << ": --" << s.name;
    }
  }
}

TEST(MetricProtocolTest, SpecConstructorsSplitTheAlias) {
  OptionSpec s = int_option("max-ngram,n", 0, "-n N", "n");
  EXPECT_EQ(s.name, "max-ngram");
  EXPECT_EQ(s.short_name, 'n');
  EXPECT_EQ(s.type, OptionType::kInt);
  EXPECT_EQ(std::get<int>(*s.default_value), 0);
  EXPECT_EQ(s.signature_key, "n");
  OptionSpec f = flag_option("json", "help");
  EXPECT_EQ(f.short_name, 0);
  EXPECT_FALSE(f.default_value.has_value());
}

TEST(MetricProtocolTest, OptionValuesAreTyped) {
  OptionValues v;
  v.set_defaults({int_option("n", 4, "h"), flag_option("lc", "h"), string_option("tok", "13a", "h"),
                  double_option("beta", std::nullopt, "h")});
  EXPECT_TRUE(v.count("n"));
  EXPECT_FALSE(v.given("n"));
  EXPECT_EQ(v.integer("n"), 4);
  EXPECT_FALSE(v.flag("lc"));
  EXPECT_EQ(v.str("tok"), "13a");
  EXPECT_FALSE(v.count("beta"));
  EXPECT_THROW(v.real("beta"), std::logic_error);
  v.set("beta", 1.5);
  EXPECT_TRUE(v.given("beta"));
  EXPECT_EQ(v.real("beta"), 1.5);
  EXPECT_FALSE(v.flag("absent"));
  v.set("ref", std::vector<std::string>{"a", "b"});
  EXPECT_EQ(v.list("ref").size(), 2u);
  EXPECT_THROW(v.integer("tok"), std::bad_variant_access);
}

TEST(MetricProtocolTest, OptionListsParseOrNameTheOption) {
  EXPECT_EQ(parse_double_list("0.5,0.25", "weights"), (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(parse_int_list("1,2,4", "n"), (std::vector<int>{1, 2, 4}));
  try {
    parse_double_list("0.5,x", "weights");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--weights: 'x'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_int_list("1,2.5", "n"), InputError);
}

TEST(MetricProtocolTest, MarkdownHasARowPerOption) {
  for (const auto& m : metric_registry()) {
    std::string md = options_markdown(m.options);
    EXPECT_EQ(md.rfind("| option | default | signature | meaning |\n|---|---|---|---|\n", 0), 0u);
    size_t rows = 0;
    for (char c : md) rows += c == '\n';
    EXPECT_EQ(rows, m.options.size() + 2) << m.name;
    for (const auto& s : m.options) EXPECT_NE(md.find("`--" + s.name), std::string::npos) << s.name;
  }
  const MetricSpec* rouge = find_metric("rouge");
  std::string md = options_markdown(rouge->options);
  EXPECT_NE(
      md.find("| `--formula V` (`-f`) | `A` | `f` | -f A\\|B: model average or best model. |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| `--stem` (`-m`) | off | `m` |"), std::string::npos);
  std::string all = registry_markdown();
  EXPECT_NE(all.find("#### --metric `chrf`, `chrf++`"), std::string::npos);
  EXPECT_NE(all.find("#### --metric `rouge-l-coco`\n\nNo options of its own."), std::string::npos);
  for (const auto& m : metric_registry())
    EXPECT_NE(all.find("`" + m.name + "`"), std::string::npos);
}

TEST(MetricProtocolTest, ScoresThroughTheRegistryAsTheLibrary) {
  TempDir tmp;
  std::string hyp = tmp.write("hyp.txt", "the cat sat on the mat\na dog barked loudly today\n");
  std::string ref = tmp.write("ref.txt", "the cat sat on a mat\nthe dog barked loudly\n");
  OptionValues v;
  v.set_defaults(common_option_specs());
  v.set_defaults(find_metric("bleu")->options);
  v.set("metric", std::string("bleu"));
  v.set("hyp", hyp);
  v.set("ref", std::vector<std::string>{ref});
  v.set("json", true);
  std::string out = score_metric("bleu", v, nullptr);
  core::Corpus c = core::read_corpus(hyp, {ref});
  BleuScore s = corpus_bleu(c.hyps, c.refs, BleuOptions{});
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["score"].get<double>(), s.score);
  EXPECT_EQ(j["signature"].get<std::string>(), s.signature);
  EXPECT_EQ(out.back(), '\n');
  v.set("json", false);
  EXPECT_EQ(score_metric("bleu", v, nullptr),
            "BLEU|" + s.signature + " = " + s.format().substr(7) + "\n");
  // Missing inputs are InputErrors naming the flag; warnings reach the callback.
  OptionValues none;
  none.set_defaults(common_option_specs());
  none.set_defaults(find_metric("bleu")->options);
  none.set("metric", std::string("bleu"));
  EXPECT_THROW(score_metric("bleu", none, nullptr), InputError);
  OptionValues plato;
  plato.set_defaults(common_option_specs());
  plato.set_defaults(find_metric("bleu-plato")->options);
  plato.set("metric", std::string("bleu-plato"));
  plato.set("hyp", hyp);
  plato.set("ref", std::vector<std::string>{ref, ref});
  std::vector<std::string> warnings;
  score_metric("bleu-plato", plato, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("first --ref only"), std::string::npos);
}

TEST(MetricProtocolTest, ResamplingIsSerialisedOnce) {
  std::vector<double> a = {1, 0, 1, 1, 0, 1, 1, 1}, b = {0, 0, 1, 0, 0, 1, 0, 1};
  OptionValues v;
  v.set_defaults(bootstrap_option_specs("other"));
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  add_resampling(j, v, a.size(), {"acc"}, mean_score_fn(a), nullptr);
  EXPECT_TRUE(j.empty());  // --bootstrap 0 and no baseline: nothing
  v.set("bootstrap", 200);
  ScoreFn base = mean_score_fn(b);
  add_resampling(j, v, a.size(), {"acc"}, mean_score_fn(a), &base);
  BootstrapOptions o;
  o.resamples = 200;
  auto ci = bootstrap_ci(a.size(), mean_score_fn(a), o);
  EXPECT_EQ(j["bootstrap"]["acc"]["low"].get<double>(), ci[0].low);
  EXPECT_EQ(j["bootstrap"]["acc"]["high"].get<double>(), ci[0].high);
  EXPECT_EQ(j["bootstrap"]["signature"], "bs:200|seed:12345|ci:0.95");
  auto pb = paired_bootstrap(a.size(), mean_score_fn(a), base, o);
  EXPECT_EQ(j["paired_bootstrap"]["acc"]["p_value"].get<double>(), pb[0].p_value);
  EXPECT_EQ(j["paired_bootstrap"]["acc"]["delta"].get<double>(), 0.375);
}

// Every option that declares a signature field names one the metric's signature really has:
// the signatures of default runs (both ROUGE modes; SQuAD with its bootstrap) hold "KEY:".
TEST(MetricProtocolTest, SignatureKeysAreInTheSignatures) {
  TempDir tmp;
  std::string hyp = tmp.write("hyp.txt", "the cat sat on the mat\na dog barked\n");
  std::string ref = tmp.write("ref.txt", "the cat sat on a mat\nthe dog barked\n");
  std::string squad = tmp.write(
      "squad.json",
      R"({"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": "a b c", "qas": [)"
      R"({"id": "q1", "question": "?", "answers": [{"text": "a", "answer_start": 0}]},)"
      R"({"id": "q2", "question": "?", "answers": [{"text": "c", "answer_start": 4}]}]}]}]})");
  std::string squad_pred = tmp.write("pred.json", R"({"q1": "a", "q2": "b"})");
  std::string gold = tmp.write("gold.txt", "1\n0\n1\n");
  std::string labels = tmp.write("labels.txt", "1\n1\n1\n");
  std::string glue_results = tmp.write(
      "glue.json",
      R"({"CoLA": {"mcc": 50}, "SST-2": {"acc": 93}, "MRPC": {"f1": 88, "acc": 84}, "STS-B": {"pearson": 87,)"
      R"( "spearman": 86}, "QQP": {"f1": 71, "acc": 89}, "MNLI-m": {"acc": 86}, "MNLI-mm": {"acc": 85},)"
      R"( "QNLI": {"acc": 92}, "RTE": {"acc": 70}, "WNLI": {"acc": 65}})");
  auto signatures = [&](const std::string& name,
                        std::vector<std::pair<std::string, OptionValue>> extra) {
    OptionValues v;
    v.set_defaults(common_option_specs());
    v.set_defaults(find_metric(name)->options);
    v.set("metric", name);
    v.set("json", true);
    for (auto& [k, x] : extra) v.set(k, x);
    auto j = nlohmann::json::parse(score_metric(name, v, nullptr));
    std::string sig = j["signature"].get<std::string>();
    if (j.contains("bootstrap")) sig += "|" + j["bootstrap"]["signature"].get<std::string>();
    return sig;
  };
  const std::vector<std::string> refs = {ref};
  std::map<std::string, std::string> sig;
  sig["bleu"] = signatures("bleu", {{"hyp", hyp}, {"ref", refs}, {"bootstrap", 5}});
  // chrF names beta only when it is not 2 (sacreBLEU).
  sig["chrf"] = signatures("chrf", {{"hyp", hyp}, {"ref", refs}, {"beta", 1.0}, {"bootstrap", 5}});
  sig["rouge"] =
      signatures("rouge", {{"hyp", hyp}, {"ref", refs}}) + "|" +
      signatures("rouge", {{"hyp", hyp}, {"ref", refs}, {"mode", std::string("rouge-score")}});
  sig["squad"] = signatures("squad", {{"data", squad},
                                      {"pred", squad_pred},
                                      {"bootstrap", 5},
                                      {"squad-version", std::string("2.0")}});
  sig["glue"] = signatures(
      "glue", {{"task", std::string("sst2")}, {"gold", gold}, {"pred", labels}, {"bootstrap", 5}});
  sig["glue-score"] = signatures("glue-score", {{"results", glue_results}});
  for (const auto& [name, s] : sig) {
    for (const auto& o : find_metric(name)->options) {
      if (o.signature_key.empty()) continue;
      std::string key = o.signature_key + ":";
      bool found = s.rfind(key, 0) == 0 || s.find("|" + key) != std::string::npos;
      EXPECT_TRUE(found) << name << " --" << o.name << ": no '" << key << "' in " << s;
    }
  }
}

// ---- library calls (run_metric): a task's metric set scored on in-memory corpora ----------

TEST(MetricProtocolTest, RunMetricScoresInMemoryAsScoreDoes) {
  TempDir tmp;
  const std::vector<std::string> hyps = {"what is the cat on ?", "who sat here ?", "where is it ?"};
  const std::vector<std::string> r0 = {"what is the cat sitting on ?", "who sat here ?",
                                       "where is the dog ?"};
  const std::vector<std::string> r1 = {"what does the cat sit on ?", "who was sitting here ?",
                                       "where is it now ?"};
  std::string hyp = tmp.write("h.txt", hyps[0] + "\n" + hyps[1] + "\n" + hyps[2] + "\n");
  std::string ref0 = tmp.write("r0.txt", r0[0] + "\n" + r0[1] + "\n" + r0[2] + "\n");
  std::string ref1 = tmp.write("r1.txt", r1[0] + "\n" + r1[1] + "\n" + r1[2] + "\n");
  for (const char* name : {"bleu", "chrf++", "bleu-coco", "rouge-l-coco", "nist", "bleu-nltk"}) {
    MetricCall call{name, {}};
    OptionValues v = call_values(call);
    v.set("hyp", hyp);
    v.set("ref", std::vector<std::string>{ref0, ref1});
    const std::string printed = score_metric(name, v, nullptr);
    MetricRun run = run_metric(call, core::Corpus{hyps, {r0, r1}});
    ASSERT_EQ(run.objects.size(), 1u) << name;
    EXPECT_EQ(ScoreContext::json_line(run.objects[0]), printed) << name;
  }
  // References per segment (different numbers): the same as padded streams for coco BLEU.
  MetricRun ragged = run_metric({"bleu-coco", {}}, hyps, {{r0[0], r1[0]}, {r0[1]}, {r0[2], r1[2]}});
  MetricRun padded = run_metric({"bleu-coco", {}}, core::Corpus{hyps, {r0, {r1[0], r0[1], r1[2]}}});
  EXPECT_EQ(ragged.objects[0].dump(), padded.objects[0].dump());
  ASSERT_EQ(ragged.segments.size(), 3u);
  EXPECT_EQ(ragged.segment_names,
            (std::vector<std::string>{"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"}));
  // A declaration naming an option the metric does not have is a programming error.
  EXPECT_THROW(call_values({"bleu", {{"no-such-option", 1}}}), std::logic_error);
  EXPECT_THROW(call_values({"bleu", {{"max-order", std::string("4")}}}), std::logic_error);
  // Resampling only on request; the full-sample value is the corpus score.
  EXPECT_FALSE(run_metric({"bleu-coco", {}}, core::Corpus{hyps, {r0, r1}}).resample);
  MetricRun rs = run_metric({"bleu-coco", {}}, core::Corpus{hyps, {r0, r1}}, {}, true);
  ASSERT_TRUE(rs.resample);
  EXPECT_EQ(rs.items, 3u);
  auto all = rs.resample({0, 1, 2});
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(all[k], rs.objects[0]["Bleu_" + std::to_string(k + 1)].get<double>()) << k;
}

TEST(MetricProtocolTest, MeteorResourcePolicyInTheCallersWords) {
  unsetenv("UNIEVAL_METEOR_DATA");
  MetricCall call{"meteor", {{"norm", true}}};
  // score's words by default, the caller's (eval's) when given.
  try {
    check_metric_resources(call);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--meteor-data DIR"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--skip-metric"), std::string::npos) << e.what();
  }
  ResourceHints hints;
  hints.options["meteor-data"] = "--option meteor_data=DIR";
  hints.skip = "--skip-metric meteor";
  try {
    check_metric_resources(call, hints);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--option meteor_data=DIR"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("UNIEVAL_METEOR_DATA"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--skip-metric meteor"), std::string::npos) << e.what();
  }
  TempDir tmp;
  call.options.push_back({"meteor-data", tmp.path().string()});
  try {
    run_metric(call, core::Corpus{{"a"}, {{"a"}}}, hints);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("function/english.words"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_metric_resources({"bleu", {}}, hints));  // needs no resources
}

}  // namespace
}  // namespace unieval::metrics
