#pragma once
// Follows sacreBLEU (Apache-2.0), mteval (no licence; behaviour only, no code taken) and CPython
// (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// sacreBLEU 2.6.0 tokenisers `13a`, `zh`, `char`, `none`, reproduced byte for byte on UTF-8 text.
// The Python string primitives they rest on are core/py_string.h (str.split(), str.strip(),
// str.replace()) and metrics/text/py_lower.h (str.lower()).
//
//   tokenize_13a("Hello, world!")      -> "Hello , world !"
//   tokenize_zh("我爱 NLP.")            -> "我 爱 NLP ."
//   tokenize_char("ab c")              -> "a b   c"   (BLEU then splits on whitespace)
//
// | function              | reproduces the output of                                        |
// |-----------------------|-----------------------------------------------------------------|
// | tokenize_13a          | sacrebleu/tokenizers/tokenizer_13a.py (= mteval-v13a           |
// |                       | NormalizeText without lowercasing)                              |
// | tokenize_regexp_post  | sacrebleu/tokenizers/tokenizer_re.py (the four 13a regexes +    |
// |                       | ' '.join(line.split()))                                         |
// | tokenize_zh           | sacrebleu/tokenizers/tokenizer_zh.py (CJK ranges padded, then   |
// |                       | tokenize_regexp_post)                                           |
// | tokenize_char         | sacrebleu/tokenizers/tokenizer_char.py                          |
//
// The 13a regexes only test ASCII characters, so they are applied to UTF-8 bytes directly;
// this gives the same result as applying them to code points (a multi-byte character is never
// '.', ',', '-' or a digit, and the inserted separators are plain spaces).
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics::text {

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
