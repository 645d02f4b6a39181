#pragma once
// Follows NLTK (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// NLTK's PorterStemmer in its default mode (NLTK_EXTENSIONS), as google-research rouge-score
// uses it (`PorterStemmer().stem(token)` for tokens longer than 3 characters).
//
//   unieval::metrics::text::nltk_porter_stem("dying")     // "die" (irregular-forms pool)
//   unieval::metrics::text::nltk_porter_stem("argument")  // "argument"
//
// Matches nltk 3.8 nltk/stem/porter.py: the irregular-forms pool (sky, dying, news, innings, ...),
// words of length <= 2 unchanged, the NLTK "ies"/"ied" extensions, the (*c and not c) step 1c
// rule, "alli" applied first in step 2 with a re-run, "fulli" and "logi" rules, first-listed
// (not longest) suffix rule wins. It differs from ROUGE-1.5.5's stemmer (porter_rouge.h) on many
// words (use/us, implement/implem, always/alwai, news/new ...). Input: lower-case ASCII.
#include <string>
#include <string_view>

namespace unieval::metrics::text {

// Stems one lower-case token as nltk.stem.PorterStemmer() (NLTK_EXTENSIONS) does.
std::string nltk_porter_stem(std::string_view word);

}  // namespace unieval::metrics::text
