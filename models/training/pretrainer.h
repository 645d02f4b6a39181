#pragma once
// Unified language-model pre-training (UniLM §2.3–2.4): the training loop behind
// `unieval pretrain`, resumable in the run directory layout of models/training/trainer.h.
//
// One optimizer step = `accum` micro-batches of `batch_size` examples (models/training/pretrain_data.h:
// objectives mixed per the cycle, cloze masks, NSP labels for bidirectional pairs). Loss of a step
// = mean cross-entropy over all its masked tokens (every objective together, UniLM's "sum of the
// LM objectives" as one cloze loss) + mean NSP cross-entropy over its bidirectional examples (BERT:
// masked_lm_loss + next_sentence_loss). Then gradient clipping and the optimizer update with
// linear warm-up and decay (models/training/optim.h).
//
//   PretrainOptions o;  o.max_steps = 1000;  o.objectives = "unified";
//   UnilmModel model(cfg, pretrain_heads(o));   // pooler + MLM (+ NSP when bidirectional is used)
//   RunDir run("run");  run.create(info, cfg, vocab_text);
//   PretrainResult r = pretrain(model, shard, ids, o, &run, /*resume=*/false);
//
// Reproducibility: the batches are a function of (seed, step, micro) (models/training/pretrain_data.h)
// and torch's generator (dropout) is re-seeded with (seed, step, micro) before each forward, so a
// stopped and resumed run (weights, optimizer moments and the step restored from RUN/checkpoint)
// continues bit-identically on the same machine and thread count (tested).
//
// Budget: max_steps, or with `tokens` > 0 steps = ceil(tokens / (batch_size · accum · max_len)),
// a budget in input positions, the same for every objective mix. max_steps = 0 writes the
// initialised model as the checkpoint (the "no pre-training" arm of an experiment: the same
// seeded initial weights as the other arms).
//
// ERNIE-GEN pre-training (--objectives ernie-gen; Xiao et al. 2020 §3.1–3.3, models/training/ernie_gen.h):
// each example is a text of consecutive sentences whose multi-granularity fragments (γ = 0.25 of
// it, lengths from U(1,4) w.p. 0.4 else U(4,32)) become the target T and the rest the source S';
// the model is trained with the multi-flow loss λ·word + (1 − λ)·span (λ 0.5) over T noised at ρ_p
// (0.05), the span flow's boundaries from a t-statistic span vocabulary built over the shard's
// sentences at the start (top 200,000 bigrams and 50,000 trigrams). Segment ids as seq2seq.
// Log fields: loss, word, span (mean NLL of each flow).
//
// RUN/log.jsonl gets one line per logged step: step, loss, mlm, nsp, nsp_acc, loss_<objective>
// (mean cloze loss of each objective present in the step), lr, grad_norm, tokens, masked,
// elapsed_s. Progress on stderr: step, loss per objective, tokens/s, ETA.
//
// | PretrainOptions field | default | meaning                                                 |
// |-----------------------|---------|---------------------------------------------------------|
// | objectives            | unified | unified, bidirectional (BERT MLM + NSP), left-to-right,  |
// |                       |         | right-to-left, seq2seq; ernie-gen (below)                |
// | ernie                 | λ 0.5,  | ernie-gen: span_lambda, noise_prob (ρ_p), span_bigrams/   |
// |                       | ρ 0.05  | span_trigrams, fragment_ratio (γ) — ERNIE-GEN §3.1, §4.1 |
// | data                  |         | sequence length, masking, NSP, segments (pretrain_data.h)|
// | optim                 | AdamW   | lr 1e-4, betas 0.9/0.999, eps 1e-6, weight decay 0.01    |
// | batch_size            | 48      | examples per micro-batch (a multiple of 6 mixes exactly) |
// | accum                 | 1       | micro-batches per step                                   |
// | max_steps             | 1000    | optimizer steps (when tokens = 0); 0 = save the init     |
// | tokens                | 0       | > 0: budget in input positions (sets max_steps)          |
// | warmup_steps          | -1      | ≥ 0: warm-up steps; -1: warmup_ratio · total             |
// | warmup_ratio          | 0.05    | warm-up fraction                                         |
// | max_grad_norm         | 1.0     | clip the global gradient norm (≤ 0: off)                 |
// | seed                  | 42      | the single seed of the run                               |
// | save_every            | 200     | checkpoint every N steps (and at the end / on stop)      |
// | log_every             | 1       | log line every N steps                                   |
// | stop_after            | 0       | > 0: checkpoint and return after N steps of this call    |
// | progress              | true    | progress on stderr                                       |
// | skip_nonfinite        | false   | NaN/inf loss or gradient: skip the update (else stop;    |
// |                       |         | the last checkpoint is intact; models/training/train_loop.h)      |
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/nn/transformer.h"
#include "models/training/ernie_gen.h"
#include "models/training/optim.h"
#include "models/training/pretrain_data.h"
#include "models/training/trainer.h"

