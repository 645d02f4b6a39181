#pragma once
// Reading corpora and writing results safely.
//
//   auto lines = unieval::core::read_lines("hyp.txt");          // plain or gzip, UTF-8 checked
//   auto corpus = unieval::core::read_corpus("hyp.txt", {"ref0.txt", "ref1.txt"});
//   unieval::core::write_file_atomic("out.json", text);        // temp file + rename, never partial
//
// Every reader throws unieval::InputError naming the file and line on a missing file, invalid
// UTF-8 or (read_corpus) a line-count mismatch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace unieval::core {

// An open file for reading in large blocks (read_raw_file below); InputError naming the file
// when it cannot be opened or read.
class RawFile {
 public:
  explicit RawFile(const std::string& path);
  ~RawFile();
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;
  // The size of a regular file (0 for a pipe or a special file).
  size_t size_hint() const { return size_hint_; }
  int fd() const { return fd_; }
  // Up to n bytes into p; 0 at the end of the file.
  size_t read(char* p, size_t n);

 private:
  std::string path_;
  int fd_ = -1;
  size_t size_hint_ = 0;
};

// An open regular file mapped read-only (page-cache pages: nothing copied, nothing zeroed),
// for inputs that are only read, such as a .gz file about to be inflated. bytes() is empty when
// the file is empty or not a regular file (a pipe, /dev/stdin): read it from the same RawFile
// then (read_all), never by opening the path again.
class MappedFile {
 public:
  explicit MappedFile(const RawFile& file);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// The whole file's bytes (no gzip handling) into out: a std::string, std::vector<char> or any
// buffer with data(), size() and resize(n). Sized from the file once, read in large blocks.
// read_all reads what is left of an open file.
template <class Bytes>
void read_all(RawFile& f, Bytes& out) {
  out.resize(f.size_hint());
  size_t used = 0;
  for (;;) {
    if (used == out.size()) out.resize(std::max<size_t>(out.size() * 2, size_t{1} << 16));
    size_t n = f.read(out.data() + used, out.size() - used);
    if (n == 0) break;
    used += n;
  }
  out.resize(used);
}
template <class Bytes>
void read_raw_file(const std::string& path, Bytes& out) {
  RawFile f(path);
  read_all(f, out);
}

// True when the bytes start with the gzip magic (1f 8b).
inline bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// A whole single-member gzip file held in memory, inflated into out[0, cap). Returns the
// inflated size, or npos when gz is anything else (several members, corrupt or truncated data,
// more than cap bytes): the streaming reader (read_file) then handles it and names the problem.
// Uses libdeflate where it was found at build time (2-3x zlib's speed), zlib otherwise.
size_t gunzip_single_member(std::string_view gz, char* out, size_t cap);

// The same into a buffer sized from the gzip trailer (ISIZE): a std::string, std::vector<char>
// or HugeVector<char>. False (out unspecified) when gunzip_single_member fails.
template <class Bytes>
bool gunzip_single(std::string_view gz, Bytes& out) {
  if (gz.size() < 18) return false;
  uint32_t isize = 0;
  for (int k = 3; k >= 0; --k)
    isize = (isize << 8) | static_cast<unsigned char>(gz[gz.size() - 4 + k]);
  // Deflate expands at most ~1032:1; a larger ISIZE is a damaged trailer (or a file over
  // 4 GiB, whose ISIZE wrapped): not worth allocating for.
  if (isize / 1032 > gz.size()) return false;
  out.resize(isize);
  size_t got = gunzip_single_member(gz, out.data(), out.size());
  return got == isize;
}

// Any gzip data (one or several members, as `cat a.gz b.gz` makes), inflated with zlib's
// streaming reader; damaged or truncated data is an InputError naming `path`.
std::string gunzip(std::string_view gz, const std::string& path);

// The whole file into out (a std::string or HugeVector<char>), gzip input (magic 1f 8b, one or
// several members) decompressed. A regular file is read through a read-only mapping, so a .gz
// file is inflated straight from its page-cache pages; a pipe is read once.
template <class Bytes>
void read_decompressed(const std::string& path, Bytes& out) {
  RawFile file(path);
  MappedFile mapped(file);
  Bytes raw;
  std::string_view bytes = mapped.bytes();
  if (bytes.empty()) {  // a pipe, an empty file, or a file system without mmap
    read_all(file, raw);
    bytes = std::string_view(raw.data(), raw.size());
  }
  if (!is_gzip(bytes)) {
    if (mapped.bytes().empty())
      out.swap(raw);
    else
      out.assign(bytes.begin(), bytes.end());
    return;
  }
  if (gunzip_single(bytes, out)) return;
  std::string all = gunzip(bytes, path);  // several members, or damaged (its messages)
  out.assign(all.begin(), all.end());
}

// Whole file as bytes (read_decompressed).
std::string read_file(const std::string& path);

struct ReadLinesOptions {
  bool check_utf8 = true;  // invalid UTF-8 is an InputError naming the line
  bool strip_cr = true;    // a trailing '\r' (CRLF files) is removed from each line
};

// One entry per line, without the newline. A final line without '\n' counts; a file ending in
// '\n' has no extra empty line (like Python's readlines / sacreBLEU).
std::vector<std::string> read_lines(const std::string& path, const ReadLinesOptions& opts = {});
std::vector<std::string> split_lines(std::string_view text, const std::string& source_name,
                                     const ReadLinesOptions& opts = {});

// Byte offset of the first invalid UTF-8 sequence, or npos when valid.
size_t find_invalid_utf8(std::string_view s);

// A system output with its reference streams: refs[k][i] is the k-th reference of segment i
// (sacreBLEU's reference-stream layout).
struct Corpus {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;
};
// Reads the hypothesis and reference files; all must have the same number of lines.
Corpus read_corpus(const std::string& hyp_path, const std::vector<std::string>& ref_paths);

// Writes to PATH.tmp.<pid> and renames over path, so a reader never sees a partial file.
// "-" writes to standard output.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace unieval::core
