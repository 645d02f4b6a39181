#include "models/pretrainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/error.h"
#include "models/train_util.h"

namespace unieval::models {

using ojson = nlohmann::ordered_json;

// ---- options ---------------------------------------------------------------------------------

int64_t PretrainOptions::total_steps() const {
  if (tokens > 0) {
    const int64_t per_step = batch_size * accum * data.max_len;
    return std::max<int64_t>(1, (tokens + per_step - 1) / per_step);
  }
  return max_steps;
}

void PretrainOptions::validate() const {
  objective_cycle(objectives);
  data.validate();
  if (batch_size < 1) throw InputError("--batch-size must be at least 1");
  if (accum < 1) throw InputError("--accum must be at least 1");
  if (tokens < 0) throw InputError("--tokens must be positive");
  if (tokens == 0 && max_steps < 0) throw InputError("--steps must be >= 0");
  if (!(optim.lr > 0)) throw InputError("--lr must be positive");
  if (warmup_ratio < 0 || warmup_ratio >= 1) throw InputError("--warmup must be a fraction in [0, 1) or steps >= 1");
}

ojson PretrainOptions::to_json() const {
  ojson j;
  j["objectives"] = objectives;
  j["max_len"] = data.max_len;
  j["mask_prob"] = data.mask_prob;
  j["max_pred"] = data.max_pred;
  j["span_prob"] = data.span_prob;
  j["max_span"] = data.max_span;
  j["short_seq_prob"] = data.short_seq_prob;
  j["nsp_random_prob"] = data.nsp_random_prob;
  j["segments"] = data.segments;
  models::to_json(optim, j);
  j["batch_size"] = batch_size;
  j["accum"] = accum;
  j["max_steps"] = max_steps;
  j["tokens"] = tokens;
  j["warmup_steps"] = warmup_steps;
  j["warmup_ratio"] = warmup_ratio;
  j["max_grad_norm"] = max_grad_norm;
  j["seed"] = seed;
  j["save_every"] = save_every;
  j["log_every"] = log_every;
  return j;
}

void PretrainOptions::update_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "pre-training options must be a JSON object");
  auto num = [&](const char* key, auto& field) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_number()) throw InputError(source, 0, std::string(key) + ": expected a number");
    field = j.at(key).get<std::decay_t<decltype(field)>>();
  };
  auto str = [&](const char* key, std::string& field) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_string()) throw InputError(source, 0, std::string(key) + ": expected a string");
    field = j.at(key).get<std::string>();
  };
  str("objectives", objectives);
  num("max_len", data.max_len);
  num("mask_prob", data.mask_prob);
  num("max_pred", data.max_pred);
  num("span_prob", data.span_prob);
  num("max_span", data.max_span);
  num("short_seq_prob", data.short_seq_prob);
  num("nsp_random_prob", data.nsp_random_prob);
  str("segments", data.segments);
  models::update_from_json(optim, j, source);
  num("batch_size", batch_size);
  num("accum", accum);
  num("max_steps", max_steps);
  num("tokens", tokens);
  num("warmup_steps", warmup_steps);
  num("warmup_ratio", warmup_ratio);
  num("max_grad_norm", max_grad_norm);
  num("seed", seed);
  num("save_every", save_every);
  num("log_every", log_every);
}

UnilmHeads pretrain_heads(const PretrainOptions& opts) {
  UnilmHeads h;
  h.pooler = true;
  h.mlm = true;
  for (MaskKind k : objective_cycle(opts.objectives))
    if (k == MaskKind::kBidirectional) h.nsp = true;
  return h;
}

// ---- loop ------------------------------------------------------------------------------------

namespace {

const char* short_name(MaskKind k) {
  switch (k) {
    case MaskKind::kBidirectional: return "bi";
    case MaskKind::kLeftToRight: return "l2r";
    case MaskKind::kRightToLeft: return "r2l";
    case MaskKind::kSeq2Seq: return "s2s";
  }
  return "?";
}

constexpr MaskKind kAllKinds[] = {MaskKind::kBidirectional, MaskKind::kSeq2Seq, MaskKind::kLeftToRight,
                                  MaskKind::kRightToLeft};

}  // namespace

