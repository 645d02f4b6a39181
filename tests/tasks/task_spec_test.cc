// tasks/task_spec.h: the registry `unieval run` asks instead of testing task names.
#include "tasks/task_spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"
#include "tasks/files/gpt_task_files.h"
#include "tasks/nlu_tasks.h"
#include "tasks/presets.h"
#include "tasks/seq2seq_tasks.h"
#include "tasks/task.h"

namespace unieval::tasks {
namespace {

namespace fs = std::filesystem;

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Every family's task list is the one its reader knows, and every task has an adapter that scores
// it.
TEST(TaskSpecTest, FamiliesMatchTheReadersAndAdapters) {
  std::set<std::string> seen;
  for (const auto& t : run_task_specs()) {
    EXPECT_TRUE(seen.insert(t.name).second) << "listed twice: " << t.name;
    EXPECT_NE(find_task(t.name), nullptr) << t.name << " has no `unieval eval` adapter";
    switch (t.family) {
      case RunFamily::kGeneration:
        EXPECT_TRUE(is_seq2seq_task(t.name)) << t.name;
        EXPECT_EQ(t.head, TaskHead::kNone) << t.name;
        EXPECT_FALSE(t.gpt) << t.name;
        break;
      case RunFamily::kUnderstanding:
        EXPECT_TRUE(is_nlu_task(t.name)) << t.name;
        EXPECT_NE(t.head, TaskHead::kNone) << t.name;
        EXPECT_EQ(t.default_eval_split, "dev") << t.name;
        break;
      case RunFamily::kGptOnly:
        EXPECT_TRUE(contains(gpt_task_names(), t.name)) << t.name;
        EXPECT_TRUE(t.gpt) << t.name;
        EXPECT_FALSE(t.split_files.empty()) << t.name;
        break;
    }
    EXPECT_EQ(t.gpt, t.gpt_form != GptForm::kNone) << t.name;
    if (t.zero_shot_only) {
      EXPECT_NE(t.zero_shot, ZeroShot::kNone) << t.name;
    }
  }
  for (const auto& n : seq2seq_task_names()) EXPECT_NE(find_run_task(n), nullptr) << n;
  for (const auto& n : nlu_task_names()) EXPECT_NE(find_run_task(n), nullptr) << n;
  for (const auto& n : gpt_task_names()) EXPECT_NE(find_run_task(n), nullptr) << n;
}

// A default preset is a real preset of the same kind (generation recipes for generation tasks).
TEST(TaskSpecTest, DefaultPresetsExist) {
  for (const auto& t : run_task_specs()) {
    if (t.default_preset.empty()) continue;
    const Preset* p = find_preset(t.default_preset);
    ASSERT_NE(p, nullptr) << t.name << " -> " << t.default_preset;
    EXPECT_EQ(p->seq2seq, t.family == RunFamily::kGeneration) << t.name;
  }
  EXPECT_EQ(run_task_spec("squad-qg-reversed").default_preset, "squad-qg");
  EXPECT_EQ(run_task_spec("personachat").default_eval_split, "valid");
  EXPECT_EQ(run_task_spec("coqa-gen").default_eval_split, "dev");
  EXPECT_TRUE(run_task_spec("coqa-gen").wordpiece_budget);
}

TEST(TaskSpecTest, HeadsFollowTheLabelSets) {
  EXPECT_EQ(run_task_spec("glue-stsb").head, TaskHead::kRegress);
  EXPECT_EQ(run_task_spec("glue-stsb").num_labels, 1);
  EXPECT_EQ(run_task_spec("glue-mnli").head, TaskHead::kClassify);
  EXPECT_EQ(run_task_spec("glue-mnli").num_labels, 3);
  EXPECT_EQ(run_task_spec("coqa").head, TaskHead::kSpanClass);
  EXPECT_EQ(run_task_spec("coqa").num_labels, 4);
  EXPECT_EQ(run_task_spec("squad-v2").head, TaskHead::kSpan);
  EXPECT_EQ(run_task_spec("glue-qqp").gpt_form, GptForm::kSimilarity);
  EXPECT_EQ(run_task_spec("race-h").gpt_form, GptForm::kChoice);
  EXPECT_EQ(run_task_spec("glue-cola").zero_shot, ZeroShot::kAcceptability);
  EXPECT_TRUE(run_task_spec("dprd").zero_shot_only);
  EXPECT_TRUE(run_task_spec("squad-v2").no_answer);
  EXPECT_FALSE(run_task_spec("squad-v1.1").no_answer);
}

TEST(TaskSpecTest, UnknownTaskListsWhatRunHandles) {
  try {
    run_task_spec("glue-sts");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--task glue-sts"), std::string::npos) << m;
    EXPECT_NE(m.find("glue-stsb"), std::string::npos) << m;
    EXPECT_NE(m.find("personachat"), std::string::npos) << m;
    EXPECT_NE(m.find("dprd"), std::string::npos) << m;
  }
  EXPECT_EQ(find_run_task("bleu"), nullptr);
}

TEST(TaskSpecTest, GptSplitFilesResolveInOrder) {
  const fs::path dir = fs::temp_directory_path() / ("task_spec_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "tsv_format");
  auto touch = [&](const fs::path& p) { std::ofstream(p) << "x\n"; };
  touch(dir / "tsv_format" / "scitail_1.0_dev.tsv");
  touch(dir / "snli_1.0_test.txt");
  touch(dir / "cloze_test_val__spring2016.csv");
  touch(dir / "cloze_test_test__spring2016.csv");
  EXPECT_EQ(gpt_split_path(run_task_spec("scitail"), dir.string(), "dev"),
            (dir / "tsv_format/scitail_1.0_dev.tsv").string());
  EXPECT_EQ(gpt_split_path(run_task_spec("snli"), dir.string(), "test"),
            (dir / "snli_1.0_test.txt").string());
  touch(dir / "snli_1.0_test.jsonl");  // the .jsonl release comes first
  EXPECT_EQ(gpt_split_path(run_task_spec("snli"), dir.string(), "test"),
            (dir / "snli_1.0_test.jsonl").string());
  EXPECT_EQ(gpt_split_path(run_task_spec("story-cloze"), dir.string(), "val"),
            (dir / "cloze_test_val__spring2016.csv").string());
  const std::string file = (dir / "snli_1.0_test.txt").string();
  EXPECT_EQ(gpt_split_path(run_task_spec("snli"), file, "anything"),
            file);  // a file is used as it is
  try {
    gpt_split_path(run_task_spec("snli"), dir.string(), "train");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("no train split of snli here (looked for snli_1.0_train.jsonl)"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(gpt_split_path(run_task_spec("story-cloze"), dir.string(), "train"), InputError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace unieval::tasks
