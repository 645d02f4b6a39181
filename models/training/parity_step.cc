// Follows UniLM (microsoft/unilm unilm-v1, MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "models/training/parity_step.h"

#include <cmath>
#include <functional>

#include "core/error.h"
#include "models/training/trainer.h"

namespace unieval::models {

using ojson = nlohmann::ordered_json;

ojson ParityStepOptions::to_json() const { return fields::to_json(*this); }

void ParityStepOptions::update_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "\"options\" must be a JSON object");
  fields::from_json(j, *this, source);
  if (loss != "unilm" && loss != "ours")
    throw InputError(source, 0, "options.loss: \"unilm\" or \"ours\", not \"" + loss + "\"");
  if (clip != "per_parameter" && clip != "global")
    throw InputError(source, 0,
                     "options.clip: \"per_parameter\" or \"global\", not \"" + clip + "\"");
  if (label_smoothing < 0 || label_smoothing >= 1)
    throw InputError(source, 0, "options.label_smoothing must be in [0, 1)");
  if (steps < 1) throw InputError(source, 0, "options.steps must be >= 1");
  if (total_steps < 1 || warmup_steps < 0)
    throw InputError(source, 0, "options: total_steps >= 1, warmup_steps >= 0");
}

namespace {

// A rectangular integer (or float) array of `dims` dimensions as a tensor.
torch::Tensor array_tensor(const nlohmann::json& j, const std::string& key, int dims,
                           const std::string& source, bool floating = false) {
  std::vector<int64_t> shape;
  const nlohmann::json* cur = &j;
  for (int d = 0; d < dims; ++d) {
    if (!cur->is_array() || cur->empty())
      throw InputError(source, 0,
                       key + ": expected a non-empty " + std::to_string(dims) + "-D array");
    shape.push_back(static_cast<int64_t>(cur->size()));
    cur = &(*cur)[0];
  }
  std::vector<double> flat;
  std::function<void(const nlohmann::json&, int)> walk = [&](const nlohmann::json& a, int d) {
    if (d == dims) {
      if (!a.is_number()) throw InputError(source, 0, key + ": expected numbers");
      flat.push_back(a.get<double>());
      return;
    }
    if (!a.is_array() || static_cast<int64_t>(a.size()) != shape[d])
      throw InputError(source, 0, key + ": ragged array");
    for (const auto& x : a) walk(x, d + 1);
  };
  walk(j, 0);
  torch::Tensor t = torch::tensor(flat, torch::kDouble).view(shape);
  return floating ? t.to(torch::kFloat) : t.to(torch::kInt64);
}

}  // namespace

ParityBatch parity_batch_from_json(const nlohmann::json& j, const std::string& source,
                                   ParityStepOptions* options) {
  if (!j.is_object()) throw InputError(source, 0, "expected a JSON object");
  for (const char* k : {"input_ids", "masked_pos", "masked_ids"})
    if (!j.contains(k)) throw InputError(source, 0, std::string("missing \"") + k + "\"");
  ParityBatch b;
  b.input_ids = array_tensor(j["input_ids"], "input_ids", 2, source);
  const int64_t B = b.input_ids.size(0), T = b.input_ids.size(1);
  b.token_type_ids = j.contains("token_type_ids")
                         ? array_tensor(j["token_type_ids"], "token_type_ids", 2, source)
                         : torch::zeros({B, T}, torch::kInt64);
  if (j.contains("attention_mask")) {
    const bool three = j["attention_mask"].is_array() && !j["attention_mask"].empty() &&
                       j["attention_mask"][0].is_array() && !j["attention_mask"][0].empty() &&
                       j["attention_mask"][0][0].is_array();
    b.attention_mask = array_tensor(j["attention_mask"], "attention_mask", three ? 3 : 2, source);
  }
  b.masked_pos = array_tensor(j["masked_pos"], "masked_pos", 2, source);
  b.masked_ids = array_tensor(j["masked_ids"], "masked_ids", 2, source);
  b.masked_weights = j.contains("masked_weights")
                         ? array_tensor(j["masked_weights"], "masked_weights", 2, source, true)
                         : (b.masked_ids != 0).to(torch::kFloat);
  if (b.token_type_ids.sizes() != b.input_ids.sizes())
    throw InputError(source, 0, "token_type_ids: not the shape of input_ids");
  if (b.attention_mask.defined()) {
    const auto s = b.attention_mask.sizes();
    const bool ok = b.attention_mask.dim() == 2 ? (s[0] == B && s[1] == T)
                                                : (s[0] == B && s[1] == T && s[2] == T);
    if (!ok)
      throw InputError(source, 0, "attention_mask: expected [B,T] or [B,T,T] for input_ids [B,T]");
  }
  if (b.masked_pos.size(0) != B || b.masked_ids.sizes() != b.masked_pos.sizes() ||
      b.masked_weights.sizes() != b.masked_pos.sizes())
    throw InputError(source, 0,
                     "masked_pos / masked_ids / masked_weights: expected the same [B,P] shapes");
  if (b.masked_pos.min().item<int64_t>() < 0 || b.masked_pos.max().item<int64_t>() >= T)
    throw InputError(source, 0, "masked_pos: a position outside [0, T)");
  if (options && j.contains("options")) options->update_from_json(j["options"], source);
  return b;
}

