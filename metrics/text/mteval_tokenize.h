#pragma once
// Follows mteval (no licence) and DSTC7 (no code licence) behaviour only; no code taken; see
// THIRD_PARTY_NOTICES.md.
// Text normalisation of the NIST scorers mteval-v13a.pl and mteval-v14c.pl, and of the DSTC7
// XML writer that fed them in the DSTC7 evaluation (mgalley/DSTC7 evaluation/src/metrics.py
// `_write_xml`).
//
//   mteval_normalize(" Hello, http://x.com/A-B ", MtevalTokenization::kV14c, false)
//       -> "hello , http://x.com/A-B"      (v14c keeps http(s):// tokens whole, unlowercased)
//   mteval_normalize(same, MtevalTokenization::kV13a, false)
//       -> "hello , http : / / x . com / a-b"
//   perl_split_ws(" a b") -> {"", "a", "b"}   (Perl split /\s+/: a leading empty field stays)
//
// | mode   | routine whose output it reproduces                                        |
// |--------|---------------------------------------------------------------------------|
// | kV13a  | mteval-v13a.pl NormalizeText (whole segment; ASCII lowercasing tr/A-Z/a-z/) |
// | kV14c  | mteval-v14c.pl tokenization: trim, split /\s+/, tokens matching            |
// |        | ^https?:// kept verbatim, every other token through tokenization_orig       |
// |        | (= the v13a rules, ASCII lowercasing)                                       |
// | kIntl  | mteval-v14c.pl tokenization_international (see tokenize_intl.h)            |
// Perl's \s is taken with Unicode semantics (XML::Twig hands mteval decoded strings).
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics::text {

enum class MtevalTokenization { kV13a, kV14c, kIntl };

// Normalised, space-separated segment text as mteval scores it.
std::string mteval_normalize(std::string_view text, MtevalTokenization mode, bool preserve_case);

// Perl `split /\s+/, $s`: a leading separator gives a leading empty field; trailing empty
// fields are dropped; "" gives no field.
std::vector<std::string_view> perl_split_ws(std::string_view s);

// Perl's \s (Unicode semantics) for one code point.
bool is_perl_space(char32_t c);

// What DSTC7's _write_xml puts between <seg> tags for one input line: '&' and '<' replaced by
// spaces, an empty line replaced by "__empty__", the text wrapped in single spaces.
std::string dstc7_xml_segment(std::string_view line);

}  // namespace unieval::metrics::text