namespace unieval::models {

struct PretrainOptions {
  std::string objectives = "unified";  // objective mix (table above)
  PretrainDataOptions data;            // examples and masking
  OptimizerOptions optim = [] {
    OptimizerOptions o;
    o.lr = 1e-4;
    return o;
  }();                          // update rule
  int64_t batch_size = 48;      // examples per micro-batch
  int64_t accum = 1;            // micro-batches per step
  int64_t max_steps = 1000;     // total steps (tokens = 0)
  int64_t tokens = 0;           // budget in input positions (> 0 sets the steps)
  int64_t warmup_steps = -1;    // -1: warmup_ratio · total
  double warmup_ratio = 0.05;   // warm-up fraction
  double max_grad_norm = 1.0;   // clipping
  uint64_t seed = 42;           // seed of everything
  int64_t save_every = 200;     // checkpoint period
  int64_t log_every = 1;        // log period
  int64_t stop_after = 0;       // stop after N steps of this call
  bool progress = true;         // progress on stderr
  bool skip_nonfinite = false;  // NaN/inf loss: skip the update instead of stopping
  ErnieGenOptions ernie = [] {
    ErnieGenOptions e;
    e.lambda = 0.5;
    e.noise_prob = 0.05;
    return e;
  }();  // objectives ernie-gen (ERNIE-GEN §3.3, §4.1)

