// Follows google-research/bert (Apache-2.0) and HF transformers (Apache-2.0) behaviour; no code
// copied; see THIRD_PARTY_NOTICES.md.
#include "models/training/nlu.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/training/optim.h"
#include "models/training/seq2seq_data.h"
#include "models/training/train_loop.h"
#include "models/training/train_util.h"

namespace unieval::models {

using ojson = nlohmann::ordered_json;

const char* to_string(NluHead head) {
  switch (head) {
    case NluHead::kClassify:
      return "classify";
    case NluHead::kRegress:
      return "regress";
    case NluHead::kSpan:
      return "span";
    case NluHead::kSpanClass:
      return "span+class";
  }
  return "?";
}

UnilmHeads nlu_heads(NluHead head, int64_t num_labels, bool mlm) {
  UnilmHeads h;
  h.pooler = true;
  h.mlm = mlm;
  h.num_labels = 0;
  h.span = false;
  switch (head) {
    case NluHead::kClassify:
      if (num_labels < 2) throw InputError("a classification head needs at least 2 labels");
      h.num_labels = num_labels;
      break;
    case NluHead::kRegress:
      h.num_labels = 1;
      break;
    case NluHead::kSpan:
      h.span = true;
      break;
    case NluHead::kSpanClass:
      if (num_labels < 2) throw InputError("a span+class head needs at least 2 answer classes");
      h.span = true;
      h.num_labels = num_labels;
      break;
  }
  return h;
}

NluBatch make_nlu_batch(const std::vector<NluFeature>& features, const std::vector<size_t>& idx,
                        int64_t pad_id, int64_t min_len) {
  int64_t T = std::max<int64_t>(0, min_len);
  for (size_t i : idx) T = std::max<int64_t>(T, static_cast<int64_t>(features[i].ids.size()));
  const int64_t B = static_cast<int64_t>(idx.size());
  std::vector<int64_t> ids(B * T, pad_id), types(B * T, 0), mask(B * T, 0), labels(B), starts(B),
      ends(B);
  std::vector<float> targets(B);
  NluBatch b;
  for (int64_t r = 0; r < B; ++r) {
    const NluFeature& f = features[idx[r]];
    if (f.types.size() != f.ids.size())
      throw InputError("feature with " + std::to_string(f.ids.size()) + " ids but " +
                       std::to_string(f.types.size()) + " segment ids");
    for (size_t t = 0; t < f.ids.size(); ++t) {
      ids[r * T + t] = f.ids[t];
      types[r * T + t] = f.types[t];
      mask[r * T + t] = 1;
    }
    labels[r] = f.label;
    targets[r] = f.target;
    starts[r] = f.start;
    ends[r] = f.end;
    b.tokens += static_cast<int64_t>(f.ids.size());
  }
  auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  b.input_ids = torch::tensor(ids, i64).view({B, T});
  b.token_type_ids = torch::tensor(types, i64).view({B, T});
  b.attention_mask = torch::tensor(mask, i64).view({B, T});
  b.labels = torch::tensor(labels, i64);
  b.targets = torch::tensor(targets, torch::TensorOptions().dtype(torch::kFloat));
  b.starts = torch::tensor(starts, i64);
  b.ends = torch::tensor(ends, i64);
  return b;
}

namespace {

// Padding positions get -inf (large negative) so that they take no probability mass.
torch::Tensor mask_padding(const torch::Tensor& logits, const torch::Tensor& mask) {
  return logits.to(torch::kFloat).masked_fill(mask.eq(0), -1e30);
}

NluBatch to_device(NluBatch b, const torch::Device& d) {
  b.input_ids = b.input_ids.to(d);
  b.token_type_ids = b.token_type_ids.to(d);
  b.attention_mask = b.attention_mask.to(d);
  b.labels = b.labels.to(d);
  b.targets = b.targets.to(d);
  b.starts = b.starts.to(d);
  b.ends = b.ends.to(d);
  return b;
}

}  // namespace

torch::Tensor nlu_loss(UnilmModel& model, const NluBatch& b, NluHead head) {
  BertOutput out = model->forward(b.input_ids, b.token_type_ids, b.attention_mask);
  torch::Tensor loss;
  if (head == NluHead::kClassify || head == NluHead::kSpanClass) {
    loss = torch::nn::functional::cross_entropy(
        model->classify(out.pooler_output).to(torch::kFloat), b.labels);
  } else if (head == NluHead::kRegress) {
    loss = torch::mse_loss(model->classify(out.pooler_output).to(torch::kFloat).squeeze(-1),
                           b.targets);
  }
  if (head == NluHead::kSpan || head == NluHead::kSpanClass) {
    auto [s, e] = model->span_logits(out.last_hidden_state);
    s = mask_padding(s, b.attention_mask);
    e = mask_padding(e, b.attention_mask);
    torch::Tensor span = (torch::nn::functional::cross_entropy(s, b.starts) +
                          torch::nn::functional::cross_entropy(e, b.ends)) /
                         2.0;
    loss = loss.defined() ? loss + span : span;
  }
  return loss;
}

std::vector<NluPrediction> predict_nlu(UnilmModel& model, const std::vector<NluFeature>& features,
                                       NluHead head, const PredictOptions& opts) {
  std::vector<NluPrediction> out(features.size());
  if (features.empty()) return out;
  if (opts.batch_size < 1) throw InputError("prediction batch size must be at least 1");
  const torch::Device device = device_of(*model);
  model->eval();
  torch::NoGradGuard no_grad;
  std::vector<size_t> order(features.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return features[a].ids.size() < features[b].ids.size();
  });
  size_t i = 0, done = 0;
  int last_decile = -1;
  while (i < order.size()) {
    std::vector<size_t> idx;
    int64_t longest = std::max<int64_t>(0, opts.pad_to);
    while (i < order.size()) {
      const int64_t len =
          std::max<int64_t>(longest, static_cast<int64_t>(features[order[i]].ids.size()));
      if (!idx.empty() && (static_cast<int64_t>(idx.size()) >= opts.batch_size ||
                           len * static_cast<int64_t>(idx.size() + 1) > opts.batch_tokens))
        break;
      longest = len;
      idx.push_back(order[i++]);
    }
    NluBatch b = to_device(make_nlu_batch(features, idx, opts.pad_id, opts.pad_to), device);
    BertOutput o = model->forward(b.input_ids, b.token_type_ids, b.attention_mask);
    torch::Tensor logits, s, e;
    if (head != NluHead::kSpan)
      logits = model->classify(o.pooler_output).to(torch::kFloat).cpu().contiguous();
    if (head == NluHead::kSpan || head == NluHead::kSpanClass) {
      auto se = model->span_logits(o.last_hidden_state);
      s = se.first.to(torch::kFloat).cpu().contiguous();
      e = se.second.to(torch::kFloat).cpu().contiguous();
    }
    for (size_t r = 0; r < idx.size(); ++r) {
      NluPrediction& p = out[idx[r]];
      const int64_t len =
          std::max<int64_t>(opts.pad_to, static_cast<int64_t>(features[idx[r]].ids.size()));
      if (logits.defined()) {
        const float* lp = logits.data_ptr<float>() + r * logits.size(1);
        p.logits.assign(lp, lp + logits.size(1));
      }
      if (s.defined()) {
        const float* sp = s.data_ptr<float>() + r * s.size(1);
        const float* ep = e.data_ptr<float>() + r * e.size(1);
        p.start.assign(sp, sp + len);
        p.end.assign(ep, ep + len);
      }
    }
    done += idx.size();
    if (opts.progress) {
      const int d = static_cast<int>(done * 10 / order.size());
      if (d != last_decile) std::cerr << "predict: " << done << "/" << order.size() << "\n";
      last_decile = d;
    }
  }
  return out;
}

