// Follows safetensors (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// safetensors reader/writer over LibTorch; the header and its validation are
// models/format/safetensors_header.cc (LibTorch-free, fuzzed).
#include "models/io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"

namespace unieval::models {

namespace {

// The LibTorch side of the dtype table; sizes come from models/format/safetensors_header.h.
struct DTypeRow {
  const char* name;
  torch::ScalarType type;
};
constexpr DTypeRow kDTypes[] = {
    {"F64", torch::kFloat64},   {"F32", torch::kFloat32}, {"F16", torch::kFloat16},
    {"BF16", torch::kBFloat16}, {"I64", torch::kInt64},   {"I32", torch::kInt32},
    {"I16", torch::kInt16},     {"I8", torch::kInt8},     {"U8", torch::kUInt8},
    {"BOOL", torch::kBool},
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
  const size_t size = safetensors_dtype_bytes(dtype);
  if (size == 0) throw InputError("unsupported safetensors dtype '" + dtype + "'");
  return size;
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
  SafetensorsHeader h = parse_safetensors_header(map_->data, map_->size, path_);
  data_ = map_->data + h.data_offset;
  data_size_ = h.data_size;
  tensors_ = std::move(h.tensors);
  metadata_ = std::move(h.metadata);
  index_.clear();
  for (size_t i = 0; i < tensors_.size(); ++i) index_[tensors_[i].name] = i;
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
  torch::Tensor t =
      torch::empty(info.shape, torch::TensorOptions().dtype(safetensors_dtype(info.dtype)));
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
  uint64_t offset = 0;
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw InputError(path, 0, "a tensor cannot be named __metadata__");
    if (!names.insert(name).second) throw InputError(path, 0, "tensor '" + name + "' given twice");
    if (!t.defined()) throw InputError(path, 0, "tensor '" + name + "' is undefined");
    nlohmann::ordered_json e;
    e["dtype"] = safetensors_dtype_name(t.scalar_type());
    e["shape"] = t.sizes().vec();
    uint64_t nbytes = t.numel() * t.element_size();
    e["data_offsets"] = {offset, offset + nbytes};
    offset += nbytes;
    header[name] = std::move(e);
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
  // One tensor at a time: a host copy (from a device, or of a non-contiguous view) lives only
  // while it is written, so writing never holds a second copy of the whole set.
  for (const auto& [name, t] : tensors) {
    torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    size_t nb = c.numel() * c.element_size();
    if (ok && nb) ok &= std::fwrite(c.data_ptr(), 1, nb, f) == nb;
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
