#pragma once
// Internal: the list of task adapters compiled into this build (tasks/registry.cc). Each adapter
// lives in its own tasks/<task>.cc and exposes a factory declared here.
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> build_task_registry();

// Factories of each adapter file (declared in tasks/<task>.h).
std::vector<TaskAdapter> squad_adapters();          // tasks/squad.h
std::vector<TaskAdapter> dstc7_adapters();          // tasks/dstc7.h
std::vector<TaskAdapter> coqa_adapters();           // tasks/coqa.h
std::vector<TaskAdapter> glue_adapters();           // tasks/glue.h
std::vector<TaskAdapter> personachat_adapters();    // tasks/personachat.h
std::vector<TaskAdapter> summarization_adapters();  // tasks/summarization.h
std::vector<TaskAdapter> squad_qg_adapters();       // tasks/squad_qg.h
std::vector<TaskAdapter> gpt_tasks_adapters();      // tasks/gpt_tasks.h

}  // namespace unieval::tasks
