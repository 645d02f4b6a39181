// Follows safetensors (Apache-2.0) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
// safetensors reader/writer; the validation rules follow the reference implementation
// (huggingface/safetensors `Metadata::validate`): tensors tile the data section exactly.
#include "models/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "core/io.h"

namespace unieval::models {

namespace {

constexpr uint64_t kMaxHeader = 100'000'000;  // the reference's MAX_HEADER_SIZE

struct DTypeRow {
  const char* name;
  torch::ScalarType type;
  size_t size;
};
constexpr DTypeRow kDTypes[] = {
    {"F64", torch::kFloat64, 8}, {"F32", torch::kFloat32, 4}, {"F16", torch::kFloat16, 2},
    {"BF16", torch::kBFloat16, 2}, {"I64", torch::kInt64, 8}, {"I32", torch::kInt32, 4},
    {"I16", torch::kInt16, 2},   {"I8", torch::kInt8, 1},     {"U8", torch::kUInt8, 1},
    {"BOOL", torch::kBool, 1},
};

const DTypeRow* find_dtype(const std::string& name) {
  for (const auto& row : kDTypes)
    if (name == row.name) return &row;
  return nullptr;
}

bool host_is_little_endian() {
  uint16_t x = 1;
  unsigned char c;
  std::memcpy(&c, &x, 1);
  return c == 1;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

struct SafetensorsFile::Mapping {
  const unsigned char* data = nullptr;
  uint64_t size = 0;
  void* mmap_base = nullptr;
  std::string owned;
  ~Mapping() {
    if (mmap_base) munmap(mmap_base, size);
  }
};

torch::ScalarType safetensors_dtype(const std::string& dtype) {
  const DTypeRow* row = find_dtype(dtype);
  if (!row) throw InputError("unsupported safetensors dtype '" + dtype + "'");
  return row->type;
}

size_t safetensors_dtype_size(const std::string& dtype) {
  const DTypeRow* row = find_dtype(dtype);
  if (!row) throw InputError("unsupported safetensors dtype '" + dtype + "'");
  return row->size;
}

std::string safetensors_dtype_name(torch::ScalarType type) {
  for (const auto& row : kDTypes)
    if (row.type == type) return row.name;
  throw InputError(std::string("cannot write tensors of dtype ") + c10::toString(type) +
                   " to safetensors");
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  if (!host_is_little_endian()) throw std::runtime_error("safetensors needs a little-endian host");
  SafetensorsFile f;
  f.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, "not a regular file");
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<uint64_t>(st.st_size);
  if (m->size > 0) {
    void* p = mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw InputError(path, 0, std::string("cannot map: ") + std::strerror(errno));
    }
    m->mmap_base = p;
    m->data = static_cast<const unsigned char*>(p);
  }
  ::close(fd);
  f.map_ = m;
  f.parse();
  return f;
}

SafetensorsFile SafetensorsFile::from_bytes(std::string bytes, const std::string& source) {
  SafetensorsFile f;
  f.path_ = source;
  auto m = std::make_shared<Mapping>();
  m->owned = std::move(bytes);
  m->data = reinterpret_cast<const unsigned char*>(m->owned.data());
  m->size = m->owned.size();
  f.map_ = m;
  f.parse();
  return f;
}

void SafetensorsFile::parse() {
  const unsigned char* base = map_->data;
  const uint64_t size = map_->size;
  auto fail = [&](const std::string& what) { return InputError(path_, 0, what); };
  if (size < 8)
    throw fail("truncated safetensors file: " + std::to_string(size) +
               " bytes, less than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | base[i];
  if (n > kMaxHeader)
    throw fail("safetensors header length " + std::to_string(n) + " exceeds the limit of " +
               std::to_string(kMaxHeader) + " bytes (not a safetensors file?)");
  if (n > size - 8)
    throw fail("truncated safetensors file: header length " + std::to_string(n) +
               " but only " + std::to_string(size - 8) + " bytes follow");
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
        header,
        [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
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

  data_ = base + 8 + n;
  data_size_ = size - 8 - n;
  tensors_.clear();
  index_.clear();
  metadata_.clear();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) throw fail("__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          throw fail("__metadata__ value of '" + m.key() + "' is not a string");
        metadata_[m.key()] = m.value().get<std::string>();
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
    const DTypeRow* row = find_dtype(info.dtype);
    if (!row) throw bad("unsupported dtype '" + info.dtype + "'");
    auto s = v.find("shape");
    if (s == v.end() || !s->is_array()) throw bad("missing array \"shape\"");
    uint64_t numel = 1;
    bool overflow = false;
    for (const auto& dim : *s) {
      if (!dim.is_number_unsigned()) throw bad("shape " + s->dump() + " is not a list of non-negative integers");
      uint64_t x = dim.get<uint64_t>();
      if (x > static_cast<uint64_t>(INT64_MAX)) throw bad("shape dimension too large");
      info.shape.push_back(static_cast<int64_t>(x));
      overflow |= __builtin_mul_overflow(numel, x, &numel);
    }
    uint64_t nbytes = 0;
    overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(row->size), &nbytes);
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
    if (info.end > data_size_)
      throw bad("data_offsets end " + std::to_string(info.end) + " is past the data section (" +
                std::to_string(data_size_) + " bytes; truncated file?)");
    if (info.end - info.begin != nbytes)
      throw bad("data_offsets span " + std::to_string(info.end - info.begin) + " bytes but " +
                info.dtype + " " + shape_str(info.shape) + " needs " + std::to_string(nbytes));
    index_[name] = tensors_.size();
    tensors_.push_back(std::move(info));
  }
  // The tensors must tile the data section: no overlap, no gap, nothing left over.
  std::vector<const SafetensorInfo*> order;
  for (const auto& t : tensors_) order.push_back(&t);
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
  if (expected != data_size_)
    throw fail("data section has " + std::to_string(data_size_ - expected) +
               " bytes after the last tensor (file and header disagree)");
}

const SafetensorInfo* SafetensorsFile::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

std::string_view SafetensorsFile::bytes(const SafetensorInfo& info) const {
  return std::string_view(reinterpret_cast<const char*>(data_ + info.begin), info.end - info.begin);
}

torch::Tensor SafetensorsFile::tensor(std::string_view name) const {
  const SafetensorInfo* info = find(name);
  if (!info) throw InputError(path_, 0, "no tensor named '" + std::string(name) + "'");
  return tensor(*info);
}

torch::Tensor SafetensorsFile::tensor(const SafetensorInfo& info) const {
  torch::Tensor t = torch::empty(info.shape, torch::TensorOptions().dtype(safetensors_dtype(info.dtype)));
  std::string_view b = bytes(info);
  if (!b.empty()) std::memcpy(t.data_ptr(), b.data(), b.size());  // the data may be unaligned
  if (info.dtype == "BOOL") {
    // A byte other than 0/1 is not a valid bool; normalise instead of trusting it.
    t = t.view(torch::kUInt8).ne(0);
  }
  return t;
}

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  if (!host_is_little_endian()) throw std::runtime_error("safetensors needs a little-endian host");
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) header["__metadata__"][k] = v;
  }
  std::vector<torch::Tensor> cpu;
  cpu.reserve(tensors.size());
  uint64_t offset = 0;
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw InputError(path, 0, "a tensor cannot be named __metadata__");
    if (!names.insert(name).second) throw InputError(path, 0, "tensor '" + name + "' given twice");
    if (!t.defined()) throw InputError(path, 0, "tensor '" + name + "' is undefined");
    torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    nlohmann::ordered_json e;
    e["dtype"] = safetensors_dtype_name(c.scalar_type());
    e["shape"] = c.sizes().vec();
    uint64_t nbytes = c.numel() * c.element_size();
    e["data_offsets"] = {offset, offset + nbytes};
    offset += nbytes;
    header[name] = std::move(e);
    cpu.push_back(std::move(c));
  }
  std::string h = header.dump();
  while ((8 + h.size()) % 8 != 0) h.push_back(' ');

  std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw InputError(path, 0, std::string("cannot write: ") + std::strerror(errno));
  bool ok = true;
  unsigned char len[8];
  uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>((n >> (8 * i)) & 0xFF);
  ok &= std::fwrite(len, 1, 8, f) == 8;
  ok &= std::fwrite(h.data(), 1, h.size(), f) == h.size();
  for (const auto& c : cpu) {
    size_t nb = c.numel() * c.element_size();
    if (nb) ok &= std::fwrite(c.data_ptr(), 1, nb, f) == nb;
  }
  ok &= std::fflush(f) == 0;
  ok &= std::fclose(f) == 0;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw InputError(path, 0, std::string("cannot write: ") + std::strerror(err));
  }
}

}  // namespace unieval::models
