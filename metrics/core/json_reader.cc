#include "metrics/core/json_reader.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "metrics/core/error.h"
#include "metrics/core/io.h"

namespace unieval::json {

const char* type_name(Type t) {
  switch (t) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kNumber: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "an array";
    case Type::kObject: return "an object";
  }
  return "?";
}

// Recursive-descent parser writing Document::nodes_; strings are unescaped in place (an escape
// sequence is never shorter than what it decodes to, so the write position never passes the
// read position).
class Parser {
 public:
  Parser(Document& doc) : doc_(doc), s_(doc.text_.data()), n_(doc.text_.size()) {}

  void run() {
    // Evaluation files take 25-50 bytes of text per value; reserving one node per 8 bytes
    // (virtual memory: only the pages used are touched) means the node array does not regrow
    // except on unusually dense files, where it still grows geometrically.
    doc_.nodes_.reserve(n_ / 8 + 16);
    skip_ws();
    uint32_t root = new_node();
    parse_value(root, 0);
    skip_ws();
    if (p_ != n_) error("extra data after the top-level value");
  }

 private:
  static constexpr int kMaxDepth = 1000;

  [[noreturn]] void error(const std::string& problem) const {
    throw InputError(doc_.source_, line_, "invalid JSON: " + problem);
  }

  uint32_t new_node() {
    if (doc_.nodes_.size() >= std::numeric_limits<uint32_t>::max() - 1) error("too many values");
    doc_.nodes_.emplace_back();
    doc_.nodes_.back().line = static_cast<uint32_t>(line_);
    return static_cast<uint32_t>(doc_.nodes_.size() - 1);
  }

  void skip_ws() {
    while (p_ < n_) {
      char c = s_[p_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++p_;
      } else if (c == '\n') {
        ++p_;
        ++line_;
      } else {
        break;
      }
    }
  }

  bool literal(const char* word) {
    size_t len = std::char_traits<char>::length(word);
    if (n_ - p_ >= len && std::char_traits<char>::compare(s_ + p_, word, len) == 0) {
      p_ += len;
      return true;
    }
    return false;
  }

