// Follows PyTorch (BSD-3-Clause) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
#include "models/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

#include "core/error.h"
#include "core/io.h"
#include "models/run_dir.h"
#include "models/safetensors.h"
#include "models/train_util.h"

namespace unieval::models {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// ---- options ---------------------------------------------------------------------------------

ojson TrainOptions::to_json() const {
  ojson j;
  models::to_json(optim, j);
  j["epochs"] = epochs;
  j["max_steps"] = max_steps;
  j["warmup_steps"] = warmup_steps;
  j["warmup_ratio"] = warmup_ratio;
  j["max_grad_norm"] = max_grad_norm;
  j["accum"] = accum;
  j["batch_tokens"] = batch_tokens;
  j["batch_size"] = batch_size;
  j["label_smoothing"] = label_smoothing;
  j["max_src_len"] = data.max_src_len;
  j["max_tgt_len"] = data.max_tgt_len;
  j["mask_prob"] = data.mask_prob;
  j["max_pred"] = data.max_pred;
  j["mask_80_10_10"] = data.mask_80_10_10;
  j["noise_prob"] = data.noise_prob;
  j["source_type"] = data.source_type;
  j["target_type"] = data.target_type;
  j["seed"] = seed;
  j["save_every"] = save_every;
  j["log_every"] = log_every;
  j["dev_every"] = dev_every;
  j["early_stop"] = early_stop;
  return j;
}

void TrainOptions::update_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "training options must be a JSON object");
  auto num = [&](const char* key, auto& field) {
    if (!j.contains(key)) return;
    const auto& v = j.at(key);
    if (!v.is_number()) throw InputError(source, 0, std::string(key) + ": expected a number");
    field = v.get<std::decay_t<decltype(field)>>();
  };
  auto boolean = [&](const char* key, bool& field) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_boolean()) throw InputError(source, 0, std::string(key) + ": expected true/false");
    field = j.at(key).get<bool>();
  };
  models::update_from_json(optim, j, source);
  num("epochs", epochs);
  num("max_steps", max_steps);
  num("warmup_steps", warmup_steps);
  num("warmup_ratio", warmup_ratio);
  num("max_grad_norm", max_grad_norm);
  num("accum", accum);
  num("batch_tokens", batch_tokens);
  num("batch_size", batch_size);
  num("label_smoothing", label_smoothing);
  num("max_src_len", data.max_src_len);
  num("max_tgt_len", data.max_tgt_len);
  num("mask_prob", data.mask_prob);
  num("max_pred", data.max_pred);
  boolean("mask_80_10_10", data.mask_80_10_10);
  num("noise_prob", data.noise_prob);
  num("source_type", data.source_type);
  num("target_type", data.target_type);
  num("seed", seed);
  num("dev_every", dev_every);
  num("early_stop", early_stop);
  num("save_every", save_every);
  num("log_every", log_every);
}

// ---- loss ------------------------------------------------------------------------------------

std::pair<torch::Tensor, torch::Tensor> label_smoothed_nll(const torch::Tensor& logits, const torch::Tensor& labels,
                                                           double eps) {
  torch::Tensor lp = torch::log_softmax(logits.to(torch::kFloat), -1);
  torch::Tensor nll = -lp.gather(1, labels.view({-1, 1})).squeeze(1);
  torch::Tensor loss = nll;
  if (eps > 0) loss = (1.0 - eps) * nll - eps * lp.mean(-1);
  return {loss.mean(), nll.mean()};
}

// ---- run directory ---------------------------------------------------------------------------

// Weights (models/run_dir.h).
const char* const kRunWeightsFile = "model.safetensors";

void save_model_weights(UnilmModel& model, const std::string& path) {
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : model->named_parameters()) tensors.emplace_back(item.key(), item.value().detach());
  write_safetensors(path, tensors);
}

void load_model_weights(UnilmModel& model, const std::string& path) {
  SafetensorsFile file = SafetensorsFile::open(path);
  torch::NoGradGuard no_grad;
  for (auto& item : model->named_parameters()) {
    if (!file.contains(item.key())) throw InputError(path, 0, "missing parameter '" + item.key() + "'");
    torch::Tensor t = file.tensor(item.key());
    if (t.sizes() != item.value().sizes())
      throw InputError(path, 0, "parameter '" + item.key() + "' has the wrong shape");
    item.value().copy_(t.to(item.value().dtype()));
  }
}


RunDir::RunDir(std::string path) : path_(std::move(path)) {}

