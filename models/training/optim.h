#pragma once
// Follows PyTorch (BSD-3-Clause), HF transformers (Apache-2.0) and google-research/bert
// (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Optimizers and the learning-rate schedule of the UniLM / BERT fine-tuning recipes.
//
// Written here (not torch::optim) because LibTorch 1.13 has no Adamax, and because the state must
// be saved and restored bit-exactly by a resumed run (see models/training/trainer.h): every optimizer keeps
// its state as named tensors, `state_dict()` / `load_state_dict()`.
//
//   auto params = model->named_parameters();            // HF names ("...LayerNorm.weight", "...bias")
//   unieval::models::Optimizer opt(named_pairs(params), {.kind = OptimizerKind::kAdamW, .lr = 3e-5});
//   LinearSchedule sched{3e-5, /*warmup*/ 100, /*total*/ 1000};
//   loss.backward(); clip_grad_norm(opt.params(), 1.0); opt.step(sched.lr(step)); opt.zero_grad();
//
// | option          | default | meaning                                                              |
// |-----------------|---------|----------------------------------------------------------------------|
// | kind            | AdamW   | AdamW (decoupled decay, HF/BertAdam), Adam (L2 in the gradient), Adamax |
// | lr              | 3e-5    | peak learning rate (the schedule scales it per step)                  |
// | beta1, beta2    | 0.9, 0.999 | UniLM §2.4 / ERNIE-GEN §4.1                                         |
// | eps             | 1e-6    | BERT's AdamWeightDecay value; ERNIE-GEN uses 1e-9                      |
// | weight_decay    | 0.01    | not applied to biases and LayerNorm weights (BERT's exclusion list)   |
// | bias_correction | true    | false = BertAdam (google-research/bert optimization.py) behaviour     |
//
// Update rules (t = 1, 2, ...; g the gradient; decay only on parameters that decay):
//   AdamW : m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;  p -= lr (m/bc1) / (sqrt(v/bc2) + eps) + lr wd p
//   Adam  : g += wd p, then as AdamW without the decoupled term (torch.optim.Adam)
//   Adamax: g += wd p;  m = b1 m + (1-b1) g;  u = max(b2 u, |g| + eps);  p -= lr/bc1 · m / u
//           (torch.optim.Adamax; the UniLM GLUE recipe, §3.5)
// bc1 = 1 - b1^t, bc2 = 1 - b2^t (1 when bias_correction is false).
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/fields.h"

namespace unieval::models {

enum class OptimizerKind { kAdamW, kAdam, kAdamax };

// "adamw" | "adam" | "adamax" (InputError otherwise).
OptimizerKind parse_optimizer_kind(const std::string& name);
std::string to_string(OptimizerKind kind);
// The JSON spelling of the kind for core/fields.h.
inline std::string field_to_string(OptimizerKind kind) { return to_string(kind); }
inline OptimizerKind field_from_string(const std::string& name, OptimizerKind) {
  return parse_optimizer_kind(name);
}

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::kAdamW;  // update rule (table above)
  double lr = 3e-5;                            // peak learning rate
  double beta1 = 0.9;                          // first-moment decay
  double beta2 = 0.999;                        // second-moment (Adamax: infinity-norm) decay
  double eps = 1e-6;                           // denominator epsilon
  double weight_decay = 0.01;                  // decay on weights; never on bias / LayerNorm
  bool bias_correction = true;                 // Adam bias correction (false = BertAdam)

  // The options' one declaration (core/fields.h): JSON key, flag, help. The trainers' options
  // (TrainOptions, PretrainOptions, ParityStepOptions) embed these keys in their own JSON.
  template <class S, class V>
  static void fields(S& s, V&& v) {
    using unieval::fields::Field;
    v(Field("optimizer", "adamw | adam | adamax"), s.kind);
    v(Field("lr", "peak learning rate"), s.lr);
    v(Field("beta1", "first-moment decay").flag(""), s.beta1);
    v(Field("beta2", "second-moment decay").flag(""), s.beta2);
    v(Field("eps", "Adam epsilon").flag("adam-eps"), s.eps);
    v(Field("weight_decay", "weight decay (not on bias/LayerNorm)"), s.weight_decay);
    v(Field("bias_correction", "Adam bias correction").flag(""), s.bias_correction);
  }
};

// The options as run.json keeps them: keys optimizer, lr, beta1, beta2, eps, weight_decay,
// bias_correction, appended to j in that order (ParityStepOptions' JSON shares them).
void to_json(const OptimizerOptions& o, nlohmann::ordered_json& j);
// Reads those keys where present (other keys of j are left to the caller); a wrong type is an
// InputError naming source and key.
void update_from_json(OptimizerOptions& o, const nlohmann::json& j, const std::string& source);

