// UniLM's official decoding behaviour where it differs from what its scripts meant (#38):
// gen_seq_from_trace.py --alpha as it runs (--trace-selection official) against the script itself
// (tests/parity/fixtures/unilm_trace_selection.json, made by tests/parity/gen/), and
// decode_seq2seq.py's greedy path for --search unilm --beam 1.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "models/decoding/search.h"
#include "models/tokenizer/wordpiece.h"

namespace unieval::models {
namespace {

nlohmann::json fixture() {
  std::ifstream in(std::string(UNIEVAL_SOURCE_DIR) +
                   "/tests/parity/fixtures/unilm_trace_selection.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// The script's ids cut at the first [SEP]/[PAD], as its output loop cuts the tokens.
std::vector<int64_t> cut(const std::vector<int64_t>& ids, int64_t sep, int64_t pad) {
  std::vector<int64_t> out;
  for (int64_t w : ids) {
    if (w == sep || w == pad) break;
    out.push_back(w);
  }
  return out;
}

BeamTrace trace_of(const nlohmann::json& j) {
  BeamTrace t;
  t.scores = j.at("scores").get<std::vector<std::vector<double>>>();
  t.wids = j.at("wids").get<std::vector<std::vector<int64_t>>>();
  t.ptrs = j.at("ptrs").get<std::vector<std::vector<int64_t>>>();
  return t;
}

TEST(UnilmOfficialTest, TraceSelectionEqualsGenSeqFromTraceAsItRuns) {
  const nlohmann::json fx = fixture();
  int cases = 0, differ = 0, empty = 0, trimmed = 0;
  for (const auto& c : fx.at("cases")) {
    const int64_t sep = c.at("sep"), pad = c.at("pad");
    const Vocab vocab(fx.at("vocabs").at(std::to_string(sep)).get<std::vector<std::string>>());
    const BeamTrace t = trace_of(c.at("trace"));
    SearchOptions o;
    o.algorithm = "unilm";
    o.beam = static_cast<int>(t.wids.at(0).size());
    o.trace_alpha = c.at("alpha");
    ASSERT_EQ(o.trace_selection, "official");  // the default
    const Hypothesis h = best_from_trace(t, sep, pad, o);
    const auto want = cut(c.at("official_ids").get<std::vector<int64_t>>(), sep, pad);
    EXPECT_EQ(h.tokens, want) << "case " << cases << ": " << c.dump();
    // The line the script writes: detokenize + simple_postprocess.
    std::vector<int32_t> pieces(h.tokens.begin(), h.tokens.end());
    const std::vector<int32_t> kept = simple_postprocess_pieces(vocab, pieces);
    trimmed += kept.size() != pieces.size();
    std::string line;
    for (int32_t p : kept) {
      const std::string& s = vocab.token(p);
      if (s.rfind("##", 0) == 0 && !line.empty())
        line += s.substr(2);
      else
        line += (line.empty() ? "" : " ") + s;
    }
    EXPECT_EQ(line, c.at("official_text").get<std::string>()) << "case " << cases;
    // What the script meant: the same routine given eos = [SEP].
    o.trace_selection = "intended";
    const auto meant = cut(c.at("intended_ids").get<std::vector<int64_t>>(), sep, pad);
    EXPECT_EQ(best_from_trace(t, sep, pad, o).tokens, meant) << "case " << cases;
    differ += want != meant;
    empty += want.empty();
    ++cases;
  }
  EXPECT_EQ(cases, 276);
  EXPECT_GT(differ, 50);   // the two selections really differ on these traces
  EXPECT_GT(empty, 20);    // and the official one gives empty outputs
  EXPECT_GE(trimmed, 10);  // simple_postprocess was exercised
}

TEST(UnilmOfficialTest, SimplePostprocessEqualsTheScripts) {
  const nlohmann::json fx = fixture();
  int n = 0;
  for (const auto& c : fx.at("simple_postprocess")) {
    ++n;
    const auto words = c.at("words").get<std::vector<std::string>>();
    EXPECT_EQ(simple_postprocess_keep(words), c.at("kept").size()) << c.dump();
  }
  EXPECT_EQ(n, 10);
}

TEST(UnilmOfficialTest, PythonSetOrderEqualsCPython) {
  const nlohmann::json fx = fixture();
  int n = 0;
  for (const auto& c : fx.at("set_order")) {
    const auto p = c.at("pair").get<std::vector<int64_t>>();
    const auto want = c.at("order").get<std::vector<int64_t>>();
    const auto got = python_set_order(p[0], p[1]);
    EXPECT_EQ((std::vector<int64_t>{got.first, got.second}), want) << c.dump();
    ++n;
  }
  EXPECT_GT(n, 60);
  EXPECT_EQ(python_set_order(102, 0),
            std::make_pair(int64_t{0}, int64_t{102}));  // BERT: [PAD] first
}

TEST(UnilmOfficialTest, BertIdsHandMadeConsequences) {
  // K = 2, [SEP] 102, [PAD] 0, words 5..9.
  SearchOptions o;
  o.algorithm = "unilm";
  o.beam = 2;
  o.trace_alpha = 1.0;
  BeamTrace t;
  t.wids = {{5, 6}, {7, 8}};
  t.scores = {{-1.0, -1.5}, {-2.0, -2.2}};
  t.ptrs = {{0, 0}, {0, 1}};
  // No beam ends: the script has no candidate (empty); the intended pick is the best last entry.
  EXPECT_TRUE(best_from_trace(t, 102, 0, o).tokens.empty());
  o.trace_selection = "intended";
  EXPECT_EQ(best_from_trace(t, 102, 0, o).tokens, std::vector<int64_t>({5, 7}));
  // One beam ended at frame 0: the script picks it over the better unfinished ones.
  t.wids[0][1] = 102;
  o.trace_selection = "official";
  Hypothesis h = best_from_trace(t, 102, 0, o);
  EXPECT_TRUE(h.tokens.empty());
  EXPECT_TRUE(h.eos);
  EXPECT_DOUBLE_EQ(h.score, -1.5 / (6.0 / 6.0));
  // Every beam ends at frame 2: the script backs off to frame 1, whose entries are candidates.
  t.wids[0][1] = 6;
  t.wids.push_back({102, 102});
  t.scores.push_back({-2.1, -2.3});
  t.ptrs.push_back({0, 1});
  EXPECT_EQ(best_from_trace(t, 102, 0, o).tokens, std::vector<int64_t>({5, 7}));
  o.trace_selection = "intended";  // frame 2's ended entry: -2.1 / (8/6) beats -2.0 / (7/6)
  EXPECT_EQ(best_from_trace(t, 102, 0, o).tokens, std::vector<int64_t>({5, 7}));
  EXPECT_DOUBLE_EQ(best_from_trace(t, 102, 0, o).score, -2.1 / (8.0 / 6.0));
  o.trace_selection = "official";
  EXPECT_DOUBLE_EQ(best_from_trace(t, 102, 0, o).score, -2.0 / (7.0 / 6.0));
  o.trace_selection = "other";
  EXPECT_THROW(validate(o), InputError);
}

// A scorer whose best next token is a fixed script of tokens, whatever came before.
class ScriptScorer : public StepScorer {
 public:
  ScriptScorer(int64_t vocab, std::vector<int64_t> script)
      : vocab_(vocab), script_(std::move(script)) {}
  torch::Tensor step(const StepRequest& req) override {
    const int64_t R = static_cast<int64_t>(req.example.size());
    torch::Tensor lp = torch::full({R, vocab_}, -5.0, torch::kFloat);
    const int64_t want = script_[std::min<size_t>(req.step, script_.size() - 1)];
    lp.select(1, want).fill_(-0.1);
    lp.select(1, (want + 1) % vocab_).fill_(-0.2);  // the runner-up
    return lp;
  }

 private:
  int64_t vocab_;
  std::vector<int64_t> script_;
};

TEST(UnilmOfficialTest, GreedyIsDecodeSeq2seqsGreedyPath) {
  const int64_t V = 10, eos = 2, pad = 0;
  SearchOptions o;
  o.beam = 1;
  o.max_len = 8;
  o.min_len = 4;
  o.no_repeat_ngram = 1;
  // The argmax script repeats 5 and ends at step 2.
  ScriptScorer s1(V, {5, 5, eos, 7});
  o.algorithm = "unilm";
  auto got = generate(s1, {0}, eos, o, pad);
  EXPECT_EQ(got[0][0].tokens, std::vector<int64_t>({5, 5}));  // min_len and the n-gram ban ignored
  EXPECT_TRUE(got[0][0].eos);
  EXPECT_EQ(official_greedy_ignores(o),
            (std::vector<std::string>{"min_len 4", "no_repeat_ngram 1"}));
  o.algorithm = "exact";  // the constrained greedy
  got = generate(s1, {0}, eos, o, pad);
  EXPECT_NE(got[0][0].tokens, std::vector<int64_t>({5, 5}));
  EXPECT_TRUE(official_greedy_ignores(o).empty());
  // [PAD] ends the official greedy output as [SEP] does (decode_seq2seq.py cuts at either).
  ScriptScorer s2(V, {6, pad, 7});
  o.algorithm = "unilm";
  o.min_len = 0;
  o.no_repeat_ngram = 0;
  EXPECT_EQ(generate(s2, {0}, eos, o, pad)[0][0].tokens, std::vector<int64_t>({6}));
  EXPECT_TRUE(official_greedy_ignores(o).empty());
  o.algorithm = "exact";
  EXPECT_EQ(generate(s2, {0}, eos, o, pad)[0][0].tokens,
            std::vector<int64_t>({6, pad, 7, 7, 7, 7, 7, 7}));
}

}  // namespace
}  // namespace unieval::models
