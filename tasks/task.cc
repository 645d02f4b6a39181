#include "tasks/task.h"

#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "results/sha256.h"
#include "tasks/registry.h"

namespace unieval::tasks {

const std::vector<TaskAdapter>& task_registry() {
  static const std::vector<TaskAdapter> kTasks = build_task_registry();
  return kTasks;
}

const TaskAdapter* find_task(const std::string& name) {
  for (const auto& t : task_registry())
    if (t.info.name == name) return &t;
  return nullptr;
}

std::string option(const EvalRequest& req, const std::string& key, const std::string& def) {
  auto it = req.options.find(key);
  return it == req.options.end() ? def : it->second;
}

double option_double(const EvalRequest& req, const std::string& key, double def) {
  auto it = req.options.find(key);
  if (it == req.options.end()) return def;
  try {
    size_t used = 0;
    double v = std::stod(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw InputError("--option " + key + "=" + it->second + ": not a number");
}

}  // namespace unieval::tasks