std::string RunDir::file(const std::string& name) const { return (fs::path(path_) / name).string(); }
std::string RunDir::checkpoint_dir() const { return file("checkpoint"); }
std::string RunDir::best_dir() const { return file("best"); }

void RunDir::save_best(UnilmModel& model, const ojson& info) {
  const fs::path root(path_);
  const fs::path tmp = root / ("best.tmp." + std::to_string(::getpid()));
  const fs::path cur = root / "best";
  const fs::path old = root / "best.old";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  save_model_weights(model, (tmp / kRunWeightsFile).string());
  core::write_file_atomic((tmp / "config.json").string(), core::read_file(file("config.json")));
  core::write_file_atomic((tmp / "vocab.txt").string(), core::read_file(file("vocab.txt")));
  core::write_file_atomic((tmp / "best.json").string(), info.dump(2) + "\n");
  fs::remove_all(old, ec);
  if (fs::exists(cur)) fs::rename(cur, old);
  fs::rename(tmp, cur);
  fs::remove_all(old, ec);
}

bool RunDir::has_checkpoint() const {
  return fs::exists(fs::path(checkpoint_dir()) / "trainer_state.json") ||
         fs::exists(fs::path(path_) / "checkpoint.old" / "trainer_state.json");
}

void RunDir::create(const ojson& run_info, const BertConfig& cfg, const std::string& vocab_text) {
  fs::create_directories(path_);
  core::write_file_atomic(file("run.json"), run_info.dump(2) + "\n");
  core::write_file_atomic(file("config.json"), cfg.to_json().dump(2) + "\n");
  core::write_file_atomic(file("vocab.txt"), vocab_text);
  core::write_file_atomic(file("log.jsonl"), "");
}

nlohmann::json RunDir::run_info() const {
  const std::string p = file("run.json");
  try {
    return nlohmann::json::parse(core::read_file(p));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p, 0, std::string("not valid JSON: ") + e.what());
  }
}

void RunDir::save_checkpoint(UnilmModel& model, const Optimizer& opt, const ojson& state) {
  const fs::path root(path_);
  const fs::path tmp = root / ("checkpoint.tmp." + std::to_string(::getpid()));
  const fs::path cur = root / "checkpoint";
  const fs::path old = root / "checkpoint.old";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  save_model_weights(model, (tmp / kRunWeightsFile).string());
  core::write_file_atomic((tmp / "config.json").string(), core::read_file(file("config.json")));
  core::write_file_atomic((tmp / "vocab.txt").string(), core::read_file(file("vocab.txt")));
  core::write_file_atomic((tmp / "optimizer.pt").string(), serialize_tensors(opt.state_dict()));
  {
    std::map<std::string, torch::Tensor> rng;
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    rng["cpu"] = gen.get_state();
    core::write_file_atomic((tmp / "rng.pt").string(), serialize_tensors(rng));
  }
  core::write_file_atomic((tmp / "trainer_state.json").string(), state.dump(2) + "\n");
  // Swap: checkpoint -> checkpoint.old, tmp -> checkpoint, drop old. A crash in between leaves
  // checkpoint.old, which load_checkpoint falls back to.
  fs::remove_all(old, ec);
  if (fs::exists(cur)) fs::rename(cur, old);
  fs::rename(tmp, cur);
  fs::remove_all(old, ec);
}

nlohmann::json RunDir::load_checkpoint(UnilmModel& model, Optimizer& opt) const {
  fs::path dir = checkpoint_dir();
  if (!fs::exists(dir / "trainer_state.json")) dir = fs::path(path_) / "checkpoint.old";
  if (!fs::exists(dir / "trainer_state.json"))
    throw InputError(path_, 0, "no checkpoint to resume from (RUN/checkpoint/trainer_state.json missing)");
  load_model_weights(model, (dir / kRunWeightsFile).string());
  const std::string opt_path = (dir / "optimizer.pt").string();
  opt.load_state_dict(deserialize_tensors(core::read_file(opt_path), opt_path));
  const std::string rng_path = (dir / "rng.pt").string();
  if (fs::exists(rng_path)) {
    auto rng = deserialize_tensors(core::read_file(rng_path), rng_path);
    if (rng.count("cpu")) {
      at::Generator gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(rng["cpu"]);
    }
  }
  const std::string state_path = (dir / "trainer_state.json").string();
  try {
    return nlohmann::json::parse(core::read_file(state_path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(state_path, 0, std::string("not valid JSON: ") + e.what());
  }
}

void RunDir::append_log(const std::vector<ojson>& lines) {
  if (lines.empty()) return;
  std::string text;
  const std::string p = file("log.jsonl");
  if (fs::exists(p)) text = core::read_file(p);
  for (const auto& l : lines) text += l.dump() + "\n";
  core::write_file_atomic(p, text);
}

void RunDir::truncate_log(int64_t last_step) {
  const std::string p = file("log.jsonl");
  if (!fs::exists(p)) return;
  std::string kept;
  std::istringstream in(core::read_file(p));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      auto j = nlohmann::json::parse(line);
      if (j.contains("step") && j["step"].get<int64_t>() > last_step) continue;
    } catch (const nlohmann::json::exception&) {
      continue;  // a torn line cannot happen with atomic writes; drop it if it does
    }
    kept += line + "\n";
  }
  core::write_file_atomic(p, kept);
}

