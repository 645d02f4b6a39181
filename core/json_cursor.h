#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "core/json_lexer.h"

namespace unieval::core {

// A forward-only scan of checked JSON text (core::JsonDocument::check_text) that builds nothing, for
// a reader that wants a few fields of a large file: the SQuAD dataset reader keeps ids and answer
// texts and skips contexts and questions, most of the bytes and of the nodes a JsonDocument builds.
//
// It accepts exactly the text JsonDocument::parse_checked accepts (the same lexer, json_lexer.h,
// and the same nesting limit) but names no problem: anything it does not accept -- a syntax
// error anywhere, also inside skipped values, or a layout its reader does not handle -- throws
// JsonCursor::Refused, and the reader then parses the text with JsonDocument::parse_checked, whose
// accessors name the problem (file, line). A reader with a cursor therefore returns what its
// JsonDocument path returns and fails as it fails (tests/metrics/squad_reader_test.cc holds the SQuAD
// readers to that). The cursor never writes the text: strings come back as raw spans, decoded in
// place (decode) once the whole scan has succeeded.
//
//   core::JsonCursor c(text.data(), text.size());    // text from JsonDocument::read_text
//   core::JsonCursor::Span key, id;
//   try {
//     for (auto obj = c.object(); obj.next(key);)
//       if (core::JsonCursor::plain(text.data(), key) == "id") id = c.string(); else c.skip();
//     c.finish();
//   } catch (const core::JsonCursor::Refused&) { /* JsonDocument::parse_checked(std::move(text), ...) */ }
//   std::string_view value = core::JsonCursor::decode(text.data(), id);
class JsonCursor {
 public:
  struct Refused {};  // thrown for anything the cursor does not accept
  // A string's bytes between its quotes, before unescaping.
  struct Span {
    uint32_t off = 0, len = 0;
    bool escaped = false;  // contains a backslash escape (decode() rewrites it)
  };

  JsonCursor(const char* text, size_t n);
  long line() const { return lex_.line; }  // line of the position (after skipped whitespace)

  // The members of an object / the elements of an array at the position (Refused when the
  // value there is not one). next() moves to the next member (its key read, and the ':') or
  // element, or past the closing bracket (false).
  class Members {
   public:
    bool next(Span& key);

   private:
    friend class JsonCursor;
    explicit Members(JsonCursor* c) : c_(c) {}
    JsonCursor* c_;
    bool first_ = true;
  };
  class Elements {
   public:
    bool next();

   private:
    friend class JsonCursor;
    explicit Elements(JsonCursor* c) : c_(c) {}
    JsonCursor* c_;
    bool first_ = true;
  };
  Members object();
  Elements array();
  // The next value's kind without consuming it: '{', '[', '"', or another first character.
  char peek();
  Span string();    // a string value (Refused for another type)
  double number();  // a number value (Refused for another type), converted as the parser does
  void skip();      // any value, checked as the parser checks it
  void finish();    // only whitespace may follow the top-level value

  // A span's raw bytes; Refused when it holds an escape (for keys matched against names).
  static std::string_view plain(const char* text, Span s);
  // Unescapes a span in place (after the scan) and returns the decoded string, as the parser
  // would have decoded it.
  static std::string_view decode(char* text, Span s);

