#pragma once
// The one skeleton of `unieval run` (pipelines/run.h): every family of tasks goes through the same
// stages in the same order, and what is the same for all of them is written here once.
//
//   RunPaths paths(o.out);
//   Seq2SeqStages family(o, paths);         // a RunStages: what this family does differently
//   RunOutcome r = drive_run(family, o, ranks);
//
// The stages and who does what (driver | family):
//   open     RUN against request.json (run_common.h open_run); a finished run is reused
//            | request()
//   data     RUN/data/manifest.json (files read with their sha256, reader, example counts) is
//            written by rank 0 when absent, after request.json and the split files: its presence
//            marks the stage done    | read() checks every input and writes nothing;
//            write_splits() writes RUN/data/*; write_references() the scorer's references
//   train    skipped when RUN/checkpoint/trainer_state.json says the run is done
//   (models::RunDir::training_finished)
//            | train(): false = stopped by stop_after (run again to continue)
//   predict  all ranks (a family may shard; the others return at once) | predict()
//   score    rank 0: data provenance (path, sha256 of the file or folder: results::sha256_path),
//            the split notes, the baselines after them, the run info (request, preset, data files,
//            counts, training summary, checkpoint and model sha256) and RUN/result.json written
//            atomically, then RUN/curves.svg from log.jsonl
//            | score(): prediction files, the adapter's result, the family's notes and info;
//            baselines(): the suite's baselines under RUN/baselines
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipelines/run.h"
#include "pipelines/run_common.h"
#include "results/run_result.h"

namespace unieval::pipelines {

struct RunPaths {
  explicit RunPaths(const std::filesystem::path& run_dir)
      : run(run_dir),
        data(run_dir / "data"),
        eval(run_dir / "eval"),
        request(run_dir / "request.json"),
        result(run_dir / "result.json"),
        manifest(run_dir / "data" / "manifest.json") {}
  std::filesystem::path run, data, eval, request, result, manifest;
};

// RUN/data/manifest.json: the inputs read, for provenance and the result's run info.
struct DataManifest {
  std::vector<std::string> files;  // every file or folder read (sorted and made unique on write)
  std::string reader;              // the readers' descriptions
  int64_t train_examples = 0;
  int64_t eval_examples = 0;
  std::optional<int64_t> dev_examples;  // families with a dev split (written with dev_split)
  std::string dev_split;                // "" = none
};

// The parts of a run that differ between families (generation, understanding, GPT).
class RunStages {
 public:
  virtual ~RunStages() = default;
  // The options that define the run (RUN/request.json).
  virtual const nlohmann::ordered_json& request() const = 0;
  // Every input read and checked (splits, model files, vocabulary); nothing written.
  virtual DataManifest read() = 0;
  // Rank 0, when the data stage has not been done: the split files under RUN/data.
  virtual void write_splits(const RunPaths& paths) = 0;
  // Every call, every rank: the scorer's references (rank 0, `writer`, writes them).
  virtual void write_references(const RunPaths& paths, bool writer) = 0;
  // False: the run has no training stage (GPT zero-shot).
  virtual bool trains() const { return true; }
  // Trains or resumes from RUN/checkpoint; false = stopped by stop_after.
  virtual bool train(const RunPaths& paths) = 0;
  // Every rank, before the ranks wait for rank 0's last checkpoint (nothing predicted yet).
  virtual void before_predict(const RunPaths&) {}
  // Every rank: predictions (rank 0's or sharded). The stage name when something ran, else "".
  virtual std::string predict(const RunPaths& paths, const RunRanks& ranks) = 0;
  // Rank 0: prediction files and the adapter's result with the family's own notes; `info` gets
  // the family's own run-info fields.
  virtual results::RunResult score(const RunPaths& paths, nlohmann::ordered_json& info) = 0;
  // Rank 0: the suite's baselines scored against the model (the result's "baselines").
  virtual void baselines(const RunPaths& paths, results::RunResult& r) = 0;
  // The checkpoint predicted with ("best" or "checkpoint", under RUN) and the pretrained weights
  // the run started from ("" = none).
  virtual std::string checkpoint_used() const { return "checkpoint"; }
  virtual std::string model_weights() const = 0;
  // What the run did on its training split, for the split notes ("trained", "thresholded").
  virtual std::string trained_word() const { return "trained"; }
  // Whether the training split was read (notes about train and eval sharing a split).
  virtual bool reads_train() const { return true; }
};

// The stages in order (above). `o` is the run's options after the family's defaults.
RunOutcome drive_run(RunStages& family, const RunOptions& o, const RunRanks& ranks,
                     std::chrono::steady_clock::time_point t_start);

}  // namespace unieval::pipelines
