// Fuzz target: core::JsonDocument (json_reader.h) and core::JsonCursor (json_cursor.h), and their
// agreement. json_cursor.h promises that the cursor accepts exactly the text
// JsonDocument::parse_checked accepts; a reader with a cursor relies on that to return what its
// document path returns. So on every input:
//   * JsonDocument::parse either succeeds or throws InputError, and every accessor of the
//     resulting tree works or throws InputError;
//   * on text that passed check_text, a cursor scan of the whole value (skip + finish) succeeds
//     exactly when parse_checked does, and a structural walk with the cursor (object / array /
//     string / number, strings decoded after the scan) yields the same tree, numbers bit for bit.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/json_cursor.h"
#include "core/json_reader.h"
#include "fuzz/fuzz_util.h"

namespace {

using unieval::core::HugeVector;
using unieval::core::JsonCursor;
using unieval::core::JsonDocument;
using unieval::core::JsonType;
using unieval::core::JsonValue;

// A canonical dump of a value: one token per node, strings and keys length-prefixed.
void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "n:nan;";
    return;
  }
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  out += "n:" + std::to_string(bits) + ";";
}
void append_string(std::string& out, char tag, std::string_view s) {
  out += tag;
  out += std::to_string(s.size()) + ":";
  out.append(s);
}

void dump_document(const JsonValue& v, std::string& out) {
  switch (v.type()) {
    case JsonType::kNull:
      out += "null;";
      break;
    case JsonType::kBool:
      out += v.as_bool() ? "true;" : "false;";
      break;
    case JsonType::kNumber:
      append_number(out, v.as_double());
      break;
    case JsonType::kString:
      append_string(out, 's', v.as_string());
      break;
    case JsonType::kArray:
      out += "[";
      for (JsonValue e : v.array_items()) dump_document(e, out);
      out += "]";
      break;
    case JsonType::kObject:
      out += "{";
      for (JsonValue m : v.object_items()) {
        append_string(out, 'k', m.key());
        dump_document(m, out);
      }
      out += "}";
      break;
  }
}

// The cursor's walk records a plan: literal pieces and string spans decoded after the scan.
struct Piece {
  std::string literal;
  bool is_span = false;
  char tag = 's';
  JsonCursor::Span span;
};
Piece text(std::string literal) {
  Piece p{};  // span value-initialised, as the aggregate form left it
  p.literal = std::move(literal);
  return p;
}
void walk_cursor(JsonCursor& c, std::vector<Piece>& plan) {
  char k = c.peek();
  if (k == '{') {
    plan.push_back(text("{"));
    JsonCursor::Span key;
    for (auto obj = c.object(); obj.next(key);) {
      plan.push_back({"", true, 'k', key});
      walk_cursor(c, plan);
    }
    plan.push_back(text("}"));
  } else if (k == '[') {
    plan.push_back(text("["));
    for (auto arr = c.array(); arr.next();) walk_cursor(c, plan);
    plan.push_back(text("]"));
  } else if (k == '"') {
    plan.push_back({"", true, 's', c.string()});
  } else if (k == 't' || k == 'f' || k == 'n') {
    c.skip();  // the cursor has no literal accessor; skip checks the literal as the parser does
    plan.push_back(text(k == 't' ? "true;" : k == 'f' ? "false;" : "null;"));
  } else {
    std::string s;
    append_number(s, c.number());
    plan.push_back(text(s));
  }
}

// Touches every accessor once so that the schema-error paths run too.
void poke(const JsonValue& v) {
  (void)v.line();
  (void)v.is_integer();
  try {
    (void)v.as_string("x");
  } catch (const unieval::InputError&) {
  }
  try {
    (void)v.as_double("x");
  } catch (const unieval::InputError&) {
  }
  try {
    (void)v.as_bool("x");
  } catch (const unieval::InputError&) {
  }
  try {
    (void)v["id"];
  } catch (const unieval::InputError&) {
  }
  (void)v.find("");
  if (v.is_array() || v.is_object())
    for (JsonValue e : v.items()) poke(e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = unieval::fuzz::as_text(data, size);

  // 1. The document reader on raw bytes (UTF-8 check included).
  try {
    JsonDocument doc = JsonDocument::parse(std::string(text), "fuzz.json");
    poke(doc.root());
  } catch (const unieval::InputError&) {
  }

  // 2. Agreement on checked text.
  HugeVector<char> checked;
  try {
    checked = JsonDocument::check_text(HugeVector<char>(text.begin(), text.end()), "fuzz.json");
  } catch (const unieval::InputError&) {
    return 0;
  }
  HugeVector<char> for_skip(checked.begin(), checked.end());
  HugeVector<char> for_walk(checked.begin(), checked.end());

  std::string doc_dump;
  bool doc_ok = true;
  try {
    JsonDocument doc = JsonDocument::parse_checked(std::move(checked), "fuzz.json");
    dump_document(doc.root(), doc_dump);
  } catch (const unieval::InputError&) {
    doc_ok = false;
  }

  bool skip_ok = true;
  try {
    JsonCursor c(for_skip.data(), for_skip.size());
    c.skip();
    c.finish();
  } catch (const JsonCursor::Refused&) {
    skip_ok = false;
  }
  UNIEVAL_FUZZ_CHECK(skip_ok == doc_ok);

  bool walk_ok = true;
  std::vector<Piece> plan;
  try {
    JsonCursor c(for_walk.data(), for_walk.size());
    walk_cursor(c, plan);
    c.finish();
  } catch (const JsonCursor::Refused&) {
    walk_ok = false;
  }
  UNIEVAL_FUZZ_CHECK(walk_ok == doc_ok);
  if (!walk_ok) return 0;
  std::string cursor_dump;
  for (const Piece& p : plan) {
    if (p.is_span)
      append_string(cursor_dump, p.tag, JsonCursor::decode(for_walk.data(), p.span));
    else
      cursor_dump += p.literal;
  }
  UNIEVAL_FUZZ_CHECK(cursor_dump == doc_dump);
  return 0;
}
