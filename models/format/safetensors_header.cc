// Follows safetensors (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// safetensors header parsing and validation without LibTorch (models/format/safetensors_header.h);
// the rules follow the reference implementation (huggingface/safetensors `Metadata::validate`):
// tensors tile the data section exactly.
#include "models/format/safetensors_header.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "core/io.h"

namespace unieval::models {

namespace {

constexpr uint64_t kMaxHeader = 100'000'000;  // the reference's MAX_HEADER_SIZE

struct DTypeSize {
  std::string_view name;
  size_t size;
};
constexpr DTypeSize kDTypeSizes[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
    {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1},
};

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

size_t safetensors_dtype_bytes(std::string_view dtype) {
  for (const auto& row : kDTypeSizes)
    if (dtype == row.name) return row.size;
  return 0;
}

SafetensorsHeader parse_safetensors_header(const unsigned char* base, uint64_t size,
                                           const std::string& source) {
  auto fail = [&](const std::string& what) { return InputError(source, 0, what); };
  if (size < 8)
    throw fail("truncated safetensors file: " + std::to_string(size) +
               " bytes, less than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | base[i];
  if (n > kMaxHeader)
    throw fail("safetensors header length " + std::to_string(n) + " exceeds the limit of " +
               std::to_string(kMaxHeader) + " bytes (not a safetensors file?)");
  if (n > size - 8)
    throw fail("truncated safetensors file: header length " + std::to_string(n) + " but only " +
               std::to_string(size - 8) + " bytes follow");
  std::string_view header(reinterpret_cast<const char*>(base + 8), n);
  if (size_t bad = core::find_invalid_utf8(header); bad != std::string::npos)
    throw fail("safetensors header is not UTF-8 (byte " + std::to_string(8 + bad) + ")");
  size_t first = header.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || header[first] != '{')
    throw fail("safetensors header is not a JSON object");

  std::set<std::string> seen;
  std::string duplicate;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(
        header, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (depth == 1 && event == nlohmann::json::parse_event_t::key && parsed.is_string()) {
            const auto& k = parsed.get_ref<const std::string&>();
            if (!seen.insert(k).second && duplicate.empty()) duplicate = k;
          }
          return true;
        });
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("safetensors header is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw fail("safetensors header is not a JSON object");
  if (!duplicate.empty()) throw fail("safetensors header names '" + duplicate + "' twice");

  SafetensorsHeader h;
  h.data_offset = 8 + n;
  h.data_size = size - 8 - n;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) throw fail("__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          throw fail("__metadata__ value of '" + m.key() + "' is not a string");
        h.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    auto bad = [&](const std::string& what) { return fail("tensor '" + name + "': " + what); };
    if (!v.is_object()) throw bad("entry is not an object");
    SafetensorInfo info;
    info.name = name;
    auto d = v.find("dtype");
    if (d == v.end() || !d->is_string()) throw bad("missing string \"dtype\"");
    info.dtype = d->get<std::string>();
    const size_t elem = safetensors_dtype_bytes(info.dtype);
    if (elem == 0) throw bad("unsupported dtype '" + info.dtype + "'");
    auto s = v.find("shape");
    if (s == v.end() || !s->is_array()) throw bad("missing array \"shape\"");
    uint64_t numel = 1;
    bool overflow = false;
    for (const auto& dim : *s) {
      if (!dim.is_number_unsigned())
        throw bad("shape " + s->dump() + " is not a list of non-negative integers");
      uint64_t x = dim.get<uint64_t>();
      if (x > static_cast<uint64_t>(INT64_MAX)) throw bad("shape dimension too large");
      info.shape.push_back(static_cast<int64_t>(x));
      overflow |= __builtin_mul_overflow(numel, x, &numel);
    }
    uint64_t nbytes = 0;
    overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(elem), &nbytes);
    if (overflow) throw bad("shape " + s->dump() + " overflows");
    auto o = v.find("data_offsets");
    if (o == v.end() || !o->is_array() || o->size() != 2 || !(*o)[0].is_number_unsigned() ||
        !(*o)[1].is_number_unsigned())
      throw bad("\"data_offsets\" is not [begin, end] of non-negative integers");
    info.begin = (*o)[0].get<uint64_t>();
    info.end = (*o)[1].get<uint64_t>();
    if (info.begin > info.end)
      throw bad("data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end) +
                "] has begin > end");
    if (info.end > h.data_size)
      throw bad("data_offsets end " + std::to_string(info.end) + " is past the data section (" +
                std::to_string(h.data_size) + " bytes; truncated file?)");
    if (info.end - info.begin != nbytes)
      throw bad("data_offsets span " + std::to_string(info.end - info.begin) + " bytes but " +
                info.dtype + " " + shape_str(info.shape) + " needs " + std::to_string(nbytes));
    h.tensors.push_back(std::move(info));
  }
  // The tensors must tile the data section: no overlap, no gap, nothing left over.
  std::vector<const SafetensorInfo*> order;
  for (const auto& t : h.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const SafetensorInfo* a, const SafetensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t expected = 0;
  const SafetensorInfo* prev = nullptr;
  for (const auto* t : order) {
    if (t->begin < expected)
      throw fail("tensor '" + t->name + "' overlaps '" + (prev ? prev->name : "") + "' (offset " +
                 std::to_string(t->begin) + " < " + std::to_string(expected) + ")");
    if (t->begin > expected)
      throw fail("gap in the data section before tensor '" + t->name + "' (bytes " +
                 std::to_string(expected) + ".." + std::to_string(t->begin) + " unused)");
    expected = t->end;
    prev = t;
  }
  if (expected != h.data_size)
    throw fail("data section has " + std::to_string(h.data_size - expected) +
               " bytes after the last tensor (file and header disagree)");
  return h;
}

}  // namespace unieval::models
