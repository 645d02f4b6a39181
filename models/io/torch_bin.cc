// Follows PyTorch (BSD-3-Clause) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// PyTorch state-dict files; see torch_bin.h (torch.save's layouts, the documented pickle opcodes).
#include "models/io/torch_bin.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/error.h"

namespace unieval::models {

namespace {

constexpr size_t kMaxDepth = 64;          // nested containers / marks
constexpr size_t kMaxObjects = 10000000;  // objects created by one pickle
constexpr int kMaxDims = 64;

struct Obj;
using ObjPtr = std::shared_ptr<Obj>;

struct StorageRef {
  std::string key;
  torch::ScalarType dtype = torch::kFloat;
  int64_t numel = 0;
};

struct TensorRef {
  StorageRef storage;
  int64_t offset = 0;
  std::vector<int64_t> size, stride;
};

struct Obj {
  enum Kind {
    kNone,
    kBool,
    kInt,
    kBigInt,
    kFloat,
    kStr,
    kTuple,
    kList,
    kDict,
    kGlobal,
    kStorage,
    kTensor
  };
  Kind kind = kNone;
  int64_t i = 0;
  double f = 0;
  std::string s;  // str, raw little-endian bytes of a big int, global "module.name"
  std::vector<ObjPtr> items;
  std::vector<std::pair<ObjPtr, ObjPtr>> dict;
  StorageRef storage;
  TensorRef tensor;
};

const char* kind_name(Obj::Kind k) {
  switch (k) {
    case Obj::kNone:
      return "None";
    case Obj::kBool:
      return "bool";
    case Obj::kInt:
      return "int";
    case Obj::kBigInt:
      return "int";
    case Obj::kFloat:
      return "float";
    case Obj::kStr:
      return "str";
    case Obj::kTuple:
      return "tuple";
    case Obj::kList:
      return "list";
    case Obj::kDict:
      return "dict";
    case Obj::kGlobal:
      return "global";
    case Obj::kStorage:
      return "storage";
    case Obj::kTensor:
      return "tensor";
  }
  return "?";
}

bool storage_dtype(const std::string& global, torch::ScalarType* out) {
  static const std::map<std::string, torch::ScalarType> kTypes = {
      {"torch.FloatStorage", torch::kFloat}, {"torch.DoubleStorage", torch::kDouble},
      {"torch.HalfStorage", torch::kHalf},   {"torch.BFloat16Storage", torch::kBFloat16},
      {"torch.LongStorage", torch::kLong},   {"torch.IntStorage", torch::kInt},
      {"torch.ShortStorage", torch::kShort}, {"torch.CharStorage", torch::kChar},
      {"torch.ByteStorage", torch::kByte},   {"torch.BoolStorage", torch::kBool}};
  auto it = kTypes.find(global);
  if (it == kTypes.end()) return false;
  *out = it->second;
  return true;
}

const std::set<std::string>& allowed_globals() {
  static const std::set<std::string> kAllowed = {
      "collections.OrderedDict", "torch._utils._rebuild_tensor_v2",
      "torch._utils._rebuild_parameter", "torch.jit._pickle.restore_type_tag"};
  return kAllowed;
}

// One pickle stream, from `pos` of `data`; leaves `pos` after its STOP.
class Unpickler {
 public:
  Unpickler(const std::string& data, size_t& pos, const std::string& source)
      : d_(data), pos_(pos), source_(source) {}

