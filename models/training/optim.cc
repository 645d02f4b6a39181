// Follows PyTorch (BSD-3-Clause), HF transformers (Apache-2.0) and google-research/bert
// (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "models/training/optim.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.h"

namespace unieval::models {

OptimizerKind parse_optimizer_kind(const std::string& name) {
  if (name == "adamw") return OptimizerKind::kAdamW;
  if (name == "adam") return OptimizerKind::kAdam;
  if (name == "adamax") return OptimizerKind::kAdamax;
  throw InputError("unknown optimizer '" + name + "' (expected adamw, adam or adamax)");
}

std::string to_string(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kAdamW:
      return "adamw";
    case OptimizerKind::kAdam:
      return "adam";
    case OptimizerKind::kAdamax:
      return "adamax";
  }
  return "adamw";
}

void to_json(const OptimizerOptions& o, nlohmann::ordered_json& j) {
  const nlohmann::ordered_json own = fields::to_json(o);
  for (auto it = own.begin(); it != own.end(); ++it) j[it.key()] = it.value();
}

void update_from_json(OptimizerOptions& o, const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "expected a JSON object, got " + j.dump());
  nlohmann::json own = nlohmann::json::object();  // the optimizer's keys only
  for (const auto& key : fields::keys<OptimizerOptions>())
    if (j.contains(key)) own[key] = j.at(key);
  fields::from_json(own, o, source);
}

bool is_no_decay_parameter(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("bias")) return true;
  if (name.find("LayerNorm") != std::string::npos || name.find("layer_norm") != std::string::npos)
    return true;
  // A path component exactly "ln" (GPT-style names).
  std::stringstream ss(name);
  std::string part;
  while (std::getline(ss, part, '.'))
    if (part == "ln" || part.rfind("ln_", 0) == 0) return true;
  return false;
}

NamedTensors named_pairs(const torch::OrderedDict<std::string, torch::Tensor>& params) {
  NamedTensors out;
  for (const auto& item : params)
    if (item.value().requires_grad()) out.emplace_back(item.key(), item.value());
  return out;
}

Optimizer::Optimizer(NamedTensors params, OptimizerOptions options)
    : params_(std::move(params)), options_(options) {
  for (const auto& [name, p] : params_) {
    decay_.push_back(!is_no_decay_parameter(name));
    m_.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
    v_.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
  }
}

std::vector<torch::Tensor> Optimizer::params() const {
  std::vector<torch::Tensor> out;
  for (const auto& np : params_) out.push_back(np.second);
  return out;
}

void Optimizer::zero_grad() {
  // Dropped, not zero-filled (torch.optim's set_to_none): the next backward's first gradient is
  // taken over as it is instead of being added to a buffer of zeros, and no pass clears 4 bytes
  // per parameter. The step skips a parameter that got no gradient since.
  for (auto& np : params_) np.second.mutable_grad().reset();
}

