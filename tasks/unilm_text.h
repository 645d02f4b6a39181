#pragma once
// UniLM's post-processing of decoded text (microsoft/unilm@b3b78ee unilm-v1/src/qg/eval.py and
// cnndm/eval.py, both carry the same routines), re-implemented from their documented behaviour
// (docs/metrics/bleu_nist_meteor.md §2.5, rouge_squad_coqa_glue.md §1.5 and §3).
//
//   unilm_fix_tokenization("the U . N . ( usa ) don ' t pay 3 , 000 \" big \" well - known")
//     -> "the U.N. . -lrb- usa -rrb- do n't pay 3,000 `` big '' well-known"
//   wordpiece_detokenize("the hu ##gging face")   -> "the hugging face"
//
// fix_tokenization re-PTB-tokenises BERT-tokenised output so that it compares with the PTB-style
// references. Over the whitespace tokens of the line (Python 2 `str.split()`: ASCII whitespace),
// left to right, the first rule that applies:
//   1. ( ) [ ] { } -> -lrb- -rrb- -lsb- -rsb- -lcb- -rcb-; [UNK] -> UNK; & < > -> &amp; &lt; &gt;
//   2. "  -> `` and '' alternately (first one opens)
//   3. ' t after an output token ending in n -> that token loses its n, then n't
//      (don ' t -> do n't; a lone "n ' t" leaves an empty token, i.e. a double space)
//   4. ' s / ' d / ' ll -> 's / 'd / 'll
//   5. ' -> ` and ' alternately (first one opens)
//   6. . . . -> ...
//   7. , between a previous output token of digits/commas and a next token of digits/commas
//      -> glued: 3 , 000 -> 3,000
//   8. . between an all-digit previous output token and an all-digit next token -> 3.03
//   9. . after a one-letter upper-case output token, followed by one upper-case letter and '.':
//      the previous token takes ". X ." (and further " Y ." pairs) -> U . N . -> "U.N." then the
//      script resumes two tokens on, so the final "." is emitted again: "U.N. ."
//  10. - : "- -" -> "--"; at the first or last position "-"; between a previous output token and
//      a next token that are not punctuation -> glued to both sides (well - known -> well-known);
//      else "-". "Not punctuation" is Python's `x not in string.punctuation`: a substring test for
//      the previous token, a first-byte test for the next.
//  11. any other token: appended; glued to the previous one when that ended in a glued dash and
//      its first byte is not punctuation.
// Tokens joined by single spaces. Character classes are Python 2 byte-string ones (ASCII).
#include <string>
#include <vector>

namespace unieval::tasks {

std::string unilm_fix_tokenization(const std::string& text);

// UniLM detokenize(): a "##" WordPiece continuation is glued to the previous token (a leading
// "##" piece with nothing before it is kept as is). Tokens split on ASCII whitespace, joined by
// single spaces.
std::string wordpiece_detokenize(const std::string& text);

// Python 2 str methods on byte strings (ASCII only): strip(), lower(), split().
std::string py2_strip(const std::string& s);
std::string py2_lower(std::string s);
std::vector<std::string> py2_split(const std::string& s);

}  // namespace unieval::tasks
