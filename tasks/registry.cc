#include "tasks/registry.h"

namespace unieval::tasks {

std::vector<TaskAdapter> build_task_registry() {
  std::vector<TaskAdapter> all;
  auto add = [&](std::vector<TaskAdapter> more) {
    for (auto& t : more) all.push_back(std::move(t));
  };
  add(squad_adapters());
  add(dstc7_adapters());
  add(coqa_adapters());
  add(glue_adapters());
  add(personachat_adapters());
  add(summarization_adapters());
  add(squad_qg_adapters());
  add(gpt_tasks_adapters());
  return all;
}

}  // namespace unieval::tasks
