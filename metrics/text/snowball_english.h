#pragma once
// Follows Snowball (BSD-3-Clause) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Snowball English stemmer ("Porter2"), written from the algorithm description at
// snowballstem.org/algorithms/english/stemmer.html. It is the stemmer METEOR 1.5 uses for its
// `stem` module (org.tartarus.snowball.ext.englishStemmer, wrapped by SnowballStemmerWrapper).
//
//   snowball_english_stem("generously")  // "generous"
//   snowball_english_stem("skies")       // "sky"
//
// Behaviour to know:
// * The word is processed as UTF-16 code units, like the Java stemmer: only the ASCII letters
//   a e i o u y count as vowels; any other character is a non-vowel and never part of a suffix.
// * No case folding: callers lowercase first ("Running" keeps its capital R, which is a
//   non-vowel).
// * Words of fewer than 3 code units are returned unchanged (apart from exception1 forms).
#include <string>
#include <string_view>

namespace unieval::metrics::text {

// Stem of one UTF-8 word (invalid UTF-8 bytes are kept as they are).
std::string snowball_english_stem(std::string_view word);

// The same on UTF-16 code units.
std::u16string snowball_english_stem_u16(std::u16string word);

}  // namespace unieval::metrics::text
