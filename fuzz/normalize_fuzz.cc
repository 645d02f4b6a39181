// Fuzz target: the official scripts' tokenisers and normalisers (metrics/text/): sacreBLEU 13a /
// zh / char / intl, mteval v13a / v14c / intl, ROUGE-1.5.5 and rouge-score tokens, METEOR 1.5's
// normalizeLine + Java lower case + StringTokenizer, the SQuAD answer normaliser, the DSTC7 cleaner,
// the stemmers (Porter ROUGE / NLTK, Snowball) and Python's str.lower().
//
// Input: one mode byte (which normaliser, and its option bits), then the text. Only valid UTF-8 is
// passed on: every command refuses invalid UTF-8 when it reads a file (docs/metrics.md "Invalid UTF-8"),
// so no normaliser ever sees it. A normaliser must not crash, hang or trip a sanitizer, and must
// return valid UTF-8 (the scores and the JSON output are built from it).
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "metrics/text/dstc7_clean.h"
#include "metrics/text/meteor_normalize.h"
#include "metrics/text/mteval_tokenize.h"
#include "metrics/text/porter_nltk.h"
#include "metrics/text/porter_rouge.h"
#include "metrics/text/py_lower.h"
#include "metrics/text/rouge_tokenize.h"
#include "metrics/text/snowball_english.h"
#include "metrics/text/squad_normalize.h"
#include "metrics/text/tokenize_13a.h"
#include "metrics/text/tokenize_intl.h"

namespace {

namespace text = unieval::metrics::text;
using unieval::fuzz::valid_utf8;

void check_out(const std::string& s) { UNIEVAL_FUZZ_CHECK(valid_utf8(s)); }
void check_out(const std::vector<std::string>& v) {
  for (const auto& s : v) check_out(s);
}

const text::NonbreakingPrefixes& prefixes() {
  static const text::NonbreakingPrefixes p = text::NonbreakingPrefixes::parse(
      "# test list\nMr\nDr\nU.S\nNo #NUMERIC_ONLY#\nArt #NUMERIC_ONLY#\n");
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [mode, s] = unieval::fuzz::split_mode(data, size);
  if (!valid_utf8(s)) return 0;
  bool flag = mode & 0x80;
  switch (mode % 20) {
    case 0:
      check_out(text::tokenize_13a(s));
      break;
    case 1:
      check_out(text::tokenize_zh(s));
      break;
    case 2:
      check_out(text::tokenize_char(s));
      break;
    case 3:
      check_out(text::tokenize_intl(s));
      break;
    case 4:
      check_out(text::mteval_normalize(s, text::MtevalTokenization::kV13a, flag));
      break;
    case 5:
      check_out(text::mteval_normalize(s, text::MtevalTokenization::kV14c, flag));
      break;
    case 6:
      check_out(text::mteval_normalize(s, text::MtevalTokenization::kIntl, flag));
      break;
    case 7:
      check_out(text::mteval_tokenize_intl(s, flag));
      break;
    case 8:
      check_out(text::rouge155_tokens(s));
      break;
    case 9:
      check_out(text::rouge_score_tokens(s, flag));
      break;
    case 10:
      check_out(text::meteor_normalize(s, prefixes(), flag));
      break;
    case 11:
      check_out(text::java_tokenize(text::java_lowercase(s)));
      break;
    case 12:
      (void)text::java_string_hash(s);
      break;
    case 13:
      check_out(text::squad_normalize_answer(s));
      check_out(text::squad_answer_tokens(s));
      break;
    case 14:
      check_out(text::dstc7_clean_str(s));
      break;
    case 15:
      check_out(text::py_lower(s));
      break;
    case 16:
      (void)text::rouge155_porter_stem(s);
      break;  // ROUGE stems ASCII-lowered tokens
    case 17:
      (void)text::nltk_porter_stem(s);
      break;
    case 18:
      check_out(text::snowball_english_stem(s));
      break;
    case 19:
      check_out(text::dstc7_xml_segment(s));
      check_out(text::tokenize_regexp_post(s));
      break;
  }
  return 0;
}
