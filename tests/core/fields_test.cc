// core/fields.h: one declaration of an options struct, its JSON forms derived from it.
#include "core/fields.h"

#include <gtest/gtest.h>

namespace unieval::fields {
namespace {

struct Demo {
  int beam = 1;
  uint64_t seed = 0;
  double alpha = 0.0;
  bool sample = false;
  std::string algorithm = "exact";
  std::vector<std::string> words;
  std::optional<double> threshold;
  int64_t batch = 64;

  template <class S, class V>
  static void fields(S& s, V&& v) {
    v(Field("beam", "beam size"), s.beam);
    v(Field("seed", "seed"), s.seed);
    v(Field("alpha", "alpha"), s.alpha);
    v(Field("sample", "sample"), s.sample);
    v(Field("algorithm", "algorithm").flag("search").unless_default(), s.algorithm);
    v(Field("words", "words").unless_default(), s.words);
    v(Field("threshold", "threshold").when(s.alpha != 0.0), s.threshold);
    v(Field("batch", "batch").no_write(), s.batch);
  }
};

std::string error_of(const nlohmann::json& j) {
  Demo d;
  try {
    from_json(j, d, "demo.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FieldsTest, WriteRules) {
  Demo d;
  EXPECT_EQ(to_json(d).dump(), R"({"beam":1,"seed":0,"alpha":0.0,"sample":false})");
  d.algorithm = "unilm";
  d.words = {"."};
  d.alpha = 0.5;
  d.batch = 8;
  EXPECT_EQ(
      to_json(d).dump(),
      R"({"beam":1,"seed":0,"alpha":0.5,"sample":false,"algorithm":"unilm","words":["."],"threshold":null})");
}

TEST(FieldsTest, StrictReadRoundTrips) {
  Demo d;
  d.beam = 5;
  d.seed = 18446744073709551615ull;
  d.alpha = 0.25;
  d.sample = true;
  d.algorithm = "unilm";
  d.words = {"a", "b"};
  d.threshold = -1.5;
  Demo back;
  from_json(nlohmann::json::parse(to_json(d).dump()), back, "x");
  EXPECT_EQ(to_json(back), to_json(d));
  EXPECT_EQ(back.threshold, d.threshold);
  Demo b2;
  from_json(nlohmann::json::parse(R"({"batch": 16, "beam": 4.0})"), b2, "x");  // 4.0 is an integer
  EXPECT_EQ(b2.batch, 16);
  EXPECT_EQ(b2.beam, 4);
  EXPECT_EQ(b2.seed, 0u);  // absent keys keep their values
}

TEST(FieldsTest, BadInputNamesSourceAndKey) {
  EXPECT_NE(error_of({{"beems", 5}}).find("demo.json: unknown key 'beems'"), std::string::npos)
      << error_of({{"beems", 5}});
  EXPECT_NE(error_of({{"beam", "5"}}).find("beam: expected an integer, got \"5\""),
            std::string::npos);
  EXPECT_NE(error_of({{"beam", 2.5}}).find("beam: expected an integer"), std::string::npos);
  EXPECT_NE(error_of({{"seed", -1}}).find("seed: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(error_of({{"sample", 1}}).find("sample: expected true or false"), std::string::npos);
  EXPECT_NE(error_of({{"words", {"a", 1}}}).find("words: expected an array of strings"),
            std::string::npos);
  EXPECT_NE(error_of({{"threshold", "x"}}).find("threshold: expected a number or null"),
            std::string::npos);
  EXPECT_NE(error_of(nlohmann::json::array()).find("expected a JSON object"), std::string::npos);
  Demo d;
  EXPECT_NO_THROW(from_json({{"lm_coef", 0.5}}, d, "x", {"lm_coef"}));  // another struct's key
  EXPECT_EQ(keys<Demo>(), (std::set<std::string>{"beam", "seed", "alpha", "sample", "algorithm",
                                                 "words", "threshold", "batch"}));
}

TEST(FieldsTest, FlagNames) {
  std::vector<std::string> flags;
  const Demo d;
  Demo::fields(d, [&](const Field& f, const auto&) { flags.push_back(f.flag_name); });
  EXPECT_EQ(flags, (std::vector<std::string>{"beam", "seed", "alpha", "sample", "search", "words",
                                             "threshold", "batch"}));
}

}  // namespace
}  // namespace unieval::fields