std::string format_duration(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  char buf[32];
  const long t = std::lround(s);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

// ---- training loop ---------------------------------------------------------------------------

namespace {

// Progress bar on stderr: redrawn in place on a terminal (at most 5 times a second), one line
// per 10% otherwise (logs stay readable).
class Progress {
 public:
  Progress(bool enabled, int64_t total) : enabled_(enabled), total_(total), tty_(isatty(2)) {}
  void update(int64_t step, double loss, double lr, double tok_s, double eta_s, bool force = false) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const bool last = step >= total_;
    if (tty_) {
      if (!force && !last && now - last_draw_ < std::chrono::milliseconds(200)) return;
    } else {
      const int64_t decile = total_ > 0 ? step * 10 / total_ : 0;
      if (!force && !last && decile == last_decile_) return;
      last_decile_ = decile;
    }
    last_draw_ = now;
    const int width = 24;
    const int filled = total_ > 0 ? static_cast<int>(width * std::min<int64_t>(step, total_) / total_) : 0;
    char buf[256];
    std::snprintf(buf, sizeof buf, "[%s%s] step %lld/%lld  loss %.4f  lr %.2e  %.0f tok/s  ETA %s",
                  std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                  static_cast<long long>(step), static_cast<long long>(total_), loss, lr, tok_s,
                  format_duration(eta_s).c_str());
    if (tty_) std::cerr << "\r" << buf << "\x1b[K" << (last ? "\n" : "") << std::flush;
    else std::cerr << buf << "\n";
  }

 private:
  bool enabled_;
  int64_t total_;
  bool tty_;
  int64_t last_decile_ = -1;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace

double dev_loss(UnilmModel& model, const std::vector<Seq2SeqExample>& dev, const SpecialIds& ids,
                const Seq2SeqDataOptions& data, int64_t batch_tokens, uint64_t seed) {
  if (dev.empty()) return 0.0;
  const torch::Device device = [&] {
    for (const auto& p : model->parameters()) return p.device();
    return torch::Device(torch::kCPU);
  }();
  model->eval();
  torch::NoGradGuard no_grad;
  std::mt19937_64 rng(seed);
  // Batches in data order (no shuffle): consecutive examples within the token budget.
  double nll_sum = 0;
  int64_t count = 0;
  size_t i = 0;
  while (i < dev.size()) {
    std::vector<size_t> idx;
    int64_t longest = 0;
    while (i < dev.size()) {
      const int64_t len = std::max(longest, packed_length(dev[i]));
      if (!idx.empty() && len * static_cast<int64_t>(idx.size() + 1) > batch_tokens) break;
      longest = len;
      idx.push_back(i++);
    }
    TrainBatch b = make_train_batch(dev, idx, data, ids, rng);
    BertOutput out = model->forward(b.input_ids.to(device), b.token_type_ids.to(device), b.attention_mask.to(device));
    const int64_t H = out.last_hidden_state.size(-1);
    torch::Tensor h = out.last_hidden_state.reshape({-1, H}).index_select(0, b.masked_index.to(device));
    auto [loss, nll] = label_smoothed_nll(model->mlm_logits(h), b.labels.to(device), 0.0);
    nll_sum += nll.item<double>() * double(b.labels.size(0));
    count += b.labels.size(0);
  }
  return count > 0 ? nll_sum / double(count) : 0.0;
}

TrainResult train_seq2seq(UnilmModel& model, const std::vector<Seq2SeqExample>& train, const SpecialIds& ids,
                          const TrainOptions& opts, RunDir* run, bool resume, const std::vector<Seq2SeqExample>* dev) {
  if (train.empty()) throw InputError("no training examples");
  if (opts.accum < 1) throw InputError("--accum must be at least 1");
  if (!(opts.data.mask_prob > 0.0 && opts.data.mask_prob <= 1.0)) throw InputError("--mask-prob must be in (0, 1]");
  if (opts.label_smoothing < 0.0 || opts.label_smoothing >= 1.0)
    throw InputError("--label-smoothing must be in [0, 1)");
  const torch::Device device = [&] {
    for (const auto& p : model->parameters()) return p.device();
    return torch::Device(torch::kCPU);
  }();

  std::vector<int64_t> lengths;
  for (const auto& ex : train) lengths.push_back(packed_length(ex));
  auto epoch_batches = [&](int64_t epoch) {
    std::mt19937_64 rng(seed_mix(opts.seed, 0x1000 + epoch));
    return make_batches(lengths, opts.batch_tokens, opts.batch_size, rng);
  };
  // Steps per epoch (batch lists are a function of the seed and the epoch).
  std::vector<int64_t> steps_in_epoch;
  int64_t total = 0;
  for (int64_t e = 0; e < std::max<int64_t>(1, opts.epochs); ++e) {
    const int64_t nb = static_cast<int64_t>(epoch_batches(e).size());
    steps_in_epoch.push_back((nb + opts.accum - 1) / opts.accum);
    total += steps_in_epoch.back();
    if (opts.max_steps > 0 && total >= opts.max_steps) break;
  }
  if (opts.max_steps > 0) {
    // max_steps may need more epochs than given: keep cycling.
    while (total < opts.max_steps) {
      const int64_t e = static_cast<int64_t>(steps_in_epoch.size());
      const int64_t nb = static_cast<int64_t>(epoch_batches(e).size());
      steps_in_epoch.push_back((nb + opts.accum - 1) / opts.accum);
      total += steps_in_epoch.back();
    }
    total = opts.max_steps;
  }
  const int64_t warmup = opts.warmup_steps >= 0 ? opts.warmup_steps
                                                : static_cast<int64_t>(std::llround(opts.warmup_ratio * double(total)));
  const LinearSchedule schedule{opts.optim.lr, warmup, total};

  Optimizer optimizer(named_pairs(model->named_parameters()), opts.optim);
  int64_t step = 0, epoch = 0, batch_cursor = 0;
  const int64_t dev_period = opts.dev_every > 0 ? opts.dev_every
                             : opts.dev_every < 0 ? std::max<int64_t>(1, steps_in_epoch.front())
                                                  : 0;
  const bool with_dev = dev && !dev->empty() && dev_period > 0;
  double best_dev = 0.0;
  int64_t best_step = 0, bad_evals = 0;
  bool early_stopped = false;
  if (resume) {
    if (!run) throw InputError("--resume needs a run directory");
    auto state = run->load_checkpoint(model, optimizer);
    step = state.at("step").get<int64_t>();
    epoch = state.at("epoch").get<int64_t>();
    batch_cursor = state.at("batch").get<int64_t>();
    best_dev = state.value("best_dev_loss", 0.0);
    best_step = state.value("best_step", int64_t{0});
    bad_evals = state.value("bad_evals", int64_t{0});
    early_stopped = state.value("early_stopped", false);
    run->truncate_log(step);
  }

  TrainResult result;
  result.total_steps = total;
  model->train();
  Progress progress(opts.progress, total);
  auto t0 = std::chrono::steady_clock::now();
  int64_t tokens_done = 0;
  std::vector<ojson> pending_log;
  auto state_json = [&]() {
    ojson s;
    s["step"] = step;
    s["epoch"] = epoch;
    s["batch"] = batch_cursor;
    s["total_steps"] = total;
    s["warmup_steps"] = warmup;
    s["seed"] = opts.seed;
    if (with_dev) {
      s["best_dev_loss"] = best_dev;
      s["best_step"] = best_step;
      s["bad_evals"] = bad_evals;
      s["early_stopped"] = early_stopped;
    }
    return s;
  };
  auto checkpoint = [&]() {
    if (!run) return;
    run->append_log(pending_log);
    pending_log.clear();
    run->save_checkpoint(model, optimizer, state_json());
  };

  int64_t steps_this_call = 0;
  std::vector<std::vector<size_t>> batches = epoch_batches(epoch);
  while (step < total && !early_stopped) {
    if (batch_cursor >= static_cast<int64_t>(batches.size())) {
      ++epoch;
      batch_cursor = 0;
      batches = epoch_batches(epoch);
      continue;
    }
    const int64_t n_micro = std::min<int64_t>(opts.accum, static_cast<int64_t>(batches.size()) - batch_cursor);
    // Pack every micro-batch first: the step's loss is a mean over all its masked tokens.
    std::vector<TrainBatch> micro;
    int64_t masked_total = 0, step_tokens = 0;
    for (int64_t j = 0; j < n_micro; ++j) {
      std::mt19937_64 rng(seed_mix(seed_mix(opts.seed, static_cast<uint64_t>(step)), 0x2000 + j));
      micro.push_back(make_train_batch(train, batches[batch_cursor + j], opts.data, ids, rng));
      masked_total += micro.back().labels.size(0);
      step_tokens += micro.back().tokens;
    }
    optimizer.zero_grad();
    double loss_sum = 0, nll_sum = 0;
    for (int64_t j = 0; j < n_micro; ++j) {
      torch::manual_seed(seed_mix(seed_mix(opts.seed, static_cast<uint64_t>(step)), 0x3000 + j));
      const TrainBatch& b = micro[j];
      BertOutput out = model->forward(b.input_ids.to(device), b.token_type_ids.to(device), b.attention_mask.to(device));
      const int64_t H = out.last_hidden_state.size(-1);
      torch::Tensor h = out.last_hidden_state.reshape({-1, H}).index_select(0, b.masked_index.to(device));
      auto [loss, nll] = label_smoothed_nll(model->mlm_logits(h), b.labels.to(device), opts.label_smoothing);
      const double w = double(b.labels.size(0)) / double(masked_total);
      (loss * w).backward();
      loss_sum += loss.item<double>() * w;
      nll_sum += nll.item<double>() * w;
    }
    const double grad_norm = clip_grad_norm(optimizer.params(), opts.max_grad_norm);
    const double lr = schedule.lr(step);
    optimizer.step(lr);
    ++step;
    ++steps_this_call;
    batch_cursor += n_micro;
    tokens_done += step_tokens;
    if (steps_this_call == 1) result.first_loss = loss_sum;
    result.last_loss = loss_sum;
    result.losses.push_back(loss_sum);

    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double tok_s = elapsed > 0 ? tokens_done / elapsed : 0.0;
    const double eta = steps_this_call > 0 ? elapsed / steps_this_call * double(total - step) : 0.0;
    if (opts.log_every > 0 && (step % opts.log_every == 0 || step == total)) {
      ojson l;
      l["step"] = step;
      l["epoch"] = epoch;
      l["loss"] = loss_sum;
      l["nll"] = nll_sum;
      l["lr"] = lr;
      l["grad_norm"] = grad_norm;
      l["tokens"] = step_tokens;
      l["masked"] = masked_total;
      l["elapsed_s"] = elapsed;
      pending_log.push_back(std::move(l));
    }
    progress.update(step, loss_sum, lr, tok_s, eta);
    if (with_dev && (step % dev_period == 0 || step == total)) {
      const double dl = dev_loss(model, *dev, ids, opts.data, opts.batch_tokens, seed_mix(opts.seed, 0x4000));
      model->train();
      const bool better = best_step == 0 || dl < best_dev;
      if (better) {
        best_dev = dl;
        best_step = step;
        bad_evals = 0;
        if (run) {
          ojson info;
          info["step"] = step;
          info["dev_loss"] = dl;
          run->save_best(model, info);
        }
      } else {
        ++bad_evals;
      }
      if (opts.early_stop > 0 && bad_evals >= opts.early_stop) early_stopped = true;
      ojson l;
      l["step"] = step;
      l["dev_loss"] = dl;
      l["best_dev_loss"] = best_dev;
      l["best_step"] = best_step;
      if (early_stopped) l["early_stopped"] = true;
      pending_log.push_back(std::move(l));
      if (opts.progress) std::cerr << "dev loss " << dl << " at step " << step << (better ? " (best)" : "") << (early_stopped ? " (early stop)" : "") << "\n";
    }
    const bool stop_now = opts.stop_after > 0 && steps_this_call >= opts.stop_after && step < total;
    if ((opts.save_every > 0 && step % opts.save_every == 0) || step == total || stop_now || early_stopped) checkpoint();
    else if (run && pending_log.size() >= 100) {
      // Keep the log roughly current without a checkpoint; truncate_log fixes it on resume.
      run->append_log(pending_log);
      pending_log.clear();
    }
    if (stop_now) break;
  }
  if (run && !pending_log.empty()) run->append_log(pending_log);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.tokens_per_second = elapsed > 0 ? tokens_done / elapsed : 0.0;
  result.steps_done = step;
  result.finished = step >= total || early_stopped;
  result.early_stopped = early_stopped;
  result.best_dev_loss = best_dev;
  result.best_step = best_step;
  model->eval();
  return result;
}

}  // namespace unieval::models
