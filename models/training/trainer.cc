// Follows PyTorch (BSD-3-Clause) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "models/training/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/error.h"
#include "core/fs.h"
#include "core/io.h"
#include "models/dist/distributed.h"
#include "models/io/run_dir.h"
#include "models/io/safetensors.h"
#include "models/nn/device.h"
#include "models/training/train_loop.h"
#include "models/training/train_util.h"

namespace unieval::models {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// ---- options ---------------------------------------------------------------------------------

ojson TrainOptions::to_json() const { return fields::to_json(*this); }

void TrainOptions::update_from_json(const nlohmann::json& j, const std::string& source,
                                    const std::set<std::string>& also_allowed) {
  if (!j.is_object()) throw InputError(source, 0, "training options must be a JSON object");
  fields::from_json(j, *this, source, also_allowed);
  if (j.contains("arch") && arch != "unilm" && arch != "ernie-gen")
    throw InputError(source, 0,
                     "arch: unknown architecture '" + arch + "' (expected unilm or ernie-gen)");
}

void TrainOptions::validate() const {
  if (accum < 1) throw InputError("--accum must be at least 1");
  if (length_groups < 1) throw InputError("--length-groups must be at least 1");
  const bool ernie_gen = arch == "ernie-gen";
  if (!ernie_gen && arch != "unilm")
    throw InputError("--arch: unknown architecture '" + arch + "' (expected unilm or ernie-gen)");
  if (!ernie_gen && data.target_bos)
    throw InputError(
        "a [CLS]-opened target stream (target_bos) is ERNIE-GEN's layout: give --arch ernie-gen");
  if (!ernie_gen && !(data.mask_prob > 0.0 && data.mask_prob <= 1.0))
    throw InputError("--mask-prob must be in (0, 1]");
  if (ernie_gen) {
    ErnieGenOptions eg = ernie;
    eg.noise_prob = data.noise_prob;
    eg.validate();
  }
  if (label_smoothing < 0.0 || label_smoothing >= 1.0)
    throw InputError("--label-smoothing must be in [0, 1)");
}

LabelSmoothing parse_label_smoothing(const std::string& name) {
  if (name == "uniform") return LabelSmoothing::kUniform;
  if (name == "unilm") return LabelSmoothing::kUnilm;
  throw InputError("unknown label smoothing form '" + name + "' (uniform or unilm)");
}

std::string to_string(LabelSmoothing form) {
  return form == LabelSmoothing::kUniform ? "uniform" : "unilm";
}

// ---- loss ------------------------------------------------------------------------------------

std::pair<torch::Tensor, torch::Tensor> label_smoothed_nll(const torch::Tensor& logits,
                                                           const torch::Tensor& labels, double eps,
                                                           torch::Tensor* unilm_kl,
                                                           LabelSmoothing form) {
  torch::Tensor lp = torch::log_softmax(logits.to(torch::kFloat), -1);
  torch::Tensor nll = -lp.gather(1, labels.view({-1, 1})).squeeze(1);
  if (form == LabelSmoothing::kUnilm) {
    torch::Tensor loss = lp.size(0) == 0 ? torch::zeros({}, lp.options())
                                         : unilm_smoothed_kl_rows(lp, labels, eps).mean();
    if (unilm_kl) *unilm_kl = loss.detach();
    return {loss, nll.mean()};
  }
  torch::Tensor loss = nll;
  if (eps > 0) loss = (1.0 - eps) * nll - eps * lp.mean(-1);
  if (unilm_kl) {
    torch::NoGradGuard no_grad;
    *unilm_kl = unilm_smoothed_kl(lp.detach(), labels, eps);
  }
  return {loss.mean(), nll.mean()};
}

torch::Tensor unilm_smoothed_kl(const torch::Tensor& log_probs, const torch::Tensor& labels,
                                double eps) {
  if (log_probs.size(0) == 0) return torch::zeros({}, log_probs.options().dtype(torch::kFloat));
  return unilm_smoothed_kl_rows(log_probs, labels, eps).mean();
}

torch::Tensor unilm_smoothed_kl_rows(const torch::Tensor& log_probs, const torch::Tensor& labels,
                                     double eps) {
  const torch::Tensor lp = log_probs.to(torch::kFloat);
  const torch::Tensor y = labels.view({-1, 1});
  const torch::Tensor lp_y = lp.gather(1, y).squeeze(1);
  const torch::Tensor keep = (labels.view({-1}) != 0).to(torch::kFloat);
  if (eps <= 0) return -lp_y;  // modeling.py: CrossEntropyLoss(reduction='none'), no ignore_index
  const int64_t V = lp.size(1);
  const double s = eps / double(V - 2);  // LabelSmoothingLoss: smoothing_value = eps / (V - 2)
  // KL = sum_v q_v (log q_v - lp_v); F.kl_div counts 0 where q_v = 0.
  const double q_log_q = (eps < 1.0 ? (1.0 - eps) * std::log(1.0 - eps) : 0.0) + eps * std::log(s);
  const torch::Tensor others = lp.sum(1) - lp_y - lp.select(1, 0);
  const torch::Tensor kl = q_log_q - (1.0 - eps) * lp_y - s * others;
  return kl * keep;
}

std::string format_duration(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  char buf[32];
  const long t = std::lround(s);
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

// ---- training loop ---------------------------------------------------------------------------

namespace {

// What an objective is built for: training (train_seq2seq), or the dev loss (dev_loss: no noise,
// ERNIE-GEN's word flow only).
enum class ObjectiveUse { kTraining, kEvaluation };

// A fine-tuning architecture's micro-batches and loss (train_seq2seq). Every rank packs all of a
// step's micro-batches, so each loss is weighted by its share of the step's masked tokens and the
// summed gradients are the one-process gradients (models/dist/distributed.h).
class Seq2SeqObjective {
 public:
  virtual ~Seq2SeqObjective() = default;
  // Forgets the micro-batches of the last step.
  virtual void clear() = 0;
  // Packs the step's next micro-batch from examples `idx`; returns its masked (target) tokens.
  virtual int64_t pack(const std::vector<size_t>& idx, std::mt19937_64& rng) = 0;
  // The loss of packed micro-batch j, weighted by its masked tokens / masked_total.
  virtual MicroLoss loss(int64_t j, int64_t masked_total) = 0;
  // The mean NLL of packed micro-batch j's target tokens, unsmoothed (the dev loss), on the device.
  virtual torch::Tensor nll(int64_t j) = 0;
  // The architecture's log fields after "nll" (and their names in r.summed).
  virtual void log(const StepValues& values, StepReport& r) const = 0;
};

// UniLM (s2s-ft): the label-smoothed loss at the masked target positions.
class UnilmObjective final : public Seq2SeqObjective {
 public:
  UnilmObjective(UnilmModel& model, const std::vector<Seq2SeqExample>& train, const SpecialIds& ids,
                 const TrainOptions& opts)
      : model_(model), train_(train), ids_(ids), opts_(opts), device_(device_of(*model)) {}
  void clear() override { micro_.clear(); }
  int64_t pack(const std::vector<size_t>& idx, std::mt19937_64& rng) override {
    micro_.push_back(make_train_batch(train_, idx, opts_.data, ids_, rng));
    return micro_.back().labels.size(0);
  }
  MicroLoss loss(int64_t j, int64_t masked_total) override {
    const TrainBatch& b = micro_[static_cast<size_t>(j)];
    BertOutput out = model_->forward(b.input_ids.to(device_), b.token_type_ids.to(device_),
                                     b.attention_mask.to(device_));
    torch::Tensor kl;
    auto [loss, nll] = label_smoothed_nll(scores(b, out), b.labels.to(device_),
                                          opts_.label_smoothing, &kl, opts_.smoothing);
    const double w = double(b.labels.size(0)) / double(masked_total);
    return {loss, w, b.tokens, {{"nll", nll}, {"loss_unilm", kl}}};
  }
  torch::Tensor nll(int64_t j) override {
    const TrainBatch& b = micro_[static_cast<size_t>(j)];
    BertOutput out = model_->forward(b.input_ids.to(device_), b.token_type_ids.to(device_),
                                     b.attention_mask.to(device_));
    return label_smoothed_nll(scores(b, out), b.labels.to(device_), 0.0).second;
  }
  // The masked positions' scores: MLM logits, or with the copy head (config unieval_copy) the
  // log-probabilities of the copy mixture (log_softmax, inside the loss, leaves them as they are).
  torch::Tensor scores(const TrainBatch& b, const BertOutput& out) {
    const torch::Tensor index = b.masked_index.to(device_);
    if (model_->copy) {
      const CopySource src =
          packed_copy_source(out.last_hidden_state, b.input_ids.to(device_), b.source_len);
      return model_->next_token_log_probs(out.last_hidden_state, index, &src);
    }
    const int64_t H = out.last_hidden_state.size(-1);
    return model_->mlm_logits(out.last_hidden_state.reshape({-1, H}).index_select(0, index));
  }
  void log(const StepValues& values, StepReport& r) const override {
    // The value run_seq2seq.py shows (KL-form label smoothing; unilm_smoothed_kl).
    r.log["loss_unilm"] = values.weighted_sum("loss_unilm");
    r.summed.push_back("loss_unilm");
  }

 private:
  UnilmModel& model_;
  const std::vector<Seq2SeqExample>& train_;
  const SpecialIds& ids_;
  const TrainOptions& opts_;
  const torch::Device device_;
  std::vector<TrainBatch> micro_;
};

// ERNIE-GEN (models/training/ernie_gen.h): the multi-flow loss at every target position of the noised
// target, λ·word + (1−λ)·span.
class ErnieGenObjective final : public Seq2SeqObjective {
 public:
  ErnieGenObjective(UnilmModel& model, const std::vector<Seq2SeqExample>& train,
                    const SpecialIds& ids, const TrainOptions& opts, ObjectiveUse use)
      : model_(model), train_(train), ids_(ids), opts_(opts) {
    if (use == ObjectiveUse::kTraining) {  // else the defaults: word flow only, no noise
      eg_ = opts.ernie;
      eg_.noise_prob = opts.data.noise_prob;
    }
    if (eg_.lambda < 1.0) {
      std::vector<std::vector<int64_t>> targets;
      for (const auto& ex : train) targets.push_back(ex.tgt);
      span_vocab_ = SpanVocab::build(targets, eg_.top_bigrams, eg_.top_trigrams);
    }
  }
  void clear() override { micro_.clear(); }
  int64_t pack(const std::vector<size_t>& idx, std::mt19937_64& rng) override {
    micro_.push_back(make_ernie_gen_batch(train_, idx, opts_.data, eg_, ids_, &span_vocab_, rng));
    return micro_.back().labels.size(0);
  }
  MicroLoss loss(int64_t j, int64_t masked_total) override {
    const ErnieGenBatch& b = micro_[static_cast<size_t>(j)];
    const ErnieGenLossTensors l =
        ernie_gen_loss_tensors(model_, b, eg_.lambda, opts_.label_smoothing, opts_.smoothing);
    const double w = double(b.labels.size(0)) / double(masked_total);
    MicroLoss m{l.loss, w, b.tokens, {{"nll", l.word_nll}}};
    if (l.span_nll.defined()) m.values.emplace_back("span_nll", l.span_nll);
    return m;
  }
  torch::Tensor nll(int64_t j) override {
    return ernie_gen_loss_tensors(model_, micro_[static_cast<size_t>(j)], 1.0, 0.0).word_nll;
  }
  void log(const StepValues& values, StepReport& r) const override {
    if (eg_.lambda >= 1.0) return;
    r.log["span_nll"] = values.weighted_sum("span_nll");
    r.summed.push_back("span_nll");
  }

 private:
  UnilmModel& model_;
  const std::vector<Seq2SeqExample>& train_;
  const SpecialIds& ids_;
  const TrainOptions& opts_;
  ErnieGenOptions eg_;
  SpanVocab span_vocab_;
  std::vector<ErnieGenBatch> micro_;
};

// The objective of opts.arch over `examples`.
std::unique_ptr<Seq2SeqObjective> seq2seq_objective(UnilmModel& model,
                                                    const std::vector<Seq2SeqExample>& examples,
                                                    const SpecialIds& ids, const TrainOptions& opts,
                                                    ObjectiveUse use) {
  if (opts.arch == "ernie-gen")
    return std::make_unique<ErnieGenObjective>(model, examples, ids, opts, use);
  return std::make_unique<UnilmObjective>(model, examples, ids, opts);
}

}  // namespace

double dev_loss(UnilmModel& model, const std::vector<Seq2SeqExample>& dev, const SpecialIds& ids,
                const Seq2SeqDataOptions& data, int64_t batch_tokens, uint64_t seed,
                const std::string& arch) {
  if (dev.empty()) return 0.0;
  model->eval();
  torch::NoGradGuard no_grad;
  TrainOptions eval;  // what the objective reads: the data layout and the architecture
  eval.data = data;
  eval.arch = arch;
  const std::unique_ptr<Seq2SeqObjective> objective =
      seq2seq_objective(model, dev, ids, eval, ObjectiveUse::kEvaluation);
  std::mt19937_64 rng(seed);
  // Batches in data order (no shuffle): consecutive examples within the token budget. Each batch's
  // mean NLL stays on the device until the end (one host read).
  std::vector<torch::Tensor> nlls;
  std::vector<int64_t> counts;  // target tokens per batch
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
    objective->clear();
    counts.push_back(objective->pack(idx, rng));
    nlls.push_back(objective->nll(0));
  }
  // float -> double is exact: the sum is the one of reading each batch back as it came.
  const torch::Tensor host = torch::stack(nlls).to(torch::kCPU).to(torch::kDouble).contiguous();
  const double* v = host.data_ptr<double>();
  double nll_sum = 0;
  int64_t count = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    nll_sum += v[k] * double(counts[k]);
    count += counts[k];
  }
  return count > 0 ? nll_sum / double(count) : 0.0;
}