  void parse_value(uint32_t idx, int depth) {
    if (p_ >= n_) error("unexpected end of input, expected a value");
    doc_.nodes_[idx].line = static_cast<uint32_t>(line_);
    char c = s_[p_];
    switch (c) {
      case '{': parse_object(idx, depth); return;
      case '[': parse_array(idx, depth); return;
      case '"': {
        uint32_t off, len;
        parse_string(off, len);
        auto& nd = doc_.nodes_[idx];
        nd.type = Type::kString;
        nd.u.s.off = off;
        nd.u.s.len = len;
        return;
      }
      case 't':
        if (literal("true")) { set_bool(idx, true); return; }
        break;
      case 'f':
        if (literal("false")) { set_bool(idx, false); return; }
        break;
      case 'n':
        if (literal("null")) { doc_.nodes_[idx].type = Type::kNull; return; }
        break;
      case 'N':
        if (literal("NaN")) { set_number(idx, std::numeric_limits<double>::quiet_NaN(), false); return; }
        break;
      case 'I':
        if (literal("Infinity")) { set_number(idx, std::numeric_limits<double>::infinity(), false); return; }
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) { parse_number(idx); return; }
    }
    error(std::string("unexpected character '") + printable(c) + "', expected a value");
  }

  static std::string printable(char c) {
    if (static_cast<unsigned char>(c) < 0x20) return "\\x" + std::to_string(static_cast<int>(c));
    return std::string(1, c);
  }

  void set_bool(uint32_t idx, bool b) {
    auto& nd = doc_.nodes_[idx];
    nd.type = Type::kBool;
    nd.boolean = b;
  }
  void set_number(uint32_t idx, double v, bool is_int) {
    auto& nd = doc_.nodes_[idx];
    nd.type = Type::kNumber;
    nd.u.number = v;
    nd.is_int = is_int;
  }

  void parse_number(uint32_t idx) {
    size_t start = p_;
    if (s_[p_] == '-') {
      ++p_;
      if (literal("Infinity")) {
        set_number(idx, -std::numeric_limits<double>::infinity(), false);
        return;
      }
    }
    auto digit = [&](size_t i) { return i < n_ && s_[i] >= '0' && s_[i] <= '9'; };
    if (!digit(p_)) error("invalid number");
    if (s_[p_] == '0') {
      ++p_;
    } else {
      while (digit(p_)) ++p_;
    }
    bool is_int = true;
    if (p_ < n_ && s_[p_] == '.') {
      is_int = false;
      ++p_;
      if (!digit(p_)) error("invalid number (no digit after '.')");
      while (digit(p_)) ++p_;
    }
    if (p_ < n_ && (s_[p_] == 'e' || s_[p_] == 'E')) {
      is_int = false;
      ++p_;
      if (p_ < n_ && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
      if (!digit(p_)) error("invalid number (no digit in exponent)");
      while (digit(p_)) ++p_;
    }
    double v = 0;
    bool negative = s_[start] == '-';
    size_t digits = p_ - start - (negative ? 1 : 0);
    if (is_int && digits <= 15) {
      // An integer below 10^15 is exact in a double: no need for the general conversion
      // (SQuAD's answer_start, CoQA's turn ids).
      uint64_t u = 0;
      for (size_t i = p_ - digits; i < p_; ++i) u = u * 10 + static_cast<uint64_t>(s_[i] - '0');
      v = static_cast<double>(u);
      set_number(idx, negative ? -v : v, true);
      return;
    }
    auto res = std::from_chars(s_ + start, s_ + p_, v);
    if (res.ec == std::errc::result_out_of_range) {
      // Python: float('1e999') = inf, tiny values underflow to 0.
      v = (s_[start] == '-' ? -1.0 : 1.0) *
          (std::strtod(std::string(s_ + start, p_ - start).c_str(), nullptr) == 0 ? 0.0 : HUGE_VAL);
    } else if (res.ec != std::errc()) {
      error("invalid number");
    }
    set_number(idx, v, is_int);
  }

  static void put_utf8(char* out, size_t& w, uint32_t cp) {
    if (cp < 0x80) {
      out[w++] = static_cast<char>(cp);
    } else if (cp < 0x800) {
      out[w++] = static_cast<char>(0xC0 | (cp >> 6));
      out[w++] = static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out[w++] = static_cast<char>(0xE0 | (cp >> 12));
      out[w++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out[w++] = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out[w++] = static_cast<char>(0xF0 | (cp >> 18));
      out[w++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out[w++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out[w++] = static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  uint32_t hex4() {
    if (n_ - p_ < 4) error("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[p_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else error("invalid \\u escape");
    }
    return v;
  }

  // At '"'. Decodes in place; returns offset/length of the decoded bytes in text_.
  void parse_string(uint32_t& off, uint32_t& len) {
    ++p_;
    char* buf = doc_.text_.data();
    size_t start = p_;
    size_t w = p_;
    // Fast scan for the common case (no escapes): find the first '"', '\\' or control
    // character (< 0x20), 16 bytes at a time with SSE2, else 8 at a time (SWAR).
    size_t p = p_;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    while (p + 16 <= n_) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_ + p));
      __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                 _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));  // unsigned v <= 0x1F
      int mask = _mm_movemask_epi8(hit);
      if (mask) {
        p += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        break;
      }
      p += 16;
    }
#else
    constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    while (p + 8 <= n_) {
      uint64_t w;
      std::memcpy(&w, s_ + p, 8);
      uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
      uint64_t hit = ((q - kOnes) & ~q) | ((b - kOnes) & ~b) | ((w - kOnes * 0x20) & ~w);
      if (hit & kHigh) break;
      p += 8;
    }
#endif
    while (p < n_) {
      unsigned char c = static_cast<unsigned char>(s_[p]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      ++p;
    }
    p_ = p;
    w = p_;
    while (true) {
      if (p_ >= n_) error("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[p_]);
      if (c == '"') {
        ++p_;
        break;
      }
      if (c < 0x20) error("control character inside a string (Python json: 'Invalid control character')");
      if (c != '\\') {
        buf[w++] = static_cast<char>(c);
        ++p_;
        continue;
      }
      ++p_;
      if (p_ >= n_) error("unterminated string");
      char e = s_[p_++];
      switch (e) {
        case '"': buf[w++] = '"'; break;
        case '\\': buf[w++] = '\\'; break;
        case '/': buf[w++] = '/'; break;
        case 'b': buf[w++] = '\b'; break;
        case 'f': buf[w++] = '\f'; break;
        case 'n': buf[w++] = '\n'; break;
        case 'r': buf[w++] = '\r'; break;
        case 't': buf[w++] = '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && n_ - p_ >= 6 && s_[p_] == '\\' && s_[p_ + 1] == 'u') {
            size_t save = p_;
            p_ += 2;
            uint32_t lo = hex4();
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              p_ = save;  // lone high surrogate, kept as is (Python does the same)
            }
          }
          put_utf8(buf, w, cp);
          break;
        }
        default: error(std::string("invalid escape '\\") + printable(e) + "'");
      }
    }
    off = static_cast<uint32_t>(start);
    len = static_cast<uint32_t>(w - start);
  }

  void parse_array(uint32_t idx, int depth) {
    if (depth >= kMaxDepth) error("nesting too deep");
    ++p_;
    doc_.nodes_[idx].type = Type::kArray;
    skip_ws();
    if (p_ < n_ && s_[p_] == ']') {
      ++p_;
      return;
    }
    uint32_t prev = 0, count = 0;
    while (true) {
      skip_ws();
      uint32_t child = new_node();
      if (prev) doc_.nodes_[prev].next = child;
      else doc_.nodes_[idx].u.c.first = child;
      prev = child;
      ++count;
      parse_value(child, depth + 1);
      skip_ws();
      if (p_ >= n_) error("unexpected end of input inside an array");
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      if (s_[p_] == ']') {
        ++p_;
        break;
      }
      error("expected ',' or ']' after an array element");
    }
    doc_.nodes_[idx].u.c.count = count;
  }

  void parse_object(uint32_t idx, int depth) {
    if (depth >= kMaxDepth) error("nesting too deep");
    ++p_;
    doc_.nodes_[idx].type = Type::kObject;
    skip_ws();
    if (p_ < n_ && s_[p_] == '}') {
      ++p_;
      return;
    }
    uint32_t prev = 0, count = 0;
    while (true) {
      skip_ws();
      if (p_ >= n_ || s_[p_] != '"') error("expected a string key in an object");
      uint32_t child = new_node();
      uint32_t koff, klen;
      parse_string(koff, klen);
      doc_.nodes_[child].key_off = koff;
      doc_.nodes_[child].key_len = klen;
      if (prev) doc_.nodes_[prev].next = child;
      else doc_.nodes_[idx].u.c.first = child;
      prev = child;
      ++count;
      skip_ws();
      if (p_ >= n_ || s_[p_] != ':') error("expected ':' after an object key");
      ++p_;
      skip_ws();
      parse_value(child, depth + 1);
      skip_ws();
      if (p_ >= n_) error("unexpected end of input inside an object");
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      if (s_[p_] == '}') {
        ++p_;
        break;
      }
      error("expected ',' or '}' after an object member");
    }
    doc_.nodes_[idx].u.c.count = count;
  }

  Document& doc_;
  const char* s_;
  size_t n_;
  size_t p_ = 0;
  long line_ = 1;
};

