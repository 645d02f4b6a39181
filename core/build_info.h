#pragma once
// The commit a program was built from, as its results record it (run_result's tool.commit) and
// `--version` prints it. The build rewrites a one-function source (cmake/build_stamp.cmake,
// target unieval::build_stamp) whenever git's HEAD or the state of the tracked files changes, so
// an incremental build never records the commit of the tree's first configure. Only programs
// link the stamp; each main() hands it to the libraries with set_build_commit():
//
//   unieval::core::set_build_commit(unieval::build_stamp::commit());
#include <string>

namespace unieval::build_stamp {

// HEAD's 12-digit short hash, "-dirty" appended when tracked files differed from it when the
// program was built; "unknown" outside a git checkout. Defined in the generated build_stamp.cc.
const char* commit();

}  // namespace unieval::build_stamp

namespace unieval::core {

// Set once, at the start of main(), before any thread starts.
void set_build_commit(std::string commit);

// What set_build_commit() gave; "unknown" in a program that never called it (a test, a library
// user's own program).
const std::string& build_commit();

}  // namespace unieval::core
