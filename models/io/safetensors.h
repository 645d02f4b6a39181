#pragma once
// Follows safetensors (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// safetensors read/write (the format of Hugging Face `safetensors` 0.3+, the default of
// `save_pretrained`): our own implementation over nlohmann/json and mmap.
//
// Layout: u64 little-endian N; N bytes of UTF-8 JSON (an object; writers pad it with spaces so
// that 8+N is a multiple of 8); the data section. The JSON maps each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the data section) and may
// hold "__metadata__": {string: string}.
//
//   auto st = unieval::models::SafetensorsFile::open("model.safetensors");   // validates
//   for (const auto& t : st.tensors()) std::cout << t.name << " " << t.dtype << "\n";
//   torch::Tensor w = st.tensor("bert.embeddings.word_embeddings.weight");   // a CPU copy
//   unieval::models::write_safetensors("out.safetensors", {{"w", w}}, {{"format", "pt"}});
//
// Validation on open (models/format/safetensors_header.h, LibTorch-free and fuzzed; each failure is
// an InputError naming the file, and the tensor when there is one), as strict as the reference Rust
// implementation so that hostile or truncated files never reach a tensor:
//   * file shorter than 8 bytes; N larger than the file or than 100,000,000 (the reference limit);
//   * header not UTF-8, not JSON, not an object, a duplicate name, "__metadata__" not string->string;
//   * an entry without a known dtype, a shape of non-negative integers, or two data_offsets
//     begin <= end; end - begin != numel x dtype size (checked for overflow);
//   * offsets past the data section, overlapping tensors, gaps between them, or data-section bytes
//     no tensor covers (the reference requires the tensors to tile the data section exactly).
// Dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL (F32/F16/BF16 for weights, I64 for HF's
// position_ids buffer). Data are little-endian (the format's rule; this host must be too).
#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/format/safetensors_header.h"  // SafetensorInfo; the validation below

namespace unieval::models {

// An open, validated, memory-mapped safetensors file.
class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::string& path);
  // Parses an in-memory image (tests, fuzzing); `source` names it in errors.
  static SafetensorsFile from_bytes(std::string bytes, const std::string& source = "<memory>");

  const std::string& path() const { return path_; }
  // By name (byte order), not in header order.
  const std::vector<SafetensorInfo>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // nullptr when absent.
  const SafetensorInfo* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  // The raw bytes of a tensor.
  std::string_view bytes(const SafetensorInfo& info) const;
  // A CPU tensor holding a copy of the data, in the file's dtype. InputError when absent.
  torch::Tensor tensor(std::string_view name) const;
  torch::Tensor tensor(const SafetensorInfo& info) const;

 private:
  struct Mapping;
  void parse();
  std::string path_;
  std::shared_ptr<const Mapping> map_;
  const unsigned char* data_ = nullptr;  // start of the data section
  uint64_t data_size_ = 0;
  std::vector<SafetensorInfo> tensors_;
  std::map<std::string, size_t, std::less<>> index_;
  std::map<std::string, std::string> metadata_;
};

// "F32" -> torch::kFloat32 etc.; InputError for a dtype we do not read.
torch::ScalarType safetensors_dtype(const std::string& dtype);
std::string safetensors_dtype_name(torch::ScalarType type);
size_t safetensors_dtype_size(const std::string& dtype);

// Writes tensors (any device; contiguous copies are made) in the given order, with
// "__metadata__" when non-empty. Atomic: a temporary file renamed over `path`. A repeated name
// is an InputError.
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace unieval::models
