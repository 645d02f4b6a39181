// Follows openai/finetune-transformer-lm (MIT) and HF transformers (Apache-2.0) behaviour; no code
// copied; see THIRD_PARTY_NOTICES.md.
#include "models/training/gpt_finetune.h"

#include <algorithm>
#include <iostream>
#include <numeric>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/nn/row_ops.h"
#include "models/training/train_loop.h"
#include "models/training/train_util.h"

namespace unieval::models {

using ojson = nlohmann::ordered_json;

const char* to_string(GptHead head) {
  switch (head) {
    case GptHead::kClassify:
      return "classify";
    case GptHead::kRegress:
      return "regress";
    case GptHead::kMultipleChoice:
      return "multiple-choice";
  }
  return "?";
}

GptHeads gpt_heads(GptHead head, int64_t num_labels) {
  GptHeads h;
  switch (head) {
    case GptHead::kClassify:
      if (num_labels < 2) throw InputError("a classification head needs at least 2 labels");
      h.num_labels = num_labels;
      break;
    case GptHead::kRegress:
      h.num_labels = 1;
      break;
    case GptHead::kMultipleChoice:
      h.multiple_choice = true;
      break;
  }
  return h;
}

namespace {

GptBatch to_device(GptBatch b, const torch::Device& d) {
  b.input_ids = b.input_ids.to(d);
  b.attention_mask = b.attention_mask.to(d);
  b.last = b.last.to(d);
  b.labels = b.labels.to(d);
  b.targets = b.targets.to(d);
  return b;
}

// The head's output per example from the extract states [B·N, E].
torch::Tensor head_output(GptModel& model, const torch::Tensor& ext, const GptBatch& b,
                          GptHead head) {
  const int64_t B = b.examples, N = b.per_example;
  if (head == GptHead::kMultipleChoice) return model->choice_score(ext).view({B, N});
  // §3.3 similarity: the extract states of both orderings added before the linear layer.
  return model->classify(ext.view({B, N, -1}).sum(1));
}

}  // namespace

GptFeature gpt_choice_feature(const std::vector<int32_t>& document,
                              const std::vector<int32_t>& question,
                              const std::vector<std::vector<int32_t>>& choices, int64_t label,
                              int64_t max_len, GptChoiceCut cut, const GptSpecialIds& ids) {
  GptFeature f;
  f.label = label;
  const size_t budget = static_cast<size_t>(std::max<int64_t>(0, max_len - 3));
  const size_t cap = static_cast<size_t>(std::max<int64_t>(0, max_len / 2 - 2));
  for (const auto& choice : choices) {
    std::vector<int32_t> d = document, qq = question, a = choice;
    if (cut == GptChoiceCut::kPerText) {
      d.insert(d.end(), qq.begin(), qq.end());
      qq.clear();
      if (d.size() > cap) d.resize(cap);
      if (a.size() > cap) a.resize(cap);
    } else {
      while (d.size() + qq.size() + a.size() > budget) {
        if (!d.empty())
          d.pop_back();
        else if (a.size() > qq.size())
          a.pop_back();
        else
          qq.pop_back();
      }
    }
    std::vector<int32_t> s = {ids.start};
    s.insert(s.end(), d.begin(), d.end());
    s.insert(s.end(), qq.begin(), qq.end());
    s.push_back(ids.delimiter);
    s.insert(s.end(), a.begin(), a.end());
    s.push_back(ids.extract);
    f.seqs.push_back(std::move(s));
  }
  return f;
}

GptBatch make_gpt_batch(const std::vector<GptFeature>& features, const std::vector<size_t>& idx,
                        int64_t pad_id) {
  GptBatch b;
  b.examples = static_cast<int64_t>(idx.size());
  b.per_example = idx.empty() ? 0 : static_cast<int64_t>(features[idx[0]].seqs.size());
  int64_t T = 0;
  for (size_t i : idx) {
    if (static_cast<int64_t>(features[i].seqs.size()) != b.per_example)
      throw InputError("examples of one batch have different numbers of sequences");
    for (const auto& s : features[i].seqs) T = std::max<int64_t>(T, static_cast<int64_t>(s.size()));
  }
  const int64_t R = b.examples * b.per_example;
  std::vector<int64_t> ids(R * T, pad_id), mask(R * T, 0), last(R), labels(b.examples);
  std::vector<float> targets(b.examples);
  for (int64_t e = 0; e < b.examples; ++e) {
    const GptFeature& f = features[idx[e]];
    for (int64_t k = 0; k < b.per_example; ++k) {
      const auto& s = f.seqs[k];
      if (s.empty()) throw InputError("an empty GPT input sequence");
      const int64_t r = e * b.per_example + k;
      for (size_t t = 0; t < s.size(); ++t) {
        ids[r * T + t] = s[t];
        mask[r * T + t] = 1;
      }
      last[r] = static_cast<int64_t>(s.size()) - 1;
      b.tokens += static_cast<int64_t>(s.size());
    }
    labels[e] = f.label;
    targets[e] = f.target;
  }
  auto i64 = torch::TensorOptions().dtype(torch::kLong);
  b.input_ids = torch::tensor(ids, i64).view({R, T});
  b.attention_mask = torch::tensor(mask, i64).view({R, T});
  b.last = torch::tensor(last, i64);
  b.labels = torch::tensor(labels, i64);
  b.targets = torch::tensor(targets, torch::TensorOptions().dtype(torch::kFloat));
  return b;
}

GptLoss gpt_loss(GptModel& model, const GptBatch& b, GptHead head, double lm_coef) {
  GptOutput o = model->forward(b.input_ids, b.attention_mask);
  torch::Tensor ext = GptModelImpl::gather_positions(o.last_hidden_state, b.last);
  torch::Tensor out = head_output(model, ext, b, head).to(torch::kFloat);
  GptLoss l;
  if (head == GptHead::kRegress)
    l.task = torch::mse_loss(out.squeeze(-1), b.targets);
  else
    l.task = torch::nn::functional::cross_entropy(out, b.labels);
  l.total = l.task;
  if (lm_coef != 0.0 && b.input_ids.size(1) > 1) {
    const int64_t T = b.input_ids.size(1);
    torch::Tensor logits =
        model->lm_logits(o.last_hidden_state.narrow(1, 0, T - 1)).to(torch::kFloat);
    torch::Tensor target = b.input_ids.narrow(1, 1, T - 1).reshape({-1});
    torch::Tensor keep = b.attention_mask.narrow(1, 1, T - 1).reshape({-1}).to(torch::kBool);
    torch::Tensor nll = torch::nn::functional::cross_entropy(
        logits.reshape({-1, logits.size(-1)}), target,
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
    l.lm = nll.masked_select(keep).mean();
    l.total = l.task + lm_coef * l.lm;
  }
  return l;
}

std::vector<std::vector<float>> predict_gpt(GptModel& model,
                                            const std::vector<GptFeature>& features, GptHead head,
                                            int64_t batch_size, bool progress) {
  std::vector<std::vector<float>> out(features.size());
  if (features.empty()) return out;
  if (batch_size < 1) throw InputError("prediction batch size must be at least 1");
  const torch::Device device = device_of(*model);
  model->eval();
  torch::NoGradGuard ng;
  auto longest = [&](size_t i) {
    size_t m = 0;
    for (const auto& s : features[i].seqs) m = std::max(m, s.size());
    return m;
  };
  std::vector<size_t> order(features.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return longest(a) < longest(b); });
  for (size_t i = 0; i < order.size(); i += static_cast<size_t>(batch_size)) {
    std::vector<size_t> idx(order.begin() + i,
                            order.begin() + std::min(order.size(), i + batch_size));
    GptBatch b = to_device(make_gpt_batch(features, idx), device);
    GptOutput o = model->forward(b.input_ids, b.attention_mask);
    torch::Tensor y =
        head_output(model, GptModelImpl::gather_positions(o.last_hidden_state, b.last), b, head)
            .to(torch::kFloat)
            .cpu()
            .contiguous();
    for (size_t r = 0; r < idx.size(); ++r) {
      const float* p = y.data_ptr<float>() + r * y.size(1);
      out[idx[r]].assign(p, p + y.size(1));
    }
    if (progress)
      std::cerr << "predict: " << std::min(order.size(), i + batch_size) << "/" << order.size()
                << "\n";
  }
  return out;
}

TrainResult train_gpt(GptModel& model, const std::vector<GptFeature>& features, GptHead head,
                      const TrainOptions& opts, double lm_coef, RunDir* run, bool resume) {
  if (features.empty()) throw InputError("no training examples");
  const size_t n = features.front().seqs.size();
  std::vector<int64_t> lengths;
  for (const auto& f : features) {
    if (f.seqs.size() != n || n == 0)
      throw InputError("every example of a task needs the same number (≥ 1) of sequences");
    size_t m = 0;
    for (const auto& s : f.seqs) {
      if (s.empty()) throw InputError("an empty GPT input sequence");
      if (static_cast<int64_t>(s.size()) > model->config().n_positions)
        throw InputError("an input of " + std::to_string(s.size()) +
                         " tokens exceeds n_positions " +
                         std::to_string(model->config().n_positions));
      m = std::max(m, s.size());
    }
    if (head == GptHead::kClassify && (f.label < 0 || f.label >= model->heads().num_labels))
      throw InputError("class " + std::to_string(f.label) + " outside the head's " +
                       std::to_string(model->heads().num_labels) + " classes");
    if (head == GptHead::kMultipleChoice && (f.label < 0 || f.label >= static_cast<int64_t>(n)))
      throw InputError("answer " + std::to_string(f.label) + " outside the " + std::to_string(n) +
                       " choices");
    lengths.push_back(static_cast<int64_t>(m * n));
  }
  const torch::Device device = device_of(*model);
  EpochBatches batches = fine_tuning_batches(std::move(lengths), opts);
  const LoopOptions loop = loop_options(opts, batches);
  check_accum_covers_ranks(opts.accum);
  LoopHooks hooks;
  std::vector<std::vector<size_t>> micro;
  int64_t rows = 0;  // the step's examples over all its micro-batches
  hooks.micro_batches = [&](int64_t) {
    micro = batches.next();
    rows = 0;
    for (const auto& m : micro) rows += static_cast<int64_t>(m.size());
    return static_cast<int64_t>(micro.size());
  };
  hooks.micro_loss = [&](int64_t, int64_t j) {
    const std::vector<size_t>& idx = micro[static_cast<size_t>(j)];
    GptBatch b = to_device(make_gpt_batch(features, idx), device);
    GptLoss l = gpt_loss(model, b, head, lm_coef);
    MicroLoss m{l.total, double(idx.size()) / double(rows), b.tokens, {{"task_loss", l.task}}};
    if (l.lm.defined()) m.values.emplace_back("lm_loss", l.lm);
    return m;
  };
  hooks.report = [&](int64_t, const StepValues& values, StepReport& r) {
    r.log["epoch"] = batches.epoch();
    r.log["loss"] = r.loss;
    r.log["task_loss"] = values.weighted_sum("task_loss");
    if (lm_coef != 0.0) r.log["lm_loss"] = values.weighted_sum("lm_loss");
    r.log_tail["tokens"] = r.tokens;
    r.log_tail["examples"] = rows;
    r.summed = {"loss", "task_loss", "tokens"};
    if (lm_coef != 0.0) r.summed.push_back("lm_loss");
  };
  hooks.reduced = [&](StepReport& r) {
    if (lm_coef == 0.0) return;
    char buf[64];
    std::snprintf(buf, sizeof buf, "task %.4f lm %.4f", r.log["task_loss"].get<double>(),
                  r.log["lm_loss"].get<double>());
    r.detail = buf;
  };
  hooks.save_state = [&](ojson& s) {
    batches.save(s);
    s["head"] = to_string(head);
    s["lm_coef"] = lm_coef;
  };
  hooks.load_state = [&](const nlohmann::json& s) {
    batches.load(s);
    return false;
  };
  TrainResult result;
  copy_loop_result(run_train_loop(*model, loop, run, resume, hooks), result);
  return result;
}

std::vector<SpanLogProb> score_continuations(GptModel& model,
                                             const std::vector<std::vector<int32_t>>& seqs,
                                             const std::vector<int64_t>& from, int64_t batch_size) {
  if (seqs.size() != from.size())
    throw InputError("score_continuations: one start position per sequence");
  std::vector<SpanLogProb> out(seqs.size());
  const torch::Device device = device_of(*model);
  model->eval();
  torch::NoGradGuard ng;
  for (size_t i = 0; i < seqs.size(); i += static_cast<size_t>(batch_size)) {
    std::vector<GptFeature> fs;
    std::vector<size_t> idx;
    for (size_t k = i; k < std::min(seqs.size(), i + batch_size); ++k) {
      if (from[k] < 1 || from[k] > static_cast<int64_t>(seqs[k].size()))
        throw InputError("a scored span must start after the first token and inside the sequence");
      fs.push_back(GptFeature{{seqs[k]}});
      idx.push_back(idx.size());
    }
    GptBatch b = to_device(make_gpt_batch(fs, idx), device);
    const int64_t T = b.input_ids.size(1);
    if (T < 2) continue;
    torch::Tensor h = model->forward(b.input_ids, b.attention_mask).last_hidden_state;
    torch::Tensor lp =
        torch::log_softmax(model->lm_logits(h.narrow(1, 0, T - 1)).to(torch::kFloat), -1);
    torch::Tensor tok = lp.gather(2, b.input_ids.narrow(1, 1, T - 1).unsqueeze(-1))
                            .squeeze(-1)
                            .to(torch::kDouble)
                            .cpu();
    auto acc = tok.accessor<double, 2>();
    for (size_t r = 0; r < fs.size(); ++r) {
      SpanLogProb& s = out[i + r];
      const int64_t len = static_cast<int64_t>(seqs[i + r].size());
      for (int64_t t = from[i + r]; t < len; ++t) {  // token t is predicted at position t - 1
        s.sum += acc[r][t - 1];
        ++s.count;
      }
    }
  }
  return out;
}

std::vector<std::vector<double>> next_token_logprobs(
    GptModel& model, const std::vector<std::vector<int32_t>>& prefixes,
    const std::vector<int32_t>& candidates, int64_t batch_size) {
  std::vector<std::vector<double>> out(prefixes.size());
  const torch::Device device = device_of(*model);
  model->eval();
  torch::NoGradGuard ng;
  std::vector<int64_t> cand(candidates.begin(), candidates.end());
  torch::Tensor ci = torch::tensor(cand, torch::kLong).to(device);
  for (size_t i = 0; i < prefixes.size(); i += static_cast<size_t>(batch_size)) {
    std::vector<GptFeature> fs;
    std::vector<size_t> idx;
    for (size_t k = i; k < std::min(prefixes.size(), i + batch_size); ++k) {
      fs.push_back(GptFeature{{prefixes[k]}});
      idx.push_back(idx.size());
    }
    GptBatch b = to_device(make_gpt_batch(fs, idx), device);
    torch::Tensor h = GptModelImpl::gather_positions(
        model->forward(b.input_ids, b.attention_mask).last_hidden_state, b.last);
    torch::Tensor lp = torch::log_softmax(model->lm_logits(h).to(torch::kFloat), -1)
                           .index_select(1, ci)
                           .to(torch::kDouble)
                           .cpu();
    auto acc = lp.accessor<double, 2>();
    for (size_t r = 0; r < fs.size(); ++r)
      for (size_t c = 0; c < cand.size(); ++c) out[i + r].push_back(acc[r][c]);
  }
  return out;
}

}  // namespace unieval::models