  ObjPtr load() {
    for (;;) {
      const uint8_t op = u8();
      if (scalar_op(op) || container_op(op)) continue;
      switch (op) {
        case 0x80: {  // PROTO
          const uint8_t p = u8();
          if (p < 2 || p > 5) fail("unsupported pickle protocol " + std::to_string(p));
          break;
        }
        case 0x95:
          take(8);
          break;     // FRAME (length ignored)
        case '.': {  // STOP
          if (stack_.size() != 1 || !marks_.empty()) fail("malformed pickle (stack at STOP)");
          return stack_.back();
        }
        case '(':
          marks_.push_back(stack_.size());
          depth_check();
          break;
        case 'c': {  // GLOBAL "module\nname\n"
          std::string module = line(), name = line();
          global(module + "." + name);
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          ObjPtr name = pop(), module = pop();
          if (name->kind != Obj::kStr || module->kind != Obj::kStr) fail("malformed STACK_GLOBAL");
          global(module->s + "." + name->s);
          break;
        }
        case 'R': {
          ObjPtr args = pop();
          ObjPtr fn = pop();
          push(reduce(fn, args));
          break;
        }
        case 0x81: {
          ObjPtr args = pop();
          ObjPtr cls = pop();
          push(reduce(cls, args));
          break;
        }            // NEWOBJ
        case 'b': {  // BUILD: only OrderedDict's attribute state, ignored
          ObjPtr state = pop();
          if (top()->kind != Obj::kDict) fail("BUILD on a " + std::string(kind_name(top()->kind)));
          (void)state;
          break;
        }
        case 'Q':
          push(persistent(pop()));
          break;  // BINPERSID
        case 'q':
          memo_put(u8());
          break;
        case 'r':
          memo_put(le(4));
          break;
        case 0x94:
          memo_put(memo_.size());
          break;  // MEMOIZE
        case 'h':
          memo_get(u8());
          break;
        case 'j':
          memo_get(le(4));
          break;
        default: {
          char buf[8];
          std::snprintf(buf, sizeof buf, "0x%02x", op);
          fail(std::string("unsupported pickle opcode ") + buf +
               " (only plain state dicts are read)");
        }
      }
    }
  }

  // The opcodes that push a scalar (None, bools, ints, floats, strings); false for any other.
  bool scalar_op(uint8_t op) {
    switch (op) {
      case 'N':
        push(make(Obj::kNone));
        return true;
      case 0x88:
      case 0x89: {
        auto o = make(Obj::kBool);
        o->i = op == 0x88;
        push(o);
        return true;
      }
      case 'J': {
        auto o = make(Obj::kInt);
        o->i = static_cast<int32_t>(le(4));
        push(o);
        return true;
      }
      case 'K': {
        auto o = make(Obj::kInt);
        o->i = u8();
        push(o);
        return true;
      }
      case 'M': {
        auto o = make(Obj::kInt);
        o->i = static_cast<int64_t>(le(2));
        push(o);
        return true;
      }
      case 0x8a: {  // LONG1
        const size_t n = u8();
        std::string bytes = take(n);
        auto o = make(Obj::kInt);
        if (n > 8) {
          o->kind = Obj::kBigInt;
          o->s = bytes;
        } else if (n > 0) {
          uint64_t v = 0;
          for (size_t k = 0; k < n; ++k) v |= uint64_t(uint8_t(bytes[k])) << (8 * k);
          if (n < 8 && (uint8_t(bytes[n - 1]) & 0x80)) v |= ~uint64_t(0) << (8 * n);  // sign
          o->i = static_cast<int64_t>(v);
        }
        push(o);
        return true;
      }
      case 'G': {  // BINFLOAT, big-endian
        std::string b = take(8);
        uint64_t v = 0;
        for (int k = 0; k < 8; ++k) v = (v << 8) | uint8_t(b[k]);
        auto o = make(Obj::kFloat);
        std::memcpy(&o->f, &v, 8);
        push(o);
        return true;
      }
      case 'X':
        str(le(4));
        return true;  // BINUNICODE
      case 0x8c:
        str(u8());
        return true;  // SHORT_BINUNICODE
      case 0x8d:
        str(le(8));
        return true;  // BINUNICODE8
      case 'T':
        str(le(4));
        return true;  // BINSTRING (py2)
      case 'U':
        str(u8());
        return true;  // SHORT_BINSTRING (py2)
      default:
        return false;
    }
  }

