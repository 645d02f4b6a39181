// SQuAD EM/F1 against the official scripts: every golden line of ../shared/golden/squad.jsonl,
// the published prediction files (../shared/data/squad), the bench files, and edge cases.
#include "metrics/squad.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <regex>

#include "core/error.h"
#include "metrics/text/squad_normalize.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using unieval::testing::read_jsonl;
using unieval::testing::shared_dir;

void expect_close(double want, double got, const std::string& what) {
  EXPECT_NEAR(want, got, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

std::string dataset_text(const nlohmann::json& data, const std::string& version) {
  nlohmann::json d;
  d["version"] = version;
  d["data"] = data;
  return d.dump();
}

// Compares our JSON with the official one: same keys, same order, same values.
void expect_same_json(const nlohmann::json& want, const nlohmann::ordered_json& got,
                      const std::string& id) {
  std::vector<std::string> wk, gk;
  for (auto it = want.begin(); it != want.end(); ++it) wk.push_back(it.key());
  for (auto it = got.begin(); it != got.end(); ++it) gk.push_back(it.key());
  std::sort(wk.begin(), wk.end());
  std::vector<std::string> gks = gk;
  std::sort(gks.begin(), gks.end());
  EXPECT_EQ(wk, gks) << id;
  for (const auto& k : wk) {
    if (!got.contains(k)) continue;
    expect_close(want[k].get<double>(), got[k].get<double>(), id + " " + k);
  }
}

TEST(SquadTest, GoldenFunctions) {
  UNIEVAL_REQUIRE_SHARED("golden/squad.jsonl");
  int n = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/squad.jsonl")) {
    if (c["metric"] != "squad_functions") continue;
    ++n;
    std::string gold = c["inputs"]["gold"], pred = c["inputs"]["pred"];
    const auto& e = c["expected"];
    std::string id = c["id"];
    EXPECT_EQ(e["v1.1_normalize_gold"].get<std::string>(), text::squad_normalize_answer(gold))
        << id;
    EXPECT_EQ(e["v1.1_normalize_pred"].get<std::string>(), text::squad_normalize_answer(pred))
        << id;
    EXPECT_EQ(e["v1.1_exact_match_score"].get<bool>(), squad_v1_exact_match(pred, gold)) << id;
    expect_close(e["v1.1_f1_score"].get<double>(), squad_v1_f1(pred, gold), id + " v1 f1");
    EXPECT_EQ(e["v2.0_compute_exact"].get<int>(), squad_v2_compute_exact(gold, pred)) << id;
    expect_close(e["v2.0_compute_f1"].get<double>(), squad_v2_compute_f1(gold, pred),
                 id + " v2 f1");
  }
  EXPECT_GE(n, 45);
}

TEST(SquadTest, GoldenDatasets) {
  UNIEVAL_REQUIRE_SHARED("golden/squad.jsonl");
  int n = 0, errors = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/squad.jsonl")) {
    std::string metric = c["metric"];
    if (metric != "squad_v1.1" && metric != "squad_v2.0") continue;
    ++n;
    std::string id = c["id"];
    bool v2 = metric == "squad_v2.0";
    SquadDataset data =
        parse_squad_dataset(dataset_text(c["inputs"]["data"], v2 ? "v2.0" : "1.1"), "data.json");
    SquadPredictions preds =
        parse_squad_predictions(c["inputs"]["predictions"].dump(), "pred.json");
    std::optional<SquadNaProbs> na;
    if (c["inputs"].contains("na_probs"))
      na = parse_squad_na_probs(c["inputs"]["na_probs"].dump(), "na.json");
    SquadOptions opts;
    if (c["options"].contains("na_prob_thresh"))
      opts.na_prob_thresh = c["options"]["na_prob_thresh"];
    EXPECT_EQ(resolve_squad_version(data, SquadVersion::kAuto),
              v2 ? SquadVersion::kV2_0 : SquadVersion::kV1_1)
        << id;
    const auto& e = c["expected"];
    if (e.contains("error")) {
      ++errors;
      // The official script crashed: we must refuse with an InputError, not invent numbers.
      EXPECT_THROW(evaluate_squad(data, preds, na ? &*na : nullptr, opts), InputError) << id;
      continue;
    }
    SquadResult r = evaluate_squad(data, preds, na ? &*na : nullptr, opts);
    expect_same_json(e, r.to_json(), id);
    // Key order as the official json.dumps (read_jsonl's nlohmann::json sorts keys, so the
    // order is checked against the official list).
    static const std::vector<std::string> kOrder = {"exact",
                                                    "f1",
                                                    "total",
                                                    "HasAns_exact",
                                                    "HasAns_f1",
                                                    "HasAns_total",
                                                    "NoAns_exact",
                                                    "NoAns_f1",
                                                    "NoAns_total",
                                                    "best_exact",
                                                    "best_exact_thresh",
                                                    "best_f1",
                                                    "best_f1_thresh"};
    if (v2) {
      std::vector<std::string> want, got;
      for (const auto& k : kOrder)
        if (e.contains(k)) want.push_back(k);
      auto j = r.to_json();
      for (auto it = j.begin(); it != j.end(); ++it) got.push_back(it.key());
      EXPECT_EQ(want, got) << id;
    }
  }
  EXPECT_GE(n, 118);
  EXPECT_GE(errors, 2);
}