namespace {

// find_invalid_utf8, skipping ASCII 8 bytes at a time (JSON files are mostly ASCII) and
// checking each multi-byte sequence with find_invalid_utf8 itself.
size_t first_invalid_utf8(const char* p, size_t n) {
  size_t i = 0;
  while (i < n) {
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
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (len > n - i) len = n - i;
    if (find_invalid_utf8(std::string_view(p + i, len)) != std::string_view::npos) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

Document Document::parse(std::string text, std::string source_name) {
  return parse_buffer(HugeVector<char>(text.begin(), text.end()), std::move(source_name));
}

Document Document::parse_buffer(HugeVector<char> text, std::string source_name) {
  Document doc;
  doc.source_ = std::move(source_name);
  doc.bytes_ = text.size();
  // A UTF-8 byte-order mark is rejected by Python's json.loads on str; json.load on a file
  // opened as utf-8 also rejects it. We skip it: it is harmless and common in Windows files.
  if (text.size() >= 3 && std::memcmp(text.data(), "\xEF\xBB\xBF", 3) == 0) text.erase(text.begin(), text.begin() + 3);
  size_t bad = first_invalid_utf8(text.data(), text.size());
  if (bad != std::string::npos) {
    long line = 1;
    for (size_t i = 0; i < bad; ++i) line += text[i] == '\n';
    throw InputError(doc.source_, line, "invalid UTF-8 at byte " + std::to_string(bad));
  }
  if (text.size() >= std::numeric_limits<uint32_t>::max())
    throw InputError(doc.source_, 0, "JSON file too large (4 GiB limit)");
  doc.text_ = std::move(text);
  Parser(doc).run();
  return doc;
}

Document Document::parse_file(const std::string& path) {
  HugeVector<char> text;
  read_decompressed(path, text);
  return parse_buffer(std::move(text), path);
}

// --- Value ---------------------------------------------------------------------------------

Type Value::type() const { return doc_->nodes_[index_].type; }
bool Value::is_integer() const {
  const auto& nd = doc_->nodes_[index_];
  return nd.type == Type::kNumber && nd.is_int;
}
long Value::line() const { return doc_->nodes_[index_].line; }

void Value::fail(const std::string& problem) const {
  throw InputError(doc_->source_, line(), problem);
}

std::string_view Value::as_string(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != Type::kString)
    fail(std::string(what) + ": expected a string, found " + type_name(nd.type));
  return std::string_view(doc_->text_.data() + nd.u.s.off, nd.u.s.len);
}

double Value::as_double(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != Type::kNumber)
    fail(std::string(what) + ": expected a number, found " + type_name(nd.type));
  return nd.u.number;
}

bool Value::as_bool(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != Type::kBool)
    fail(std::string(what) + ": expected true or false, found " + type_name(nd.type));
  return nd.boolean;
}

