#include "models/training/train_loop.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <stdexcept>

#include "core/error.h"
#include "models/dist/distributed.h"
#include "models/training/seq2seq_data.h"
#include "models/training/train_util.h"

namespace unieval::models {

using ojson = nlohmann::ordered_json;

namespace {

// Progress on stderr: redrawn in place on a terminal (at most 5 times a second); otherwise a line
// for the first step, every 5% and the last step (logs stay readable).
class Progress {
 public:
  Progress(bool enabled, int64_t total) : enabled_(enabled), total_(total), tty_(isatty(2)) {}
  void update(int64_t step, bool first, const StepReport& r, double lr, double tok_s,
              double eta_s) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const bool last = step >= total_;
    if (tty_) {
      if (!first && !last && now - last_draw_ < std::chrono::milliseconds(200)) return;
    } else {
      const int64_t part = total_ > 0 ? step * 20 / total_ : 0;
      if (!first && !last && part == last_part_) return;
      last_part_ = part;
    }
    last_draw_ = now;
    const int width = 24;
    const int filled =
        total_ > 0 ? static_cast<int>(width * std::min<int64_t>(step, total_) / total_) : 0;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "[%s%s] step %lld/%lld  loss %.4f%s%s%s  lr %.2e  %.0f tok/s  ETA %s",
                  std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                  static_cast<long long>(step), static_cast<long long>(total_), r.loss,
                  r.detail.empty() ? "" : " (", r.detail.c_str(), r.detail.empty() ? "" : ")", lr,
                  tok_s, format_duration(eta_s).c_str());
    if (tty_)
      std::cerr << "\r" << buf << "\x1b[K" << (last ? "\n" : "") << std::flush;
    else
      std::cerr << buf << "\n";
  }