namespace {

// The float32 scalars of one Adam(W) update, as the tensor-op form would round them.
struct AdamScalars {
  float b1, one_minus_b1, b2, one_minus_b2, bc2, eps;
  float decay;      // AdamW: p *= decay (1 - lr·wd) first; 1 = none
  float l2;         // Adam: g += l2·p first; 0 = none
  float step_size;  // -lr / bc1
};

inline void adam_scalar(float& p, float g, float& m, float& v, const AdamScalars& s) {
  if (s.l2 != 0.0f) g = g + s.l2 * p;
  m = m * s.b1 + s.one_minus_b1 * g;
  v = v * s.b2 + s.one_minus_b2 * (g * g);
  const float denom = std::sqrt(v / s.bc2) + s.eps;
  p = p * s.decay;
  p = p + s.step_size * (m / denom);
}

// One pass over a contiguous float32 parameter: reads p, g, m, v once, writes p, m, v once (the
// tensor-op form makes ~22 passes, and it is memory-bound).
void fused_adam_cpu(float* p, const float* g, float* m, float* v, int64_t n, const AdamScalars& s) {
  at::parallel_for(0, n, int64_t{1} << 15, [&](int64_t i0, int64_t i1) {
    int64_t i = i0;
#if defined(__SSE2__)
    const __m128 b1 = _mm_set1_ps(s.b1), omb1 = _mm_set1_ps(s.one_minus_b1), b2 = _mm_set1_ps(s.b2),
                 omb2 = _mm_set1_ps(s.one_minus_b2), bc2 = _mm_set1_ps(s.bc2),
                 eps = _mm_set1_ps(s.eps), decay = _mm_set1_ps(s.decay), l2 = _mm_set1_ps(s.l2),
                 step = _mm_set1_ps(s.step_size);
    const bool with_l2 = s.l2 != 0.0f;
    for (; i + 4 <= i1; i += 4) {
      __m128 gv = _mm_loadu_ps(g + i), pv = _mm_loadu_ps(p + i);
      if (with_l2) gv = _mm_add_ps(gv, _mm_mul_ps(l2, pv));
      const __m128 mv = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m + i), b1), _mm_mul_ps(omb1, gv));
      const __m128 vv =
          _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(v + i), b2), _mm_mul_ps(omb2, _mm_mul_ps(gv, gv)));
      const __m128 denom = _mm_add_ps(_mm_sqrt_ps(_mm_div_ps(vv, bc2)), eps);
      pv = _mm_mul_ps(pv, decay);
      pv = _mm_add_ps(pv, _mm_mul_ps(step, _mm_div_ps(mv, denom)));
      _mm_storeu_ps(m + i, mv);
      _mm_storeu_ps(v + i, vv);
      _mm_storeu_ps(p + i, pv);
    }
#endif
    for (; i < i1; ++i) adam_scalar(p[i], g[i], m[i], v[i], s);
  });
}

bool fusable(const torch::Tensor& p, const torch::Tensor& g, const torch::Tensor& m,
             const torch::Tensor& v) {
  if (g.is_sparse() || g.numel() != p.numel())
    return false;  // (is_contiguous throws on a sparse tensor)
  for (const auto* t : {&p, &g, &m, &v})
    if (!t->device().is_cpu() || t->scalar_type() != torch::kFloat || !t->is_contiguous())
      return false;
  return true;
}

// AdamW/Adam over a list of parameters with one weight decay, as multi-tensor ops in the order of
// the per-parameter tensor ops below (torch.optim's foreach form).
void adam_multi_tensor(std::vector<torch::Tensor>& p, std::vector<torch::Tensor>& g,
                       std::vector<torch::Tensor>& m, std::vector<torch::Tensor>& v, bool adamw,
                       double lr, double wd, double b1, double b2, double bc1, double bc2,
                       double eps) {
  if (p.empty()) return;
  if (!adamw && wd != 0.0) g = at::_foreach_add(g, p, wd);  // L2: the gradients themselves stay
  at::_foreach_mul_(m, b1);
  at::_foreach_add_(m, g, 1.0 - b1);
  at::_foreach_mul_(v, b2);
  at::_foreach_addcmul_(v, g, g, 1.0 - b2);
  std::vector<torch::Tensor> denom = at::_foreach_div(v, bc2);
  at::_foreach_sqrt_(denom);
  at::_foreach_add_(denom, eps);
  if (adamw && wd != 0.0) at::_foreach_mul_(p, 1.0 - lr * wd);
  at::_foreach_addcdiv_(p, m, denom, -lr / bc1);
}

}  // namespace

