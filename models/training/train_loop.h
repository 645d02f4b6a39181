#pragma once
// The optimizer-step loop that fine-tuning (models/training/trainer.cc), the understanding heads
// (models/training/nlu.cc), GPT (models/training/gpt_finetune.cc) and pre-training (models/training/pretrainer.cc) share.
// The loop owns what is the same for all of them: the micro-batch loop of a step (which
// micro-batches this rank computes, re-seeding torch's generator before each, backward of the
// weighted loss, the one host read of the step's values after its last backward), the optimizer,
// linear warm-up and decay, gradient clipping, resuming from RUN/checkpoint (weights, optimizer
// moments, counters), trainer_state.json, the log.jsonl lines, the progress line on stderr,
// periodic checkpoints and stop_after. The caller owns what a micro-batch is and its loss
// (hooks.micro_batches packs a step's micro-batches, hooks.micro_loss gives one's loss), the log
// fields made of the values read back (hooks.report), what it keeps in the checkpoint besides the
// step (hooks.save_state / load_state), and anything it does after an update (hooks.after_step:
// dev evaluation, best checkpoint, early stopping).
//
//   LoopOptions o{.optim = opts.optim, .total_steps = 500, .warmup_steps = 50, ...};
//   LoopHooks h;
//   h.micro_batches = [&](int64_t step) { micro = pack(step); return int64_t(micro.size()); };
//   h.micro_loss = [&](int64_t step, int64_t j) {
//     return MicroLoss{loss_of(micro[j]), weight_of(j), micro[j].tokens, {{"nll", nll}}};
//   };
//   h.report = [&](int64_t, const StepValues& v, StepReport& r) {
//     r.log["loss"] = r.loss;
//     r.log["nll"] = v.weighted_sum("nll");
//   };
//   LoopResult r = run_train_loop(model, o, &run, /*resume=*/false, h);
//
// A step s (0-based) of n = hooks.micro_batches(s) micro-batches: for each j < n this rank owns
// (owns_micro_batch), in order, torch's generator is seeded with seed_mix(seed_mix(opts.seed, s),
// hooks.dropout_stream + j) (models/training/train_util.h), then m = hooks.micro_loss(s, j), then
// backward() of m.loss · m.weight. After the last backward the loop reads every m.loss and
// m.values back to the host in one transfer (a read per micro-batch would make the host wait for
// each backward before queuing the next micro-batch on CUDA) and sets the report's loss to
// Σ m.weight · m.loss (double, in micro-batch order) and tokens to Σ m.tokens; hooks.report then
// adds the log fields.
//
// Step s is trained with the learning rate schedule.lr(s); a checkpoint after it holds
// "step": s + 1. A step whose loss or gradient norm is NaN or infinite is never applied: the loop
// stops with an InputError naming the step and the last checkpoint (which stays as it was: a
// checkpoint is replaced only as a whole, models/training/trainer.h), or with skip_nonfinite leaves the
// weights and optimizer moments as they were, counts the step and logs it {"step", "skipped":
// "nan"|"inf", ...}. A log line is {"step", <report.log>, "lr", "grad_norm", <report.log_tail>,
// "elapsed_s"}.
//
// Data parallel (models/dist/distributed.h): with a default process group rank r of N computes the
// micro-batches j ≡ r (mod N) of every step (the caller packs all of them, so the weights can use
// the step's totals), the loop broadcasts rank 0's parameters before the first step, sums the
// gradients over the ranks (in buckets that start during the backward of the rank's last
// micro-batch and are waited for before clipping, so every rank clips and updates identically;
// bucket size UNIEVAL_DIST_BUCKET_MB, default 25), sums the report's loss, tokens and the
// `summed` log fields, and only rank 0 writes checkpoints and log lines (every rank reads the
// checkpoint on resume). Log lines then also hold "allreduce_s" (the seconds the step waited for
// the all-reduce after its backward) before "elapsed_s". hooks.reduced then sees the summed
// report.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "models/nn/transformer.h"
#include "models/training/optim.h"
#include "models/training/train_util.h"
#include "models/training/trainer.h"

