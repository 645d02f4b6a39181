#pragma once
// Part of unieval_meteor, the LGPL-2.1 component of unieval (metrics/CMakeLists.txt).
// SPDX-License-Identifier: LGPL-2.1-only
// Copyright 2026 the unieval authors. This file is a C++ port of the text normaliser of METEOR 1.5
// (cmu-mtlab/meteor; Michael Denkowski, Alon Lavie, Carnegie Mellon University), itself a Java port
// of the Moses tokenizer (moses-smt/mosesdecoder); both are licensed under the LGPL-2.1, so this
// file is licensed under the GNU Lesser General Public License version 2.1 (LICENSES/LGPL-2.1.txt),
// not under Apache-2.0 like the rest of unieval. It is distributed WITHOUT ANY WARRANTY; without
// even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE; see the
// licence.
//
// Follows METEOR 1.5 (LGPL-2.1) and Moses (LGPL-2.1) behaviour, through the port in
// meteor_normalize.cc; see THIRD_PARTY_NOTICES.md.
// METEOR 1.5's text normaliser (`-norm`, `-norm -noPunct`, `-lower`): a port of
// edu.cmu.meteor.util.Normalizer.normalizeLine (English branch), which is a Java port of the Moses
// tokenizer with METEOR's additions.
//
//   auto nbp = NonbreakingPrefixes::load("DATA/nonbreaking/english.prefixes");
//   meteor_normalize("Mr. Smith's U.S.-based co-op...", nbp, /*keep_punctuation=*/true)
//     // "Mr. Smith 's US based co op ..."  (then java_lowercase for -norm)
//
// Steps, in the jar's order (each a left-to-right, non-overlapping replaceAll as Java does it):
//  1. wrap in spaces; every code point that is not alphanumeric (ASCII, Latin-1/Latin Extended-A,
//     Cyrillic ranges), not ASCII whitespace and not one of . ' ` , - ‘ ’ is put between spaces;
//  2. runs of 2+ dots are escaped (DOTMULTI) so that they survive the dot splitting;
//  3. commas are split unless between two ASCII digits;
//  4. ` ‘ ’ -> ',  “ ” '' -> " ;  – -> -,  -- -> -;
//  5. a hyphen between two alphanumerics (or dot and alphanumeric) becomes a space;
//  6. English apostrophes: don't -> don 't, isolated ' split off, 1990's -> 1990 's;
//  7. a token ending in '.' keeps its dot when it is a non-breaking prefix, when the next token
//     starts with a-z, or (NUMERIC_ONLY prefixes) when the next token starts with a digit; a token
//     with inner dots and a letter loses all its dots (U.S. -> US); otherwise the dot is split off;
//  8. DOTMULTI unescaped; with keep_punctuation=false every non-alphanumeric becomes a space;
//  9. Unicode spaces collapse to one space, then Java trim().
// Lowercasing (-norm and -lower) is a separate step: java_lowercase (ICU, English locale, as Java's
// String.toLowerCase()).
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace unieval::metrics::text {

// The jar's nonbreaking prefix list (resources/nonbreaking/<language>.prefixes).
struct NonbreakingPrefixes {
  static constexpr int kAny = 1;              // always non-breaking
  static constexpr int kNumericOnly = 2;      // non-breaking before a number (#NUMERIC_ONLY#)
  std::unordered_map<std::string, int> type;  // prefix (without the dot) -> kAny / kNumericOnly

  // Parses the file format: one prefix per line, '#' comments, optional "#NUMERIC_ONLY#" marker.
  static NonbreakingPrefixes parse(std::string_view text);
  // Reads PATH (plain or gzip); a missing file is an InputError naming it.
  static NonbreakingPrefixes load(const std::string& path);
};

// normalizeLine(line, English, keepPunctuation) of METEOR 1.5, without lowercasing.
std::string meteor_normalize(std::string_view line, const NonbreakingPrefixes& prefixes,
                             bool keep_punctuation = true);

// Java's String.toLowerCase() in an English locale (full Unicode mapping, final sigma).
std::string java_lowercase(std::string_view text);

// java.util.StringTokenizer with its default delimiters " \t\n\r\f".
std::vector<std::string> java_tokenize(std::string_view text);

// Java's String.hashCode() of the UTF-16 form of a UTF-8 string: METEOR compares words by it.
int32_t java_string_hash(std::string_view utf8);

}  // namespace unieval::metrics::text
