#pragma once
// What `unieval run` needs to know about a task, as one record per task: the family of run that
// trains it, its default eval split and paper preset, the head an understanding model puts on
// BERT, GPT's input transformation (GPT Figure 1) and where a GPT task's split files lie. The
// pipelines ask this registry instead of testing task names.
//
//   const tasks::TaskSpec& t = tasks::run_task_spec("glue-stsb");  // InputError listing the tasks
//   t.family;              // RunFamily::kUnderstanding
//   t.head;                // TaskHead::kRegress, t.num_labels == 1
//   t.default_eval_split;  // "dev"
//
// | field              | meaning                                                               |
// |--------------------|-----------------------------------------------------------------------|
// | family             | kGeneration (pipelines/run.cc), kUnderstanding (run_nlu.cc), kGptOnly |
// |                    | (only with --arch gpt: run_gpt.cc)                                    |
// | default_eval_split | the split scored when --eval-split is not given                       |
// | default_preset     | the paper recipe `unieval run` applies when --preset is not given     |
// | head, num_labels   | the understanding head (kNone for generation) and its outputs         |
// | gpt                | runs with --arch gpt; gpt_form is its Figure 1 transformation         |
// | zero_shot          | GPT §5's zero-shot heuristic for it (kNone: none); zero_shot_only:    |
// |                    | GPT evaluates it zero-shot only                                       |
// | wordpiece_budget   | the reader's source budget counts WordPiece tokens (coqa-gen, §3.2)   |
// | no_answer          | questions may have no answer (SQuAD 2.0): a null score, a threshold   |
// | split_files        | GPT tasks outside GLUE: the files of split S below a folder, in order |
// |                    | of preference ("*" = every *S*.csv, sorted)                            |
#include <string>
#include <vector>

namespace unieval::tasks {

enum class RunFamily { kGeneration, kUnderstanding, kGptOnly };
enum class TaskHead { kNone, kClassify, kRegress, kSpan, kSpanClass, kChoice };
enum class GptForm { kNone, kSingle, kPair, kSimilarity, kChoice };
// GPT §5's zero-shot heuristics: "very" + positive/negative (SST-2), the thresholded average token
// log-probability (CoLA; the threshold is chosen on the training split), the likeliest answer
// (RACE, Story Cloze), the likeliest rest of the sentence after the candidate (Winograd, DPRD).
enum class ZeroShot { kNone, kSentiment, kAcceptability, kChoice, kWinograd };

struct TaskSpec {
  std::string name;
  RunFamily family = RunFamily::kGeneration;
  std::string default_eval_split = "test";
  std::string default_preset;
  TaskHead head = TaskHead::kNone;
  int num_labels = 0;
  bool gpt = false;
  GptForm gpt_form = GptForm::kNone;
  ZeroShot zero_shot = ZeroShot::kNone;
  bool zero_shot_only = false;
  bool wordpiece_budget = false;
  bool no_answer = false;
  std::vector<std::string> split_files;  // "{split}" is replaced by the split's name
};

// Every task `unieval run` handles, in documentation order.
const std::vector<TaskSpec>& run_task_specs();
// nullptr when `unieval run` does not handle the task.
const TaskSpec* find_run_task(const std::string& name);
// The spec, or an InputError that lists the tasks `unieval run` handles.
const TaskSpec& run_task_spec(const std::string& name);
// "cnndm, gigaword, ..." of one family (the error messages' lists).
std::string run_task_list(RunFamily family);
// The names of the tasks `unieval run --arch gpt` handles, comma-separated.
std::string gpt_run_task_list();

// A GPT task's split below --data: a file is used as it is; in a folder, the first of
// spec.split_files that exists (InputError naming what was looked for).
std::string gpt_split_path(const TaskSpec& spec, const std::string& data, const std::string& split);

const char* to_string(TaskHead h);

}  // namespace unieval::tasks
