#pragma once
// Follows CPython (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Python 3 str.lower() on UTF-8 text: full Unicode lowercasing (ICU root locale, which also
// applies Python's final-sigma rule and SpecialCasing, e.g. U+0130 -> "i\u0307"). ASCII text
// takes a fast path.
//
//   metrics::text::py_lower("ÀB")   -> "àb"
//
// Why here and not in core/py_string.h with the other Python string primitives: the mapping
// needs Unicode case tables, core links no ICU (only zlib/libdeflate), and the tables are too
// large to keep exact by hand. metrics already link ICU; tasks that lowercase as Python does
// (tasks/unilm_text.cc) use this public header. Invalid UTF-8 is read as U+FFFD.
#include <string>
#include <string_view>

namespace unieval::metrics::text {

std::string py_lower(std::string_view s);

}  // namespace unieval::metrics::text
