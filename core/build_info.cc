#include "core/build_info.h"

#include <utility>

namespace unieval::core {
namespace {

std::string& commit_slot() {
  static std::string commit = "unknown";
  return commit;
}

}  // namespace

void set_build_commit(std::string commit) { commit_slot() = std::move(commit); }

const std::string& build_commit() { return commit_slot(); }

}  // namespace unieval::core
