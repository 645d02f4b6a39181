// Distinct-n / Entropy-n against DSTC7, PLATO and ERNIE-GEN: every golden line of
// ../shared/golden/distinct_entropy.jsonl, DSTC7 clean_str, and the DSTC7 constant baseline.
#include "metrics/distinct.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "core/io.h"
#include "core/py_string.h"
#include "metrics/entropy.h"
#include "metrics/ngram_ids.h"
#include "metrics/text/dstc7_clean.h"
#include "metrics/text/squad_normalize.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using unieval::testing::read_jsonl;
using unieval::testing::shared_dir;

void expect_close(double want, double got, const std::string& what) {
  EXPECT_NEAR(want, got, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

// DSTC7 reads a file written as '\n'.join(hyps): a trailing empty hypothesis is lost.
std::vector<std::string> as_dstc7_file_lines(const std::vector<std::string>& hyps) {
  std::string text;
  for (size_t i = 0; i < hyps.size(); ++i) text += (i ? "\n" : "") + hyps[i];
  return core::split_lines(text, "hyps");
}

TEST(DistinctTest, GoldenDistinctEntropy) {
  UNIEVAL_REQUIRE_SHARED("golden/distinct_entropy.jsonl");
  int dstc7 = 0, plato = 0, ernie = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/distinct_entropy.jsonl")) {
    std::string id = c["id"];
    std::vector<std::string> hyps = c["hyps"];
    const auto& e = c["expected"];
    std::string variant = c["variant"];
    if (variant.rfind("DSTC7", 0) == 0) {
      ++dstc7;
      auto lines = as_dstc7_file_lines(hyps);
      auto ent = entropy(lines, {});
      for (int n = 0; n < 4; ++n)
        expect_close(e["entropy_1_4"][n].get<double>(), ent.entropy[n],
                     id + " entropy " + std::to_string(n + 1));
      auto d = distinct(lines, {});
      if (e["div_1_2"].is_object()) {  // ZeroDivisionError in calc_diversity
        EXPECT_TRUE(!d.div[0] || !d.div[1]) << id;
      } else {
        ASSERT_TRUE(d.div[0] && d.div[1]) << id;
        expect_close(e["div_1_2"][0].get<double>(), *d.div[0], id + " div1");
        expect_close(e["div_1_2"][1].get<double>(), *d.div[1], id + " div2");
      }
      if (e["avg_len"].is_string()) {
        EXPECT_FALSE(d.avg_len) << id;  // "NaN"
      } else {
        ASSERT_TRUE(d.avg_len) << id;
        expect_close(e["avg_len"].get<double>(), *d.avg_len, id + " avg_len");
      }
      continue;
    }
    DistinctOptions o;
    if (variant.rfind("PLATO", 0) == 0) {
      ++plato;
      o.flavour = DistinctFlavour::kPlato;
    } else {
      ++ernie;
      o.flavour = DistinctFlavour::kErnieGen;
    }
    auto d = distinct(hyps, o);
    auto j = d.to_json();
    expect_close(e["intra_dist1"].get<double>(), j["intra_dist_1"].get<double>(), id + " intra1");
    expect_close(e["intra_dist2"].get<double>(), j["intra_dist_2"].get<double>(), id + " intra2");
    expect_close(e["inter_dist1"].get<double>(), j["inter_dist_1"].get<double>(), id + " inter1");
    expect_close(e["inter_dist2"].get<double>(), j["inter_dist_2"].get<double>(), id + " inter2");
  }
  EXPECT_EQ(27, dstc7);
  EXPECT_EQ(27, plato);
  EXPECT_EQ(27, ernie);
}

TEST(DistinctTest, ErnieGenKeepsEmptyTokens) {
  EXPECT_EQ(std::vector<std::string>({""}),
            distinct_tokenize("", DistinctFlavour::kErnieGen, false));
  EXPECT_EQ(std::vector<std::string>({"a", "", "b"}),
            distinct_tokenize(" a  b\t", DistinctFlavour::kErnieGen, false));
  EXPECT_EQ(std::vector<std::string>({"a", "b"}),
            distinct_tokenize(" a  b\t", DistinctFlavour::kPlato, false));
}

TEST(DistinctTest, ConstantPredictionsHaveMinimalDiversity) {
  std::vector<std::string> lines(100, "i do n't know");
  auto d = distinct(lines, {});
  expect_close(4.0 / 400, *d.div[0], "div1");
  expect_close(3.0 / 300, *d.div[1], "div2");
  auto e = entropy(lines, {});
  expect_close(std::log(4.0), e.entropy[0], "H1 = ln 4 for 4 equiprobable unigrams");
  expect_close(0.0, e.entropy[3], "one 4-gram");
}

TEST(DistinctTest, EmptyCorpusIsNullNotACrash) {
  auto d = distinct(std::vector<std::string>{}, {});
  EXPECT_FALSE(d.div[0]);
  EXPECT_FALSE(d.avg_len);
  EXPECT_TRUE(d.to_json()["div_1"].is_null());
  auto e = entropy(std::vector<std::string>{}, {});
  EXPECT_EQ(0.0, e.entropy[0]);
}

// A random corpus with many repeated n-grams: a small vocabulary plus ASCII and Unicode
// whitespace (str.split() separators), empty lines and non-ASCII tokens.
std::vector<std::string> random_lines(unsigned seed, size_t n_lines, size_t vocab) {
  std::mt19937 rng(seed);
  const std::vector<std::string> seps = {" ",  " ",    " ",        "  ",
                                         "\t", "\x1c", "\xc2\xa0", "\xe3\x80\x80"};
  std::vector<std::string> lines;
  for (size_t i = 0; i < n_lines; ++i) {
    std::string l = rng() % 5 == 0 ? " " : "";
    for (size_t k = 0, n = rng() % 14; k < n; ++k) {
      if (k) l += seps[rng() % seps.size()];
      size_t w = rng() % vocab;
      l += w % 7 == 0 ? "\xc3\xa9" + std::to_string(w) : "t" + std::to_string(w);
    }
    lines.push_back(l);
  }
  return lines;
}

// The official counting, written the naive way: n-grams as token tuples in a map, counts in
// first-seen order (a Python dict), the entropy sum in that order.
std::vector<std::vector<std::string>> tuples(const std::vector<std::string>& t, size_t n) {
  std::vector<std::vector<std::string>> out;
  for (size_t i = 0; i + n <= t.size(); ++i) out.emplace_back(t.begin() + i, t.begin() + i + n);
  return out;
}

TEST(DistinctTest, InternedNgramCountsEqualANaiveCounterBitForBit) {
  for (unsigned seed : {1u, 2u, 3u}) {
    for (size_t vocab : {3u, 40u, 3000u}) {  // 3000 types: the token table grows several times
      auto lines = random_lines(seed, 4000, vocab);
      for (DistinctFlavour f :
           {DistinctFlavour::kDstc7, DistinctFlavour::kPlato, DistinctFlavour::kErnieGen}) {
        std::vector<std::vector<std::string>> segs;
        for (const auto& l : lines) segs.push_back(distinct_tokenize(l, f, false));
        DistinctOptions o;
        o.flavour = f;
        o.orders = {1, 2, 3, 5};
        auto d = distinct(lines, o);
        auto dt = distinct_tokens(segs, o);
        EntropyOptions eo;
        eo.orders = {1, 2, 4, 6};
        auto e = f == DistinctFlavour::kDstc7 ? entropy(lines, eo) : entropy_tokens(segs, eo);
        for (size_t k = 0; k < o.orders.size(); ++k) {
          size_t n = static_cast<size_t>(o.orders[k]);
          std::set<std::vector<std::string>> all;
          double total = 0;
          std::vector<double> intra;
          for (const auto& t : segs) {
            auto g = tuples(t, n);
            std::set<std::vector<std::string>> uniq(g.begin(), g.end());
            all.insert(uniq.begin(), uniq.end());
            total += static_cast<double>(g.size());
            intra.push_back((static_cast<double>(uniq.size()) + 1e-12) /
                            (static_cast<double>(g.size()) + 1e-5));
          }
          std::string what = "seed " + std::to_string(seed) + " vocab " + std::to_string(vocab) +
                             " flavour " + distinct_flavour_name(f) + " n " + std::to_string(n);
          if (f == DistinctFlavour::kDstc7) {
            ASSERT_TRUE(d.div[k]) << what;
            EXPECT_EQ(static_cast<double>(all.size()) / total, *d.div[k]) << what;
            EXPECT_EQ(*d.div[k], *dt.div[k]) << what;
          } else {
            EXPECT_EQ(numpy_mean(intra), d.intra[k]) << what;
            EXPECT_EQ((static_cast<double>(all.size()) + 1e-12) / (total + 1e-5), d.inter[k])
                << what;
            EXPECT_EQ(d.intra[k], dt.intra[k]) << what;
            EXPECT_EQ(d.inter[k], dt.inter[k]) << what;
          }
        }
        for (size_t k = 0; k < eo.orders.size(); ++k) {
          size_t n = static_cast<size_t>(eo.orders[k]);
          std::map<std::vector<std::string>, size_t> index;
          std::vector<double> counts;
          for (const auto& t : segs)
            for (auto& g : tuples(t, n)) {
              auto [it, fresh] = index.emplace(std::move(g), counts.size());
              if (fresh)
                counts.push_back(1);
              else
                counts[it->second] += 1;
            }
          double total = 0, h = 0;
          for (double c : counts) total += c;
          for (double v : counts) h += -v / total * (std::log(v) - std::log(total));
          EXPECT_EQ(h, e.entropy[k]) << "entropy seed " << seed << " vocab " << vocab << " n " << n;
        }
      }
    }
  }
}

TEST(NgramIdsTest, EqualIdsExactlyForEqualNgrams) {
  auto lines = random_lines(7, 2000, 25);
  std::vector<std::vector<std::string>> segs;
  for (const auto& l : lines) segs.push_back(distinct_tokenize(l, DistinctFlavour::kDstc7, false));
  auto lv = internal::levels_of_segments(segs);
  auto wide = internal::levels_of_segments(segs, /*allow_packed=*/false);  // 128-bit slots
  for (size_t n = 1; n <= 5; ++n) {
    if (n > 1) {
      lv.next();
      wide.next();
    }
    ASSERT_TRUE(lv.ids() == wide.ids()) << "n " << n;
    std::map<std::vector<std::string>, uint32_t> id_of;
    uint32_t next_id = 0;
    size_t pos = 0;
    for (const auto& t : segs) {
      for (size_t i = 0; i + n <= t.size(); ++i) {
        std::vector<std::string> g(t.begin() + i, t.begin() + i + n);
        auto [it, fresh] = id_of.emplace(g, next_id);
        if (fresh) ++next_id;
        ASSERT_EQ(it->second, lv.ids()[pos + i]) << "n " << n;  // dense ids in first-seen order
      }
      pos += t.size();
    }
    EXPECT_EQ(id_of.size(), lv.types());
  }
}

TEST(Dstc7CleanTest, OfficialExamplesAndContractions) {
  EXPECT_EQ("i do n't know what you mean .", text::dstc7_clean_str("i don't know what you mean ."));
  EXPECT_EQ("i will n't go", text::dstc7_clean_str("I won't go"));
  EXPECT_EQ("i can n't", text::dstc7_clean_str("I can't"));
  EXPECT_EQ("it 's mine", text::dstc7_clean_str("It's mine"));
  EXPECT_EQ("see __url__", text::dstc7_clean_str("see https://example.com/x?y=1"));
  EXPECT_EQ("please try github",
            text::dstc7_clean_str("please try [ GitHub ] ( https://github.com )"));
  EXPECT_EQ("i do n't know :) . how about this ? __url__",
            text::dstc7_clean_str(
                " I don't know:). how about this?https://github.com/golsun/deep-RL-time-series"));
  EXPECT_EQ("caf", text::dstc7_clean_str("café"));  // non-ASCII becomes a space
  EXPECT_EQ("wow ! ! !",
            text::dstc7_clean_str("wow!!!!!"));  // HANG_RE cuts 5 to 3, then one token each
}

// The DSTC7 constant baseline ("i don't know what you mean .") on the 2,208 test keys gives
// Entropy-1 = ln 8, Entropy-4 = ln 5, Div-1 = Div-2 = 8/(2208*8), avg_len 8 only with clean_str
// (data/dstc7/SOURCES.md).
TEST(Dstc7CleanTest, ConstantBaselineRefsFreeCells) {
  UNIEVAL_REQUIRE_SHARED("data/dstc7/constant-baseline.test.convos.txt.gz");
  UNIEVAL_REQUIRE_SHARED("data/dstc7/test.2k.keys.txt.gz");
  auto keys_lines = core::read_lines((shared_dir() / "data/dstc7/test.2k.keys.txt.gz").string());
  std::set<std::string> keys;
  for (auto& k : keys_lines) keys.insert(std::string(core::py_strip(k)));
  std::vector<std::string> hyps;
  std::set<std::string> used;
  for (const auto& line : core::read_lines(
           (shared_dir() / "data/dstc7/constant-baseline.test.convos.txt.gz").string())) {
    size_t tab = line.find('\t');
    std::string hash = line.substr(0, tab);
    if (!keys.count(hash) || used.count(hash)) continue;
    used.insert(hash);
    hyps.push_back(line.substr(line.rfind('\t') + 1));
  }
  ASSERT_EQ(2208u, hyps.size());
  DistinctOptions o;
  o.dstc7_clean = true;
  auto d = distinct(hyps, o);
  expect_close(8.0 / (2208 * 8), *d.div[0], "div1");
  expect_close(7.0 / (2208 * 7), *d.div[1], "div2");
  expect_close(8.0, *d.avg_len, "avg_len");
  EntropyOptions eo;
  eo.dstc7_clean = true;
  auto e = entropy(hyps, eo);
  EXPECT_NEAR(std::log(8.0), e.entropy[0], 1e-12);
  EXPECT_NEAR(std::log(5.0), e.entropy[3], 1e-12);
}

}  // namespace
}  // namespace unieval::metrics
