#include "core/json_reader.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/io.h"
#include "core/json_lexer.h"
#include "core/utf8.h"

namespace unieval::core {

const char* json_type_name(JsonType t) {
  switch (t) {
    case JsonType::kNull:
      return "null";
    case JsonType::kBool:
      return "a boolean";
    case JsonType::kNumber:
      return "a number";
    case JsonType::kString:
      return "a string";
    case JsonType::kArray:
      return "an array";
    case JsonType::kObject:
      return "an object";
  }
  return "?";
}

using detail::kMaxDepth;
using detail::Lexer;
using detail::NumberKind;
using detail::printable;
using detail::scan_number;
using detail::string_body;

// Recursive-descent parser writing JsonDocument::nodes_; strings are unescaped in place.
class Parser {
 public:
  Parser(JsonDocument& doc) : doc_(doc) {
    x_.s = doc.text_.data();
    x_.n = doc.text_.size();
  }

  void run() {
    // Evaluation files take 25-50 bytes of text per value; reserving one node per 8 bytes
    // (virtual memory: only the pages used are touched) means the node array does not regrow
    // except on unusually dense files, where it still grows geometrically.
    doc_.nodes_.reserve(x_.n / 8 + 16);
    x_.skip_ws();
    uint32_t root = new_node();
    parse_value(root, 0);
    x_.skip_ws();
    if (x_.p != x_.n) error("extra data after the top-level value");
  }

 private:
  [[noreturn]] void error(const std::string& problem) const {
    throw InputError(doc_.source_, x_.line, "invalid JSON: " + problem);
  }
  auto fail() const {
    return [this](const std::string& problem) { error(problem); };
  }

  uint32_t new_node() {
    if (doc_.nodes_.size() >= std::numeric_limits<uint32_t>::max() - 1) error("too many values");
    doc_.nodes_.emplace_back();
    doc_.nodes_.back().line = static_cast<uint32_t>(x_.line);
    return static_cast<uint32_t>(doc_.nodes_.size() - 1);
  }

  void parse_value(uint32_t idx, int depth) {
    if (x_.p >= x_.n) error("unexpected end of input, expected a value");
    doc_.nodes_[idx].line = static_cast<uint32_t>(x_.line);
    char c = x_.s[x_.p];
    switch (c) {
      case '{':
        parse_object(idx, depth);
        return;
      case '[':
        parse_array(idx, depth);
        return;
      case '"': {
        uint32_t off, len;
        parse_string(off, len);
        auto& nd = doc_.nodes_[idx];
        nd.type = JsonType::kString;
        nd.u.s.off = off;
        nd.u.s.len = len;
        return;
      }
      case 't':
        if (x_.literal("true")) {
          set_bool(idx, true);
          return;
        }
        break;
      case 'f':
        if (x_.literal("false")) {
          set_bool(idx, false);
          return;
        }
        break;
      case 'n':
        if (x_.literal("null")) {
          doc_.nodes_[idx].type = JsonType::kNull;
          return;
        }
        break;
      case 'N':
        if (x_.literal("NaN")) {
          set_number(idx, std::numeric_limits<double>::quiet_NaN(), false);
          return;
        }
        break;
      case 'I':
        if (x_.literal("Infinity")) {
          set_number(idx, std::numeric_limits<double>::infinity(), false);
          return;
        }
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          parse_number(idx);
          return;
        }
    }
    error(std::string("unexpected character '") + printable(c) + "', expected a value");
  }

  void set_bool(uint32_t idx, bool b) {
    auto& nd = doc_.nodes_[idx];
    nd.type = JsonType::kBool;
    nd.boolean = b;
  }
  void set_number(uint32_t idx, double v, bool is_int) {
    auto& nd = doc_.nodes_[idx];
    nd.type = JsonType::kNumber;
    nd.u.number = v;
    nd.is_int = is_int;
  }

  void parse_number(uint32_t idx) {
    size_t start = x_.p;
    NumberKind kind = scan_number(x_, fail());
    if (kind == NumberKind::kMinusInfinity) {
      set_number(idx, -std::numeric_limits<double>::infinity(), false);
      return;
    }
    set_number(idx, detail::number_value(x_.s, start, x_.p, kind), kind == NumberKind::kInteger);
  }

  // At '"'. Decodes in place; returns offset/length of the decoded bytes in text_.
  void parse_string(uint32_t& off, uint32_t& len) {
    ++x_.p;
    off = static_cast<uint32_t>(x_.p);
    bool escaped = false;
    len = static_cast<uint32_t>(string_body<true>(x_, doc_.text_.data(), &escaped, fail()));
  }

