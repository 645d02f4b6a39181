#pragma once
// Follows PyTorch (BSD-3-Clause) and UniLM (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// The label-smoothed loss UniLM fine-tuning backpropagates (TrainOptions::smoothing,
// models/training/trainer.h; label_smoothed_nll there computes both).
//   kUniform: cross-entropy to (1 - eps)·onehot + eps/V over the whole vocabulary, as
//             torch.nn.CrossEntropyLoss(label_smoothing=eps) (unieval's default; ERNIE-GEN's
//             fluid.layers.label_smooth is this form too).
//   kUnilm:   UniLM v1's LabelSmoothingLoss: KL(q || p), q = 1 - eps on the label, eps/(V-2) on
//             every other token but [PAD] (unilm_smoothed_kl_rows in trainer.h), the loss
//             run_seq2seq.py trains with; then "loss" and "loss_unilm" in log.jsonl are one value.
//             Normalised as unieval normalises: the mean over the step's masked tokens (the
//             official code divides each micro-batch's sum by its weight sum + 1e-5, then by the
//             accumulation steps: the same value when accum is 1, up to the 1e-5).
// With --arch ernie-gen the chosen form is each flow's loss (ERNIE-GEN's official form is kUniform).
#include <string>

namespace unieval::models {

enum class LabelSmoothing { kUniform, kUnilm };
LabelSmoothing parse_label_smoothing(const std::string& name);  // "uniform" | "unilm"
std::string to_string(LabelSmoothing form);
inline std::string field_to_string(LabelSmoothing form) { return to_string(form); }
inline LabelSmoothing field_from_string(const std::string& name, LabelSmoothing) {
  return parse_label_smoothing(name);
}

}  // namespace unieval::models
