// The LibTorch-free safetensors header parser (models/format/safetensors_header.h): what a valid
// header yields, and that its errors name the source and the tensor. The full set of hostile
// files runs through the LibTorch reader in tests/models/safetensors_test.cc, and fuzz_safetensors.
#include "models/format/safetensors_header.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace unieval::models {
namespace {

SafetensorsHeader parse(const std::string& header, const std::string& data) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  bytes += header + data;
  return parse_safetensors_header(reinterpret_cast<const unsigned char*>(bytes.data()),
                                  bytes.size(), "m.safetensors");
}

TEST(SafetensorsHeaderTest, ValidHeaderGivesOffsetsByName) {
  const std::string header =
      R"({"b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},"__metadata__":{"format":"pt"},)"
      R"("a":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}  )";
  SafetensorsHeader h = parse(header, std::string(12, '\0'));
  EXPECT_EQ(h.data_offset, 8 + header.size());
  EXPECT_EQ(h.data_size, 12u);
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[0].name, "a");
  EXPECT_EQ(h.tensors[0].dtype, "I64");
  EXPECT_TRUE(h.tensors[0].shape.empty());
  EXPECT_EQ(h.tensors[1].name, "b");
  EXPECT_EQ(h.tensors[1].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(h.tensors[1].begin, 8u);
  EXPECT_EQ(h.tensors[1].end, 12u);
  EXPECT_EQ(h.metadata.at("format"), "pt");
  EXPECT_TRUE(parse("{}", "").tensors.empty());
}

TEST(SafetensorsHeaderTest, ErrorsNameTheSourceAndTheTensor) {
  try {
    parse(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0'));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "m.safetensors");
    EXPECT_NE(
        std::string(e.what()).find("tensor 'w': data_offsets span 8 bytes but F32 [3] needs 12"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_safetensors_header(nullptr, 0, "empty"), InputError);
}

TEST(SafetensorsHeaderTest, DtypeSizes) {
  EXPECT_EQ(safetensors_dtype_bytes("F64"), 8u);
  EXPECT_EQ(safetensors_dtype_bytes("BF16"), 2u);
  EXPECT_EQ(safetensors_dtype_bytes("BOOL"), 1u);
  EXPECT_EQ(safetensors_dtype_bytes("F8_E4M3"), 0u);
  EXPECT_EQ(safetensors_dtype_bytes("f32"), 0u);
}

}  // namespace
}  // namespace unieval::models
