#pragma once
// Follows PyTorch (BSD-3-Clause) and UniLM (MIT; the logged loss_unilm) behaviour; no code copied;
// see THIRD_PARTY_NOTICES.md.
// UniLM sequence-to-sequence fine-tuning (UniLM §2.5, §3) with resumable run directories.
//
// One optimizer step = `accum` micro-batches (batches by token budget, models/training/seq2seq_data.h);
// each micro-batch: pack + mask targets, forward under the seq2seq mask, MLM logits at the masked
// positions only, label-smoothed cross-entropy; the step's loss is the mean over all its masked
// tokens; then gradient clipping, the optimizer update with the scheduled learning rate.
//
// Label smoothing (eps), as torch.nn.CrossEntropyLoss(label_smoothing=eps):
//   loss = (1 - eps) · (-log p[y]) + eps · mean_v(-log p[v])
//
// Reproducibility: everything random is a function of (seed, counters): epoch e's order and
// batches come from a generator seeded by (seed, e); micro-batch j of step s draws its masks from
// (seed, s, j) and torch's generator (dropout) is re-seeded with (seed, s, j) before it. A resumed
// run restores parameters, optimizer moments and the counters, so it continues bit-identically
// on the same machine and thread count (tested: N steps == k steps + resume + N-k steps).
//
// Data parallel (a process group, models/dist/distributed.h): rank r of N runs the micro-batches
// j ≡ r (mod N) of each step (every rank packs all of them, so each loss is weighted by the step's
// global masked-token count); the loop sums the gradients over ranks. Seeds depend on (seed, step,
// j) only, so N ranks reproduce one process with the same accum up to summation order, and a run
// resumes with any N. Needs accum ≥ N (InputError otherwise). Only rank 0 writes RUN (and RUN/best).
//
// Run directory (every file written atomically, temp + rename):
//   RUN/run.json              what produced the run: task, data, model source, all options
//   RUN/config.json           the model's BertConfig (HF layout)
//   RUN/vocab.txt             the tokenizer vocabulary
//   RUN/log.jsonl             one JSON object per logged step
//   RUN/checkpoint/           the latest checkpoint, replaced as a whole (directory rename):
//       model.safetensors     weights with HF names (models/io/checkpoint.h)
//       config.json, vocab.txt  copies, so RUN/checkpoint is a `--model` directory by itself
//       optimizer.safetensors optimizer moments + step (a checkpoint of an older build has
//                             optimizer.pt, a LibTorch archive, which resume still reads)
//       rng.pt                torch's CPU generator state at the checkpoint (informational: the
//                             run re-seeds per micro-batch)
//       trainer_state.json    {step, epoch, batch (next batch of the epoch), total_steps, ...}
//
// | TrainOptions field | default | meaning                                                      |
// |--------------------|---------|--------------------------------------------------------------|
// | optim              | AdamW   | models/training/optim.h (lr, betas, eps, weight decay)                 |
// | epochs             | 1       | passes over the training set                                  |
// | max_steps          | 0       | > 0: stop after this many optimizer steps (schedule total)    |
// | no_train           | false   | zero steps: the checkpoint is the initial model (--no-train,  |
// |                    |         | --steps 0), so a run only evaluates it                        |
// | warmup_steps       | -1      | ≥ 0: warm-up steps; -1: warmup_ratio · total                  |
// | warmup_ratio       | 0.1     | warm-up as a fraction of the total steps                      |
// | max_grad_norm      | 1.0     | clip the global gradient norm (≤ 0: off)                      |
// | accum              | 1       | micro-batches per optimizer step                              |
// | batch_tokens       | 4096    | token budget of a micro-batch (examples × longest)            |
// | batch_size         | 0       | > 0: at most this many examples per micro-batch               |
// | length_groups      | 1       | > 1: each batch computed as that many micro-batches of its    |
// |                    |         | examples sorted by length (train_loop.h split_by_length)      |
// | label_smoothing    | 0.1     | eps above (UniLM §3.1)                                        |
// | smoothing          | uniform | the smoothed loss's form: uniform (eps/V, the formula above) |
// |                    |         | or unilm (UniLM v1's KL form, LabelSmoothing below)           |
// | clip               | global  | global: one factor for all gradients; per_parameter: each    |
// |                    |         | parameter's gradient clipped by itself (UniLM v1's BertAdam)  |
// | data               |         | truncation and masking (models/training/seq2seq_data.h)                |
// | seed               | 42      | the single seed of the run                                    |
// | save_every         | 0       | checkpoint every N steps (0: only at the end / on stop)       |
// | log_every          | 1       | write a log line every N steps                                |
// | stop_after         | 0       | > 0: checkpoint and return after this many steps in this call |
// | progress           | true    | progress bar on stderr                                        |
// | dev_every          | 0       | with dev examples: dev loss every N steps and at the end;      |
// |                    |         | -1: once per epoch (the first epoch's steps); 0: never        |
// | early_stop         | 0       | > 0: stop after N dev evaluations without a better dev loss   |
// | skip_nonfinite     | false   | a NaN/inf loss or gradient: skip that update (else stop with  |
// |                    |         | an error; the last checkpoint is intact; models/training/train_loop.h)  |
// | arch               | unilm   | "unilm": UniLM target masking, loss at the masked positions;  |
// |                    |         | "ernie-gen": ERNIE-GEN multi-flow training (models/training/ernie_gen.h):|
// |                    |         | noised target T' (rate data.noise_prob), [ATTN] flows, loss at |
// |                    |         | every target position; mask_prob/max_pred/mask_80_10_10 unused|
// | ernie.lambda       | 1.0     | "span_lambda": λ of ERNIE-GEN Eq. 7 (< 1 adds the span flow,   |
// |                    |         | its V_span built from the training targets at the start)       |
// | ernie.top_bigrams/ | 200000/ | "span_bigrams"/"span_trigrams": V_span sizes (§3.3)            |
// | top_trigrams       | 50000   |                                                               |
//
// Dev evaluation (train_seq2seq with dev examples and dev_every > 0): the mean label-free NLL of
// the masked target tokens of the dev examples, in eval mode, with masks drawn from a generator
// seeded by (seed, 0x4000) for every evaluation (so evaluations compare); logged as
// {"step", "dev_loss", "best_dev_loss"} lines in log.jsonl. The weights with the lowest dev loss
// are kept in RUN/best/ (model.safetensors, config.json, vocab.txt, best.json {step, dev_loss}),
// replaced as a whole; the best loss and the evaluations without improvement are part of
// trainer_state.json, so a resumed run selects and stops exactly as an uninterrupted one.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "models/io/run_dir.h"
#include "models/nn/transformer.h"
#include "models/training/ernie_gen.h"
#include "models/training/optim.h"
#include "models/training/seq2seq_data.h"
#include "models/training/smoothing.h"

