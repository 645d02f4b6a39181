#pragma once
// Follows safetensors (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// The LibTorch-free half of the safetensors reader: the 8-byte length, the JSON header and the
// validation of every entry's dtype, shape and data_offsets against the data section (the rules of
// huggingface/safetensors `Metadata::validate`). models/io/safetensors.h opens, maps and reads tensors
// over it; fuzz/safetensors_fuzz.cc fuzzes it without LibTorch.
//
//   std::string image = core::read_file("model.safetensors");
//   auto h = unieval::models::parse_safetensors_header(
//       reinterpret_cast<const unsigned char*>(image.data()), image.size(), "model.safetensors");
//   for (const auto& t : h.tensors) std::cout << t.name << " " << t.dtype << "\n";
//   // tensor t's bytes: image.substr(h.data_offset + t.begin, t.end - t.begin)
//
// Each failure is an InputError(source, 0, problem) naming the tensor when there is one:
//   * fewer than 8 bytes; header length N larger than the bytes that follow or than 100,000,000;
//   * header not UTF-8, not JSON, not an object, a duplicate name, "__metadata__" not string->string;
//   * an entry without a known dtype, a shape of non-negative integers, or two data_offsets
//     begin <= end; end - begin != numel x dtype size (checked for overflow);
//   * offsets past the data section, overlapping tensors, gaps between them, or data-section bytes
//     no tensor covers (the tensors must tile the data section exactly).
// Dtypes and sizes: F64 8, F32 4, F16 2, BF16 2, I64 8, I32 4, I16 2, I8 1, U8 1, BOOL 1.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace unieval::models {

struct SafetensorInfo {
  std::string name;
  std::string dtype;            // "F32", "BF16", ...
  std::vector<int64_t> shape;   // may be empty (a scalar)
  uint64_t begin = 0, end = 0;  // byte offsets in the data section
};

// A validated header.
struct SafetensorsHeader {
  uint64_t data_offset = 0;             // where the data section starts (8 + N)
  uint64_t data_size = 0;               // bytes of the data section (to the end of the image)
  std::vector<SafetensorInfo> tensors;  // by name (byte order), not header order
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

// Parses and validates the image of a whole file (size bytes at data); source names it in errors.
SafetensorsHeader parse_safetensors_header(const unsigned char* data, uint64_t size,
                                           const std::string& source);

// Bytes per element of a safetensors dtype name, 0 for a dtype this reader does not know.
size_t safetensors_dtype_bytes(std::string_view dtype);

}  // namespace unieval::models
