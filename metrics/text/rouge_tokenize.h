#pragma once
// Follows ROUGE-1.5.5 (research release, no OSI licence) and rouge-score (Apache-2.0) behaviour; no
// code copied; see THIRD_PARTY_NOTICES.md.
// The tokenisers of the ROUGE implementations we reproduce.
//
// ROUGE-1.5.5 (`readText` + `createNGram` / `readText_LCS` + `tokenizeText_LCS`):
//   1. `tr/A-Z/a-z/` (ASCII only; other bytes are untouched),
//   2. `s/-/ - /g; s/[^A-Za-z0-9\-]/ /g`, trim, squeeze (so every byte >= 0x80 becomes a space:
//      "café" -> "caf", "state-of-the-art" -> "state - of - the - art", "42.5" -> "42 5"),
//   3. split on whitespace and keep tokens matching ^[a-z0-9] (the "-" tokens go).
//   The result is therefore the maximal runs of ASCII letters and digits, lower-cased.
//
//   rouge155_tokens("The U.S. state-of-the-art café")  // the u s state of the art caf
//
// google-research rouge-score (`tokenize.tokenize`): Python `str.lower()` (Unicode), then
// `[^a-z0-9]+` -> " ", split, optional Porter stem (NLTK, tokens longer than 3), keep tokens
// matching ^[a-z0-9]+$. Unicode lower-casing matters for two characters only: U+0130 (İ) becomes
// "i" + U+0307 and U+212A (KELVIN SIGN) becomes "k"; every other non-ASCII character lower-cases
// to non-ASCII and vanishes.
//
//   rouge_score_tokens("İstanbul's cafés", /*stem=*/false)  // i stanbul s caf s
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics::text {

// ROUGE-1.5.5 tokens of one text (a sentence or a whole summary), in order.
std::vector<std::string> rouge155_tokens(std::string_view text);

// Perl's split(/\s+/, $s) word count, used by ROUGE-1.5.5's -l limit: fields between runs of
// whitespace, a leading empty field kept when the text starts with whitespace, trailing empty
// fields dropped. ASCII whitespace only (ROUGE-1.5.5 reads bytes); perl_split_ws
// (mteval_tokenize.h) is the Unicode-aware split of mteval.
std::vector<std::string_view> perl_split_ascii_ws(std::string_view text);

// ASCII lower-casing as Perl's tr/A-Z/a-z/.
std::string ascii_lower(std::string_view text);

// rouge-score tokens (tokenize.tokenize(text, stemmer)); stem = NLTK Porter on tokens longer
// than 3 characters. Text must be valid UTF-8.
std::vector<std::string> rouge_score_tokens(std::string_view text, bool stem);

}  // namespace unieval::metrics::text