TEST(SquadTest, MissingPredictionsV2ErrorNamesCountAndIds) {
  std::string data = R"({"version":"v2.0","data":[{"title":"t","paragraphs":[{"context":"c","qas":[
    {"id":"q1","question":"?","answers":[{"text":"x","answer_start":0}]},
    {"id":"q2","question":"?","answers":[]},
    {"id":"q3","question":"?","answers":[{"text":"y","answer_start":0}]}]}]}]})";
  auto ds = parse_squad_dataset(data, "d.json");
  auto preds = parse_squad_predictions(R"({"q1":"x"})", "p.json");
  try {
    evaluate_squad(ds, preds, nullptr, {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("2 of 3"), std::string::npos) << m;
    EXPECT_NE(m.find("q2, q3"), std::string::npos) << m;
    EXPECT_NE(m.find("p.json"), std::string::npos) << m;
  }
  SquadOptions o;
  o.allow_missing = true;
  auto r = evaluate_squad(ds, preds, nullptr, o);
  EXPECT_EQ(r.total, 3);
  expect_close(100.0 / 3, r.exact, "exact with two missing scored 0");
  EXPECT_EQ(r.missing.size(), 2u);
}

TEST(SquadTest, V1MissingPredictionScoresZeroLikeOfficial) {
  std::string data = R"({"version":"1.1","data":[{"title":"t","paragraphs":[{"context":"c","qas":[
    {"id":"q1","question":"?","answers":[{"text":"x","answer_start":0}]},
    {"id":"q2","question":"?","answers":[{"text":"y","answer_start":0}]}]}]}]})";
  auto r = evaluate_squad(parse_squad_dataset(data, "d"),
                          parse_squad_predictions(R"({"q1":"x"})", "p"), nullptr, {});
  expect_close(50.0, r.exact_match, "em");
  ASSERT_EQ(r.missing.size(), 1u);
  EXPECT_EQ(r.missing[0], "q2");
}

TEST(SquadTest, EmptyStringsDifferBetweenVersions) {
  EXPECT_EQ(0.0, squad_v1_f1("", ""));
  EXPECT_EQ(1.0, squad_v2_compute_f1("", ""));
  EXPECT_TRUE(squad_v1_exact_match("the", ""));  // both normalise to ""
  EXPECT_EQ(0.0, squad_v1_f1("", "the"));        // hence EM > F1 is possible in v1.1
}

TEST(SquadTest, NormalizerEdgeCases) {
  EXPECT_EQ("eiffeltower", text::squad_normalize_answer("The  Eiffel-Tower!"));
  EXPECT_EQ("“quoted”", text::squad_normalize_answer("“Quoted”"));   // Unicode quotes survive
  EXPECT_EQ("café", text::squad_normalize_answer("CAFÉ"));           // Unicode lower()
  EXPECT_EQ("anthem", text::squad_normalize_answer("an anthem a"));  // articles only as whole words
  EXPECT_EQ("", text::squad_normalize_answer("a an the"));
  EXPECT_EQ("x“ ”y", text::squad_normalize_answer("x“the”y"));  // \b next to Unicode punctuation
  EXPECT_EQ("1000", text::squad_normalize_answer("1,000"));
  EXPECT_EQ("a\u00e9", text::squad_normalize_answer("a\u00e9"));     // 'aé' is one \w-run
  EXPECT_EQ("x y", text::squad_normalize_answer("x\u3000y\u00a0"));  // Unicode whitespace
  EXPECT_EQ(std::vector<std::string>({"cat", "dog"}), text::squad_answer_tokens("The cat, a dog"));
}

