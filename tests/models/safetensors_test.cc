// safetensors: round trip of every dtype, the HF fixtures, and corrupted / hostile files.
#include "models/io/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A file image from a header JSON text and a data section.
std::string image(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string expect_error(const std::string& bytes) {
  try {
    SafetensorsFile::from_bytes(bytes, "bad.safetensors");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.safetensors"), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

TEST(SafetensorsTest, RoundTripsEveryDtypeAndMetadata) {
  TempDir dir;
  torch::manual_seed(7);
  std::vector<std::pair<std::string, torch::Tensor>> ts = {
      {"f32", torch::randn({3, 5})},
      {"f16", torch::randn({4}).to(torch::kHalf)},
      {"bf16", torch::randn({2, 3}).to(torch::kBFloat16)},
      {"f64", torch::randn({2}, torch::kDouble)},
      {"i64", torch::arange(7, torch::kLong).unsqueeze(0)},
      {"i32", torch::tensor({-1, 2}, torch::kInt)},
      {"u8", torch::tensor({0, 255}, torch::kUInt8)},
      {"b", torch::tensor({true, false})},
      {"scalar", torch::tensor(3.5f)},
      {"empty", torch::zeros({0, 4})},
      {"noncontig", torch::randn({4, 3}).t()},
  };
  std::string path = (dir.path() / "x.safetensors").string();
  write_safetensors(path, ts, {{"format", "pt"}, {"note", "hi"}});
  std::string bytes = slurp(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ((8 + n) % 8, 0u) << "header padded to a multiple of 8";

  auto f = SafetensorsFile::open(path);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.metadata().at("note"), "hi");
  ASSERT_EQ(f.tensors().size(), ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    // The JSON header is an object: its key order is not part of the format (readers look
    // tensors up by name), so only presence is checked.
    bool present = false;
    for (const auto& t : f.tensors()) present |= (t.name == ts[i].first);
    EXPECT_TRUE(present) << ts[i].first;
    torch::Tensor got = f.tensor(ts[i].first);
    EXPECT_EQ(got.scalar_type(), ts[i].second.scalar_type()) << ts[i].first;
    EXPECT_TRUE(torch::equal(got, ts[i].second)) << ts[i].first;
  }
  EXPECT_EQ(f.find("absent"), nullptr);
  EXPECT_THROW(f.tensor("absent"), InputError);
  EXPECT_THROW(write_safetensors(path, {{"a", torch::zeros({1})}, {"a", torch::zeros({1})}}),
               InputError);
}

TEST(SafetensorsTest, ReadsTheHfFixture) {
  UNIEVAL_REQUIRE_SHARED("golden/hf_bert/A_h32_l2/model.safetensors");
  auto f =
      SafetensorsFile::open((shared_dir() / "golden/hf_bert/A_h32_l2/model.safetensors").string());
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const auto* pos = f.find("bert.embeddings.position_ids");
  ASSERT_NE(pos, nullptr);
  EXPECT_EQ(pos->dtype, "I64");
  EXPECT_TRUE(torch::equal(f.tensor(*pos), torch::arange(64, torch::kLong).unsqueeze(0)));
  auto w = f.tensor("bert.embeddings.word_embeddings.weight");
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{512, 32}));
  EXPECT_TRUE(torch::equal(w, f.tensor("cls.predictions.decoder.weight")));
}

TEST(SafetensorsTest, RejectsTruncatedAndHostileFiles) {
  const std::string ok_header =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string data(8, '\1');
  ASSERT_NO_THROW(SafetensorsFile::from_bytes(image(ok_header, data)));

  EXPECT_NE(expect_error("").find("truncated"), std::string::npos);
  EXPECT_NE(expect_error(std::string("\x10\0\0", 3)).find("truncated"), std::string::npos);
  // Header length beyond the file, beyond the 100 MB limit, and all 0xFF.
  EXPECT_NE(expect_error(image(ok_header, data).substr(0, 40)).find("truncated"),
            std::string::npos);
  std::string huge = image(ok_header, data);
  huge[4] = 1;  // N = 2^32 + ...
  EXPECT_NE(expect_error(huge).find("limit"), std::string::npos);
  EXPECT_NE(expect_error(std::string(16, '\xFF')).find("limit"), std::string::npos);
  // Data section shorter than the offsets say (truncated tensor data).
  EXPECT_NE(expect_error(image(ok_header, data.substr(0, 5))).find("past the data section"),
            std::string::npos);
  // Header not JSON / not an object / not UTF-8.
  EXPECT_NE(expect_error(image("{\"a\": ", data)).find("JSON"), std::string::npos);
  expect_error(image("[1, 2]", ""));
  expect_error(image("{\"a\":\"\xFF\"}", ""));
  // Entry problems.
  expect_error(image(R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", data));
  expect_error(image(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", data));
  expect_error(image(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data));
  expect_error(image(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", data));
  expect_error(image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", data));
  expect_error(image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", data));
  expect_error(image(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data));
  expect_error(image(
      R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})", data));
  expect_error(image(R"({"a":7})", data));
  expect_error(
      image(R"({"__metadata__":{"format":1},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
            data));
  // Duplicate name, overlap, gap, bytes left over.
  EXPECT_NE(
      expect_error(
          image(
              R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              data))
          .find("twice"),
      std::string::npos);
  EXPECT_NE(
      expect_error(
          image(
              R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              data))
          .find("overlaps"),
      std::string::npos);
  EXPECT_NE(expect_error(image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data))
                .find("gap"),
            std::string::npos);
  EXPECT_NE(expect_error(image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", data))
                .find("after the last tensor"),
            std::string::npos);
}

TEST(SafetensorsTest, RandomCorruptionsNeverCrash) {
  // Fuzz-ish: flip bytes of a valid image (header and length area); every outcome is either a
  // valid file whose tensors read back or an InputError.
  TempDir dir;
  std::string path = (dir.path() / "ok.safetensors").string();
  write_safetensors(path, {{"w", torch::arange(6, torch::kFloat).reshape({2, 3})},
                           {"b", torch::ones({3}, torch::kBFloat16)}});
  const std::string good = slurp(path);
  std::mt19937 rng(12345);
  int errors = 0, valid = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::string bad = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      size_t pos = rng() % std::min<size_t>(bad.size(), 8 + 120);
      bad[pos] = static_cast<char>(rng() & 0xFF);
    }
    if (rng() % 5 == 0) bad.resize(rng() % bad.size());
    try {
      auto f = SafetensorsFile::from_bytes(bad, "fuzz");
      for (const auto& t : f.tensors()) (void)f.tensor(t);
      ++valid;
    } catch (const InputError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_EQ(errors + valid, 2000);
}

}  // namespace
}  // namespace unieval::models
