#pragma once
// Follows sacreBLEU (Apache-2.0) and mteval (no licence; behaviour only, no code taken) behaviour;
// no code copied; see THIRD_PARTY_NOTICES.md.
// The "international" tokenisation of mteval-v14 (`--international-tokenization`), as sacreBLEU
// 2.6.0 `intl` (sacrebleu/tokenizers/tokenizer_intl.py) and as mteval-v14c.pl
// (`tokenization_international`) apply it. Unicode general categories come from ICU (u_charType).
//
//   tokenize_intl("Hello, world! 1,000.5$")  -> "Hello , world ! 1,000.5 $"
//
// Rules, each a left-to-right global substitution over code points:
//   (\P{N})(\p{P}) -> "\1 \2 "   punctuation preceded by a non-number
//   (\p{P})(\P{N}) -> " \1 \2"   punctuation followed by a non-number
//   (\p{S})        -> " \1 "     every symbol
// sacreBLEU then joins Python str.split() fields with one space; mteval collapses \p{Z}+ to one
// space and trims \p{Z} at both ends (tabs are not \p{Z}: they survive until mteval's split).
#include <string>
#include <string_view>

namespace unieval::metrics::text {

// sacreBLEU `intl`.
std::string tokenize_intl(std::string_view line);

// mteval-v14c.pl tokenization_international: strip <skipped>, \p{Zl} -> ' ', unescape &quot;
// &amp; &lt; &gt; &apos;, Perl lc() unless preserve_case, the three rules, \p{Z} squeezing.
std::string mteval_tokenize_intl(std::string_view text, bool preserve_case);

}  // namespace unieval::metrics::text
