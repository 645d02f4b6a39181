#pragma once
// Reading corpora and writing results safely.
//
//   auto lines = unieval::read_lines("hyp.txt");          // plain or gzip, UTF-8 checked
//   auto corpus = unieval::read_corpus("hyp.txt", {"ref0.txt", "ref1.txt"});
//   unieval::write_file_atomic("out.json", text);        // temp file + rename, never partial
//
// Every reader throws unieval::InputError naming the file and line on a missing file, invalid
// UTF-8 or (read_corpus) a line-count mismatch.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace unieval {

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
  // Up to n bytes into p; 0 at the end of the file.
  size_t read(char* p, size_t n);

 private:
  std::string path_;
  int fd_ = -1;
  size_t size_hint_ = 0;
};

// The whole file's bytes (no gzip handling) into out: a std::string, std::vector<char> or any
// buffer with data(), size() and resize(n). Sized from the file once, read in large blocks.
template <class Bytes>
void read_raw_file(const std::string& path, Bytes& out) {
  RawFile f(path);
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

// Whole file as bytes; gzip input (magic 1f 8b) is decompressed transparently.
std::string read_file(const std::string& path);

struct ReadLinesOptions {
  bool check_utf8 = true;        // invalid UTF-8 is an InputError naming the line
  bool strip_cr = true;          // a trailing '\r' (CRLF files) is removed from each line
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

}  // namespace unieval
