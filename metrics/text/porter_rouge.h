#pragma once
// Follows ROUGE-1.5.5 (research release, no OSI licence) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// The Porter stemmer exactly as ROUGE-1.5.5 runs it (`sub stem` in ROUGE-1.5.5.pl, Martin
// Porter's "Release 1" Perl port), including the script's local 2004-02-14 change to step 4.
//
//   unieval::metrics::text::rouge155_porter_stem("implementation")  // "implem"
//   unieval::metrics::text::rouge155_porter_stem("always")          // "alwai"
//
// Differences from the published algorithm and from NLTK (see porter_nltk.h), all deliberate:
// * Step 4 (CYL 2004): the suffix group without -ment/-ent is tried first, then -ment on the
//   result, then -ent (else -sion/-tion); each cuts when m > 1, so they cascade
//   (argument -> argum, element -> elem).
// * The consonant/vowel tests are the script's regular expressions: a word-initial y is
//   upper-cased first (always a consonant), *o requires the whole stem to be [C]v[^aeiouwxy].
// * Words shorter than 3 characters are returned unchanged.
// Input is expected in lower case ASCII ([a-z0-9]); ROUGE-1.5.5 only stems tokens longer than 3
// characters, and only after the WordNet exception lookup (see wordnet_exceptions.h).
#include <string>
#include <string_view>

namespace unieval::metrics::text {

// Stems one lower-case token the way ROUGE-1.5.5's `stem` does.
std::string rouge155_porter_stem(std::string_view word);

}  // namespace unieval::metrics::text