PretrainResult pretrain(UnilmModel& model, const TokenShard& shard, const SpecialIds& ids,
                        const PretrainOptions& opts, RunDir* run, bool resume) {
  opts.validate();
  const std::vector<MaskKind> cycle = objective_cycle(opts.objectives);
  bool uses_nsp = false;
  for (MaskKind k : cycle) uses_nsp = uses_nsp || k == MaskKind::kBidirectional;
  if (!model->cls) throw InputError("pre-training needs the MLM head");
  if (uses_nsp && (!model->cls->seq_relationship || !model->bert->pooler))
    throw InputError("the bidirectional objective needs the pooler and the NSP head (pretrain_heads)");
  const BertConfig& cfg = model->config();
  if (opts.data.max_len > cfg.max_position_embeddings)
    throw InputError("--max-len " + std::to_string(opts.data.max_len) + " exceeds the model's max_position_embeddings " +
                     std::to_string(cfg.max_position_embeddings));
  const int64_t need_types = opts.data.max_segment_id(cycle) + 1;
  if (need_types > cfg.type_vocab_size)
    throw InputError("the '" + opts.data.segments + "' segment ids of --objectives " + opts.objectives + " need type_vocab_size >= " +
                     std::to_string(need_types) + " in the model config (it is " + std::to_string(cfg.type_vocab_size) +
                     "); UniLM v1 uses 6, or pass --segments bert");
  if (ids.vocab_size > cfg.vocab_size)
    throw InputError("the vocabulary has " + std::to_string(ids.vocab_size) + " entries but the model's vocab_size is " +
                     std::to_string(cfg.vocab_size));
  const torch::Device device = [&] {
    for (const auto& p : model->parameters()) return p.device();
    return torch::Device(torch::kCPU);
  }();

  const int64_t total = opts.total_steps();
  const int64_t warmup = opts.warmup_steps >= 0 ? opts.warmup_steps
                                                : static_cast<int64_t>(std::llround(opts.warmup_ratio * double(total)));
  const LinearSchedule schedule{opts.optim.lr, warmup, total};
  Optimizer optimizer(named_pairs(model->named_parameters()), opts.optim);
  int64_t step = 0, tokens_seen = 0;
  if (resume) {
    if (!run) throw InputError("--resume needs a run directory");
    auto state = run->load_checkpoint(model, optimizer);
    step = state.at("step").get<int64_t>();
    tokens_seen = state.value("tokens_seen", int64_t{0});
    run->truncate_log(step);
  }

  PretrainResult result;
  result.total_steps = total;
  model->train();
  const bool tty = isatty(2);
  auto t0 = std::chrono::steady_clock::now();
  auto last_draw = t0 - std::chrono::hours(1);
  int64_t tokens_now = 0, steps_this_call = 0;
  std::vector<ojson> pending_log;
  auto checkpoint = [&]() {
    if (!run) return;
    run->append_log(pending_log);
    pending_log.clear();
    ojson s;
    s["step"] = step;
    s["total_steps"] = total;
    s["warmup_steps"] = warmup;
    s["tokens_seen"] = tokens_seen;
    s["seed"] = opts.seed;
    s["objectives"] = opts.objectives;
    run->save_checkpoint(model, optimizer, s);
  };

  if (total == 0 && !resume) checkpoint();  // --steps 0: the initialised model only
  while (step < total) {
    std::vector<PretrainBatch> micro;
    int64_t masked_total = 0, nsp_total = 0, step_tokens = 0;
    for (int64_t j = 0; j < opts.accum; ++j) {
      micro.push_back(make_pretrain_batch(shard, cycle, opts.data, ids, opts.seed, step, j, opts.accum, opts.batch_size));
      masked_total += micro.back().labels.size(0);
      nsp_total += micro.back().nsp_rows.size(0);
      step_tokens += micro.back().tokens;
    }
    optimizer.zero_grad();
    double mlm_sum = 0, nsp_sum = 0;
    int64_t nsp_correct = 0;
    double kind_sum[4] = {0, 0, 0, 0};
    int64_t kind_count[4] = {0, 0, 0, 0};
    for (int64_t j = 0; j < opts.accum; ++j) {
      torch::manual_seed(seed_mix(seed_mix(opts.seed, static_cast<uint64_t>(step)), 0x5000 + j));
      const PretrainBatch& b = micro[j];
      BertOutput out = model->forward(b.input_ids.to(device), b.token_type_ids.to(device), b.attention_mask.to(device));
      torch::Tensor loss = torch::zeros({}, out.last_hidden_state.options().dtype(torch::kFloat));
      if (b.labels.size(0) > 0) {
        const int64_t H = out.last_hidden_state.size(-1);
        torch::Tensor h = out.last_hidden_state.reshape({-1, H}).index_select(0, b.masked_index.to(device));
        torch::Tensor logits = model->mlm_logits(h).to(torch::kFloat);
        torch::Tensor per_token =
            torch::nn::functional::cross_entropy(logits, b.labels.to(device),
                                                 torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
        loss = loss + per_token.sum() / double(masked_total);
        torch::Tensor pt = per_token.detach().to(torch::kCPU);
        mlm_sum += pt.sum().item<double>();
        auto obj = b.masked_objective.accessor<int64_t, 1>();
        auto val = pt.accessor<float, 1>();
        for (int64_t k = 0; k < pt.size(0); ++k) {
          kind_sum[obj[k]] += val[k];
          ++kind_count[obj[k]];
        }
      }
      if (b.nsp_rows.size(0) > 0) {
        torch::Tensor pooled = out.pooler_output.index_select(0, b.nsp_rows.to(device));
        torch::Tensor nl = model->nsp_logits(pooled).to(torch::kFloat);
        torch::Tensor nsp = torch::nn::functional::cross_entropy(
            nl, b.nsp_labels.to(device), torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
        loss = loss + nsp / double(nsp_total);
        nsp_sum += nsp.item<double>();
        nsp_correct += nl.argmax(-1).eq(b.nsp_labels.to(device)).sum().item<int64_t>();
      }
      loss.backward();
    }
    const double grad_norm = clip_grad_norm(optimizer.params(), opts.max_grad_norm);
    const double lr = schedule.lr(step);
    optimizer.step(lr);
    ++step;
    ++steps_this_call;
    tokens_now += step_tokens;
    tokens_seen += step_tokens;
    const double mlm = masked_total > 0 ? mlm_sum / double(masked_total) : 0.0;
    const double nsp = nsp_total > 0 ? nsp_sum / double(nsp_total) : 0.0;
    const double loss_value = mlm + nsp;
    if (steps_this_call == 1) result.first_loss = loss_value;
    result.last_loss = loss_value;
    result.losses.push_back(loss_value);
    result.last_objective_loss.clear();
    for (MaskKind k : kAllKinds) {
      const int ki = static_cast<int>(k);
      if (kind_count[ki] > 0) result.last_objective_loss[to_string(k)] = kind_sum[ki] / double(kind_count[ki]);
    }
    if (nsp_total > 0) result.last_objective_loss["nsp"] = nsp;

    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - t0).count();
    const double tok_s = elapsed > 0 ? double(tokens_now) / elapsed : 0.0;
    const double eta = elapsed / double(steps_this_call) * double(total - step);
    if (opts.log_every > 0 && (step % opts.log_every == 0 || step == total)) {
      ojson l;
      l["step"] = step;
      l["loss"] = loss_value;
      l["mlm"] = mlm;
      if (nsp_total > 0) {
        l["nsp"] = nsp;
        l["nsp_acc"] = double(nsp_correct) / double(nsp_total);
      }
      for (const auto& [name, v] : result.last_objective_loss)
        if (name != "nsp") l["loss_" + name] = v;
      l["lr"] = lr;
      l["grad_norm"] = grad_norm;
      l["tokens"] = step_tokens;
      l["masked"] = masked_total;
      l["tokens_seen"] = tokens_seen;
      l["elapsed_s"] = elapsed;
      pending_log.push_back(std::move(l));
    }
    if (opts.progress) {
      // In place on a terminal (5 per second at most); otherwise a line per 10 steps or 5%.
      const bool last = step >= total;
      const int64_t every = std::max<int64_t>(10, total / 20);
      const bool draw = tty ? (last || now - last_draw >= std::chrono::milliseconds(200))
                            : (last || step % every == 0 || steps_this_call == 1);
      if (draw) {
        last_draw = now;
        char buf[512];
        std::string per;
        for (MaskKind k : kAllKinds) {
          const int ki = static_cast<int>(k);
          if (kind_count[ki] == 0) continue;
          char b2[48];
          std::snprintf(b2, sizeof b2, " %s %.3f", short_name(k), kind_sum[ki] / double(kind_count[ki]));
          per += b2;
        }
        if (nsp_total > 0) {
          char b2[48];
          std::snprintf(b2, sizeof b2, " nsp %.3f", nsp);
          per += b2;
        }
        std::snprintf(buf, sizeof buf, "step %lld/%lld  loss %.4f (%s )  lr %.2e  %.0f tok/s  ETA %s",
                      static_cast<long long>(step), static_cast<long long>(total), loss_value, per.empty() ? "" : per.c_str() + 1, lr,
                      tok_s, format_duration(eta).c_str());
        if (tty) std::cerr << "\r" << buf << "\x1b[K" << (last ? "\n" : "") << std::flush;
        else std::cerr << buf << "\n";
      }
    }
    const bool stop_now = opts.stop_after > 0 && steps_this_call >= opts.stop_after && step < total;
    if ((opts.save_every > 0 && step % opts.save_every == 0) || step == total || stop_now) {
      checkpoint();
    } else if (run && pending_log.size() >= 100) {
      run->append_log(pending_log);
      pending_log.clear();
    }
    if (stop_now) break;
  }
  if (run && !pending_log.empty()) run->append_log(pending_log);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.tokens_per_second = elapsed > 0 ? double(tokens_now) / elapsed : 0.0;
  result.tokens_seen = tokens_seen;
  result.steps_done = step;
  result.finished = step >= total;
  model->eval();
  return result;
}

}  // namespace unieval::models