void Optimizer::step(double lr) {
  torch::NoGradGuard no_grad;
  ++step_;
  const double b1 = options_.beta1, b2 = options_.beta2, eps = options_.eps;
  const double bc1 = options_.bias_correction ? 1.0 - std::pow(b1, double(step_)) : 1.0;
  const double bc2 = options_.bias_correction ? 1.0 - std::pow(b2, double(step_)) : 1.0;
  const bool adamw = options_.kind == OptimizerKind::kAdamW;
  // The multi-tensor groups: [0] without weight decay, [1] with.
  std::vector<torch::Tensor> mp[2], mg[2], mm[2], mv[2];
  for (size_t i = 0; i < params_.size(); ++i) {
    torch::Tensor p = params_[i].second;
    if (!p.grad().defined()) continue;
    torch::Tensor g = p.grad();
    const double wd = decay_[i] ? options_.weight_decay : 0.0;
    auto& m = m_[i];
    auto& v = v_[i];
    if (options_.kind != OptimizerKind::kAdamax && fusable(p, g, m, v) &&
        !multi_tensor_.value_or(false)) {
      const AdamScalars s{static_cast<float>(b1),
                          static_cast<float>(1.0 - b1),
                          static_cast<float>(b2),
                          static_cast<float>(1.0 - b2),
                          static_cast<float>(bc2),
                          static_cast<float>(eps),
                          adamw && wd != 0.0 ? static_cast<float>(1.0 - lr * wd) : 1.0f,
                          !adamw ? static_cast<float>(wd) : 0.0f,
                          static_cast<float>(-lr / bc1)};
      fused_adam_cpu(p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(),
                     v.data_ptr<float>(), p.numel(), s);
      continue;
    }
    if (options_.kind != OptimizerKind::kAdamax && !g.is_sparse() &&
        multi_tensor_.value_or(p.is_cuda())) {
      const int k = wd != 0.0 ? 1 : 0;
      mp[k].push_back(p);
      mg[k].push_back(g);
      mm[k].push_back(m);
      mv[k].push_back(v);
      continue;
    }
    switch (options_.kind) {
      case OptimizerKind::kAdamW: {
        m.mul_(b1).add_(g, 1.0 - b1);
        v.mul_(b2).addcmul_(g, g, 1.0 - b2);
        torch::Tensor denom = (v / bc2).sqrt_().add_(eps);
        if (wd != 0.0) p.mul_(1.0 - lr * wd);  // decoupled decay (torch.optim.AdamW order)
        p.addcdiv_(m, denom, -lr / bc1);
        break;
      }
      case OptimizerKind::kAdam: {
        if (wd != 0.0) g = g.add(p, wd);
        m.mul_(b1).add_(g, 1.0 - b1);
        v.mul_(b2).addcmul_(g, g, 1.0 - b2);
        torch::Tensor denom = (v / bc2).sqrt_().add_(eps);
        p.addcdiv_(m, denom, -lr / bc1);
        break;
      }
      case OptimizerKind::kAdamax: {
        if (wd != 0.0) g = g.add(p, wd);
        m.mul_(b1).add_(g, 1.0 - b1);
        torch::Tensor absg = g.abs().add_(eps);
        v.mul_(b2);
        torch::max_out(v, v, absg);
        p.addcdiv_(m, v, -lr / bc1);
        break;
      }
    }
  }
  for (int k = 0; k < 2; ++k)
    adam_multi_tensor(mp[k], mg[k], mm[k], mv[k], adamw, lr, k == 1 ? options_.weight_decay : 0.0,
                      b1, b2, bc1, bc2, eps);
}

std::map<std::string, torch::Tensor> Optimizer::state_dict() const {
  std::map<std::string, torch::Tensor> out;
  const char* second = options_.kind == OptimizerKind::kAdamax ? ".exp_inf" : ".exp_avg_sq";
  for (size_t i = 0; i < params_.size(); ++i) {
    out[params_[i].first + ".exp_avg"] = m_[i].detach().cpu().clone();
    out[params_[i].first + second] = v_[i].detach().cpu().clone();
  }
  out["step"] = torch::tensor(step_, torch::kInt64);
  return out;
}

std::vector<std::pair<std::string, torch::Tensor>> Optimizer::state_views() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  out.reserve(2 * params_.size() + 1);
  const char* second = options_.kind == OptimizerKind::kAdamax ? ".exp_inf" : ".exp_avg_sq";
  for (size_t i = 0; i < params_.size(); ++i) {
    out.emplace_back(params_[i].first + ".exp_avg", m_[i].detach());
    out.emplace_back(params_[i].first + second, v_[i].detach());
  }
  out.emplace_back("step", torch::tensor(step_, torch::kInt64));
  return out;
}

void Optimizer::load_state_dict(const std::map<std::string, torch::Tensor>& state) {
  load_state([&](const std::string& key) {
    auto it = state.find(key);
    return it == state.end() ? torch::Tensor() : it->second;
  });
}