 private:
  // A literal or a number at the position, its value (numbers, NaN, Infinity) into *value when
  // given; false when the text there is no scalar but a string's or a container's or an error.
  bool scalar(double* value);
  [[noreturn]] static void refuse() { throw Refused{}; }
  [[noreturn]] static void refuse_problem(const std::string&);  // the lexer's fail()
  void enter();  // one level deeper (Refused past the parser's nesting limit)
  // To the next item of the container being read, past its ',' (false, and the container left,
  // at its closing bracket `close`).
  bool next_item(char close, bool& first);
  detail::Lexer lex_;
  int depth_ = 0;
};

// ---- Implementation (inline: a reader's loop over the cursor keeps it in registers) -------

inline JsonCursor::JsonCursor(const char* text, size_t n) {
  lex_.s = text;
  lex_.n = n;
  lex_.skip_ws();
}

inline void JsonCursor::refuse_problem(const std::string&) { throw Refused{}; }

inline void JsonCursor::enter() {
  // The parser refuses a container at depth kMaxDepth (the top level is depth 0).
  if (++depth_ > detail::kMaxDepth) refuse();
}

inline char JsonCursor::peek() {
  lex_.skip_ws();
  return lex_.p < lex_.n ? lex_.s[lex_.p] : '\0';
}

inline JsonCursor::Members JsonCursor::object() {
  if (peek() != '{') refuse();
  enter();
  ++lex_.p;
  return Members(this);
}

inline JsonCursor::Elements JsonCursor::array() {
  if (peek() != '[') refuse();
  enter();
  ++lex_.p;
  return Elements(this);
}

inline bool JsonCursor::next_item(char close, bool& first) {
  lex_.skip_ws();
  if (lex_.p >= lex_.n) refuse();
  char c = lex_.s[lex_.p];
  if (c == close) {  // after the opening bracket or an item ("[1, ]" is refused by the item's read)
    ++lex_.p;
    --depth_;
    return false;
  }
  if (!first) {
    if (c != ',') refuse();
    ++lex_.p;
  }
  first = false;
  return true;
}

inline bool JsonCursor::Members::next(Span& key) {
  if (!c_->next_item('}', first_)) return false;
  key = c_->string();
  detail::Lexer& x = c_->lex_;
  x.skip_ws();
  if (x.p >= x.n || x.s[x.p] != ':') refuse();
  ++x.p;
  return true;
}

inline bool JsonCursor::Elements::next() { return c_->next_item(']', first_); }

inline JsonCursor::Span JsonCursor::string() {
  if (peek() != '"') refuse();
  ++lex_.p;
  Span sp;
  sp.off = static_cast<uint32_t>(lex_.p);
  detail::string_body<false>(lex_, nullptr, &sp.escaped, refuse_problem);
  sp.len = static_cast<uint32_t>(lex_.p - 1 - sp.off);  // raw bytes, without the closing quote
  return sp;
}

inline bool JsonCursor::scalar(double* value) {
  char c = peek();
  switch (c) {
    case 't':
      return lex_.literal("true");
    case 'f':
      return lex_.literal("false");
    case 'n':
      return lex_.literal("null");
    case 'N':
      if (value) *value = std::numeric_limits<double>::quiet_NaN();
      return lex_.literal("NaN");
    case 'I':
      if (value) *value = std::numeric_limits<double>::infinity();
      return lex_.literal("Infinity");
    default:
      if (c == '-' || (c >= '0' && c <= '9')) {
        size_t start = lex_.p;
        detail::NumberKind kind = detail::scan_number(lex_, refuse_problem);
        if (value)
          *value = kind == detail::NumberKind::kMinusInfinity
                       ? -std::numeric_limits<double>::infinity()
                       : detail::number_value(lex_.s, start, lex_.p, kind);
        return true;
      }
      return false;
  }
}

inline double JsonCursor::number() {
  char c = peek();
  double v = 0;
  if (c == 't' || c == 'f' || c == 'n' || !scalar(&v)) refuse();
  return v;
}

inline void JsonCursor::skip() {
  switch (peek()) {
    case '{': {
      Span key;
      for (Members m = object(); m.next(key);) skip();
      return;
    }
    case '[':
      for (Elements e = array(); e.next();) skip();
      return;
    case '"':
      string();
      return;
    default:
      if (!scalar(nullptr)) refuse();
  }
}

inline void JsonCursor::finish() {
  lex_.skip_ws();
  if (lex_.p != lex_.n || depth_ != 0) refuse();
}

inline std::string_view JsonCursor::plain(const char* text, Span s) {
  if (s.escaped) refuse();
  return std::string_view(text + s.off, s.len);
}

inline std::string_view JsonCursor::decode(char* text, Span s) {
  if (!s.escaped) return std::string_view(text + s.off, s.len);
  detail::Lexer x;
  x.s = text;
  x.n = static_cast<size_t>(s.off) + s.len + 1;  // up to the closing quote
  x.p = s.off;
  bool escaped = false;
  size_t len = detail::string_body<true>(x, text, &escaped, refuse_problem);  // checked by the scan
  return std::string_view(text + s.off, len);
}

}  // namespace unieval::core