  void parse_array(uint32_t idx, int depth) {
    if (depth >= kMaxDepth) error("nesting too deep");
    ++x_.p;
    doc_.nodes_[idx].type = JsonType::kArray;
    x_.skip_ws();
    if (x_.p < x_.n && x_.s[x_.p] == ']') {
      ++x_.p;
      return;
    }
    uint32_t prev = 0, count = 0;
    while (true) {
      x_.skip_ws();
      uint32_t child = new_node();
      if (prev)
        doc_.nodes_[prev].next = child;
      else
        doc_.nodes_[idx].u.c.first = child;
      prev = child;
      ++count;
      parse_value(child, depth + 1);
      x_.skip_ws();
      if (x_.p >= x_.n) error("unexpected end of input inside an array");
      if (x_.s[x_.p] == ',') {
        ++x_.p;
        continue;
      }
      if (x_.s[x_.p] == ']') {
        ++x_.p;
        break;
      }
      error("expected ',' or ']' after an array element");
    }
    doc_.nodes_[idx].u.c.count = count;
  }

  void parse_object(uint32_t idx, int depth) {
    if (depth >= kMaxDepth) error("nesting too deep");
    ++x_.p;
    doc_.nodes_[idx].type = JsonType::kObject;
    x_.skip_ws();
    if (x_.p < x_.n && x_.s[x_.p] == '}') {
      ++x_.p;
      return;
    }
    uint32_t prev = 0, count = 0;
    while (true) {
      x_.skip_ws();
      if (x_.p >= x_.n || x_.s[x_.p] != '"') error("expected a string key in an object");
      uint32_t child = new_node();
      uint32_t koff, klen;
      parse_string(koff, klen);
      doc_.nodes_[child].key_off = koff;
      doc_.nodes_[child].key_len = klen;
      if (prev)
        doc_.nodes_[prev].next = child;
      else
        doc_.nodes_[idx].u.c.first = child;
      prev = child;
      ++count;
      x_.skip_ws();
      if (x_.p >= x_.n || x_.s[x_.p] != ':') error("expected ':' after an object key");
      ++x_.p;
      x_.skip_ws();
      parse_value(child, depth + 1);
      x_.skip_ws();
      if (x_.p >= x_.n) error("unexpected end of input inside an object");
      if (x_.s[x_.p] == ',') {
        ++x_.p;
        continue;
      }
      if (x_.s[x_.p] == '}') {
        ++x_.p;
        break;
      }
      error("expected ',' or '}' after an object member");
    }
    doc_.nodes_[idx].u.c.count = count;
  }

  JsonDocument& doc_;
  Lexer x_;
};