void Optimizer::load_state(const std::function<torch::Tensor(const std::string&)>& lookup) {
  torch::NoGradGuard no_grad;
  const char* second = options_.kind == OptimizerKind::kAdamax ? ".exp_inf" : ".exp_avg_sq";
  auto get = [&](const std::string& key, const torch::Tensor& like) {
    torch::Tensor t = lookup(key);
    if (!t.defined()) throw InputError("optimizer state has no '" + key + "'");
    if (t.sizes() != like.sizes())
      throw InputError("optimizer state '" + key + "' has the wrong shape");
    return t;
  };
  for (size_t i = 0; i < params_.size(); ++i) {
    m_[i].copy_(get(params_[i].first + ".exp_avg", m_[i]));
    v_[i].copy_(get(params_[i].first + second, v_[i]));
  }
  torch::Tensor step = lookup("step");
  if (!step.defined() || step.numel() != 1) throw InputError("optimizer state has no 'step'");
  step_ = step.item<int64_t>();
}

double clip_grad_norm(const std::vector<torch::Tensor>& params, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  bool multi = true;  // all on CUDA, float32, dense: multi-tensor ops
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    grads.push_back(p.grad());
    multi = multi && p.grad().is_cuda() && p.grad().scalar_type() == torch::kFloat &&
            !p.grad().is_sparse();
  }
  if (grads.empty()) return 0.0;
  std::vector<torch::Tensor> norms;
  if (multi) {
    norms = at::_foreach_norm(grads, 2);
  } else {
    for (const auto& g : grads) norms.push_back(g.detach().to(torch::kFloat).norm(2));
  }
  const double total = torch::stack(norms).norm(2).item<double>();
  if (max_norm > 0 && total > max_norm) {
    const double coef = max_norm / (total + 1e-6);  // torch.nn.utils.clip_grad_norm_
    if (multi) {
      at::_foreach_mul_(grads, coef);
    } else {
      for (auto& g : grads) g.mul_(coef);
    }
  }
  return total;
}

ClipMode parse_clip_mode(const std::string& name) {
  if (name == "global") return ClipMode::kGlobal;
  if (name == "per_parameter") return ClipMode::kPerParameter;
  throw InputError("unknown clip mode '" + name + "' (global or per_parameter)");
}

std::string to_string(ClipMode mode) {
  return mode == ClipMode::kGlobal ? "global" : "per_parameter";
}

double clip_gradients(const std::vector<torch::Tensor>& params, double max_norm, ClipMode mode) {
  if (mode == ClipMode::kGlobal) return clip_grad_norm(params, max_norm);
  // Each norm once: it scales its own gradient and adds to the global norm.
  double total_sq = 0.0;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    const double norm = clip_grad_norm({p}, max_norm);
    total_sq += norm * norm;
  }
  return std::sqrt(total_sq);
}

double LinearSchedule::lr(int64_t step) const {
  if (warmup > 0 && step < warmup) return peak * double(step) / double(warmup);
  if (total <= warmup) return peak;
  return peak * std::max(0.0, double(total - step) / double(total - warmup));
}

std::string serialize_tensors(const std::map<std::string, torch::Tensor>& tensors) {
  // Archive keys must be identifiers, so tensors are stored as t0, t1, ... with their names
  // joined by '\n' in "names".
  torch::serialize::OutputArchive archive;
  std::string names;
  size_t i = 0;
  for (const auto& [name, t] : tensors) {
    archive.write("t" + std::to_string(i++), t.detach().cpu(), /*is_buffer=*/true);
    names += name + "\n";
  }
  archive.write("names", c10::IValue(names));
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

std::map<std::string, torch::Tensor> deserialize_tensors(const std::string& bytes,
                                                         const std::string& source_name) {
  std::map<std::string, torch::Tensor> out;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size());
    c10::IValue names;
    archive.read("names", names);
    std::stringstream ss(names.toStringRef());
    std::string name;
    size_t i = 0;
    while (std::getline(ss, name)) {
      torch::Tensor t;
      archive.read("t" + std::to_string(i++), t, /*is_buffer=*/true);
      out[name] = t;
    }
  } catch (const c10::Error& e) {
    throw InputError(source_name, 0,
                     std::string("unreadable tensor archive: ") + e.what_without_backtrace());
  }
  return out;
}

}  // namespace unieval::models
