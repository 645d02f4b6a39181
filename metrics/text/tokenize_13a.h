#pragma once
// Follows sacreBLEU (Apache-2.0), mteval (no licence) and CPython (PSF-2.0) behaviour; clean-room,
// see THIRD_PARTY_NOTICES.md.
// sacreBLEU 2.6.0 tokenisers `13a`, `zh`, `char`, `none`, and the Python string primitives they
// rest on (str.split(), str.rstrip(), str.lower()), reproduced byte for byte on UTF-8 text.
//
//   tokenize_13a("Hello, world!")      -> "Hello , world !"
//   tokenize_zh("我爱 NLP.")            -> "我 爱 NLP ."
//   tokenize_char("ab c")              -> "a b   c"   (BLEU then splits on whitespace)
//   py_split(" a\u3000b ")             -> {"a", "b"}  (Python's Unicode whitespace)
//
// | function              | mirrors                                                         |
// |-----------------------|-----------------------------------------------------------------|
// | tokenize_13a          | sacrebleu/tokenizers/tokenizer_13a.py (= mteval-v13a           |
// |                       | NormalizeText without lowercasing)                              |
// | tokenize_regexp_post  | sacrebleu/tokenizers/tokenizer_re.py (the four 13a regexes +    |
// |                       | ' '.join(line.split()))                                         |
// | tokenize_zh           | sacrebleu/tokenizers/tokenizer_zh.py (CJK ranges padded, then   |
// |                       | tokenize_regexp_post)                                           |
// | tokenize_char         | sacrebleu/tokenizers/tokenizer_char.py                          |
// | py_split / py_rstrip  | Python 3 str.split() / str.rstrip() with no argument             |
// | py_lower              | Python 3 str.lower() (full Unicode mapping, via ICU root locale) |
//
// The 13a regexes only test ASCII characters, so they are applied to UTF-8 bytes directly;
// this gives the same result as applying them to code points (a multi-byte character is never
// '.', ',', '-' or a digit, and the inserted separators are plain spaces).
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics::text {

// Decodes the code point starting at s[i] and advances i. Invalid bytes decode as themselves
// (0x80..0xFF) and advance one byte, so every input is handled.
char32_t next_code_point(std::string_view s, size_t& i);
// Appends the UTF-8 encoding of c.
void append_utf8(std::string& out, char32_t c);

// Python str.isspace() for one code point (Unicode White_Space plus U+001C..U+001F).
bool is_py_space(char32_t c);
// Python str.split(): fields separated by runs of Python whitespace, no empty fields.
std::vector<std::string_view> py_split(std::string_view s);
// Python str.rstrip() / str.strip() with no argument.
std::string_view py_rstrip(std::string_view s);
std::string_view py_strip(std::string_view s);
// Python str.replace(from, to): left to right, non-overlapping, the replacement never rescanned
// (an empty `from` leaves s unchanged). The second form replaces in place.
std::string py_replace(std::string_view s, std::string_view from, std::string_view to);
void py_replace_in(std::string& s, std::string_view from, std::string_view to);
// Python str.lower(): full Unicode lowercasing (ICU root locale, which also applies Python's
// final-sigma rule). ASCII text takes a fast path.
std::string py_lower(std::string_view s);

// ' '.join(s.split()) (Python whitespace); the second form only for pure-ASCII s.
std::string join_py_split(std::string_view s);
std::string join_split_ascii(std::string_view s);
// The four 13a regexes then ' '.join(line.split()) (sacrebleu TokenizerRegexp).
std::string tokenize_regexp_post(std::string_view line);
// sacrebleu `13a`: strip <skipped>, "-\n", "\n"; unescape &quot; &amp; &lt; &gt; when '&' is
// present; pad with spaces; tokenize_regexp_post.
std::string tokenize_13a(std::string_view line);
// sacrebleu `zh`: strip, pad every CJK character (sacrebleu's 22 ranges), tokenize_regexp_post.
std::string tokenize_zh(std::string_view line);
// sacrebleu `char`: every character (spaces included) separated by one space.
std::string tokenize_char(std::string_view line);

}  // namespace unieval::metrics::text