int64_t drop_tokens(NluBatch& batch, const TokenDropout& td, std::mt19937_64& rng) {
  if (td.prob <= 0.0) return 0;
  auto ids = batch.input_ids.contiguous();
  auto mask = batch.attention_mask.contiguous();
  int64_t* id = ids.data_ptr<int64_t>();
  const int64_t* m = mask.data_ptr<int64_t>();
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  int64_t dropped = 0;
  for (int64_t i = 0, n = ids.numel(); i < n; ++i) {
    if (m[i] == 0 || std::find(td.keep.begin(), td.keep.end(), id[i]) != td.keep.end()) continue;
    if (uni(rng) < td.prob) id[i] = td.replacement, ++dropped;
  }
  batch.input_ids = ids;
  return dropped;
}

torch::Tensor mlm_aux_inputs(const NluBatch& batch, const MlmAux& aux, std::mt19937_64& rng,
                             torch::Tensor& masked_index, torch::Tensor& labels) {
  torch::Tensor ids = batch.input_ids.to(torch::kCPU).contiguous().clone();
  const torch::Tensor mask = batch.attention_mask.to(torch::kCPU).contiguous();
  const int64_t B = ids.size(0), T = ids.size(1);
  int64_t* id = ids.data_ptr<int64_t>();
  const int64_t* m = mask.data_ptr<int64_t>();
  std::vector<int64_t> flat, gold;
  std::vector<int64_t> row(static_cast<size_t>(T));
  std::vector<char> candidate(static_cast<size_t>(T));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      row[t] = id[b * T + t];
      candidate[t] = m[b * T + t] != 0 &&
                     std::find(aux.keep.begin(), aux.keep.end(), row[t]) == aux.keep.end();
    }
    std::vector<int64_t> positions, originals;
    cloze_mask(row, candidate, aux.masking, aux.ids, rng, positions, originals);
    for (int64_t t = 0; t < T; ++t) id[b * T + t] = row[t];
    for (size_t k = 0; k < positions.size(); ++k) {
      flat.push_back(b * T + positions[k]);
      gold.push_back(originals[k]);
    }
  }
  auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  masked_index = torch::tensor(flat, i64);
  labels = torch::tensor(gold, i64);
  return ids;
}

