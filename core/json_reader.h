#pragma once
// A small, fast, read-only JSON reader for the evaluation files (SQuAD, CoQA, prediction maps).
//
// Why not nlohmann::json: its DOM allocates one std::map/std::string per node, which makes the
// SQuAD/CoQA evaluators spend almost all their time in the allocator (the official Python
// scripts take 0.5-1.9 s; our target is 20x faster). This reader parses the whole file into one
// flat node array whose strings are decoded in place inside the owned text buffer, so a 5 MB
// SQuAD file costs a few allocations. A reader that wants only a few fields of a large file can
// scan it without nodes at all: core::JsonCursor (json_cursor.h), which accepts the same text.
//
//   auto doc = core::JsonDocument::parse_file("dev-v2.0.json");   // .gz transparent
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

namespace unieval::core {

enum class JsonType : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

// Name of a type for messages ("a string", "an object", ...).
const char* json_type_name(JsonType t);

class JsonDocument;

// A view of one node of a JsonDocument (cheap to copy; valid while the JsonDocument lives).
class JsonValue {
 public:
  JsonValue() = default;
  JsonValue(const JsonDocument* doc, uint32_t index) : doc_(doc), index_(index) {}

  bool valid() const { return doc_ != nullptr; }  // false for a missing key (see find)
  JsonType type() const;
  bool is_null() const { return type() == JsonType::kNull; }
  bool is_string() const { return type() == JsonType::kString; }
  bool is_number() const { return type() == JsonType::kNumber; }
  bool is_object() const { return type() == JsonType::kObject; }
  bool is_array() const { return type() == JsonType::kArray; }
  // True for a number written without fraction or exponent (Python int).
  bool is_integer() const;
  long line() const;  // 1-based line where the value starts

  // Typed access; a wrong type throws InputError(file, line, "<what>: expected X, found Y").
  std::string_view as_string(std::string_view what = "value") const;
  double as_double(std::string_view what = "value") const;
  bool as_bool(std::string_view what = "value") const;

  // Arrays and objects: number of elements / members.
  size_t size() const;
  // Member lookup (objects): the member's value, or an invalid JsonValue when absent.
  JsonValue find(std::string_view key) const;
  // Member lookup that must succeed: throws InputError "missing key 'k'" (also when this is not
  // an object).
  JsonValue operator[](std::string_view key) const;

  // Iteration over array elements or object member values; key() of a member gives its name.
  class Iterator {
   public:
    Iterator(const JsonDocument* doc, uint32_t index) : doc_(doc), index_(index) {}
    JsonValue operator*() const { return JsonValue(doc_, index_); }
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return index_ != o.index_; }

   private:
    const JsonDocument* doc_;
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
  const JsonDocument* doc_ = nullptr;
  uint32_t index_ = 0;
};

class JsonDocument {
 public:
  // Parses text; `source_name` is used in error messages.
  static JsonDocument parse(std::string text, std::string source_name);
  // Reads (unieval::core::read_decompressed: gzip transparent, a .gz file inflated straight into the
  // document's buffer, a pipe read once) and parses a file.
  static JsonDocument parse_file(const std::string& path);

  // parse_file in two steps, for a reader that first tries a core::JsonCursor (json_cursor.h) over
  // the text and parses it only when the cursor refuses (the text is untouched until a scan
  // succeeds): read_text reads the file as parse_file does and checks it (check_text: a UTF-8
  // byte-order mark dropped, invalid UTF-8 or over 4 GiB is an InputError naming the file and
  // line); parse_checked parses such text.
  static HugeVector<char> read_text(const std::string& path);
  static HugeVector<char> check_text(HugeVector<char> text, const std::string& source_name);
  static JsonDocument parse_checked(HugeVector<char> text, std::string source_name);

  JsonValue root() const { return JsonValue(this, 0); }
  // The text buffer the string views of this document point into (strings are decoded in
  // place), for a reader that keeps views after dropping the nodes; the document is left empty.
  HugeVector<char> take_text() && {
    nodes_.clear();
    return std::move(text_);
  }
  const std::string& source_name() const { return source_; }
  size_t bytes() const { return bytes_; }  // size of the parsed text

  JsonDocument(JsonDocument&&) = default;
  JsonDocument& operator=(JsonDocument&&) = default;

 private:
  JsonDocument() = default;
  friend class JsonValue;
  friend class Parser;
  struct Node {  // 32 bytes
    JsonType type = JsonType::kNull;
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

}  // namespace unieval::core