 private:
  bool enabled_;
  int64_t total_;
  bool tty_;
  int64_t last_part_ = -1;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace

int64_t resolve_warmup(int64_t warmup_steps, double warmup_ratio, int64_t total) {
  return warmup_steps >= 0 ? warmup_steps
                           : static_cast<int64_t>(std::llround(warmup_ratio * double(total)));
}

namespace {
// The gradient buckets of the loop running on this thread (null without a process group).
thread_local dist::GradientBuckets* active_buckets = nullptr;
}  // namespace

bool owns_micro_batch(int64_t j) { return j % dist::world_size() == dist::rank(); }

namespace {

// loss.backward() of micro-batch j of the n of a step (one this rank owns). With a process group,
// the backward of the rank's last micro-batch overlaps the gradient all-reduce
// (dist::GradientBuckets: buckets start as their gradients are complete).
void backward_micro_batch(const torch::Tensor& loss, int64_t j, int64_t n) {
  if (active_buckets) {
    const int64_t world = dist::world_size(), rank = dist::rank();
    const int64_t last_owned =
        rank + world * ((n - 1 - rank) / world);  // this rank's last of the n
    if (j == last_owned) active_buckets->arm(loss);
  }
  loss.backward();
}

// Step `step` on this rank (train_loop.h): the owned micro-batches' seeds, losses and backward,
// then their losses and values read back in one transfer and the report built from them.
StepReport micro_batch_step(const LoopHooks& hooks, uint64_t seed, int64_t step) {
  const int64_t n = hooks.micro_batches(step);
  StepValues values;
  std::vector<torch::Tensor> pending;  // every loss and value, flattened to double, in read order
  for (int64_t j = 0; j < n; ++j) {
    if (!owns_micro_batch(j)) continue;
    const uint64_t stream = hooks.dropout_stream + static_cast<uint64_t>(j);
    torch::manual_seed(seed_mix(seed_mix(seed, static_cast<uint64_t>(step)), stream));
    MicroLoss m = hooks.micro_loss(step, j);
    backward_micro_batch(m.weight == 1.0 ? m.loss : m.loss * m.weight, j, n);
    MicroValues mv;
    mv.j = j;
    mv.weight = m.weight;
    mv.tokens = m.tokens;
    pending.push_back(m.loss.detach().reshape({-1}).to(torch::kDouble));
    for (const auto& [name, t] : m.values) {
      pending.push_back(t.detach().reshape({-1}).to(torch::kDouble));
      mv.values.emplace_back(name, std::vector<double>(static_cast<size_t>(t.numel())));
    }
    values.micro.push_back(std::move(mv));
  }
  if (!pending.empty()) {
    const torch::Tensor host = torch::cat(pending).to(torch::kCPU).contiguous();
    const double* v = host.data_ptr<double>();
    for (MicroValues& mv : values.micro) {
      mv.loss = *v++;
      for (auto& [name, vals] : mv.values) {
        std::copy(v, v + vals.size(), vals.begin());
        v += vals.size();
      }
    }
  }
  StepReport r;
  for (const MicroValues& mv : values.micro) {
    r.loss += mv.loss * mv.weight;
    r.tokens += mv.tokens;
  }
  if (hooks.report) hooks.report(step, values, r);
  return r;
}

}  // namespace

const std::vector<double>* MicroValues::find(const std::string& name) const {
  for (const auto& [key, vals] : values)
    if (key == name) return &vals;
  return nullptr;
}

double StepValues::weighted_sum(const std::string& name) const {
  double sum = 0.0;
  for (const MicroValues& mv : micro)
    if (const std::vector<double>* v = mv.find(name); v && !v->empty()) sum += (*v)[0] * mv.weight;
  return sum;
}

void check_accum_covers_ranks(int64_t accum) {
  const int world = dist::world_size();
  if (world > 1 && accum < world)
    throw InputError("--accum " + std::to_string(accum) + " is below the " + std::to_string(world) +
                     " ranks: a step's micro-batches are split across ranks, so give --accum >= "
                     "--nproc (the global "
                     "batch is accum micro-batches whatever the number of ranks)");
}

// Data parallel: finishes the step's gradient all-reduce and sums the report's partial sums over
// the ranks (loss, tokens, then its named log fields, integers kept integers); the all-reduce's
// seconds.
static double reduce_step_report(dist::ProcessGroup& group, dist::GradientBuckets& buckets,
                                 StepReport& r) {
  const double allreduce_s = buckets.finish();
  std::vector<double> sums{r.loss, static_cast<double>(r.tokens)};
  std::vector<ojson*> where;
  for (const auto& key : r.summed) {
    ojson* obj = r.log.is_object() && r.log.contains(key)             ? &r.log
                 : r.log_tail.is_object() && r.log_tail.contains(key) ? &r.log_tail
                                                                      : nullptr;
    if (!obj)
      throw std::logic_error("run_train_loop: summed field '" + key + "' is not in the report");
    sums.push_back((*obj)[key].get<double>());
    where.push_back(obj);
  }
  dist::all_reduce_sum(group, sums);
  r.loss = sums[0];
  r.tokens = std::llround(sums[1]);
  for (size_t i = 0; i < r.summed.size(); ++i) {
    ojson& v = (*where[i])[r.summed[i]];
    if (v.is_number_integer())
      v = std::llround(sums[2 + i]);
    else
      v = sums[2 + i];
  }
  return allreduce_s;
}

LoopResult run_train_loop(torch::nn::Module& model, const LoopOptions& opts, RunDir* run,
                          bool resume, const LoopHooks& hooks) {
  if (!hooks.micro_batches || !hooks.micro_loss)
    throw std::logic_error("run_train_loop: no micro_batches or micro_loss function");
  dist::ProcessGroup* group = dist::default_group();
  const bool writer = !group || group->rank() == 0;  // checkpoints and log lines: rank 0 only
  const int64_t total = opts.total_steps;
  const LinearSchedule schedule{opts.optim.lr, opts.warmup_steps, total};
  Optimizer optimizer(named_pairs(model.named_parameters()), opts.optim);
  int64_t step = 0;
  bool stopped = false;
  if (resume) {
    if (!run) throw InputError("--resume needs a run directory");
    auto state = run->load_checkpoint(model, optimizer);
    step = state.at("step").get<int64_t>();
    if (hooks.load_state) stopped = hooks.load_state(state);
    if (writer) run->truncate_log(step);
  }
  if (group)
    dist::broadcast_parameters(*group, model);  // the same start on every rank, whatever happened
  std::unique_ptr<dist::GradientBuckets> buckets;
  if (group)
    buckets = std::make_unique<dist::GradientBuckets>(*group, optimizer.params(),
                                                      dist::bucket_bytes_from_env());
  struct ActiveBuckets {  // backward_micro_batch sees this loop's buckets while it runs
    explicit ActiveBuckets(dist::GradientBuckets* b) { active_buckets = b; }
    ~ActiveBuckets() { active_buckets = nullptr; }
  } active(buckets.get());

  std::vector<ojson> pending_log;
  int64_t last_checkpoint = resume ? step : -1;  // the step of the checkpoint on disk (-1: none)
  auto checkpoint = [&]() {
    if (!run) return;
    if (!writer) {  // rank 0 writes it
      pending_log.clear();
      last_checkpoint = step;
      return;
    }
    run->append_log(pending_log);
    pending_log.clear();
    ojson s;
    s["step"] = step;
    s["total_steps"] = total;
    s["warmup_steps"] = opts.warmup_steps;
    s["seed"] = opts.seed;
    if (hooks.save_state) hooks.save_state(s);
    run->save_checkpoint(model, optimizer, s);
    last_checkpoint = step;
  };

  LoopResult result;
  result.total_steps = total;
  model.train();
  Progress progress(opts.progress, total);
  const auto t0 = std::chrono::steady_clock::now();
  int64_t steps_this_call = 0;
  if (total == 0 && !resume) checkpoint();  // the initialised model only
  while (step < total && !stopped) {
    optimizer.zero_grad();
    StepReport r = micro_batch_step(hooks, opts.seed, step);
    const double allreduce_s = group ? reduce_step_report(*group, *buckets, r) : 0.0;
    if (hooks.reduced) hooks.reduced(r);
    const double grad_norm = clip_gradients(optimizer.params(), opts.max_grad_norm, opts.clip);
    const double lr = schedule.lr(step);
    const bool finite = std::isfinite(r.loss) && std::isfinite(grad_norm);
    if (!finite) {
      const char* what = std::isnan(r.loss) || std::isnan(grad_norm) ? "nan" : "inf";
      if (!opts.skip_nonfinite) {
        if (run && writer && !pending_log.empty())
          run->append_log(pending_log);  // the steps before it
        throw InputError(run ? run->path() : std::string(), 0,
                         "step " + std::to_string(step + 1) + ": the " +
                             (std::isfinite(r.loss) ? "gradient norm" : "loss") + " is " + what +
                             "; training stopped before applying it. " +
                             (last_checkpoint >= 0
                                  ? "The checkpoint of step " + std::to_string(last_checkpoint) +
                                        " is intact (resume continues from it)"
                                  : std::string("No checkpoint was written yet")) +
                             ". Lower the learning rate, or skip such steps (--skip-nonfinite)");
      }
      optimizer.zero_grad();  // the update is not applied; the step still counts
      ++result.skipped_steps;
      r.log = ojson{{"skipped", what}, {"loss", r.loss}};
      r.log_tail = ojson::object();
      if (opts.progress)
        std::cerr << "step " << step + 1 << ": " << what << " loss or gradient, update skipped\n";
    } else {
      optimizer.step(lr);
    }
    ++step;
    ++steps_this_call;
    result.tokens += r.tokens;
    if (steps_this_call == 1) result.first_loss = r.loss;
    result.last_loss = r.loss;
    result.losses.push_back(r.loss);

    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (opts.log_every > 0 && (step % opts.log_every == 0 || step == total)) {
      ojson l;
      l["step"] = step;
      if (r.log.is_object()) l.update(r.log);
      l["lr"] = lr;
      l["grad_norm"] = grad_norm;
      if (r.log_tail.is_object()) l.update(r.log_tail);
      if (group) l["allreduce_s"] = allreduce_s;
      l["elapsed_s"] = elapsed;
      pending_log.push_back(std::move(l));
    }
    const double tok_s = elapsed > 0 ? double(result.tokens) / elapsed : 0.0;
    const double eta = elapsed / double(steps_this_call) * double(total - step);
    progress.update(step, steps_this_call == 1, r, lr, tok_s, eta);
    if (hooks.after_step && hooks.after_step(step, pending_log)) stopped = true;
    const bool stop_now =
        opts.stop_after > 0 && steps_this_call >= opts.stop_after && step < total && !stopped;
    if ((opts.save_every > 0 && step % opts.save_every == 0) || step == total || stop_now ||
        stopped) {
      checkpoint();
    } else if (run && writer && pending_log.size() >= 100) {
      // Keep the log roughly current without a checkpoint; truncate_log fixes it on resume.
      run->append_log(pending_log);
      pending_log.clear();
    }
    if (stop_now) break;
  }
  if (run && writer && !pending_log.empty()) run->append_log(pending_log);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.tokens_per_second = elapsed > 0 ? double(result.tokens) / elapsed : 0.0;
  result.steps_done = step;
  result.stopped_early = stopped;
  result.finished = step >= total || stopped;
  if (resume && run && steps_this_call == 0) {
    ojson line = run->log_line(step);
    if (line.is_object() && line.contains("loss") && line["loss"].is_number()) {
      result.first_loss = result.last_loss = line["loss"].get<double>();
      result.resumed_line = std::move(line);
    }
  }
  model.eval();
  return result;
}

// ---- epoch-ordered batches ---------------------------------------------------------------------

std::vector<std::vector<size_t>> split_by_length(const std::vector<size_t>& batch,
                                                 const std::vector<int64_t>& lengths,
                                                 int64_t groups) {
  const int64_t n = static_cast<int64_t>(batch.size());
  if (groups <= 1 || n <= 1) return {batch};
  std::vector<size_t> sorted = batch;
  std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
    return lengths.at(a) != lengths.at(b) ? lengths.at(a) < lengths.at(b) : a < b;
  });
  const int64_t g = std::min(groups, n);
  std::vector<std::vector<size_t>> out;
  int64_t begin = 0;
  for (int64_t k = 0; k < g; ++k) {
    const int64_t size = n / g + (k < n % g ? 1 : 0);
    out.emplace_back(sorted.begin() + begin, sorted.begin() + begin + size);
    begin += size;
  }
  return out;
}

