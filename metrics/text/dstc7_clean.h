#pragma once
// Follows DSTC7 (no code licence; behaviour only, no code taken) and NLTK (Apache-2.0) behaviour;
// no code copied; see THIRD_PARTY_NOTICES.md.
// DSTC7's own text cleaning + tokenisation, `clean_str` of
// mgalley/DSTC7-End-to-End-Conversation-Modeling evaluation/src/tokenizers.py (@e2b50e5),
// applied by `dstc.py --clean` to hypotheses and references before NIST/BLEU/METEOR/entropy/div.
//
//   dstc7_clean_str("I don't know:). how about this?https://github.com/x")
//     -> "i do n't know :) . how about this ? __url__"
//   dstc7_clean_str("i don't know what you mean .") -> "i do n't know what you mean ."
//
// Steps, in the official order:
//   1. lower() (full Unicode, as Python)
//   2. per whitespace word: from the first "http" on, the rest of the word becomes " __url__"
//   3. markdown links "[text] ( __url__ )" -> "text"
//   4. every code point outside [A-Za-z0-9():,.!?"'] becomes a space ("__url__" kept)
//   5. NLTK TweetTokenizer(preserve_case=False) (NLTK 3.8 patterns: URL, phone number,
//      emoticon, word-with-apostrophes, number, word, ellipsis, other non-space; runs of 4+
//      identical non-alphanumerics cut to 3), tokens joined by ' '
//   6. " won't " -> " will n't ", " can't " -> " can n't ", then for 's 'm 're n't 'll 've 'd
//      'em: "X " -> " X " (Python str.replace, left to right, non-overlapping)
//   7. whitespace trimmed and collapsed
// After step 4 the text is ASCII from a 13-symbol alphabet, so only the TweetTokenizer
// patterns that can match it are ported (the @, #, <, >, - and emoji patterns cannot).
#include <string>
#include <string_view>

namespace unieval::metrics::text {

std::string dstc7_clean_str(std::string_view text);

}  // namespace unieval::metrics::text
