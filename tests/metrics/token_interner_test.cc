// The one token interner (metrics/token_interner.h): first-seen ids, find, text, both storages.
#include "metrics/token_interner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace unieval::metrics {
namespace {

TEST(TokenInternerTest, IdsInFirstSeenOrderAndFind) {
  TokenInterner v;
  EXPECT_EQ(v.find("the"), TokenInterner::kNone);
  EXPECT_EQ(v.intern("the"), 0u);
  EXPECT_EQ(v.intern("cat"), 1u);
  EXPECT_EQ(v.intern("the"), 0u);
  EXPECT_EQ(v.intern(""), 2u);
  EXPECT_EQ(v.find("cat"), 1u);
  EXPECT_EQ(v.find("dog"), TokenInterner::kNone);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v.ids(std::vector<std::string>{"cat", "a-much-longer-token", "the"}),
            (std::vector<uint32_t>{1, 3, 0}));
}

TEST(TokenInternerTest, CopiesOutliveTheCallersStringsAndSurviveGrowth) {
  TokenInterner v;
  for (int i = 0; i < 50000; ++i) {
    std::string tok = "token-" + std::to_string(i) + (i % 7 == 0 ? std::string(300, 'x') : "");
    ASSERT_EQ(v.intern(tok), static_cast<uint32_t>(i));
  }
  for (int i = 0; i < 50000; i += 997) {
    std::string tok = "token-" + std::to_string(i) + (i % 7 == 0 ? std::string(300, 'x') : "");
    EXPECT_EQ(v.text(static_cast<uint32_t>(i)), tok);
    EXPECT_EQ(v.find(tok), static_cast<uint32_t>(i));
  }
}

TEST(TokenInternerTest, ViewsGiveTheSameIds) {
  std::vector<std::string> toks = {
      "b", "a", "b", "c", "a", "longer-than-eight", "longer-than-eight"};
  TokenInterner copies, views(TokenInterner::kViews);
  for (const auto& t : toks) EXPECT_EQ(copies.intern(t), views.intern(t));
  EXPECT_EQ(views.text(3), "longer-than-eight");
  EXPECT_EQ(views.text(3).data(), toks[5].data());  // a view, no copy
}

}  // namespace
}  // namespace unieval::metrics
