#pragma once
// Shared helpers of the libFuzzer targets (fuzz/README.md).
//
// The contract every target checks: on any input a reader or tokeniser either returns or throws
// unieval::InputError (the CLI's exit 2). Any other exception escapes LLVMFuzzerTestOneInput and
// aborts (a finding, the CLI's exit 3), as do sanitizer reports and the targets' own __builtin_trap
// on a broken invariant.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/io.h"

namespace unieval::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// The first byte of the input picks a mode (a reader, a tokeniser option); the rest is the text.
struct Split {
  uint8_t mode = 0;
  std::string_view text;
};
inline Split split_mode(const uint8_t* data, size_t size) {
  if (size == 0) return {};
  return {data[0], as_text(data + 1, size - 1)};
}

// Text the readers would have accepted: every command refuses invalid UTF-8 when reading a file
// (docs/metrics.md "Invalid UTF-8"), so the normalisers and tokenisers are only ever given valid UTF-8.
inline bool valid_utf8(std::string_view s) {
  return core::find_invalid_utf8(s) == std::string::npos;
}

// A file on tmpfs holding `bytes`, for the readers that take paths; removed with the object.
class TempFile {
 public:
  explicit TempFile(std::string_view bytes, const char* suffix = "") {
    const char* dir = std::getenv("TMPDIR");
    std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/unieval-fuzz-XXXXXX" + suffix;
    int fd = mkstemps(tmpl.data(), static_cast<int>(std::string_view(suffix).size()));
    if (fd < 0) std::abort();
    for (size_t off = 0; off < bytes.size();) {
      ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
      if (n <= 0) std::abort();
      off += static_cast<size_t>(n);
    }
    ::close(fd);
    path_ = tmpl;
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace unieval::fuzz

// A broken invariant (not a bad input): stop the run with the message.
#define UNIEVAL_FUZZ_CHECK(cond)                                                    \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      __builtin_trap();                                                             \
    }                                                                               \
  } while (0)