EpochBatches::EpochBatches(Make make, int64_t accum, std::vector<int64_t> lengths,
                           int64_t length_groups)
    : make_(std::move(make)),
      accum_(accum),
      lengths_(std::move(lengths)),
      length_groups_(length_groups) {
  if (accum_ < 1) throw InputError("--accum must be at least 1");
  if (length_groups_ < 1) throw InputError("--length-groups must be at least 1");
}

int64_t EpochBatches::steps_of(int64_t epoch) const {
  const int64_t nb = static_cast<int64_t>(make_(epoch).size());
  return (nb + accum_ - 1) / accum_;
}

int64_t EpochBatches::steps_in_first_epoch() const { return steps_of(0); }

int64_t EpochBatches::total_steps(int64_t epochs, int64_t max_steps) const {
  if (max_steps > 0) return max_steps;
  int64_t total = 0;
  for (int64_t e = 0; e < std::max<int64_t>(1, epochs); ++e) total += steps_of(e);
  return total;
}

std::vector<std::vector<size_t>> EpochBatches::next() {
  if (!ready_) {
    batches_ = make_(epoch_);
    ready_ = true;
  }
  while (cursor_ >= static_cast<int64_t>(batches_.size())) {
    ++epoch_;
    cursor_ = 0;
    batches_ = make_(epoch_);
    if (batches_.empty()) throw InputError("an epoch without batches");
  }
  const int64_t n = std::min<int64_t>(accum_, static_cast<int64_t>(batches_.size()) - cursor_);
  std::vector<std::vector<size_t>> out(batches_.begin() + cursor_, batches_.begin() + cursor_ + n);
  cursor_ += n;
  if (length_groups_ <= 1) return out;
  std::vector<std::vector<size_t>> split;
  for (const auto& batch : out)
    for (auto& part : split_by_length(batch, lengths_, length_groups_))
      split.push_back(std::move(part));
  return split;
}