namespace unieval::models {

// Help of --skip-nonfinite (fine-tuning and pre-training).
inline constexpr const char* kSkipNonfiniteHelp =
    "a step whose loss or gradient norm is NaN/inf is skipped (logged); without it training stops "
    "with an error and the last checkpoint intact";

struct TrainOptions {
  OptimizerOptions optim;  // update rule and its hyper-parameters
  int64_t epochs = 1;      // passes over the data
  int64_t max_steps = 0;   // > 0: total optimizer steps
  bool no_train = false;   // zero optimizer steps (evaluate-only runs); overrides max_steps/epochs
  int64_t warmup_steps = -1;     // -1: warmup_ratio · total
  double warmup_ratio = 0.1;     // used when warmup_steps < 0
  double max_grad_norm = 1.0;    // gradient clipping (≤ 0: off)
  int64_t accum = 1;             // gradient accumulation
  int64_t batch_tokens = 4096;   // micro-batch token budget
  int64_t batch_size = 0;        // micro-batch example cap (0 = none)
  int64_t length_groups = 1;     // > 1: each batch as that many length-sorted micro-batches
  double label_smoothing = 0.1;  // label smoothing eps
  // The smoothed loss's form (above) and gradient clipping (models/training/optim.h).
  LabelSmoothing smoothing = LabelSmoothing::kUniform;
  ClipMode clip = ClipMode::kGlobal;
  Seq2SeqDataOptions data;      // truncation, masking, segment ids
  uint64_t seed = 42;           // seed of everything
  int64_t save_every = 0;       // checkpoint period in steps (0 = end only)
  int64_t log_every = 1;        // log period in steps
  int64_t stop_after = 0;       // stop after this many steps in this call (0 = run to the end)
  bool progress = true;         // progress bar on stderr
  int64_t dev_every = 0;        // dev loss period in steps (-1 = per epoch, 0 = none)
  int64_t early_stop = 0;       // patience in dev evaluations (0 = never stop early)
  bool skip_nonfinite = false;  // NaN/inf loss: skip the update instead of stopping
  std::string arch = "unilm";   // "unilm" (masked fine-tuning) | "ernie-gen" (multi-flow)
  ErnieGenOptions ernie;        // arch ernie-gen: lambda, span vocabulary sizes (its
                                // noise_prob is data.noise_prob)

