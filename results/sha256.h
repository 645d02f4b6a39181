#pragma once
// SHA-256 (FIPS 180-4) for data provenance in result files: the `data.sha256` of a RunResult is
// the digest of the bytes of the dataset as stored (compressed bytes for a .gz), so it can be
// checked with `sha256sum FILE` and against the checksums listed in ../shared/data/*/SOURCES.md.
//
//   std::string d = unieval::results::sha256_hex("abc");  // "ba7816bf...f20015ad"
#include <string>
#include <string_view>

namespace unieval::results {

// Lower-case hex digest of bytes.
std::string sha256_hex(std::string_view bytes);

// Digest of a file's raw bytes (no gzip decoding); InputError naming the file when unreadable.
std::string sha256_file(const std::string& path);

// The identity of a dataset given as a file or a folder: a file -> sha256_file(path); a folder ->
// the sha256 of the lines "<relative path>\t<sha256 of its bytes>\n" of every regular file under
// it (recursively, relative paths with '/', sorted bytewise; so renaming, adding, removing or
// changing any file changes it). "" when the path does not exist.
std::string sha256_path(const std::string& path);

}  // namespace unieval::results
