#pragma once
// Test helper: one gzip member of `text` (zlib, level 6), as `gzip -c` writes it; concatenate
// two for a multi-member file.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace unieval::testing {

inline std::string gzip(const std::string& text) {
  z_stream zs{};
  EXPECT_EQ(Z_OK, deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY));
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(Z_STREAM_END, deflate(&zs, Z_FINISH));
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace unieval::testing
