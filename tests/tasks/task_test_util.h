#pragma once
// Shared by the task adapter tests.
#include <string>

#include "tasks/task.h"

namespace unieval::tasks {

// An evaluation request with the defaults of every other field.
inline EvalRequest request(const std::string& task, const std::string& data,
                           const std::string& pred) {
  EvalRequest r;
  r.task = task;
  r.data = data;
  r.pred = pred;
  return r;
}

}  // namespace unieval::tasks
