#pragma once
// What `unieval run` does the same way for the generation tasks (pipelines/run.cc) and the
// understanding tasks (pipelines/run_nlu.cc): the checks of the options every run needs and the
// opening of RUN against its request.json (a run continues only with the options it was started
// with; a finished run is reused).
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/dist/distributed.h"
#include "pipelines/run.h"
#include "results/run_result.h"
#include "tasks/nlu_tasks.h"

namespace unieval::pipelines {

// Resamples of the paired bootstrap of a run against each of its baselines (seeded with the
// run's seed).
constexpr int kBaselineResamples = 1000;

// The median of counts, rounded half away from zero (0 for none): the length of the baselines
// that copy words (copy-source, first-window).
int64_t rounded_median(std::vector<int64_t> counts);

// The "majority" baseline of a training set of labels: the most frequent label (ties: the one
// that occurs first), and how often it occurs. {0, 0} for no labels.
struct MajorityLabel {
  int64_t label = 0;
  int64_t count = 0;
};
MajorityLabel majority_label(const std::vector<int64_t>& labels);

// GLUE's "majority" baseline from a training split, for an eval split of the same task: the
// majority label (classification) or the mean training score (STS-B), and a sentence saying so.
struct GlueMajority {
  double value = 0;
  std::string description;
};
GlueMajority glue_majority(const tasks::GlueSplit& train, const tasks::GlueSplit& eval);

// The absolute, normalised path ("" stays "").
std::string abs_path(const std::string& p);

// --data, --out, and exactly one of --model / --model-config (with --vocab): InputError otherwise.
void check_run_sources(const RunOptions& o);

// The first key path where a and b differ ("a.b"), "" when they are equal.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& path = "");

// The ranks of a data-parallel run (`--nproc N`, or WORLD_SIZE from a launcher; models/dist/distributed.h).
// Every rank reads and checks the same inputs; rank 0 alone writes RUN; the others wait at sync()
// wherever they next read what rank 0 wrote. The fine-tuning step is split across the ranks,
// decoding is sharded (pipelines/seq2seq.h), and prediction and scoring are rank 0's. In one process
// there is no group, writer() is true and sync() does nothing.
struct RunRanks {
  models::dist::ProcessGroup* group = nullptr;
  bool writer() const { return !group || group->rank() == 0; }
  void sync() const {
    if (group) group->barrier();
  }
};
// Joins the process group of the launch (none in one process).
RunRanks join_run_ranks(const RunOptions& o);

// Opens RUN for `request`. A RUN with request.json must have been started with the same request
// (InputError naming the first difference); when it also holds result.json, that finished outcome
// is returned (reused). Otherwise RUN must be absent or an empty directory; nullopt: go on. Every
// rank opens RUN before any of them goes on to write it (ranks.sync()).
std::optional<RunOutcome> open_run(const std::filesystem::path& run,
                                   const nlohmann::ordered_json& request, const RunRanks& ranks);

// The notes every understanding run adds to its result: train and eval from one split (sliced or
// not; `trained` names what was done on it), an eval limit.
void add_split_notes(results::RunResult& r, const RunOptions& o,
                     const std::string& trained = "trained");

// The last step of a run: r.extra["run"] = info, the total time since t_start, RUN/result.json
// written atomically and read back into a finished outcome.
RunOutcome finish_run(results::RunResult r, const nlohmann::ordered_json& info,
                      const std::string& result_path,
                      std::chrono::steady_clock::time_point t_start);

// Scores a prediction file with the task's `unieval eval` adapter (pipelines::evaluate).
results::RunResult score_predictions(const std::string& task, const std::string& gold,
                                     const std::string& pred, const std::string& split,
                                     const std::map<std::string, std::string>& options,
                                     const std::string& system);

}  // namespace unieval::pipelines