  // The opcodes that build or fill tuples, lists and dicts; false for any other.
  bool container_op(uint8_t op) {
    switch (op) {
      case ')':
        push(make(Obj::kTuple));
        return true;
      case 't': {
        auto o = make(Obj::kTuple);
        o->items = pop_mark();
        push(o);
        return true;
      }
      case 0x85:
      case 0x86:
      case 0x87: {
        const size_t n = op - 0x84;
        if (stack_.size() < n + base()) fail("malformed pickle (TUPLE on a short stack)");
        auto o = make(Obj::kTuple);
        o->items.assign(stack_.end() - n, stack_.end());
        stack_.resize(stack_.size() - n);
        push(o);
        return true;
      }
      case ']':
        push(make(Obj::kList));
        return true;
      case 'l': {
        auto o = make(Obj::kList);
        o->items = pop_mark();
        push(o);
        return true;
      }
      case 'a': {
        ObjPtr v = pop();
        append(top(), {v});
        return true;
      }
      case 'e': {
        auto items = pop_mark();
        append(top(), items);
        return true;
      }
      case '}':
        push(make(Obj::kDict));
        return true;
      case 'd': {
        auto o = make(Obj::kDict);
        set_items(o, pop_mark());
        push(o);
        return true;
      }
      case 's': {
        ObjPtr v = pop();
        ObjPtr k = pop();
        set_items(top(), {k, v});
        return true;
      }
      case 'u': {
        auto items = pop_mark();
        set_items(top(), items);
        return true;
      }
      default:
        return false;
    }
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(source_, 0, why + " at byte " + std::to_string(pos_));
  }