// ASCII answers without control characters take a byte-level normaliser (two tight passes); it
// must give what the general (code point) path gives on every ASCII text, and NormalizedAnswer
// the same string and its tokens: seeded random strings over the characters that matter
// (articles and their pieces, punctuation inside and around words, every kind of whitespace,
// control characters, upper case).
TEST(SquadTest, AsciiNormaliserEqualsTheGeneralPath) {
  const std::vector<std::string> pieces = {
      "a",     "an",  "the", "The",  "A",     "AN",   "tHe",  "x",    "ab",   "then",
      "theme", " ",   "  ",  "\t",   "\n",    "\x0b", "\x1c", "\x1f", "\x01", "\x7f",
      "\x00",  ".",   ",",   "-",    "'",     "_",    "(",    ")",    "!",    "\"",
      "1",     "9th", "a.",  ".the", "t.h.e", "a-n",  "e",    "h",    "N"};
  std::mt19937 rng(7);
  std::string fast, general;
  text::NormalizedAnswer answer;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    int len = static_cast<int>(rng() % 12);
    for (int k = 0; k < len; ++k) {
      const std::string& p = pieces[rng() % pieces.size()];
      s += p.empty() ? std::string(1, '\0') : p;
    }
    text::squad_normalize_answer_into(s, fast);
    text::squad_normalize_answer_general(s, general);
    ASSERT_EQ(general, fast) << "[" << s << "]";
    answer.set(s);
    ASSERT_EQ(general, answer.norm) << "[" << s << "]";
    std::vector<std::string> toks(answer.toks.begin(), answer.toks.end());
    ASSERT_EQ(text::squad_tokens_of_normalized(general), toks) << "[" << s << "]";
  }
  EXPECT_EQ("cat dog", text::squad_normalize_answer("The cat, a dog"));
  EXPECT_EQ("theend \x01", text::squad_normalize_answer("the-end an \x01 the"));
}

TEST(SquadTest, MalformedJsonNamesFileLineAndProblem) {
  try {
    parse_squad_predictions("{\"q1\": \"x\",\n \"q2\" \"y\"}", "pred.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ("pred.json", e.file());
    EXPECT_EQ(2, e.line());
    EXPECT_NE(std::string(e.what()).find("':'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_squad_predictions("[1,2]", "p"), InputError);
  EXPECT_THROW(parse_squad_predictions(R"({"q": 3})", "p"), InputError);
  EXPECT_THROW(parse_squad_dataset(R"({"data": [{"paragraphs": [{"qas": [{"id": "x"}]}]}]})", "d"),
               InputError);
}

TEST(SquadTest, V1QuestionWithoutAnswersIsAnInputError) {
  std::string data = R"({"version":"1.1","data":[{"title":"t","paragraphs":[{"context":"c","qas":[
    {"id":"q1","question":"?","answers":[]}]}]}]})";
  auto ds = parse_squad_dataset(data, "d");
  SquadOptions o;
  o.version = SquadVersion::kV1_1;
  EXPECT_THROW(evaluate_squad(ds, parse_squad_predictions(R"({"q1":""})", "p"), nullptr, o),
               InputError);
}

// A synthetic dataset big enough to be split between threads: answers, misses, empty golds
// (v2), unanswerable questions, duplicate ids; predictions for most questions.
struct SyntheticSquad {
  std::string data, preds, na;
};
SyntheticSquad synthetic_squad(int n, const std::string& version) {
  const std::vector<std::string> words = {"the",  "Eiffel", "tower", "a",   "caf\u00e9",
                                          "1889", "Paris,", "an",    "iron"};
  nlohmann::json qas = nlohmann::json::array(), preds = nlohmann::json::object(),
                 na = nlohmann::json::object();
  auto phrase = [&](int seed, int len) {
    std::string s;
    for (int k = 0; k < len; ++k)
      s += (k ? " " : "") + words[static_cast<size_t>(seed * 7 + k * 3) % words.size()];
    return s;
  };
  for (int i = 0; i < n; ++i) {
    std::string id = "q" + std::to_string(i % 997 == 5 ? 5 : i);  // a few duplicate ids
    nlohmann::json answers = nlohmann::json::array();
    int n_answers = version != "1.1" && i % 11 == 0 ? 0 : 1 + i % 3;
    for (int a = 0; a < n_answers; ++a)
      answers.push_back({{"text", i % 13 == 0 && a == 0 ? "the" : phrase(i + a, 1 + (i + a) % 4)},
                         {"answer_start", 0}});
    qas.push_back({{"id", id}, {"question", "?"}, {"answers", answers}});
    if (i % 17 != 3) preds[id] = i % 19 == 0 ? "" : phrase(i + 1, 1 + i % 5);
    na[id] = static_cast<double>((i * 37) % 101) / 100.0;
  }
  nlohmann::json data =
      nlohmann::json::array({{{"title", "t"}, {"paragraphs", {{{"context", "c"}, {"qas", qas}}}}}});
  return {dataset_text(data, version), preds.dump(), na.dump()};
}