size_t Value::size() const {
  const auto& nd = doc_->nodes_[index_];
  return nd.type == Type::kArray || nd.type == Type::kObject ? nd.u.c.count : 0;
}

std::string_view Value::key() const {
  const auto& nd = doc_->nodes_[index_];
  return std::string_view(doc_->text_.data() + nd.key_off, nd.key_len);
}

Value Value::find(std::string_view key) const {
  if (!doc_) return Value();
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != Type::kObject) return Value();
  uint32_t found = 0;
  bool any = false;
  for (uint32_t c = nd.u.c.first, i = 0; i < nd.u.c.count; c = doc_->nodes_[c].next, ++i) {
    const auto& ch = doc_->nodes_[c];
    if (ch.key_len == key.size() &&
        std::char_traits<char>::compare(doc_->text_.data() + ch.key_off, key.data(), key.size()) == 0) {
      found = c;  // keep going: the last duplicate wins, as in a Python dict
      any = true;
    }
  }
  return any ? Value(doc_, found) : Value();
}

Value Value::operator[](std::string_view key) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != Type::kObject)
    fail("expected an object with key '" + std::string(key) + "', found " + type_name(nd.type));
  Value v = find(key);
  if (!v.valid()) fail("missing key '" + std::string(key) + "'");
  return v;
}

Value::Iterator& Value::Iterator::operator++() {
  index_ = doc_->nodes_[index_].next;
  return *this;
}

Value::Range Value::items(std::string_view what) const {
  const auto& nd = doc_->nodes_[index_];
  if (nd.type != Type::kObject && nd.type != Type::kArray)
    fail(std::string(what) + ": expected an array or an object, found " + type_name(nd.type));
  return Range{Iterator(doc_, nd.u.c.count ? nd.u.c.first : 0), Iterator(doc_, 0)};
}

Value::Range Value::array_items(std::string_view what) const {
  if (type() != Type::kArray) fail(std::string(what) + ": expected an array, found " + type_name(type()));
  return items(what);
}

Value::Range Value::object_items(std::string_view what) const {
  if (type() != Type::kObject) fail(std::string(what) + ": expected an object, found " + type_name(type()));
  return items(what);
}

}  // namespace unieval::json