 private:
  uint8_t u8() {
    if (pos_ >= d_.size()) fail("truncated pickle");
    return static_cast<uint8_t>(d_[pos_++]);
  }
  uint64_t le(size_t n) {
    std::string b = take(n);
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t(uint8_t(b[k])) << (8 * k);
    return v;
  }
  std::string take(uint64_t n) {
    if (n > d_.size() - pos_) fail("truncated pickle");
    std::string out = d_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string line() {
    size_t end = d_.find('\n', pos_);
    if (end == std::string::npos || end - pos_ > 256) fail("malformed GLOBAL");
    std::string out = d_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  ObjPtr make(Obj::Kind k) {
    if (++objects_ > kMaxObjects) fail("too many objects in pickle");
    auto o = std::make_shared<Obj>();
    o->kind = k;
    return o;
  }
  void depth_check() {
    if (marks_.size() > kMaxDepth) fail("pickle nested too deeply");
  }
  size_t base() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(ObjPtr o) { stack_.push_back(std::move(o)); }
  ObjPtr pop() {
    if (stack_.size() <= base()) fail("malformed pickle (pop from an empty stack)");
    ObjPtr o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  ObjPtr& top() {
    if (stack_.size() <= base()) fail("malformed pickle (empty stack)");
    return stack_.back();
  }
  std::vector<ObjPtr> pop_mark() {
    if (marks_.empty()) fail("malformed pickle (no MARK)");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ObjPtr> items(stack_.begin() + m, stack_.end());
    stack_.resize(m);
    return items;
  }
  void str(uint64_t n) {
    auto o = make(Obj::kStr);
    o->s = take(n);
    push(o);
  }
  void append(const ObjPtr& list, const std::vector<ObjPtr>& items) {
    if (list->kind != Obj::kList) fail("APPEND to a " + std::string(kind_name(list->kind)));
    list->items.insert(list->items.end(), items.begin(), items.end());
  }
  void set_items(const ObjPtr& dict, const std::vector<ObjPtr>& kv) {
    if (dict->kind != Obj::kDict) fail("SETITEM on a " + std::string(kind_name(dict->kind)));
    if (kv.size() % 2) fail("malformed pickle (odd SETITEMS)");
    for (size_t k = 0; k < kv.size(); k += 2) dict->dict.emplace_back(kv[k], kv[k + 1]);
  }
  void global(const std::string& name) {
    torch::ScalarType t;
    if (!allowed_globals().count(name) && !storage_dtype(name, &t))
      fail("refusing pickle global '" + name + "' (only plain state dicts are read)");
    auto o = make(Obj::kGlobal);
    o->s = name;
    push(o);
  }
  void memo_put(uint64_t k) {
    if (k > kMaxObjects) fail("memo index too large");
    memo_[k] = top();
  }
  void memo_get(uint64_t k) {
    auto it = memo_.find(k);
    if (it == memo_.end()) fail("memo key " + std::to_string(k) + " not defined");
    push(it->second);
  }
  static bool is_int(const ObjPtr& o) { return o->kind == Obj::kInt; }
  std::vector<int64_t> ints(const ObjPtr& t, const char* what) {
    if (t->kind != Obj::kTuple) fail(std::string(what) + " is not a tuple");
    if (t->items.size() > kMaxDims) fail(std::string(what) + " has too many dimensions");
    std::vector<int64_t> out;
    for (const auto& x : t->items) {
      if (!is_int(x) || x->i < 0)
        fail(std::string(what) + " holds a non-integer or negative value");
      out.push_back(x->i);
    }
    return out;
  }
  ObjPtr reduce(const ObjPtr& fn, const ObjPtr& args) {
    if (fn->kind != Obj::kGlobal) fail("REDUCE of a " + std::string(kind_name(fn->kind)));
    if (args->kind != Obj::kTuple) fail("REDUCE arguments are not a tuple");
    const auto& a = args->items;
    if (fn->s == "collections.OrderedDict") {
      if (!a.empty()) fail("OrderedDict with constructor arguments");
      return make(Obj::kDict);
    }
    if (fn->s == "torch.jit._pickle.restore_type_tag") {
      if (a.empty()) fail("restore_type_tag without arguments");
      return a[0];
    }
    if (fn->s == "torch._utils._rebuild_parameter") {
      if (a.empty() || a[0]->kind != Obj::kTensor) fail("_rebuild_parameter of a non-tensor");
      return a[0];
    }
    if (fn->s == "torch._utils._rebuild_tensor_v2") {
      if (a.size() < 4 || a[0]->kind != Obj::kStorage || !is_int(a[1]))
        fail("_rebuild_tensor_v2 with unexpected arguments");
      auto o = make(Obj::kTensor);
      o->tensor.storage = a[0]->storage;
      o->tensor.offset = a[1]->i;
      o->tensor.size = ints(a[2], "tensor size");
      o->tensor.stride = ints(a[3], "tensor stride");
      if (o->tensor.size.size() != o->tensor.stride.size() || o->tensor.offset < 0)
        fail("tensor size and stride disagree");
      return o;
    }
    fail("refusing to call '" + fn->s + "'");
  }
  ObjPtr persistent(const ObjPtr& pid) {
    if (pid->kind != Obj::kTuple || pid->items.size() < 5 || pid->items.size() > 6 ||
        pid->items[0]->kind != Obj::kStr || pid->items[0]->s != "storage" ||
        pid->items[1]->kind != Obj::kGlobal || pid->items[2]->kind != Obj::kStr ||
        !is_int(pid->items[4]) || pid->items[4]->i < 0)
      fail("unsupported persistent id (expected ('storage', type, key, location, numel))");
    if (pid->items.size() == 6 && pid->items[5]->kind != Obj::kNone)
      fail("storage views (PyTorch < 0.4 files) are not supported");
    auto o = make(Obj::kStorage);
    if (!storage_dtype(pid->items[1]->s, &o->storage.dtype))
      fail("unsupported storage type '" + pid->items[1]->s + "'");
    o->storage.key = pid->items[2]->s;
    o->storage.numel = pid->items[4]->i;
    return o;
  }

  const std::string& d_;
  size_t& pos_;
  const std::string& source_;
  std::vector<ObjPtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, ObjPtr> memo_;
  size_t objects_ = 0;
};

ObjPtr unpickle(const std::string& data, size_t& pos, const std::string& source) {
  Unpickler u(data, pos, source);
  return u.load();
}

// --- zip (stored entries only) -------------------------------------------------------------

struct ZipEntry {
  uint64_t offset = 0;  // of the data
  uint64_t size = 0;
};

uint64_t rd(const std::string& d, uint64_t at, int n, const std::string& source) {
  if (at > d.size() || uint64_t(n) > d.size() - at)
    throw InputError(source, 0, "truncated zip archive");
  uint64_t v = 0;
  for (int k = 0; k < n; ++k) v |= uint64_t(uint8_t(d[at + k])) << (8 * k);
  return v;
}

std::map<std::string, ZipEntry> read_zip(const std::string& d, const std::string& source) {
  if (d.size() < 22) throw InputError(source, 0, "truncated zip archive");
  // End of central directory: the last signature within 22 + 65535 bytes of the end.
  int64_t eocd = -1;
  const int64_t lowest = std::max<int64_t>(0, int64_t(d.size()) - 22 - 65535);
  for (int64_t p = int64_t(d.size()) - 22; p >= lowest; --p)
    if (rd(d, p, 4, source) == 0x06054b50) {
      eocd = p;
      break;
    }
  if (eocd < 0) throw InputError(source, 0, "zip archive without an end of central directory");
  uint64_t entries = rd(d, eocd + 10, 2, source);
  uint64_t cd_offset = rd(d, eocd + 16, 4, source);
  if (entries == 0xFFFF || cd_offset == 0xFFFFFFFF) {  // zip64 end of central directory
    if (eocd < 20 || rd(d, eocd - 20, 4, source) != 0x07064b50)
      throw InputError(source, 0, "zip64 archive without its locator");
    const uint64_t z = rd(d, eocd - 20 + 8, 8, source);
    if (rd(d, z, 4, source) != 0x06064b50) throw InputError(source, 0, "bad zip64 end record");
    entries = rd(d, z + 32, 8, source);
    cd_offset = rd(d, z + 48, 8, source);
  }
  if (entries > 1000000) throw InputError(source, 0, "zip archive with too many entries");
  std::map<std::string, ZipEntry> out;
  uint64_t p = cd_offset;
  for (uint64_t e = 0; e < entries; ++e) {
    if (rd(d, p, 4, source) != 0x02014b50) throw InputError(source, 0, "bad zip central directory");
    const uint64_t method = rd(d, p + 10, 2, source);
    uint64_t csize = rd(d, p + 20, 4, source), usize = rd(d, p + 24, 4, source);
    const uint64_t nlen = rd(d, p + 28, 2, source), xlen = rd(d, p + 30, 2, source),
                   clen = rd(d, p + 32, 2, source);
    uint64_t local = rd(d, p + 42, 4, source);
    if (p + 46 + nlen > d.size()) throw InputError(source, 0, "truncated zip archive");
    std::string name = d.substr(p + 46, nlen);
    // zip64 extra field: the 0xFFFFFFFF fields, in order usize, csize, local.
    for (uint64_t x = p + 46 + nlen; x + 4 <= p + 46 + nlen + xlen;) {
      const uint64_t id = rd(d, x, 2, source), len = rd(d, x + 2, 2, source);
      if (id == 0x0001) {
        uint64_t q = x + 4;
        if (usize == 0xFFFFFFFF) usize = rd(d, q, 8, source), q += 8;
        if (csize == 0xFFFFFFFF) csize = rd(d, q, 8, source), q += 8;
        if (local == 0xFFFFFFFF) local = rd(d, q, 8, source), q += 8;
      }
      x += 4 + len;
    }
    if (method != 0)
      throw InputError(source, 0,
                       "zip entry '" + name + "' is compressed (torch.save stores entries)");
    if (csize != usize)
      throw InputError(source, 0, "zip entry '" + name + "' has inconsistent sizes");
    if (rd(d, local, 4, source) != 0x04034b50)
      throw InputError(source, 0, "zip entry '" + name + "' has no local header");
    const uint64_t data = local + 30 + rd(d, local + 26, 2, source) + rd(d, local + 28, 2, source);
    if (data > d.size() || usize > d.size() - data)
      throw InputError(source, 0, "zip entry '" + name + "' runs past the end of the file");
    out[name] = {data, usize};
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

// --- assembling the state dict -------------------------------------------------------------

struct Storages {
  // key -> (bytes offset in the file image, byte length)
  std::map<std::string, std::pair<uint64_t, uint64_t>> where;
};

torch::Tensor materialise(const TensorRef& t, const std::string& name, const std::string& data,
                          const Storages& storages, const std::string& source) {
  for (int64_t n : t.size)
    if (n == 0) return torch::empty(t.size, torch::TensorOptions().dtype(t.storage.dtype));
  auto it = storages.where.find(t.storage.key);
  if (it == storages.where.end())
    throw InputError(source, 0,
                     "tensor '" + name + "': storage '" + t.storage.key + "' is not in the file");
  const uint64_t elem = c10::elementSize(t.storage.dtype);
  const uint64_t numel = it->second.second / elem;
  if (it->second.second % elem != 0 || numel < uint64_t(t.storage.numel))
    throw InputError(source, 0,
                     "tensor '" + name + "': storage '" + t.storage.key + "' has " +
                         std::to_string(it->second.second) + " bytes, expected " +
                         std::to_string(t.storage.numel * elem));
  // Bounds: the last element addressed must lie inside the storage.
  bool empty = false;
  uint64_t last = t.offset;
  for (size_t k = 0; k < t.size.size(); ++k) {
    if (t.size[k] == 0)
      empty = true;
    else if (t.stride[k] > (int64_t(1) << 40) || t.size[k] > (int64_t(1) << 40))
      throw InputError(source, 0, "tensor '" + name + "': implausible size or stride");
    else
      last += uint64_t(t.size[k] - 1) * uint64_t(t.stride[k]);
  }
  if (!empty && last >= uint64_t(t.storage.numel))
    throw InputError(source, 0,
                     "tensor '" + name + "' addresses element " + std::to_string(last) +
                         " of a storage of " + std::to_string(t.storage.numel));
  if (empty) return torch::empty(t.size, torch::TensorOptions().dtype(t.storage.dtype));
  void* base = const_cast<char*>(data.data() + it->second.first);
  torch::Tensor flat =
      torch::from_blob(base, {t.storage.numel}, torch::TensorOptions().dtype(t.storage.dtype));
  return flat.as_strided(t.size, t.stride, t.offset).clone(at::MemoryFormat::Contiguous);
}

NamedTensors assemble(const ObjPtr& root, const std::string& data, const Storages& storages,
                      const std::string& source) {
  if (root->kind != Obj::kDict)
    throw InputError(
        source, 0,
        std::string("top-level object is a ") + kind_name(root->kind) + ", not a state dict");
  NamedTensors out;
  for (const auto& [k, v] : root->dict) {
    if (k->kind != Obj::kStr) throw InputError(source, 0, "state dict key is not a string");
    if (v->kind != Obj::kTensor) continue;  // _metadata, ints
    out.emplace_back(k->s, materialise(v->tensor, k->s, data, storages, source));
  }
  return out;
}

const char kLegacyMagic[] =
    "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";  // 0x1950a86a20f9469cfc6c LE

NamedTensors parse_legacy(const std::string& d, const std::string& source) {
  size_t pos = 0;
  ObjPtr magic = unpickle(d, pos, source);
  if (magic->kind != Obj::kBigInt || magic->s != std::string(kLegacyMagic, 10))
    throw InputError(source, 0, "not a PyTorch file (bad magic number)");
  ObjPtr proto = unpickle(d, pos, source);
  if (proto->kind != Obj::kInt || proto->i != 1001)
    throw InputError(source, 0, "unsupported legacy protocol version");
  ObjPtr info = unpickle(d, pos, source);
  if (info->kind != Obj::kDict) throw InputError(source, 0, "malformed sys info");
  for (const auto& [k, v] : info->dict)
    if (k->kind == Obj::kStr && k->s == "little_endian" && !(v->kind == Obj::kBool && v->i))
      throw InputError(source, 0, "big-endian PyTorch files are not supported");
  ObjPtr root = unpickle(d, pos, source);
  ObjPtr keys = unpickle(d, pos, source);
  if (keys->kind != Obj::kList) throw InputError(source, 0, "malformed storage key list");
  // Element sizes from the tensors that reference each storage.
  std::map<std::string, torch::ScalarType> types;
  if (root->kind == Obj::kDict)
    for (const auto& kv : root->dict)
      if (kv.second->kind == Obj::kTensor)
        types[kv.second->tensor.storage.key] = kv.second->tensor.storage.dtype;
  Storages storages;
  for (const auto& k : keys->items) {
    if (k->kind != Obj::kStr) throw InputError(source, 0, "malformed storage key list");
    const uint64_t numel = rd(d, pos, 8, source);
    pos += 8;
    auto t = types.find(k->s);
    const uint64_t elem = t == types.end() ? 1 : c10::elementSize(t->second);
    if (t == types.end())
      throw InputError(source, 0, "storage '" + k->s + "' is used by no tensor (cannot size it)");
    if (numel > (d.size() - pos) / elem)
      throw InputError(source, 0,
                       "storage '" + k->s + "' runs past the end of the file (truncated?)");
    storages.where[k->s] = {pos, numel * elem};
    pos += numel * elem;
  }
  return assemble(root, d, storages, source);
}

NamedTensors parse_zip(const std::string& d, const std::string& source) {
  auto entries = read_zip(d, source);
  std::string prefix;
  const ZipEntry* pkl = nullptr;
  for (const auto& [name, e] : entries) {
    const std::string tail = "data.pkl";
    if (name.size() >= tail.size() &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0 &&
        (name.size() == tail.size() || name[name.size() - tail.size() - 1] == '/')) {
      prefix = name.substr(0, name.size() - tail.size());
      pkl = &e;
      break;
    }
  }
  if (!pkl) throw InputError(source, 0, "zip archive without data.pkl (not a torch.save file)");
  if (auto bo = entries.find(prefix + "byteorder");
      bo != entries.end() && d.compare(bo->second.offset, bo->second.size, "little") != 0)
    throw InputError(source, 0, "big-endian PyTorch files are not supported");
  std::string pickle = d.substr(pkl->offset, pkl->size);
  size_t pos = 0;
  ObjPtr root = unpickle(pickle, pos, source);
  Storages storages;
  const std::string data_dir = prefix + "data/";
  for (const auto& [name, e] : entries)
    if (name.compare(0, data_dir.size(), data_dir) == 0)
      storages.where[name.substr(data_dir.size())] = {e.offset, e.size};
  return assemble(root, d, storages, source);
}

}  // namespace

NamedTensors parse_torch_state_dict(const std::string& bytes, const std::string& source) {
  if (bytes.size() >= 4 && bytes.compare(0, 4, "PK\x03\x04") == 0) return parse_zip(bytes, source);
  if (bytes.size() >= 2 && uint8_t(bytes[0]) == 0x80) return parse_legacy(bytes, source);
  throw InputError(source, 0, "not a PyTorch state-dict file (neither a zip archive nor a pickle)");
}

NamedTensors read_torch_state_dict(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_torch_state_dict(ss.str(), path);
}

}  // namespace unieval::models
