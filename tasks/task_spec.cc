#include "tasks/task_spec.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "metrics/glue.h"

namespace unieval::tasks {

namespace fs = std::filesystem;

namespace {

TaskSpec generation(std::string name, std::string eval_split, std::string preset) {
  TaskSpec t;
  t.name = std::move(name);
  t.family = RunFamily::kGeneration;
  t.default_eval_split = std::move(eval_split);
  t.default_preset = std::move(preset);
  return t;
}

// A GLUE task: BERT's classification (or, without label names, regression) head; GPT's form.
TaskSpec glue(const std::string& name, GptForm form, ZeroShot zero_shot = ZeroShot::kNone) {
  TaskSpec t;
  t.name = name;
  t.family = RunFamily::kUnderstanding;
  t.default_eval_split = "dev";
  t.default_preset = name;
  const auto labels = metrics::glue_label_names(metrics::parse_glue_task(name.substr(5)));
  t.head = labels.empty() ? TaskHead::kRegress : TaskHead::kClassify;
  t.num_labels = labels.empty() ? 1 : static_cast<int>(labels.size());
  t.gpt = true;
  t.gpt_form = form;
  t.zero_shot = zero_shot;
  return t;
}

TaskSpec reading(const std::string& name, TaskHead head, int num_labels) {
  TaskSpec t;
  t.name = name;
  t.family = RunFamily::kUnderstanding;
  t.default_eval_split = "dev";
  t.default_preset = name;
  t.head = head;
  t.num_labels = num_labels;
  return t;
}

TaskSpec gpt_only(const std::string& name, GptForm form, std::vector<std::string> files,
                  ZeroShot zero_shot = ZeroShot::kNone) {
  TaskSpec t;
  t.name = name;
  t.family = RunFamily::kGptOnly;
  t.default_eval_split = "test";
  t.head = form == GptForm::kChoice ? TaskHead::kChoice : TaskHead::kClassify;
  t.gpt = true;
  t.gpt_form = form;
  t.zero_shot = zero_shot;
  t.split_files = std::move(files);
  return t;
}

std::vector<TaskSpec> build() {
  std::vector<TaskSpec> v = {
      generation("cnndm", "test", "cnndm"),
      generation("gigaword", "test", "gigaword"),
      generation("squad-qg", "test", "squad-qg"),
      generation("squad-qg-reversed", "test", "squad-qg"),
      generation("coqa-gen", "dev", "coqa-gen"),
      generation("dstc7", "test", "dstc7"),
      generation("personachat", "valid", "ernie-gen-large-personachat"),
      glue("glue-cola", GptForm::kSingle, ZeroShot::kAcceptability),
      glue("glue-sst2", GptForm::kSingle, ZeroShot::kSentiment),
      glue("glue-mrpc", GptForm::kSimilarity),
      glue("glue-stsb", GptForm::kSimilarity),
      glue("glue-qqp", GptForm::kSimilarity),
      glue("glue-mnli", GptForm::kPair),
      glue("glue-mnli-mm", GptForm::kPair),
      glue("glue-qnli", GptForm::kPair),
      glue("glue-rte", GptForm::kPair),
      glue("glue-wnli", GptForm::kPair),
      reading("squad-v1.1", TaskHead::kSpan, 0),
      reading("squad-v2", TaskHead::kSpan, 0),
      reading("coqa", TaskHead::kSpanClass, 4),  // span, yes, no, unknown
      gpt_only("snli", GptForm::kPair, {"snli_1.0_{split}.jsonl", "snli_1.0_{split}.txt"}),
      gpt_only("scitail", GptForm::kPair,
               {"scitail_1.0_{split}.tsv", "tsv_format/scitail_1.0_{split}.tsv"}),
      gpt_only("race", GptForm::kChoice, {"{split}"}, ZeroShot::kChoice),
      gpt_only("race-m", GptForm::kChoice, {"{split}"}, ZeroShot::kChoice),
      gpt_only("race-h", GptForm::kChoice, {"{split}"}, ZeroShot::kChoice),
      // GPT fine-tunes on the validation stories
      gpt_only("story-cloze", GptForm::kChoice, {"*"}, ZeroShot::kChoice),
      gpt_only("dprd", GptForm::kChoice, {"{split}.c.txt", "{split}.txt"}, ZeroShot::kWinograd),
  };
  auto mark = [&v](const char* name, bool TaskSpec::*flag) {
    for (auto& t : v)
      if (t.name == name) t.*flag = true;
  };
  mark("coqa-gen", &TaskSpec::wordpiece_budget);  // UniLM §3.2's 470 WordPiece tokens
  mark("squad-v2", &TaskSpec::no_answer);
  mark("dprd", &TaskSpec::zero_shot_only);  // GPT §5 evaluates the Winograd schemas zero-shot only
  return v;
}

std::string replace_split(std::string pattern, const std::string& split) {
  const std::string key = "{split}";
  for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key))
    pattern.replace(at, key.size(), split);
  return pattern;
}

}  // namespace

const std::vector<TaskSpec>& run_task_specs() {
  static const std::vector<TaskSpec> k = build();
  return k;
}

const TaskSpec* find_run_task(const std::string& name) {
  for (const auto& t : run_task_specs())
    if (t.name == name) return &t;
  return nullptr;
}

std::string run_task_list(RunFamily family) {
  std::string s;
  for (const auto& t : run_task_specs())
    if (t.family == family) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

std::string gpt_run_task_list() {
  std::string s;
  for (const auto& t : run_task_specs())
    if (t.gpt) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

const TaskSpec& run_task_spec(const std::string& name) {
  if (const TaskSpec* t = find_run_task(name)) return *t;
  throw InputError("--task " + name + ": run handles the generation tasks " +
                   run_task_list(RunFamily::kGeneration) + " and the understanding tasks " +
                   run_task_list(RunFamily::kUnderstanding) + " (with --arch gpt also " +
                   run_task_list(RunFamily::kGptOnly) + ")");
}

std::string gpt_split_path(const TaskSpec& spec, const std::string& data,
                           const std::string& split) {
  const fs::path d(data);
  if (fs::is_regular_file(d)) return data;
  if (!fs::is_directory(d)) throw InputError(data, 0, "no such file or folder");
  std::vector<fs::path> cand;
  for (const auto& pattern : spec.split_files) {
    if (pattern != "*") {
      cand.push_back(d / replace_split(pattern, split));
      continue;
    }
    std::vector<fs::path> csv;  // every CSV whose name holds the split's
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().extension() == ".csv" &&
          e.path().filename().string().find(split) != std::string::npos)
        csv.push_back(e.path());
    std::sort(csv.begin(), csv.end());
    cand.insert(cand.end(), csv.begin(), csv.end());
  }
  for (const auto& c : cand)
    if (fs::exists(c)) return c.string();
  throw InputError(data, 0,
                   "no " + split + " split of " + spec.name + " here" +
                       (cand.empty() ? std::string(" (no *") + split + "*.csv)"
                                     : " (looked for " + cand.front().filename().string() + ")"));
}

const char* to_string(TaskHead h) {
  switch (h) {
    case TaskHead::kNone:
      return "none";
    case TaskHead::kClassify:
      return "classify";
    case TaskHead::kRegress:
      return "regress";
    case TaskHead::kSpan:
      return "span";
    case TaskHead::kSpanClass:
      return "span-class";
    case TaskHead::kChoice:
      return "multiple-choice";
  }
  return "?";
}

}  // namespace unieval::tasks
