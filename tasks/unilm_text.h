#pragma once
// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// UniLM's post-processing of decoded text (microsoft/unilm@b3b78ee unilm-v1/src/qg/eval.py and
// cnndm/eval.py, each with its own copy of the routines), re-implemented from their behaviour
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
// Tokens joined by single spaces.
// The two copies differ (UnilmFlavour):
//   kQg     qg/eval.py, Python 2 byte strings: ASCII whitespace / digits / upper case, a "one
//           letter" token is one byte; rule 1 as above.
//   kCnndm  cnndm/eval.py, Python 3 str: Unicode whitespace (str.split()), Unicode digits
//           (str.isdigit: numeric type digit or decimal) and upper case, one code point; rule 1
//           maps only the brackets, to upper case: -LRB- -RRB- -LSB- -RSB- -LCB- -RCB- ([UNK],
//           &, <, > are kept).
//
// unilm_cnndm_postprocess() is cnndm/eval.py's process_eval() on one decoded line (with --perl,
// the BertSum ROUGE-1.5.5 setting UniLM Table 3 and ERNIE-GEN Table 3 report):
//   1. line.strip().split("[X_SEP]") -> sentences; each through fix_tokenization (kCnndm);
//      (the script's "skip when token F1 with an earlier sentence > 1.0" can never fire: F1 < 1)
//   2. sentences of <= 4 tokens dropped;
//   3. with 0 < duplicate_rate < 1: a sentence is dropped when the share of its distinct
//      lower-cased tokens already seen in the earlier sentences that passed step 2 is
//      > duplicate_rate;
//   4. with trunc_len > 0: tokens kept up to trunc_len over the summary, sentence by sentence
//      (a sentence cut short ends the summary);
//   5. the sentences are the summary's lines (ROUGE-L is summary-level over them).
// References: line.strip().replace(" <S_SEP> ", "\n"), each line a sentence; a pair whose
// reference is empty is not scored (the script writes no file for it).
#include <string>
#include <vector>

namespace unieval::tasks {

enum class UnilmFlavour { kQg, kCnndm };

std::string unilm_fix_tokenization(const std::string& text,
                                   UnilmFlavour flavour = UnilmFlavour::kQg);

struct UnilmCnndmOptions {
  int trunc_len = 60;           // --trunc_len (UniLM default 60; ERNIE-GEN passes 100); 0 = none
  double duplicate_rate = 0.7;  // --duplicate_rate; 0 or >= 1 = no de-duplication
};
// A decoded line -> the summary sentences that eval.py scores.
std::vector<std::string> unilm_cnndm_postprocess(const std::string& line,
                                                 const UnilmCnndmOptions& opts = {});
// A gold line -> its sentences (" <S_SEP> " separated; the line stripped first).
std::vector<std::string> unilm_cnndm_gold(const std::string& line);
// Python 3 str.split() (Unicode whitespace), str.strip() and str.lower() (full Unicode case
// mapping, ICU root locale).
std::vector<std::string> py3_split(const std::string& s);
std::string py3_strip(const std::string& s);
std::string py3_lower(const std::string& s);

// UniLM detokenize(): a "##" WordPiece continuation is glued to the previous token (a leading
// "##" piece with nothing before it is kept as is). Tokens split on ASCII whitespace (py3: true,
// Unicode whitespace), joined by single spaces.
std::string wordpiece_detokenize(const std::string& text, bool py3 = false);

// Python 2 str methods on byte strings (ASCII only): strip(), lower(), split().
std::string py2_strip(const std::string& s);
std::string py2_lower(std::string s);
std::vector<std::string> py2_split(const std::string& s);

}  // namespace unieval::tasks