void expect_identical(const SquadResult& a, const SquadResult& b, const std::string& what) {
  EXPECT_EQ(a.to_json().dump(), b.to_json().dump()) << what;
  EXPECT_EQ(a.item_ids, b.item_ids) << what;
  EXPECT_EQ(a.item_exact, b.item_exact) << what;
  EXPECT_EQ(a.item_f1, b.item_f1) << what;
  EXPECT_EQ(a.missing, b.missing) << what;
}

TEST(SquadTest, ThreadCountChangesNoNumberAndNoOrder) {
  for (const std::string version : {"1.1", "v2.0"}) {
    auto syn = synthetic_squad(3000, version);
    auto ds = parse_squad_dataset(syn.data, "d.json");
    auto preds = parse_squad_predictions(syn.preds, "p.json");
    auto na = parse_squad_na_probs(syn.na, "na.json");
    SquadOptions o;
    o.allow_missing = true;
    o.threads = 1;
    SquadResult one = evaluate_squad(ds, preds, version == "1.1" ? nullptr : &na, o);
    ASSERT_FALSE(one.missing.empty()) << version;
    if (version == "1.1")
      EXPECT_GT(one.exact_match, 0) << version;
    else
      EXPECT_TRUE(one.best_f1.has_value()) << version;
    for (int t : {2, 3, 8, 0}) {
      o.threads = t;
      expect_identical(one, evaluate_squad(ds, preds, version == "1.1" ? nullptr : &na, o),
                       version + " threads " + std::to_string(t));
    }
  }
}

// Ids are looked up at the position after the last match first (files in dataset order); any
// other order must give the same numbers: predictions reversed, and in a seeded shuffle.
TEST(SquadTest, PredictionOrderChangesNoNumber) {
  for (const std::string version : {"1.1", "v2.0"}) {
    auto syn = synthetic_squad(3000, version);
    auto ds = parse_squad_dataset(syn.data, "d.json");
    auto na = parse_squad_na_probs(syn.na, "na.json");
    auto preds = nlohmann::ordered_json::parse(syn.preds);
    std::vector<std::pair<std::string, std::string>> members;
    for (auto it = preds.begin(); it != preds.end(); ++it)
      members.emplace_back(it.key(), it.value().get<std::string>());
    auto text_of = [](const std::vector<std::pair<std::string, std::string>>& m) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      for (const auto& [k, v] : m) j[k] = v;
      return j.dump();
    };
    SquadOptions o;
    o.allow_missing = true;
    SquadResult in_order =
        evaluate_squad(ds, parse_squad_predictions(text_of(members), "p"), &na, o);
    std::reverse(members.begin(), members.end());
    SquadResult reversed =
        evaluate_squad(ds, parse_squad_predictions(text_of(members), "p"), &na, o);
    std::shuffle(members.begin(), members.end(), std::mt19937(5));
    SquadResult shuffled =
        evaluate_squad(ds, parse_squad_predictions(text_of(members), "p"), &na, o);
    EXPECT_EQ(in_order.to_json().dump(), reversed.to_json().dump()) << version;
    EXPECT_EQ(in_order.to_json().dump(), shuffled.to_json().dump()) << version;
    EXPECT_EQ(in_order.item_f1, shuffled.item_f1) << version;
    EXPECT_EQ(in_order.missing, shuffled.missing) << version;
  }
}