// True for parameters that get no weight decay: names ending in "bias" or containing
// "LayerNorm"/"layer_norm"/"ln" as a path component (BERT: ["bias", "LayerNorm.weight"]).
bool is_no_decay_parameter(const std::string& name);

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// named_parameters() of a module as an ordered list (only those requiring grad).
NamedTensors named_pairs(const torch::OrderedDict<std::string, torch::Tensor>& params);

class Optimizer {
 public:
  Optimizer(NamedTensors params, OptimizerOptions options);

  // One update with learning rate lr over the current gradients (parameters without a gradient
  // are skipped, their step count still advances with the optimizer's).
  // On the CPU, AdamW/Adam update a float32 parameter in one fused pass (equal to the tensor-op
  // form up to float rounding, tests/models/optim_test.cc). On CUDA they run as multi-tensor
  // (_foreach_*) ops over all parameters of a weight-decay group at once, as torch.optim's
  // foreach=True: ~10 kernel launches a step instead of ~9 per parameter. Adamax, and anything
  // else, runs the tensor ops one parameter at a time.
  void step(double lr);
  // Forces the multi-tensor form on or off for every device (default: on for CUDA only); tests
  // use it to hold the forms to each other on the CPU.
  void set_multi_tensor(std::optional<bool> on) { multi_tensor_ = on; }
  // Drops the gradients (set_to_none, as torch.optim does by default since 2.0).
  void zero_grad();

  const OptimizerOptions& options() const { return options_; }
  int64_t steps() const { return step_; }
  std::vector<torch::Tensor> params() const;

  // State as named tensors: "<param>.exp_avg", "<param>.exp_avg_sq" (Adamax: "<param>.exp_inf")
  // and "step" (int64 scalar). load_state_dict checks names and shapes (InputError on mismatch).
  std::map<std::string, torch::Tensor> state_dict() const;
  // The same names, as views of the live state (no copy): for writing a checkpoint without
  // holding a second copy of the moments. Valid until the next step().
  std::vector<std::pair<std::string, torch::Tensor>> state_views() const;
  void load_state_dict(const std::map<std::string, torch::Tensor>& state);
  // The same checks, one tensor at a time (lookup returns an undefined tensor when absent):
  // resuming never holds the whole saved state next to the live one.
  void load_state(const std::function<torch::Tensor(const std::string&)>& lookup);

 private:
  NamedTensors params_;
  std::vector<bool> decay_;
  std::vector<torch::Tensor> m_, v_;
  OptimizerOptions options_;
  int64_t step_ = 0;
  std::optional<bool> multi_tensor_;
};

// Scales gradients so that their global L2 norm is at most max_norm (torch.nn.utils.
// clip_grad_norm_); returns the norm before clipping. max_norm <= 0 only measures. CUDA gradients
// are measured and scaled with multi-tensor ops (one host sync: the returned norm).
double clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm);

// How gradients are clipped: kGlobal scales all of them by one factor (clip_grad_norm above,
// torch / HF / unieval's default); kPerParameter clips each parameter's gradient by its own norm,
// as UniLM v1's BertAdam does inside step() (pytorch_pretrained_bert optimization.py:
// clip_grad_norm_(p, max_grad_norm) for each p).
enum class ClipMode { kGlobal, kPerParameter };
// "global" | "per_parameter" (InputError otherwise).
ClipMode parse_clip_mode(const std::string& name);
std::string to_string(ClipMode mode);
inline std::string field_to_string(ClipMode mode) { return to_string(mode); }
inline ClipMode field_from_string(const std::string& name, ClipMode) {
  return parse_clip_mode(name);
}
// Clips as `mode` says; returns the global L2 norm before clipping (what the log's grad_norm
// reports either way). max_norm <= 0 only measures.
double clip_gradients(const std::vector<torch::Tensor>& params, double max_norm, ClipMode mode);

// Linear warm-up from 0 to peak over warmup steps, then linear decay to 0 at total steps
// (HF get_linear_schedule_with_warmup, UniLM §2.4), numbered like it: update s = 0, 1, ... uses
//   lr(s) = peak * s / warmup                       for s < warmup
//         = peak * max(0, (total - s) / (total - warmup))  afterwards.
struct LinearSchedule {
  double peak = 3e-5;  // learning rate reached at the end of warm-up
  int64_t warmup = 0;  // warm-up steps
  int64_t total = 1;   // total optimizer steps (lr reaches 0 there)
  double lr(int64_t step) const;
};

// Tensor maps to and from bytes (LibTorch archive), for optimizer and generator state.
std::string serialize_tensors(const std::map<std::string, torch::Tensor>& tensors);
std::map<std::string, torch::Tensor> deserialize_tensors(const std::string& bytes,
                                                         const std::string& source_name);

}  // namespace unieval::models
