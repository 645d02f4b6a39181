#pragma once
// UTF-8 encoding of one code point, shared by every tokeniser and normaliser.
//
//   std::string s;
//   unieval::utf8::append(s, U'é');  // "\xC3\xA9"
//
// Callers pass code points they decoded themselves (each tokeniser has its own rule for invalid
// bytes, which is part of the official script it reproduces), so no validation happens here:
// surrogates and values above U+10FFFF are encoded as they come.
#include <string>

namespace unieval::utf8 {

inline void append(std::string& out, char32_t cp) {
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

}  // namespace unieval::utf8
