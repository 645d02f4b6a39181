#include "core/fs.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "core/error.h"

namespace unieval::core {
namespace {

// nftw's callback takes no user pointer: the walk in progress keeps its state here.
thread_local size_t t_removed = 0;
thread_local std::vector<std::string>* t_files = nullptr;
thread_local size_t t_root_len = 0;

int remove_entry(const char* path, const struct stat*, int type, struct FTW*) {
  const int rc = (type == FTW_DP) ? ::rmdir(path) : ::unlink(path);
  if (rc != 0 && errno != ENOENT) return errno;
  ++t_removed;
  return 0;
}

int add_file(const char* path, const struct stat* st, int type, struct FTW*) {
  bool regular = type == FTW_F && S_ISREG(st->st_mode);
  if (type == FTW_SL) {
    struct stat target;
    regular = ::stat(path, &target) == 0 && S_ISREG(target.st_mode);
  }
  if (regular) {
    std::string rel(path + std::min(t_root_len, std::char_traits<char>::length(path)));
    while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
    if (!rel.empty()) t_files->push_back(std::move(rel));
  }
  return 0;
}

}  // namespace

size_t remove_tree(const std::string& path, std::error_code& ec) {
  ec.clear();
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) ec = std::error_code(errno, std::generic_category());
    return 0;
  }
  t_removed = 0;
  const int rc = ::nftw(path.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS);
  if (rc > 0)
    ec = std::error_code(rc, std::generic_category());
  else if (rc < 0)
    ec = std::error_code(errno, std::generic_category());
  return t_removed;
}

std::vector<std::string> list_files(const std::string& root) {
  std::vector<std::string> files;
  t_files = &files;
  t_root_len = root.size();
  const int rc = ::nftw(root.c_str(), add_file, 32, FTW_PHYS);
  const int err = errno;
  t_files = nullptr;
  if (rc != 0)
    throw InputError(root, 0,
                     std::string("cannot list folder: ") + std::generic_category().message(err));
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace unieval::core
