#include "core/io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if UNIEVAL_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "core/error.h"

namespace unieval::core {

RawFile::RawFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    size_hint_ = static_cast<size_t>(st.st_size);
}

RawFile::~RawFile() { ::close(fd_); }

size_t RawFile::read(char* p, size_t n) {
  for (;;) {
    ssize_t got = ::read(fd_, p, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR)
      throw InputError(path_, 0, std::string("read error: ") + std::strerror(errno));
  }
}

MappedFile::MappedFile(const RawFile& f) {
  if (f.size_hint() == 0) return;
  void* p = ::mmap(nullptr, f.size_hint(), PROT_READ, MAP_PRIVATE, f.fd(), 0);
  if (p == MAP_FAILED) return;  // e.g. a file system without mmap: callers read it instead
  data_ = p;
  size_ = f.size_hint();
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

std::string gunzip(std::string_view compressed, const std::string& path) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw InputError(path, 0, "zlib init failed");
  std::string out;
  out.reserve(compressed.size() * 4);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (as `cat a.gz b.gz` makes) continue.
      if (zs.avail_in == 0) break;
      inflateReset(&zs);
      continue;
    }
    if (rc != Z_OK) {
      inflateEnd(&zs);
      throw InputError(path, 0, "corrupt or truncated gzip data");
    }
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      throw InputError(path, 0, "truncated gzip data");
    }
  }
  inflateEnd(&zs);
  return out;
}

size_t gunzip_single_member(std::string_view gz, char* out, size_t cap) {
  constexpr size_t npos = static_cast<size_t>(-1);
#if UNIEVAL_HAVE_LIBDEFLATE
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (!d) throw std::bad_alloc();
  size_t in_used = 0, out_used = 0;
  libdeflate_result rc =
      libdeflate_gzip_decompress_ex(d, gz.data(), gz.size(), out, cap, &in_used, &out_used);
  libdeflate_free_decompressor(d);
  return rc == LIBDEFLATE_SUCCESS && in_used == gz.size() ? out_used : npos;
#else
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return npos;
  // A member longer than cap stops at Z_BUF_ERROR; data after the member leaves avail_in.
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(out);
  zs.avail_out = static_cast<uInt>(cap);
  int rc = inflate(&zs, Z_FINISH);
  bool ok = rc == Z_STREAM_END && zs.avail_in == 0;
  size_t produced = zs.total_out;
  inflateEnd(&zs);
  return ok ? produced : npos;
#endif
}

std::string read_file(const std::string& path) {
  std::string out;
  read_decompressed(path, out);
  return out;
}

size_t find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    // ASCII runs 8 bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else
      return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return i;
    i += len;
  }
  return std::string_view::npos;
}

std::vector<std::string> split_lines(std::string_view text, const std::string& source_name,
                                     const ReadLinesOptions& opts) {
  std::vector<std::string> lines;
  size_t start = 0;
  long lineno = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    ++lineno;
    if (opts.strip_cr && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (opts.check_utf8) {
      size_t bad = find_invalid_utf8(line);
      if (bad != std::string_view::npos)
        throw InputError(source_name, lineno,
                         "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line");
    }
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> read_lines(const std::string& path, const ReadLinesOptions& opts) {
  std::string data = read_file(path);
  return split_lines(data, path, opts);
}

Corpus read_corpus(const std::string& hyp_path, const std::vector<std::string>& ref_paths) {
  Corpus c;
  c.hyps = read_lines(hyp_path);
  for (const auto& r : ref_paths) {
    c.refs.push_back(read_lines(r));
    if (c.refs.back().size() != c.hyps.size())
      throw InputError(r, 0,
                       "has " + std::to_string(c.refs.back().size()) +
                           " lines but the hypothesis file " + hyp_path + " has " +
                           std::to_string(c.hyps.size()));
  }
  return c;
}

void write_file_atomic(const std::string& path, std::string_view content) {
  if (path == "-") {
    std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
    std::cout.flush();
    return;
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, std::string("cannot write: ") + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path, 0, "write failed (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    std::remove(tmp.c_str());
    throw InputError(path, 0, std::string("cannot rename temporary file: ") + std::strerror(e));
  }
}

}  // namespace unieval::core
