#pragma once
// Recursive directory removal and listing without std::filesystem's recursive iterator.
//
//   std::error_code ec;
//   unieval::core::remove_tree("run/checkpoint.old", ec);         // fs::remove_all(p, ec)
//   for (const auto& rel : unieval::core::list_files("data")) ...  // "a/b.txt", sorted
//
// Why not std::filesystem: the PyTorch 2.x wheels' LibTorch (libtorch_cpu.so) exports its own,
// statically linked copy of libstdc++'s std::filesystem::recursive_directory_iterator (PyTorch
// issue 133437). In a program linked with it, those symbols override the system libstdc++'s, whose
// std::filesystem::remove_all and recursive_directory_iterator then crash on a non-empty folder
// (seen with torch 2.11 + GCC 13: a segfault at the second checkpoint of every training run).
// Everything that may be linked into unieval-model walks folders through these (POSIX nftw).
#include <string>
#include <system_error>
#include <vector>

namespace unieval::core {

// Removes path and, for a folder, everything under it (symbolic links are removed, never
// followed). A missing path is not an error. Returns the number of entries removed; on failure
// sets ec (and stops) and returns what was removed until then.
size_t remove_tree(const std::string& path, std::error_code& ec);

// The regular files under root (symbolic links to regular files included, links to folders not
// followed), as paths relative to root with '/' separators, sorted bytewise. InputError naming
// root when it cannot be listed.
std::vector<std::string> list_files(const std::string& root);

}  // namespace unieval::core
