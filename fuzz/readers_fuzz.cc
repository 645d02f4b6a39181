// Fuzz target: the dataset and prediction readers. The mode byte picks the reader, the rest is the
// file's bytes (written to a temporary file for the readers that take a path):
//   SQuAD data / predictions / na-probs (metrics/squad.h), each read both through the cursor and
//   through the document alone, which must agree (same result, or the same error message);
//   CoQA data / predictions (metrics/coqa.h); GLUE label files for every task (metrics/glue.h);
//   the CSV parser (tasks/files/gpt_task_files.h) and the GPT task files (SNLI, SciTail, Story Cloze, a RACE article file).
// Every reader must return or throw unieval::InputError.
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "metrics/coqa.h"
#include "metrics/glue.h"
#include "metrics/squad.h"
#include "tasks/files/gpt_task_files.h"

namespace {

namespace m = unieval::metrics;

template <typename Fast, typename Slow, typename Same>
void agree(std::string_view bytes, Fast fast, Slow slow, Same same) {
  std::string fast_error, slow_error;
  decltype(fast(std::string(bytes))) a{}, b{};
  try {
    a = fast(std::string(bytes));
  } catch (const unieval::InputError& e) {
    fast_error = e.what();
  }
  try {
    b = slow(std::string(bytes));
  } catch (const unieval::InputError& e) {
    slow_error = e.what();
  }
  if (fast_error != slow_error)
    std::fprintf(stderr, "cursor: '%s'\ndocument: '%s'\n", fast_error.c_str(), slow_error.c_str());
  UNIEVAL_FUZZ_CHECK(fast_error == slow_error);
  if (fast_error.empty()) UNIEVAL_FUZZ_CHECK(same(a, b));
}

template <typename V>
bool same_views(const V& a, const V& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

const m::GlueTask kGlueTasks[] = {m::GlueTask::kCola,   m::GlueTask::kSst2, m::GlueTask::kMrpc,
                                  m::GlueTask::kStsb,   m::GlueTask::kQqp,  m::GlueTask::kMnli,
                                  m::GlueTask::kMnliMm, m::GlueTask::kQnli, m::GlueTask::kRte,
                                  m::GlueTask::kWnli,   m::GlueTask::kAx};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [mode, bytes] = unieval::fuzz::split_mode(data, size);
  const std::string src = "fuzz-input";
  switch (mode % 8) {
    case 0:
      agree(
          bytes, [&](std::string t) { return m::parse_squad_dataset(std::move(t), src); },
          [&](std::string t) { return m::parse_squad_dataset_with_document(std::move(t), src); },
          [](const m::SquadDataset& a, const m::SquadDataset& b) {
            if (a.version != b.version || a.has_is_impossible != b.has_is_impossible ||
                a.questions.size() != b.questions.size() ||
                !same_views(a.answer_texts, b.answer_texts))
              return false;
            for (size_t i = 0; i < a.questions.size(); ++i)
              if (a.questions[i].id != b.questions[i].id ||
                  a.questions[i].n_answers != b.questions[i].n_answers ||
                  a.questions[i].line != b.questions[i].line)
                return false;
            return true;
          });
      break;
    case 1:
      agree(
          bytes, [&](std::string t) { return m::parse_squad_predictions(std::move(t), src); },
          [&](std::string t) {
            return m::parse_squad_predictions_with_document(std::move(t), src);
          },
          [](const m::SquadPredictions& a, const m::SquadPredictions& b) {
            return same_views(a.ids, b.ids) && same_views(a.answers, b.answers);
          });
      break;
    case 2:
      agree(
          bytes, [&](std::string t) { return m::parse_squad_na_probs(std::move(t), src); },
          [&](std::string t) { return m::parse_squad_na_probs_with_document(std::move(t), src); },
          [](const m::SquadNaProbs& a, const m::SquadNaProbs& b) {
            if (!same_views(a.ids, b.ids) || a.probs.size() != b.probs.size()) return false;
            for (size_t i = 0; i < a.probs.size(); ++i)
              if (!(a.probs[i] == b.probs[i] ||
                    (a.probs[i] != a.probs[i] && b.probs[i] != b.probs[i])))
                return false;
            return true;
          });
      break;
    case 3:
      try {
        (void)m::parse_coqa_dataset(std::string(bytes), src);
      } catch (const unieval::InputError&) {
      }
      break;
    case 4: {
      unieval::fuzz::TempFile f(bytes, ".json");
      try {
        (void)m::load_coqa_predictions(f.path());
      } catch (const unieval::InputError&) {
      }
      break;
    }
    case 5: {
      unieval::fuzz::TempFile f(bytes, ".tsv");
      try {
        (void)m::read_glue_labels(f.path(), kGlueTasks[(mode >> 3) % 11]);
      } catch (const unieval::InputError&) {
      }
      break;
    }
    case 6:
      try {
        auto t = unieval::tasks::parse_csv(std::string(bytes), src);
        UNIEVAL_FUZZ_CHECK(t.rows.size() == t.line.size());
      } catch (const unieval::InputError&) {
      }
      break;
    case 7: {
      static const char* kTasks[] = {"snli", "scitail", "story-cloze", "race"};
      static const char* kSuffix[] = {".jsonl", ".tsv", ".csv", ".txt"};
      size_t k = (mode >> 3) % 4;
      const char* task = kTasks[k];
      unieval::fuzz::TempFile f(bytes, kSuffix[k]);
      try {
        (void)unieval::tasks::read_gpt_task_data(task, f.path());
      } catch (const unieval::InputError&) {
      }
      break;
    }
  }
  return 0;
}