TEST(SquadTest, FirstBadQuestionIsReportedWhateverTheThreads) {
  // v1.1 data where questions 300 and 2500 have no gold answers: the error names q300 (the
  // one a sequential run meets first), also when another thread reaches q2500 first.
  nlohmann::json qas = nlohmann::json::array(), preds = nlohmann::json::object();
  for (int i = 0; i < 3000; ++i) {
    std::string id = "q" + std::to_string(i);
    nlohmann::json answers = nlohmann::json::array();
    if (i != 300 && i != 2500) answers.push_back({{"text", "x"}, {"answer_start", 0}});
    qas.push_back({{"id", id}, {"question", "?"}, {"answers", answers}});
    preds[id] = "x";
  }
  nlohmann::json data =
      nlohmann::json::array({{{"title", "t"}, {"paragraphs", {{{"context", "c"}, {"qas", qas}}}}}});
  auto ds = parse_squad_dataset(dataset_text(data, "1.1"), "d.json");
  auto p = parse_squad_predictions(preds.dump(), "p.json");
  for (int t : {1, 2, 4}) {
    SquadOptions o;
    o.threads = t;
    try {
      evaluate_squad(ds, p, nullptr, o);
      ADD_FAILURE() << "no error with " << t << " threads";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'q300'"), std::string::npos) << e.what();
    }
  }
}

// The real check: the published SQuAD leaderboard prediction files, scored on the dev sets,
// give the official script's values recorded in data/squad/SOURCES.md.
TEST(SquadTest, PublishedPredictionsReproduceSourcesMd) {
  UNIEVAL_REQUIRE_SHARED("data/squad/SOURCES.md");
  UNIEVAL_REQUIRE_SHARED("data/squad/predictions");
  std::ifstream in(shared_dir() / "data/squad/SOURCES.md");
  std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Rows: | predictions/FILE | ... | ... EM X, F1 Y ... |
  std::regex row(R"(\| predictions/([^ |]+) \|[^\n]*?EM ([0-9.]+), F1 ([0-9.]+))");
  int checked = 0;
  for (std::sregex_iterator it(md.begin(), md.end(), row), end; it != end; ++it) {
    std::string file = (*it)[1];
    double em = std::stod((*it)[2]), f1 = std::stod((*it)[3]);
    bool v2 = file.rfind("v2.0", 0) == 0;
    auto dev =
        shared_dir() / "data/squad" / (v2 ? "dev-v2.0.reconstructed.json.gz" : "dev-v1.1.json.gz");
    auto pred = shared_dir() / "data/squad/predictions" / file;
    if (!std::filesystem::exists(dev) || !std::filesystem::exists(pred)) continue;
    auto r = evaluate_squad(load_squad_dataset(dev.string()), load_squad_predictions(pred.string()),
                            nullptr, {});
    double got_em = v2 ? r.exact : r.exact_match;
    // SOURCES.md records the official output rounded to 3 decimals.
    EXPECT_NEAR(em, got_em, 0.0005 + 1e-9) << file;
    EXPECT_NEAR(f1, r.f1, 0.0005 + 1e-9) << file;
    if (file == "v2.0-dev.bert-large-single.json.gz") {
      EXPECT_NEAR(74.106, *r.has_ans_exact, 0.0005) << file;
      EXPECT_NEAR(80.182, *r.has_ans_f1, 0.0005) << file;
      EXPECT_NEAR(83.364, *r.no_ans_exact, 0.0005) << file;
      EXPECT_EQ(5928, r.has_ans_total);
      EXPECT_EQ(5945, r.no_ans_total);
    }
    ++checked;
  }
  EXPECT_EQ(7, checked);
}

nlohmann::json read_json_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

TEST(SquadTest, BenchInputsGiveTheRecordedOfficialOutputs) {
  UNIEVAL_REQUIRE_SHARED("golden/bench/expected_squad11.json");
  auto b = shared_dir() / "golden/bench";
  auto r11 = evaluate_squad(load_squad_dataset((b / "squad11_synth_dev.json.gz").string()),
                            load_squad_predictions((b / "squad11_synth_pred.json.gz").string()),
                            nullptr, {});
  expect_same_json(read_json_file(b / "expected_squad11.json"), r11.to_json(), "squad11 bench");
  auto ds2 = load_squad_dataset((b / "squad2_synth_dev.json.gz").string());
  auto p2 = load_squad_predictions((b / "squad2_synth_pred.json.gz").string());
  auto na = load_squad_na_probs((b / "squad2_synth_na.json.gz").string());
  expect_same_json(read_json_file(b / "expected_squad2_no_na.json"),
                   evaluate_squad(ds2, p2, nullptr, {}).to_json(), "squad2 bench");
  expect_same_json(read_json_file(b / "expected_squad2_with_na.json"),
                   evaluate_squad(ds2, p2, &na, {}).to_json(), "squad2 bench na");
}

}  // namespace
}  // namespace unieval::metrics