  // The options' one declaration (core/fields.h): run.json's "train" keys in their order, the
  // flags of finetune / run (apps/unieval/torch/model_flags.cc) and the keys a preset's "train"
  // object may hold. Keys written only when set keep earlier runs' run.json unchanged. Not
  // declared (not part of a run): stop_after, progress. Flag-less: set by other flags
  // (--warmup, --arch, --segment-ids) or by `unieval run` only (--dev-every, --early-stop).
  template <class S, class V>
  static void fields(S& s, V&& v) {
    using unieval::fields::Field;
    OptimizerOptions::fields(s.optim, v);
    v(Field("epochs", "epochs"), s.epochs);
    v(Field("max_steps", "total optimizer steps (overrides epochs; 0 = no training, as --no-train)")
          .flag("steps"),
      s.max_steps);
    v(Field("no_train",
            "zero optimizer steps: the run's checkpoint is the initial model, evaluated as is")
          .unless_default(),
      s.no_train);
    v(Field("warmup_steps", "warm-up steps (-1: warmup_ratio)").flag(""), s.warmup_steps);
    v(Field("warmup_ratio", "warm-up fraction").flag(""), s.warmup_ratio);
    v(Field("max_grad_norm", "gradient clipping (<= 0 off)"), s.max_grad_norm);
    v(Field("accum", "micro-batches per optimizer step"), s.accum);
    v(Field("batch_tokens", "token budget per micro-batch"), s.batch_tokens);
    v(Field("batch_size", "examples per micro-batch cap (0 = none)"), s.batch_size);
    v(Field("length_groups",
            "compute each batch as up to N micro-batches of its examples sorted by length, each "
            "padded to its own longest and weighted as --accum weights micro-batches: the same "
            "examples and update with fewer padded positions (docs/training.md: two losses "
            "change slightly); random draws (dropout, masks) come from each micro-batch's own "
            "stream")
          .unless_default(),
      s.length_groups);
    v(Field("label_smoothing", "label smoothing eps"), s.label_smoothing);
    v(Field("smoothing",
            "label smoothing form: uniform (eps/V, torch CrossEntropyLoss) | unilm (UniLM v1's KL, "
            "eps/(V-2) without [PAD]; seq2seq fine-tuning)")
          .unless_default(),
      s.smoothing);
    v(Field("clip",
            "gradient clipping: global (one norm) | per_parameter (each parameter by itself, as "
            "UniLM v1's BertAdam)")
          .unless_default(),
      s.clip);
    v(Field("max_src_len", "source tokens kept"), s.data.max_src_len);
    v(Field("max_tgt_len", "target tokens kept"), s.data.max_tgt_len);
    v(Field("mask_prob", "fraction of target tokens masked"), s.data.mask_prob);
    v(Field("max_pred", "masked target positions cap (0 = none)").flag(""), s.data.max_pred);
    v(Field("mask_80_10_10", "BERT 80/10/10 replacement of masked tokens"), s.data.mask_80_10_10);
    v(Field("noise_prob",
            "ERNIE-GEN noise-aware generation: rate of target words replaced by random ones (with "
            "--arch unilm: of the unmasked target tokens)"),
      s.data.noise_prob);
    v(Field("source_type", "segment id of the source").flag(""), s.data.source_type);
    v(Field("target_type", "segment id of the target").flag(""), s.data.target_type);
    v(Field("seed", "seed"), s.seed);
    v(Field("save_every", "checkpoint every N steps (0 = at the end)"), s.save_every);
    v(Field("log_every", "log every N steps"), s.log_every);
    v(Field("dev_every", "dev loss every N steps (-1 = per epoch, 0 = none)").flag(""),
      s.dev_every);
    v(Field("early_stop", "stop after N dev evaluations without a better loss").flag(""),
      s.early_stop);
    v(Field("skip_nonfinite", kSkipNonfiniteHelp).unless_default(), s.skip_nonfinite);
    const bool ernie_gen = s.arch != "unilm";  // (ERNIE-GEN keys absent for UniLM)
    v(Field("arch", "unilm | ernie-gen").flag("").when(ernie_gen), s.arch);
    v(Field("span_lambda",
            "ernie-gen: lambda of Eq. 7, weight of the word-by-word flow; < 1 adds the "
            "span-by-span flow (default 1)")
          .when(ernie_gen),
      s.ernie.lambda);
    v(Field("noise_rule",
            "ernie-gen: count (floor(rho*|target|) words, the dygraph port) | per_position (each "
            "target token and the closing [SEP] with probability rho, any vocabulary token: the "
            "paper code)")
          .when(ernie_gen && s.ernie.noise_rule != NoiseRule::kCount),
      s.ernie.noise_rule);
    v(Field("span_bigrams", "ernie-gen: bigrams of the t-statistic span vocabulary (200000)")
          .when(ernie_gen),
      s.ernie.top_bigrams);
    v(Field("span_trigrams", "ernie-gen: trigrams of the t-statistic span vocabulary (50000)")
          .when(ernie_gen),
      s.ernie.top_trigrams);
    v(Field("target_bos",
            "ernie-gen: [CLS] opens the target stream (the official ERNIE-GEN layout, for its "
            "released checkpoints; config.json \"unieval_target_bos\": true sets it too)")
          .when(ernie_gen && s.data.target_bos),
      s.data.target_bos);
  }