namespace unieval::models {

struct LoopOptions {
  OptimizerOptions optim;      // update rule; optim.lr is the peak learning rate
  int64_t total_steps = 0;     // the schedule's total (0: only the initial checkpoint is written)
  int64_t warmup_steps = 0;    // linear warm-up steps
  double max_grad_norm = 1.0;  // clipping (≤ 0: measured only)
  ClipMode clip = ClipMode::kGlobal;  // one global factor, or each parameter by itself
  uint64_t seed = 42;                 // recorded in trainer_state.json
  int64_t save_every = 0;             // checkpoint period (0: at the end / on stop only)
  int64_t log_every = 1;              // log period (0: none)
  int64_t stop_after = 0;       // > 0: checkpoint and return after this many steps of this call
  bool progress = true;         // progress line on stderr
  bool skip_nonfinite = false;  // a NaN/inf loss or gradient norm: skip the update (else stop)
};

// A step's report: the loop sets loss and tokens from its micro-batches, hooks.report the rest.
struct StepReport {
  double loss = 0.0;                // the step's loss (progress, LoopResult::losses)
  int64_t tokens = 0;               // input positions of the step (tokens/s)
  nlohmann::ordered_json log;       // log fields between "step" and "lr" (may be null)
  nlohmann::ordered_json log_tail;  // log fields between "grad_norm" and "elapsed_s"
  std::string detail;               // shown after the loss in the progress line
  // Numeric fields of log / log_tail that are this rank's partial sums (summed over ranks with a
  // process group, like loss and tokens).
  std::vector<std::string> summed;
};

// One micro-batch's part of a step: what hooks.micro_loss returns.
struct MicroLoss {
  torch::Tensor loss;   // the micro-batch's loss (a scalar); backward runs on loss · weight
  double weight = 1.0;  // its share of the step's loss: the step's loss is Σ weight · loss
  int64_t tokens = 0;   // its input positions (tokens/s, the report's tokens)
  // Values for the log (any shape and dtype; detached by the loop), read back to the host with
  // the loss once per step, after the last backward. A name may be missing from some micro-batches.
  std::vector<std::pair<std::string, torch::Tensor>> values;
};

// One micro-batch's MicroLoss on the host, as the loop read it back.
struct MicroValues {
  int64_t j = 0;        // its index in the step
  double weight = 1.0;  // MicroLoss::weight
  double loss = 0.0;    // MicroLoss::loss as a double
  int64_t tokens = 0;   // MicroLoss::tokens
  // MicroLoss::values, each flattened to doubles (exact for float, half and integer counts).
  std::vector<std::pair<std::string, std::vector<double>>> values;
  // The value `name`, or null when this micro-batch has none.
  const std::vector<double>* find(const std::string& name) const;
};

// The values of the micro-batches this rank computed in a step, in micro-batch order.
struct StepValues {
  std::vector<MicroValues> micro;
  // Σ weight · value(name)[0] over the micro-batches that have it, in double, in micro-batch
  // order (0 when none has it).
  double weighted_sum(const std::string& name) const;
};

struct LoopHooks {
  // Packs the micro-batches of step `step` (0-based) and returns how many there are. Every rank
  // packs all of them (the weights may use the step's totals); called once per step. Required.
  std::function<int64_t(int64_t step)> micro_batches;
  // The loss of micro-batch j of step `step` (a forward; gradients are zero on entry to the step).
  // Called for each j this rank owns, in order, torch's generator seeded as above. Required.
  std::function<MicroLoss(int64_t step, int64_t j)> micro_loss;
  // The torch generator's stream (models/training/train_util.h): kFineTuneDropoutStream or
  // kPretrainDropoutStream.
  uint64_t dropout_stream = kFineTuneDropoutStream;
  // After the step's last backward and its one host read: `report` holds loss (Σ weight · loss)
  // and tokens; this adds the log fields (and may replace loss with a value of its own).
  std::function<void(int64_t step, const StepValues& values, StepReport& report)> report;
  // Adds the caller's fields to trainer_state.json.
  std::function<void(nlohmann::ordered_json& state)> save_state;
  // Reads them back on resume; returns true when the run had already stopped (early stop).
  std::function<bool(const nlohmann::json& state)> load_state;
  // After the update of step `step` (1-based: the steps done); may add log lines (they follow the
  // step's own); returns true to end the run here as finished (early stop).
  std::function<bool(int64_t step, std::vector<nlohmann::ordered_json>& log)> after_step;
  // After the report's partial sums were summed over the ranks (right after report without a
  // group): the place for what needs the whole step's values (the progress detail, running
  // counters such as tokens seen).
  std::function<void(StepReport& report)> reduced;
};

// Data parallel steps (models/dist/distributed.h): rank r of N computes the micro-batches j ≡ r (mod N)
// of every step, so N ranks reproduce one process with the same --accum. True for every j without
// a process group.
bool owns_micro_batch(int64_t j);
// InputError unless a step's `accum` micro-batches give every rank at least one.
void check_accum_covers_ranks(int64_t accum);

struct LoopResult {
  int64_t steps_done = 0;          // steps completed in total (resumed ones included)
  int64_t total_steps = 0;         // the schedule's total
  bool finished = false;           // false when stopped by stop_after
  bool stopped_early = false;      // after_step / load_state ended the run
  double first_loss = 0.0;         // loss of the first step of this call
  double last_loss = 0.0;          // loss of the last step of this call
  double tokens_per_second = 0.0;  // over this call
  int64_t tokens = 0;              // input positions of this call
  int64_t skipped_steps = 0;       // steps of this call not applied (skip_nonfinite)
  std::vector<double> losses;      // every step's loss in this call
  // A resumed call that ran no step (its run was finished): the logged line of the step it resumed
  // at, whose loss is then first_loss and last_loss (0 would read as a measured loss); else null.
  nlohmann::ordered_json resumed_line;
};

// Runs the loop on `model` (train() mode inside, eval() on return). With a run directory,
// checkpoints and log lines go there and `resume` continues from RUN/checkpoint (InputError when
// there is none); without one nothing is written. Any module: the UniLM/BERT model, GPT
// (models/nn/gpt.h); its named_parameters() are the optimizer's parameters and the checkpoint's names.
LoopResult run_train_loop(torch::nn::Module& model, const LoopOptions& opts, RunDir* run,
                          bool resume, const LoopHooks& hooks);
inline LoopResult run_train_loop(UnilmModel& model, const LoopOptions& opts, RunDir* run,
                                 bool resume, const LoopHooks& hooks) {
  return run_train_loop(*model, opts, run, resume, hooks);
}

// Warm-up steps: warmup_steps when ≥ 0, else round(warmup_ratio · total).
int64_t resolve_warmup(int64_t warmup_steps, double warmup_ratio, int64_t total);

// The examples of one batch as up to `groups` micro-batches: sorted by length (ties by index),
// cut into runs of near-equal size (the first ones one longer), so each is padded to its own
// longest. groups <= 1 or a batch of one example: the batch itself.
std::vector<std::vector<size_t>> split_by_length(const std::vector<size_t>& batch,
                                                 const std::vector<int64_t>& lengths,
                                                 int64_t groups);

// Epoch-ordered batches of the fine-tuning loops: epoch e's batch lists are make(e) (a function
// of the seed and e), an optimizer step takes up to `accum` consecutive batches of one epoch, and
// the position (epoch, next batch) is part of the checkpoint.
class EpochBatches {
 public:
  using Make = std::function<std::vector<std::vector<size_t>>(int64_t epoch)>;
  // A step is `accum` batches of make(epoch). With length_groups > 1 next() returns each of them
  // as split_by_length(batch, lengths, length_groups): the same examples in more micro-batches
  // (the caller weights each by its share of the step), the same steps and epochs.
  EpochBatches(Make make, int64_t accum, std::vector<int64_t> lengths = {},
               int64_t length_groups = 1);
  // Steps of the first epoch.
  int64_t steps_in_first_epoch() const;
  // The schedule's total: max_steps when > 0 (cycling over as many epochs as it takes), else the
  // steps of `epochs` epochs (at least one).
  int64_t total_steps(int64_t epochs, int64_t max_steps) const;
  // The micro-batches (example indices) of the next step.
  std::vector<std::vector<size_t>> next();
  int64_t epoch() const { return epoch_; }
  void save(nlohmann::ordered_json& state) const;  // "epoch", "batch"
  void load(const nlohmann::json& state);

