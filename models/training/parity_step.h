#pragma once
// Follows UniLM (microsoft/unilm unilm-v1, MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// One fine-tuning step of a UniLM/BERT masked-LM model on a batch given in full, for comparing the
// training objective, gradients and optimizer update with the official code (`unieval finetune
// --parity-dump BATCH.json --model CKPT --out DIR`, #38). Nothing is random: the masked positions
// and labels come from the file, dropout is off (eval mode; give the reference run dropout 0 too).
//
// The batch file (JSON; B rows, T positions, P masked slots per row):
//   {
//     "input_ids":      [[...T]...B],           int; [MASK] already in place
//     "token_type_ids": [[...T]...B],           optional (zeros)
//     "attention_mask": [[[...T]...T]...B] 0/1  (or [[...T]...B]; optional: all ones); for UniLM's
//                                               seq2seq fine-tuning the 3-D s2s mask seq2seq_loader.py builds
//     "masked_pos":     [[...P]...B],           positions of the masked tokens
//     "masked_ids":     [[...P]...B],           their labels (0 = [PAD]: a padding slot)
//     "masked_weights": [[...P]...B],           optional (1 where masked_ids != 0)
//     "options": {...}                          optional: ParityStepOptions below
//   }
//
// | option          | default         | meaning                                                          |
// |-----------------|-----------------|------------------------------------------------------------------|
// | loss            | "unilm"         | backpropagated: "unilm" = UniLM v1 BertForPreTrainingLossMask:    |
// |                 |                 | KL label smoothing (LabelSmoothingLoss, eps/(V-2), [PAD] excluded) |
// |                 |                 | summed over slots · weight / (sum of weights + 1e-5)              |
// |                 |                 | (loss_mask_and_normalize); "ours" = unieval's training loss:      |
// |                 |                 | label_smoothed_nll (models/training/trainer.h), mean over weighted slots   |
// | label_smoothing | 0.1             | eps                                                              |
// | lr              | 3e-5            | peak learning rate                                               |
// | warmup_steps    | 0               | LinearSchedule (models/training/optim.h): update s uses lr(s), s = 0, 1, ...|
// | total_steps     | 1               |   (= BertAdam's warmup_linear(s / t_total, warmup) when warmup ·  |
// |                 |                 |   t_total is a whole number)                                     |
// | optimizer       | "adamw"         | models/training/optim.h kinds; weight_decay, eps, beta1, beta2 as there    |
// | weight_decay    | 0.01            |                                                                  |
// | eps             | 1e-6            |                                                                  |
// | bias_correction | false           | false = BertAdam (no bias correction)                            |
// | max_grad_norm   | 1.0             | <= 0: no clipping                                                |
// | clip            | "per_parameter" | "per_parameter" = BertAdam (clip_grad_norm_ on each parameter     |
// |                 |                 | inside step()); "global" = unieval's trainer (one global norm)    |
// | steps           | 1               | forward + backward + update this many times on the same batch     |
//
// With BertAdam's warm-up the first update has lr 0 (warmup_linear(0) = 0): give steps 2 to see
// the weights move.
//
// Written to DIR: parity.json {"options", "steps": [{"step", "lr", "loss", "loss_unilm",
// "loss_ours", "grad_norm" (global, before clipping), "grad_norms": {parameter: L2 norm before
// clipping}}...]} and model.safetensors (the weights after the last update, HF names as
// models/io/checkpoint.h save_weights writes them).
#include <torch/torch.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/nn/transformer.h"
#include "models/training/optim.h"

namespace unieval::models {

struct ParityStepOptions {
  std::string loss = "unilm";    // backpropagated loss: "unilm" | "ours"
  double label_smoothing = 0.1;  // eps
  OptimizerOptions optim = [] {
    OptimizerOptions o;
    o.bias_correction = false;  // BertAdam
    return o;
  }();
  int64_t warmup_steps = 0;            // LinearSchedule warm-up
  int64_t total_steps = 1;             // LinearSchedule total
  double max_grad_norm = 1.0;          // clipping threshold (<= 0: none)
  std::string clip = "per_parameter";  // "per_parameter" (BertAdam) | "global" (unieval's trainer)
  int64_t steps = 1;                   // updates on the batch

  // The options' one declaration (core/fields.h): the keys of the batch file's "options" object
  // and of parity.json's, in this order (the optimizer's after label_smoothing).
  template <class S, class V>
  static void fields(S& s, V&& v) {
    using unieval::fields::Field;
    v(Field("loss", "backpropagated loss: unilm | ours"), s.loss);
    v(Field("label_smoothing", "label smoothing eps"), s.label_smoothing);
    OptimizerOptions::fields(s.optim, v);
    v(Field("warmup_steps", "LinearSchedule warm-up"), s.warmup_steps);
    v(Field("total_steps", "LinearSchedule total"), s.total_steps);
    v(Field("max_grad_norm", "clipping threshold (<= 0: none)"), s.max_grad_norm);
    v(Field("clip", "per_parameter | global"), s.clip);
    v(Field("steps", "updates on the batch"), s.steps);
  }

  nlohmann::ordered_json to_json() const;
  // Keys absent keep their values. Strict (core/fields.h): an unknown key, a wrong type or an
  // impossible value is an InputError naming `source`.
  void update_from_json(const nlohmann::json& j, const std::string& source);
};

struct ParityBatch {
  torch::Tensor input_ids;       // [B,T] int64
  torch::Tensor token_type_ids;  // [B,T] int64
  torch::Tensor attention_mask;  // [B,T,T] or [B,T] int64 0/1 (undefined: all ones)
  torch::Tensor masked_pos;      // [B,P] int64
  torch::Tensor masked_ids;      // [B,P] int64
  torch::Tensor masked_weights;  // [B,P] float
};

// The batch file above (options: read into `options` when given). InputError on shape or type
// problems, naming the file.
ParityBatch parity_batch_from_json(const nlohmann::json& j, const std::string& source,
                                   ParityStepOptions* options);

struct ParityStepReport {
  int64_t step = 0;
  double lr = 0, loss = 0, loss_unilm = 0, loss_ours = 0, grad_norm = 0;
  std::map<std::string, double> grad_norms;  // per parameter, before clipping
};

// Runs options.steps updates of `model` (its MLM head needed) on the batch; returns one report per
// update. The model is left with the updated weights.
std::vector<ParityStepReport> parity_step(UnilmModel& model, const ParityBatch& batch,
                                          const ParityStepOptions& options);

// parity.json's content.
nlohmann::ordered_json parity_report_json(const ParityStepOptions& options,
                                          const std::vector<ParityStepReport>& steps);

}  // namespace unieval::models