  // run.json's "train" object (fields above).
  nlohmann::ordered_json to_json() const;
  // Fields absent from j keep their current values. Strict (core/fields.h): a key no field has,
  // or a wrong type, is an InputError naming `source` and the key, unless `also_allowed` lists it
  // (the keys another struct reads from the same object); an unknown arch is one too.
  void update_from_json(const nlohmann::json& j, const std::string& source,
                        const std::set<std::string>& also_allowed = {});
  // InputError on impossible values (checked again by train_seq2seq; callers check first so that
  // nothing is written for a bad request).
  void validate() const;
};

// Label-smoothed cross-entropy, mean over rows. logits [N,V] (any float dtype), labels [N].
// Returns {smoothed loss, plain NLL (for reporting)}; form kUnilm: the loss is
// unilm_smoothed_kl's (differentiable). With `unilm_kl`, also the value UniLM v1
// logs for the same logits (unilm_smoothed_kl below), detached.
std::pair<torch::Tensor, torch::Tensor> label_smoothed_nll(
    const torch::Tensor& logits, const torch::Tensor& labels, double eps,
    torch::Tensor* unilm_kl = nullptr, LabelSmoothing form = LabelSmoothing::kUniform);

// The masked-LM loss as UniLM v1 computes and logs it (microsoft/unilm unilm-v1/src
// pytorch_pretrained_bert/modeling.py LabelSmoothingLoss, with eps > 0; plain NLL when eps = 0),
// mean over rows: KL(q || p) with q = 1 - eps on the label, eps / (V - 2) on every other token but
// id 0 ([PAD], ignore_index), 0 on [PAD]; a row labelled 0 counts 0 (with eps = 0 it counts its NLL,
// as modeling.py's CrossEntropyLoss has no ignore_index). log_probs [N,V] float, labels [N].
// It is not our training loss: "loss" is the cross-entropy to (1 - eps)·onehot + eps/V, which
// exceeds it by about H(q) (1.3526 nats for eps 0.1, V 28996) and differs slightly in the gradient
// (eps spread over V - 2 tokens, not V). log.jsonl carries both: "loss" and "loss_unilm".
torch::Tensor unilm_smoothed_kl(const torch::Tensor& log_probs, const torch::Tensor& labels,
                                double eps);
// The same per row [N] (differentiable), before the mean.
torch::Tensor unilm_smoothed_kl_rows(const torch::Tensor& log_probs, const torch::Tensor& labels,
                                     double eps);

struct TrainResult {
  int64_t steps_done = 0;   // optimizer steps completed in total (including resumed ones)
  int64_t total_steps = 0;  // the schedule's total
  bool finished = false;    // false when stopped by stop_after
  double first_loss = 0.0;  // loss of the first step run in this call
  double last_loss = 0.0;   // loss of the last step run in this call
  double tokens_per_second = 0.0;
  std::vector<double> losses;  // every step's loss in this call
  double best_dev_loss = 0.0;  // lowest dev loss so far (0 when no dev evaluation)
  int64_t best_step = 0;       // step of best_dev_loss (0 = none)
  bool early_stopped = false;  // finished by early_stop
};

// Mean NLL of the masked target tokens of `dev` (eval mode, no gradient; model left in eval
// mode). Masks from a generator seeded with `seed`; batches of at most batch_tokens tokens.
// arch "ernie-gen": the word-by-word flow's NLL of every target token, without noise.
double dev_loss(UnilmModel& model, const std::vector<Seq2SeqExample>& dev, const SpecialIds& ids,
                const Seq2SeqDataOptions& data, int64_t batch_tokens, uint64_t seed,
                const std::string& arch = "unilm");

// Trains `model` (train() mode is set inside) on the (already truncated) examples. With a run
// directory, checkpoints and logs go there and `resume` continues from its checkpoint (InputError
// when resume is asked and there is none). Without one (run == nullptr) nothing is written.
// With dev examples and opts.dev_every > 0: dev evaluation, best checkpoint and early stopping
// as described above.
TrainResult train_seq2seq(UnilmModel& model, const std::vector<Seq2SeqExample>& train,
                          const SpecialIds& ids, const TrainOptions& opts, RunDir* run, bool resume,
                          const std::vector<Seq2SeqExample>* dev = nullptr);

}  // namespace unieval::models
