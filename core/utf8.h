#pragma once
// UTF-8 encoding and decoding of one code point: the one codec every tokeniser, normaliser and
// reader uses.
//
//   std::string s;
//   core::append_utf8(s, U'é');                    // "\xC3\xA9"
//   size_t i = 0;
//   char32_t c = core::next_code_point(s, i);      // U'é', i == 2
//
// | function             | on bytes that are not valid UTF-8                                  |
// |----------------------|--------------------------------------------------------------------|
// | append_utf8          | no validation: surrogates and values above U+10FFFF are encoded   |
// |                      | as they come (callers pass code points they decoded themselves)    |
// | next_code_point      | a lead byte without its continuation bytes (or cut at the end)    |
// |                      | decodes as itself (0x80..0xFF) and advances one byte: every input |
// |                      | is handled, and sacreBLEU/ICU-free callers see stray bytes as     |
// |                      | Latin-1 as before                                                  |
// | utf8_sequence_length | 1 for ASCII and for stray continuation bytes, else 2-4 by the lead |
// |                      | byte (no look at the continuation bytes)                           |
//
// Text that passed find_invalid_utf8 (core/io.h) decodes the same under any of them. Everything
// is inline: these sit in the hottest loops (BLEU, chrF, ROUGE, WordPiece), where ASCII takes
// the first branch.
#include <cstddef>
#include <string>
#include <string_view>

namespace unieval::core {

// Appends the UTF-8 encoding of cp.
inline void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the sequence a lead byte announces: 1 (ASCII, or a byte that cannot lead), 2, 3, 4.
inline size_t utf8_sequence_length(unsigned char lead) {
  return lead < 0xC0 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
}

// Decodes the code point starting at s[i] and advances i past it. Invalid bytes (a stray
// continuation byte, a lead byte whose continuation bytes are missing or cut by the end of s)
// decode as themselves (0x80..0xFF) and advance one byte.
inline char32_t next_code_point(std::string_view s, size_t& i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  const unsigned char c = p[0];
  if (c < 0x80) {  // the fast path: ASCII
    ++i;
    return c;
  }
  const size_t left = s.size() - i;
  auto cont = [](unsigned char b) { return (b & 0xC0) == 0x80; };
  if (c >= 0xF0) {
    if (left >= 4 && cont(p[1]) && cont(p[2]) && cont(p[3])) {
      i += 4;
      return (char32_t{c & 0x07u} << 18) | (char32_t{p[1] & 0x3Fu} << 12) |
             (char32_t{p[2] & 0x3Fu} << 6) | (p[3] & 0x3Fu);
    }
  } else if (c >= 0xE0) {
    if (left >= 3 && cont(p[1]) && cont(p[2])) {
      i += 3;
      return (char32_t{c & 0x0Fu} << 12) | (char32_t{p[1] & 0x3Fu} << 6) | (p[2] & 0x3Fu);
    }
  } else if (c >= 0xC0) {
    if (left >= 2 && cont(p[1])) {
      i += 2;
      return (char32_t{c & 0x1Fu} << 6) | (p[1] & 0x3Fu);
    }
  }
  ++i;  // a stray continuation byte, or a lead byte without its continuation bytes
  return c;
}

}  // namespace unieval::core