TrainResult train_nlu(UnilmModel& model, const std::vector<NluFeature>& features, NluHead head,
                      const TrainOptions& opts, RunDir* run, bool resume, int64_t pad_id,
                      const TokenDropout& token_dropout, const MlmAux& mlm_aux) {
  if (features.empty()) throw InputError("no training examples");
  if (!(token_dropout.prob >= 0.0 && token_dropout.prob < 1.0))
    throw InputError("--token-dropout must be in [0, 1), got " +
                     std::to_string(token_dropout.prob));
  if (token_dropout.prob > 0.0 && token_dropout.replacement < 0)
    throw InputError(
        "--token-dropout needs a replacement token ([MASK] or [UNK]) in the vocabulary");
  if (!(std::isfinite(mlm_aux.weight) && mlm_aux.weight >= 0.0))
    throw InputError("--mlm-aux must be a finite weight >= 0, got " +
                     std::to_string(mlm_aux.weight));
  const bool aux = mlm_aux.weight > 0.0;
  if (aux && !model->heads().mlm)
    throw InputError("--mlm-aux needs the model's MLM head (nlu_heads(..., mlm = true))");
  if (aux) mlm_aux.masking.validate();
  if (opts.accum < 1) throw InputError("--accum must be at least 1");
  for (const auto& f : features) {
    if (f.ids.empty()) throw InputError("an empty training feature");
    if ((head == NluHead::kSpan || head == NluHead::kSpanClass) &&
        (f.start < 0 || f.end < f.start || f.end >= static_cast<int64_t>(f.ids.size())))
      throw InputError("span target [" + std::to_string(f.start) + ", " + std::to_string(f.end) +
                       "] outside a feature of " + std::to_string(f.ids.size()) + " tokens");
    if ((head == NluHead::kClassify || head == NluHead::kSpanClass) &&
        (f.label < 0 || f.label >= model->heads().num_labels))
      throw InputError("class " + std::to_string(f.label) + " outside the head's " +
                       std::to_string(model->heads().num_labels) + " classes");
  }
  const torch::Device device = device_of(*model);
  std::vector<int64_t> lengths;
  for (const auto& f : features) lengths.push_back(static_cast<int64_t>(f.ids.size()));
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
  hooks.micro_loss = [&](int64_t step, int64_t j) {
    const std::vector<size_t>& idx = micro[static_cast<size_t>(j)];
    NluBatch b = make_nlu_batch(features, idx, pad_id);
    std::mt19937_64 rng(seed_mix(seed_mix(opts.seed, static_cast<uint64_t>(step)),
                                 kMicroBatchDataStream + static_cast<uint64_t>(j)));
    torch::Tensor aux_ids, aux_index, aux_labels;
    if (aux) {
      // Masked from the rows as they are (before word dropout), drawn after word dropout's draws.
      NluBatch clean = b;
      clean.input_ids = b.input_ids.clone();
      drop_tokens(b, token_dropout, rng);
      aux_ids = mlm_aux_inputs(clean, mlm_aux, rng, aux_index, aux_labels);
    } else {
      drop_tokens(b, token_dropout, rng);
    }
    b = to_device(std::move(b), device);
    MicroLoss m{nlu_loss(model, b, head), double(idx.size()) / double(rows), b.tokens, {}};
    if (aux && aux_labels.size(0) > 0) {
      namespace F = torch::nn::functional;
      BertOutput out = model->forward(aux_ids.to(device), b.token_type_ids, b.attention_mask);
      const int64_t H = out.last_hidden_state.size(-1);
      torch::Tensor h =
          out.last_hidden_state.reshape({-1, H}).index_select(0, aux_index.to(device));
      torch::Tensor nll =
          F::cross_entropy(model->mlm_logits(h).to(torch::kFloat), aux_labels.to(device),
                           F::CrossEntropyFuncOptions().reduction(torch::kNone));
      torch::Tensor mlm = nll.mean();
      m.values.emplace_back("task", m.loss);
      m.values.emplace_back("mlm", mlm);
      m.loss = m.loss + mlm_aux.weight * mlm;
    } else if (aux) {
      m.values.emplace_back("task", m.loss);
    }
    return m;
  };
  hooks.report = [&](int64_t, const StepValues& v, StepReport& r) {
    r.log["epoch"] = batches.epoch();
    r.log["loss"] = r.loss;
    if (aux) {  // each the micro-batches' row-share-weighted sum, as "loss"
      r.log["task_loss"] = v.weighted_sum("task");
      r.log["mlm_loss"] = v.weighted_sum("mlm");
    }
    r.log_tail["tokens"] = r.tokens;
    r.log_tail["examples"] = rows;
    r.summed = {"loss", "tokens"};
    if (aux) r.summed.insert(r.summed.end(), {"task_loss", "mlm_loss"});
  };
  hooks.save_state = [&](ojson& s) {
    batches.save(s);
    s["head"] = to_string(head);
  };
  hooks.load_state = [&](const nlohmann::json& s) {
    batches.load(s);
    return false;
  };
  TrainResult result;
  copy_loop_result(run_train_loop(model, loop, run, resume, hooks), result);
  return result;
}

