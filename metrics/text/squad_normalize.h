#pragma once
// Follows SQuAD (no licence header) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
// The answer normaliser of the official SQuAD evaluation scripts (evaluate-v1.1.py and
// evaluate-v2.0.py, routine `normalize_answer`), which the official CoQA script
// (evaluate-v1.0.py, `CoQAEvaluator.normalize_answer`) repeats unchanged.
//
//   normalize_answer("The  Eiffel-Tower!")  ->  "eiffeltower"
//   answer_tokens("The cat, a dog")         ->  {"cat", "dog"}
//
// Steps, in the official order (all on Python 3 `str`, i.e. Unicode code points):
//   1. lower()              full Unicode lowercasing (ICU root locale = Python's str.lower,
//                           incl. 'İ' -> "i̇" and the Greek final sigma)
//   2. remove punctuation   the 32 ASCII characters of string.punctuation are deleted;
//                           Unicode punctuation (“ ” ‘ ’ … – —) survives
//   3. remove articles      re.sub(r'\b(a|an|the)\b', ' ', s): a whole \w-run equal to "a",
//                           "an" or "the" becomes a space (\w = Python's Unicode word
//                           characters: letters, numbers, '_')
//   4. white_space_fix      ' '.join(s.split()): Python str.split() whitespace (Unicode
//                           White_Space plus \x1c-\x1f)
// ASCII text without control characters takes a byte-level fast path with the same result.
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics::text {

// normalize_answer(s) of the official SQuAD / CoQA scripts. `s` must be valid UTF-8.
std::string squad_normalize_answer(std::string_view s);

// The same into `out` (its old content replaced, its capacity reused: no allocation per call
// once warm).
void squad_normalize_answer_into(std::string_view s, std::string& out);

// The same through the general (code point) path alone, which ASCII text otherwise skips with
// a byte-level pass giving the same result (for tests that hold the two to each other).
void squad_normalize_answer_general(std::string_view s, std::string& out);

// normalize_answer(s).split(): the tokens the F1 scores are computed on (get_tokens of v2.0).
std::vector<std::string> squad_answer_tokens(std::string_view s);
// The same from an already normalised string (normalize once, tokenise without redoing it).
std::vector<std::string> squad_tokens_of_normalized(const std::string& normalized);

// normalize_answer(s) and its split() in buffers reused from call to call: toks are views of
// norm, valid until the next set() or until the object is moved or copied.
struct NormalizedAnswer {
  std::string norm;
  std::vector<std::string_view> toks;
  void set(std::string_view s);
};

}  // namespace unieval::metrics::text