namespace {

// find_invalid_utf8, skipping ASCII 32 bytes at a time (SSE2) or 8 (JSON files are mostly
// ASCII) and checking each multi-byte sequence with find_invalid_utf8 itself.
size_t first_invalid_utf8(const char* p, size_t n) {
  size_t i = 0;
  while (i < n) {
#if defined(__SSE2__)
    while (i + 32 <= n) {
      __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
      if (_mm_movemask_epi8(_mm_or_si128(a, b))) break;
      i += 32;
    }
    if (i == n) break;  // all ASCII up to the end: p[n] below would read past the text
#endif
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (!(w & 0x8080808080808080ULL)) {
        i += 8;
        continue;
      }
    }
    auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = utf8_sequence_length(c);
    if (len > n - i) len = n - i;
    if (find_invalid_utf8(std::string_view(p + i, len)) != std::string_view::npos) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

JsonDocument JsonDocument::parse(std::string text, std::string source_name) {
  HugeVector<char> checked = check_text(HugeVector<char>(text.begin(), text.end()), source_name);
  return parse_checked(std::move(checked), std::move(source_name));
}

HugeVector<char> JsonDocument::check_text(HugeVector<char> text, const std::string& source_name) {
  // A UTF-8 byte-order mark is rejected by Python's json.loads on str; json.load on a file
  // opened as utf-8 also rejects it. We skip it: it is harmless and common in Windows files.
  if (text.size() >= 3 && std::memcmp(text.data(), "\xEF\xBB\xBF", 3) == 0)
    text.erase(text.begin(), text.begin() + 3);
  size_t bad = first_invalid_utf8(text.data(), text.size());
  if (bad != std::string::npos) {
    long line = 1;
    for (size_t i = 0; i < bad; ++i) line += text[i] == '\n';
    throw InputError(source_name, line, "invalid UTF-8 at byte " + std::to_string(bad));
  }
  if (text.size() >= std::numeric_limits<uint32_t>::max())
    throw InputError(source_name, 0, "JSON file too large (4 GiB limit)");
  return text;
}

JsonDocument JsonDocument::parse_checked(HugeVector<char> text, std::string source_name) {
  JsonDocument doc;
  doc.source_ = std::move(source_name);
  doc.bytes_ = text.size();
  doc.text_ = std::move(text);
  Parser(doc).run();
  return doc;
}

HugeVector<char> JsonDocument::read_text(const std::string& path) {
  HugeVector<char> text;
  read_decompressed(path, text);
  return check_text(std::move(text), path);
}

JsonDocument JsonDocument::parse_file(const std::string& path) {
  return parse_checked(read_text(path), path);
}

// --- JsonValue ---------------------------------------------------------------------------------

JsonType JsonValue::type() const { return doc_->nodes_[index_].type; }
bool JsonValue::is_integer() const {
  const auto& nd = doc_->nodes_[index_];
  return nd.type == JsonType::kNumber && nd.is_int;
}
long JsonValue::line() const { return doc_->nodes_[index_].line; }

void JsonValue::fail(const std::string& problem) const {
  throw InputError(doc_->source_, line(), problem);
}

std::string_view JsonValue::as_string(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != JsonType::kString)
    fail(std::string(what) + ": expected a string, found " + json_type_name(nd.type));
  return std::string_view(doc_->text_.data() + nd.u.s.off, nd.u.s.len);
}

double JsonValue::as_double(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != JsonType::kNumber)
    fail(std::string(what) + ": expected a number, found " + json_type_name(nd.type));
  return nd.u.number;
}

bool JsonValue::as_bool(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != JsonType::kBool)
    fail(std::string(what) + ": expected true or false, found " + json_type_name(nd.type));
  return nd.boolean;
}

size_t JsonValue::size() const {
  const auto& nd = doc_->nodes_[index_];
  return nd.type == JsonType::kArray || nd.type == JsonType::kObject ? nd.u.c.count : 0;
}

std::string_view JsonValue::key() const {
  const auto& nd = doc_->nodes_[index_];
  return std::string_view(doc_->text_.data() + nd.key_off, nd.key_len);
}

JsonValue JsonValue::find(std::string_view key) const {
  if (!doc_) return JsonValue();
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != JsonType::kObject) return JsonValue();
  uint32_t found = 0;
  bool any = false;
  for (uint32_t c = nd.u.c.first, i = 0; i < nd.u.c.count; c = doc_->nodes_[c].next, ++i) {
    const auto& ch = doc_->nodes_[c];
    if (ch.key_len == key.size() && std::char_traits<char>::compare(doc_->text_.data() + ch.key_off,
                                                                    key.data(), key.size()) == 0) {
      found = c;  // keep going: the last duplicate wins, as in a Python dict
      any = true;
    }
  }
  return any ? JsonValue(doc_, found) : JsonValue();
}

JsonValue JsonValue::operator[](std::string_view key) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != JsonType::kObject)
    fail("expected an object with key '" + std::string(key) + "', found " +
         json_type_name(nd.type));
  JsonValue v = find(key);
  if (!v.valid()) fail("missing key '" + std::string(key) + "'");
  return v;
}

JsonValue::Iterator& JsonValue::Iterator::operator++() {
  index_ = doc_->nodes_[index_].next;
  return *this;
}

JsonValue::Range JsonValue::items(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != JsonType::kObject && nd.type != JsonType::kArray)
    fail(std::string(what) + ": expected an array or an object, found " + json_type_name(nd.type));
  return Range{Iterator(doc_, nd.u.c.count ? nd.u.c.first : 0), Iterator(doc_, 0)};
}

JsonValue::Range JsonValue::array_items(std::string_view what) const {
  if (type() != JsonType::kArray)
    fail(std::string(what) + ": expected an array, found " + json_type_name(type()));
  return items(what);
}

JsonValue::Range JsonValue::object_items(std::string_view what) const {
  if (type() != JsonType::kObject)
    fail(std::string(what) + ": expected an object, found " + json_type_name(type()));
  return items(what);
}

}  // namespace unieval::core