std::vector<SpanCandidate> best_spans(const std::vector<float>& start,
                                      const std::vector<float>& end,
                                      const std::vector<char>& allowed_start,
                                      const std::vector<char>& allowed_end, int64_t n_best,
                                      int64_t max_answer_len) {
  const int64_t T = static_cast<int64_t>(start.size());
  if (static_cast<int64_t>(end.size()) != T)
    throw InputError("start and end logits of different lengths");
  auto top = [&](const std::vector<float>& v) {
    std::vector<int64_t> idx(T);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] > v[b]; });
    if (static_cast<int64_t>(idx.size()) > n_best) idx.resize(n_best);
    return idx;
  };
  auto ok = [&](const std::vector<char>& allowed, int64_t i) {
    return allowed.empty() ? i > 0 : (i < static_cast<int64_t>(allowed.size()) && allowed[i]);
  };
  std::vector<SpanCandidate> out;
  for (int64_t s : top(start))
    for (int64_t e : top(end)) {
      if (!ok(allowed_start, s) || !ok(allowed_end, e) || e < s || e - s + 1 > max_answer_len)
        continue;
      out.push_back({s, e, double(start[s]) + double(end[e])});
    }
  std::stable_sort(out.begin(), out.end(), [](const SpanCandidate& a, const SpanCandidate& b) {
    return a.score > b.score;
  });
  return out;
}

}  // namespace unieval::models