 private:
  int64_t steps_of(int64_t epoch) const;
  Make make_;
  int64_t accum_;
  std::vector<int64_t> lengths_;
  int64_t length_groups_;
  int64_t epoch_ = 0;
  int64_t cursor_ = 0;
  bool ready_ = false;
  std::vector<std::vector<size_t>> batches_;
};

// The loop options of a run whose options struct has the usual fields (optim, max_grad_norm,
// seed, save_every, log_every, stop_after, progress, warmup_steps, warmup_ratio): TrainOptions,
// PretrainOptions.
template <class RunOptions>
LoopOptions loop_options_for(const RunOptions& o, int64_t total_steps) {
  LoopOptions loop;
  loop.optim = o.optim;
  loop.total_steps = total_steps;
  loop.warmup_steps = resolve_warmup(o.warmup_steps, o.warmup_ratio, total_steps);
  loop.max_grad_norm = o.max_grad_norm;
  loop.seed = o.seed;
  loop.save_every = o.save_every;
  loop.log_every = o.log_every;
  loop.stop_after = o.stop_after;
  loop.progress = o.progress;
  loop.skip_nonfinite = o.skip_nonfinite;
  return loop;
}

// Copies the loop's counters and losses into a run's result struct (TrainResult, PretrainResult).
template <class Result>
void copy_loop_result(const LoopResult& r, Result& out) {
  out.steps_done = r.steps_done;
  out.total_steps = r.total_steps;
  out.finished = r.finished;
  out.first_loss = r.first_loss;
  out.last_loss = r.last_loss;
  out.tokens_per_second = r.tokens_per_second;
  out.losses = r.losses;
}

// The fine-tuning loops' batches: epoch e shuffles the examples (by their lengths) with a
// generator seeded by (opts.seed, kEpochOrderStream + e) into batches of opts.batch_tokens /
// batch_size (models/training/seq2seq_data.h make_batches); opts.length_groups > 1 splits each
// by length (split_by_length).
EpochBatches fine_tuning_batches(std::vector<int64_t> lengths, const TrainOptions& opts);
// The loop options of a fine-tuning run.
LoopOptions loop_options(const TrainOptions& opts, const EpochBatches& batches);

}  // namespace unieval::models