void EpochBatches::save(ojson& state) const {
  state["epoch"] = epoch_;
  state["batch"] = cursor_;
}

void EpochBatches::load(const nlohmann::json& state) {
  epoch_ = state.at("epoch").get<int64_t>();
  cursor_ = state.at("batch").get<int64_t>();
  ready_ = false;
}

// ---- fine-tuning runs ---------------------------------------------------------------------------

EpochBatches fine_tuning_batches(std::vector<int64_t> lengths, const TrainOptions& opts) {
  std::vector<int64_t> grouped = opts.length_groups > 1 ? lengths : std::vector<int64_t>{};
  return EpochBatches(
      [lengths = std::move(lengths), seed = opts.seed, tokens = opts.batch_tokens,
       size = opts.batch_size](int64_t epoch) {
        std::mt19937_64 rng(seed_mix(seed, kEpochOrderStream + epoch));
        return make_batches(lengths, tokens, size, rng);
      },
      opts.accum, std::move(grouped), opts.length_groups);
}

LoopOptions loop_options(const TrainOptions& opts, const EpochBatches& batches) {
  // no_train: a schedule of zero steps; run_train_loop then checkpoints the initial model.
  LoopOptions loop =
      loop_options_for(opts, opts.no_train ? 0 : batches.total_steps(opts.epochs, opts.max_steps));
  loop.clip = opts.clip;
  return loop;
}

}  // namespace unieval::models