TrainResult train_seq2seq(UnilmModel& model, const std::vector<Seq2SeqExample>& train,
                          const SpecialIds& ids, const TrainOptions& opts, RunDir* run, bool resume,
                          const std::vector<Seq2SeqExample>* dev) {
  if (train.empty()) throw InputError("no training examples");
  opts.validate();
  const std::unique_ptr<Seq2SeqObjective> objective =
      seq2seq_objective(model, train, ids, opts, ObjectiveUse::kTraining);

  std::vector<int64_t> lengths;
  for (const auto& ex : train) lengths.push_back(packed_length(ex));
  EpochBatches batches = fine_tuning_batches(std::move(lengths), opts);
  const LoopOptions loop = loop_options(opts, batches);

  const int64_t dev_period = opts.dev_every > 0 ? opts.dev_every
                             : opts.dev_every < 0
                                 ? std::max<int64_t>(1, batches.steps_in_first_epoch())
                                 : 0;
  const bool with_dev = dev && !dev->empty() && dev_period > 0;
  double best_dev = 0.0;
  int64_t best_step = 0, bad_evals = 0;
  bool early_stopped = false;

  const int rank = dist::rank();
  check_accum_covers_ranks(opts.accum);

  LoopHooks hooks;
  int64_t masked_total = 0;  // the step's masked tokens over all its micro-batches
  hooks.micro_batches = [&](int64_t step) {
    const std::vector<std::vector<size_t>> micro_idx = batches.next();
    objective->clear();
    masked_total = 0;
    for (size_t j = 0; j < micro_idx.size(); ++j) {
      const uint64_t stream = kMicroBatchDataStream + j;
      std::mt19937_64 rng(seed_mix(seed_mix(opts.seed, static_cast<uint64_t>(step)), stream));
      masked_total += objective->pack(micro_idx[j], rng);
    }
    return static_cast<int64_t>(micro_idx.size());
  };
  hooks.micro_loss = [&](int64_t, int64_t j) { return objective->loss(j, masked_total); };
  hooks.report = [&](int64_t, const StepValues& values, StepReport& r) {
    r.log["epoch"] = batches.epoch();
    r.log["loss"] = r.loss;
    r.log["nll"] = values.weighted_sum("nll");
    r.summed = {"loss", "nll", "tokens"};
    objective->log(values, r);
    r.log_tail["tokens"] = r.tokens;
    r.log_tail["masked"] = masked_total;
  };
  hooks.save_state = [&](ojson& s) {
    batches.save(s);
    if (with_dev) {
      s["best_dev_loss"] = best_dev;
      s["best_step"] = best_step;
      s["bad_evals"] = bad_evals;
      s["early_stopped"] = early_stopped;
    }
  };
  hooks.load_state = [&](const nlohmann::json& s) {
    batches.load(s);
    best_dev = s.value("best_dev_loss", 0.0);
    best_step = s.value("best_step", int64_t{0});
    bad_evals = s.value("bad_evals", int64_t{0});
    early_stopped = s.value("early_stopped", false);
    return early_stopped;
  };
  hooks.after_step = [&](int64_t step, std::vector<ojson>& log) {
    if (!with_dev || (step % dev_period != 0 && step != loop.total_steps)) return false;
    const double dl = dev_loss(model, *dev, ids, opts.data, opts.batch_tokens,
                               seed_mix(opts.seed, kDevLossStream), opts.arch);
    model->train();
    const bool better = best_step == 0 || dl < best_dev;
    if (better) {
      best_dev = dl;
      best_step = step;
      bad_evals = 0;
      if (run && rank == 0) {
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
    log.push_back(std::move(l));
    if (opts.progress)
      std::cerr << "dev loss " << dl << " at step " << step << (better ? " (best)" : "")
                << (early_stopped ? " (early stop)" : "") << "\n";
    return early_stopped;
  };

  TrainResult result;
  copy_loop_result(run_train_loop(model, loop, run, resume, hooks), result);
  result.early_stopped = early_stopped;
  result.best_dev_loss = best_dev;
  result.best_step = best_step;
  return result;
}

}  // namespace unieval::models