  // The options' one declaration (core/fields.h): run.json's "train" keys in their order and the
  // flags of `unieval pretrain` (their help gives the defaults). Not declared (not part of a
  // run): stop_after, progress; --warmup sets warmup_steps / warmup_ratio.
  template <class S, class V>
  static void fields(S& s, V&& v) {
    using unieval::fields::Field;
    v(Field("objectives",
            "unified | bidirectional | left-to-right | right-to-left | seq2seq | ernie-gen "
            "(multi-granularity fragments, multi-flow loss)"),
      s.objectives);
    v(Field("max_len", "tokens per example incl. [CLS]/[SEP] (default 128)"), s.data.max_len);
    v(Field("mask_prob", "fraction of text tokens masked (default 0.15)"), s.data.mask_prob);
    v(Field("max_pred", "masked positions per example cap (default 20)"), s.data.max_pred);
    v(Field("span_prob", "bigram/trigram mask spans (default 0.2)"), s.data.span_prob);
    v(Field("max_span", "longest masked span").flag(""), s.data.max_span);
    v(Field("short_seq_prob", "shorter examples (default 0.1)"), s.data.short_seq_prob);
    v(Field("nsp_random_prob", "random-next pairs of the NSP task (default 0.5)"),
      s.data.nsp_random_prob);
    v(Field("segments", "unilm (ids 0-5) | bert (0/1)"), s.data.segments);
    // The optimizer's keys; of its flags pre-training takes --lr and --weight-decay.
    OptimizerOptions::fields(s.optim, [&](unieval::fields::Field f, auto& member) {
      const std::string key = f.key;
      if (key == "lr")
        f.help = "peak learning rate (default 1e-4)";
      else if (key == "weight_decay")
        f.help = "weight decay (default 0.01)";
      else
        f.flag("");
      v(f, member);
    });
    v(Field("batch_size", "examples per micro-batch (default 48)"), s.batch_size);
    v(Field("accum", "micro-batches per step (default 1)"), s.accum);
    v(Field("max_steps", "optimizer steps (default 1000)").flag("steps"), s.max_steps);
    v(Field("tokens", "budget in input positions (sets the steps)"), s.tokens);
    v(Field("warmup_steps", "warm-up steps (-1: warmup_ratio)").flag(""), s.warmup_steps);
    v(Field("warmup_ratio", "warm-up fraction").flag(""), s.warmup_ratio);
    v(Field("max_grad_norm", "gradient clipping (<= 0 off; default 1)"), s.max_grad_norm);
    v(Field("seed", "seed (default 42)"), s.seed);
    v(Field("save_every", "checkpoint every N steps (default 200)"), s.save_every);
    v(Field("log_every", "log every N steps (default 1)"), s.log_every);
    v(Field("skip_nonfinite", kSkipNonfiniteHelp).unless_default(), s.skip_nonfinite);
    const bool ernie_gen = s.objectives == "ernie-gen";  // (ERNIE-GEN keys absent otherwise)
    v(Field("span_lambda",
            "ernie-gen: lambda of Eq. 7, weight of the word-by-word flow (default 0.5; 1 = no "
            "span flow)")
          .when(ernie_gen),
      s.ernie.lambda);
    v(Field("noise_prob", "ernie-gen: noising rate rho_p of the target (default 0.05)")
          .when(ernie_gen),
      s.ernie.noise_prob);
    v(Field("noise_rule",
            "ernie-gen: count (floor(rho*|target|) words) | per_position (each target token and "
            "[SEP] with probability rho, as the paper code; default count)")
          .when(ernie_gen && s.ernie.noise_rule != NoiseRule::kCount),
      s.ernie.noise_rule);
    v(Field("span_bigrams",
            "ernie-gen: bigrams of the t-statistic span vocabulary (default 200000)")
          .when(ernie_gen),
      s.ernie.top_bigrams);
    v(Field("span_trigrams", "ernie-gen: trigrams of the span vocabulary (default 50000)")
          .when(ernie_gen),
      s.ernie.top_trigrams);
    v(Field("fragment_ratio",
            "ernie-gen: gamma, target fragments' share of the text (default 0.25)")
          .when(ernie_gen),
      s.ernie.fragment_ratio);
  }

  // Total optimizer steps (from tokens when set).
  int64_t total_steps() const;
  void validate() const;
  // run.json's "train" object (fields above).
  nlohmann::ordered_json to_json() const;
  // Fields absent from j keep their values. Strict (core/fields.h): a key no field has, or a
  // wrong type, is an InputError naming source and the key.
  void update_from_json(const nlohmann::json& j, const std::string& source);
};

// The heads a pre-training model needs: pooler, MLM, and NSP when the mix has the bidirectional
// objective.
UnilmHeads pretrain_heads(const PretrainOptions& opts);

struct PretrainResult {
  int64_t steps_done = 0;                // steps completed in total (resumed ones included)
  int64_t total_steps = 0;               // the budget
  bool finished = false;                 // false when stopped by stop_after
  double first_loss = 0, last_loss = 0;  // first / last step of this call
  std::vector<double> losses;            // every step's loss in this call
  std::map<std::string, double> last_objective_loss;  // last step: cloze loss per objective, "nsp"
  double tokens_per_second = 0;                       // non-padding input tokens / s in this call
  int64_t tokens_seen = 0;                            // non-padding input tokens, whole run
};

// Trains `model` (built with pretrain_heads) on the shard. With a run directory checkpoints and
// the log go there and `resume` continues from its checkpoint.
PretrainResult pretrain(UnilmModel& model, const TokenShard& shard, const SpecialIds& ids,
                        const PretrainOptions& opts, RunDir* run, bool resume);

}  // namespace unieval::models