std::vector<ParityStepReport> parity_step(UnilmModel& model, const ParityBatch& batch,
                                          const ParityStepOptions& o) {
  if (!model->cls) throw InputError("the parity step needs the model's MLM head (cls.predictions)");
  const torch::Device device = model->parameters().front().device();
  const int64_t V = model->config().vocab_size;
  if (batch.input_ids.max().item<int64_t>() >= V || batch.masked_ids.max().item<int64_t>() >= V)
    throw InputError("a token id >= the model's vocab_size " + std::to_string(V));
  model->eval();  // dropout off: the step is deterministic
  Optimizer opt(named_pairs(model->named_parameters()), o.optim);
  const LinearSchedule schedule{o.optim.lr, o.warmup_steps, o.total_steps};
  const torch::Tensor ids = batch.input_ids.to(device), types = batch.token_type_ids.to(device);
  const torch::Tensor mask =
      batch.attention_mask.defined() ? batch.attention_mask.to(device) : torch::Tensor();
  const torch::Tensor pos = batch.masked_pos.to(device),
                      labels = batch.masked_ids.to(device).view({-1});
  const torch::Tensor w = batch.masked_weights.to(device).view({-1});
  std::vector<ParityStepReport> out;
  for (int64_t s = 0; s < o.steps; ++s) {
    opt.zero_grad();
    BertOutput h = model->forward(ids, types, mask);
    const int64_t H = h.last_hidden_state.size(-1);
    // BertForPreTrainingLossMask: gather the masked positions ([B,P,H]), MLM head on them only.
    const torch::Tensor hm =
        h.last_hidden_state.gather(1, pos.unsqueeze(-1).expand({-1, -1, H})).reshape({-1, H});
    const torch::Tensor logits = model->mlm_logits(hm).to(torch::kFloat);
    const torch::Tensor lp = torch::log_softmax(logits, -1);
    // UniLM: loss_mask_and_normalize(LabelSmoothingLoss rows, masked_weights) = sum(l·w) / (sum(w) + 1e-5).
    const torch::Tensor unilm =
        (unilm_smoothed_kl_rows(lp, labels, o.label_smoothing) * w).sum() / (w.sum() + 1e-5);
    // Ours: label_smoothed_nll over the slots that count (weight > 0), mean.
    const torch::Tensor keep = (w > 0).nonzero().view({-1});
    const torch::Tensor ours = label_smoothed_nll(logits.index_select(0, keep),
                                                  labels.index_select(0, keep), o.label_smoothing)
                                   .first;
    const torch::Tensor loss = o.loss == "unilm" ? unilm : ours;
    loss.backward();
    ParityStepReport r;
    r.step = s;
    r.loss = loss.item<double>();
    r.loss_unilm = unilm.item<double>();
    r.loss_ours = ours.item<double>();
    double total_sq = 0;
    for (const auto& item : model->named_parameters()) {
      if (!item.value().grad().defined()) continue;
      const double n = item.value().grad().to(torch::kDouble).norm().item<double>();
      r.grad_norms[item.key()] = n;
      total_sq += n * n;
    }
    r.grad_norm = std::sqrt(total_sq);
    clip_gradients(opt.params(), o.max_grad_norm, parse_clip_mode(o.clip));
    r.lr = schedule.lr(s);
    opt.step(r.lr);
    out.push_back(std::move(r));
  }
  opt.zero_grad();
  return out;
}

ojson parity_report_json(const ParityStepOptions& options,
                         const std::vector<ParityStepReport>& steps) {
  ojson j;
  j["options"] = options.to_json();
  j["steps"] = ojson::array();
  for (const auto& r : steps) {
    ojson s;
    s["step"] = r.step;
    s["lr"] = r.lr;
    s["loss"] = r.loss;
    s["loss_unilm"] = r.loss_unilm;
    s["loss_ours"] = r.loss_ours;
    s["grad_norm"] = r.grad_norm;
    ojson g = ojson::object();
    for (const auto& [k, v] : r.grad_norms) g[k] = v;
    s["grad_norms"] = g;
    j["steps"].push_back(std::move(s));
  }
  return j;
}

}  // namespace unieval::models
