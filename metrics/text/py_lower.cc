// Follows CPython (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/text/py_lower.h"

#include <unicode/ustring.h>
#include <unicode/utypes.h>

namespace unieval::metrics::text {

std::string py_lower(std::string_view s) {
  bool ascii = true;
  for (unsigned char c : s) ascii &= c < 0x80;
  if (ascii) {
    std::string out(s);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  UErrorCode err = U_ZERO_ERROR;
  int32_t len16 = 0;
  u_strFromUTF8WithSub(nullptr, 0, &len16, s.data(), static_cast<int32_t>(s.size()), 0xFFFD,
                       nullptr, &err);
  std::u16string u16(len16, u'\0');
  err = U_ZERO_ERROR;
  u_strFromUTF8WithSub(u16.data(), len16, nullptr, s.data(), static_cast<int32_t>(s.size()), 0xFFFD,
                       nullptr, &err);
  std::u16string low(len16 * 3 + 4, u'\0');
  err = U_ZERO_ERROR;
  int32_t low_len =
      u_strToLower(low.data(), static_cast<int32_t>(low.size()), u16.data(), len16, "", &err);
  if (U_FAILURE(err)) return std::string(s);
  std::string out(static_cast<size_t>(low_len) * 3 + 4, '\0');
  int32_t out_len = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &out_len, low.data(), low_len, &err);
  if (U_FAILURE(err)) return std::string(s);
  out.resize(out_len);
  return out;
}

}  // namespace unieval::metrics::text
