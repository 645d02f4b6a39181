#pragma once
// Errors that carry where and what.
//
// Expected failures (a missing file, a malformed line, an option out of range) throw
// core::InputError (spelled unieval::InputError everywhere, see the end of this file) with the
// file and line they concern; apps/unieval catches it once, prints "unieval: error: FILE:LINE:
// problem" and exits with status 2. Programmer errors and library failures use the standard
// exceptions and exit with status 3. Status 1 is reserved for a check that ran and failed (a
// regression found by `compare`, a mismatch found by `reproduce`).
#include <stdexcept>
#include <string>

namespace unieval::core {

class InputError : public std::runtime_error {
 public:
  // file may be empty (an option error); line 0 means "no particular line".
  InputError(std::string file, long line, const std::string& problem)
      : std::runtime_error(format(file, line, problem)),
        file_(std::move(file)),
        line_(line),
        problem_(problem) {}
  explicit InputError(const std::string& problem) : InputError("", 0, problem) {}

  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& problem() const { return problem_; }

 private:
  static std::string format(const std::string& file, long line, const std::string& problem) {
    std::string out;
    if (!file.empty()) {
      out += file;
      if (line > 0) out += ":" + std::to_string(line);
      out += ": ";
    }
    return out + problem;
  }
  std::string file_;
  long line_;
  std::string problem_;
};

}  // namespace unieval::core

namespace unieval {
// The one error type every part of unieval throws for bad input (core, metrics, tasks, models,
// results, pipelines, apps), so it is spelled unieval::InputError wherever it is thrown or caught.
using core::InputError;
}  // namespace unieval
