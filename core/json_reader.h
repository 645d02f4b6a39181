#pragma once
// A small, fast, read-only JSON reader for the evaluation files (SQuAD, CoQA, prediction maps).
//
// Why not nlohmann::json: its DOM allocates one std::map/std::string per node, which makes the
// SQuAD/CoQA evaluators spend almost all their time in the allocator (the official Python
// scripts take 0.5-1.9 s; our target is 20x faster). This reader parses the whole file into one
// flat node array whose strings are decoded in place inside the owned text buffer, so a 5 MB
// SQuAD file costs a few allocations. A reader that wants only a few fields of a large file can
// scan it without nodes at all: json::Cursor (json_cursor.h), which accepts the same text.
//
//   auto doc = unieval::json::Document::parse_file("dev-v2.0.json");   // .gz transparent
//   for (auto article : doc.root()["data"].items())
//     for (auto para : article["paragraphs"].items()) ...
//   std::string_view id = qa["id"].as_string();
//
// Accepts what Python's json.load accepts (RFC 8259 plus NaN / Infinity / -Infinity); numbers
// are converted with correct rounding (std::from_chars), like Python's float(). Errors are
// unieval::InputError naming the file, the line and the problem: a syntax error ("line 3:
// expected ',' or '}' after an object member"), or a schema problem found by the accessors
// ("line 12: key 'id': expected a string, found a number"). Duplicate object keys: lookups
// return the LAST occurrence (Python dict semantics).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/huge_pages.h"

namespace unieval::json {

enum class Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

// Name of a type for messages ("a string", "an object", ...).
const char* type_name(Type t);

class Document;

// A view of one node of a Document (cheap to copy; valid while the Document lives).
class Value {
 public:
  Value() = default;
  Value(const Document* doc, uint32_t index) : doc_(doc), index_(index) {}

  bool valid() const { return doc_ != nullptr; }  // false for a missing key (see find)
  Type type() const;
  bool is_null() const { return type() == Type::kNull; }
  bool is_string() const { return type() == Type::kString; }
  bool is_number() const { return type() == Type::kNumber; }
  bool is_object() const { return type() == Type::kObject; }
  bool is_array() const { return type() == Type::kArray; }
  // True for a number written without fraction or exponent (Python int).
  bool is_integer() const;
  long line() const;  // 1-based line where the value starts

  // Typed access; a wrong type throws InputError(file, line, "<what>: expected X, found Y").
  std::string_view as_string(std::string_view what = "value") const;
  double as_double(std::string_view what = "value") const;
  bool as_bool(std::string_view what = "value") const;

  // Arrays and objects: number of elements / members.
  size_t size() const;
  // Member lookup (objects): the member's value, or an invalid Value when absent.
  Value find(std::string_view key) const;
  // Member lookup that must succeed: throws InputError "missing key 'k'" (also when this is not
  // an object).
  Value operator[](std::string_view key) const;

  // Iteration over array elements or object member values; key() of a member gives its name.
  class Iterator {
   public:
    Iterator(const Document* doc, uint32_t index) : doc_(doc), index_(index) {}
    Value operator*() const { return Value(doc_, index_); }
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return index_ != o.index_; }

   private:
    const Document* doc_;
    uint32_t index_;
  };
  struct Range {
    Iterator b, e;
    Iterator begin() const { return b; }
    Iterator end() const { return e; }
  };
  // Children of an array or object; `what` names the value in the error when it is neither
  // (or, with expect, when it is not the expected container type).
  Range items(std::string_view what = "value") const;
  Range array_items(std::string_view what = "value") const;   // must be an array
  Range object_items(std::string_view what = "value") const;  // must be an object
  std::string_view key() const;  // member name when this value is an object member

  // Throws InputError(file, this value's line, problem).
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  const Document* doc_ = nullptr;
  uint32_t index_ = 0;
};

class Document {
 public:
  // Parses text; `source_name` is used in error messages.
  static Document parse(std::string text, std::string source_name);
  // Reads (unieval::read_decompressed: gzip transparent, a .gz file inflated straight into the
  // document's buffer, a pipe read once) and parses a file.
  static Document parse_file(const std::string& path);

  // parse_file in two steps, for a reader that first tries a json::Cursor (json_cursor.h) over
  // the text and parses it only when the cursor refuses (the text is untouched until a scan
  // succeeds): read_text reads the file as parse_file does and checks it (check_text: a UTF-8
  // byte-order mark dropped, invalid UTF-8 or over 4 GiB is an InputError naming the file and
  // line); parse_checked parses such text.
  static HugeVector<char> read_text(const std::string& path);
  static HugeVector<char> check_text(HugeVector<char> text, const std::string& source_name);
  static Document parse_checked(HugeVector<char> text, std::string source_name);

  Value root() const { return Value(this, 0); }
  // The text buffer the string views of this document point into (strings are decoded in
  // place), for a reader that keeps views after dropping the nodes; the document is left empty.
  HugeVector<char> take_text() && { nodes_.clear(); return std::move(text_); }
  const std::string& source_name() const { return source_; }
  size_t bytes() const { return bytes_; }  // size of the parsed text

  Document(Document&&) = default;
  Document& operator=(Document&&) = default;

 private:
  Document() = default;
  friend class Value;
  friend class Parser;
  struct Node {  // 32 bytes
    Type type = Type::kNull;
    bool is_int = false;
    bool boolean = false;
    uint32_t line = 1;
    uint32_t next = 0;                  // next sibling (0 = none: index 0 is always the root)
    uint32_t key_off = 0, key_len = 0;  // member name in text_ (decoded in place)
    union {
      struct {
        uint32_t first, count;  // containers: first child, number of children
      } c;
      struct {
        uint32_t off, len;  // strings: the value in text_ (decoded in place)
      } s;
      double number;
    } u = {{0, 0}};
  };
  HugeVector<char> text_;
  std::string source_;
  HugeVector<Node> nodes_;
  size_t bytes_ = 0;
};

}  // namespace unieval::json
