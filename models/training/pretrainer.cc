#include "models/training/pretrainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <tuple>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/training/train_loop.h"
#include "models/training/train_util.h"

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
  if (objectives == "ernie-gen") ernie.validate();
  if (batch_size < 1) throw InputError("--batch-size must be at least 1");
  if (accum < 1) throw InputError("--accum must be at least 1");
  if (tokens < 0) throw InputError("--tokens must be positive");
  if (tokens == 0 && max_steps < 0) throw InputError("--steps must be >= 0");
  if (!(optim.lr > 0)) throw InputError("--lr must be positive");
  if (warmup_ratio < 0 || warmup_ratio >= 1)
    throw InputError("--warmup must be a fraction in [0, 1) or steps >= 1");
}

ojson PretrainOptions::to_json() const { return fields::to_json(*this); }

void PretrainOptions::update_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "pre-training options must be a JSON object");
  fields::from_json(j, *this, source);
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
    case MaskKind::kBidirectional:
      return "bi";
    case MaskKind::kLeftToRight:
      return "l2r";
    case MaskKind::kRightToLeft:
      return "r2l";
    case MaskKind::kSeq2Seq:
      return "s2s";
  }
  return "?";
}

constexpr MaskKind kAllKinds[] = {MaskKind::kBidirectional, MaskKind::kSeq2Seq,
                                  MaskKind::kLeftToRight, MaskKind::kRightToLeft};

// A pre-training objective's micro-batches, loss and log fields (pretrain). Every rank packs all
// micro-batches of a step (the step's global counts weigh the losses) and computes its own; each
// log field is this rank's part of the step's value (summed over the ranks).
class PretrainObjective {
 public:
  virtual ~PretrainObjective() = default;
  // Packs the opts.accum micro-batches of step `step`.
  virtual void pack(int64_t step) = 0;
  // The loss of micro-batch j of the packed step.
  virtual MicroLoss loss(int64_t j) = 0;
  // The step's masked (target) tokens over all its micro-batches.
  virtual int64_t masked_total() const = 0;
  // The log fields between "step" and "lr" and their names in r.summed (this rank's values).
  virtual void report(const StepValues& values, StepReport& r) const = 0;
  // The whole step's values (summed over the ranks): the last losses and the progress detail.
  virtual void reduced(StepReport& r, PretrainResult& result) const = 0;
};

// UniLM's unified objectives (models/training/pretrain_data.h): the cloze loss at the masked positions
// (a mean over the step's masked tokens) plus, for bidirectional rows, NSP.
class UnifiedObjective final : public PretrainObjective {
 public:
  UnifiedObjective(UnilmModel& model, const TokenShard& shard, const SpecialIds& ids,
                   const PretrainOptions& opts, std::vector<MaskKind> cycle)
      : model_(model),
        shard_(shard),
        ids_(ids),
        opts_(opts),
        cycle_(std::move(cycle)),
        device_(device_of(*model)) {}
  void pack(int64_t step) override {
    micro_.clear();
    masked_total_ = nsp_total_ = 0;
    std::fill(std::begin(kind_count_), std::end(kind_count_), 0);
    for (int64_t j = 0; j < opts_.accum; ++j) {
      micro_.push_back(make_pretrain_batch(shard_, cycle_, opts_.data, ids_, opts_.seed, step, j,
                                           opts_.accum, opts_.batch_size));
      const PretrainBatch& b = micro_.back();
      masked_total_ += b.labels.size(0);
      nsp_total_ += b.nsp_rows.size(0);
      auto obj = b.masked_objective.accessor<int64_t, 1>();
      for (int64_t k = 0; k < b.masked_objective.size(0); ++k) ++kind_count_[obj[k]];
    }
  }
  MicroLoss loss(int64_t j) override;
  int64_t masked_total() const override { return masked_total_; }
  void report(const StepValues& values, StepReport& r) const override;
  void reduced(StepReport& r, PretrainResult& result) const override;

 private:
  UnilmModel& model_;
  const TokenShard& shard_;
  const SpecialIds& ids_;
  const PretrainOptions& opts_;
  const std::vector<MaskKind> cycle_;
  const torch::Device device_;
  std::vector<PretrainBatch> micro_;
  int64_t masked_total_ = 0, nsp_total_ = 0;
  int64_t kind_count_[4] = {0, 0, 0, 0};
};

// Weight 1: the step's totals are inside the loss. Values: the per-token cloze NLL ("mlm", summed
// by objective on the host), the NSP loss sum and its correct predictions.
MicroLoss UnifiedObjective::loss(int64_t j) {
  namespace F = torch::nn::functional;
  const PretrainBatch& b = micro_[static_cast<size_t>(j)];
  BertOutput out = model_->forward(b.input_ids.to(device_), b.token_type_ids.to(device_),
                                   b.attention_mask.to(device_));
  MicroLoss m;
  m.tokens = b.tokens;
  torch::Tensor loss = torch::zeros({}, out.last_hidden_state.options().dtype(torch::kFloat));
  if (b.labels.size(0) > 0) {
    const int64_t H = out.last_hidden_state.size(-1);
    torch::Tensor h =
        out.last_hidden_state.reshape({-1, H}).index_select(0, b.masked_index.to(device_));
    torch::Tensor logits = model_->mlm_logits(h).to(torch::kFloat);
    const auto per_row = F::CrossEntropyFuncOptions().reduction(torch::kNone);
    torch::Tensor per_token = F::cross_entropy(logits, b.labels.to(device_), per_row);
    loss = loss + per_token.sum() / double(masked_total_);
    m.values.emplace_back("mlm", per_token);
  }
  if (b.nsp_rows.size(0) > 0) {
    torch::Tensor pooled = out.pooler_output.index_select(0, b.nsp_rows.to(device_));
    torch::Tensor nl = model_->nsp_logits(pooled).to(torch::kFloat);
    const torch::Tensor labels = b.nsp_labels.to(device_);
    torch::Tensor nsp =
        F::cross_entropy(nl, labels, F::CrossEntropyFuncOptions().reduction(torch::kSum));
    loss = loss + nsp / double(nsp_total_);
    m.values.emplace_back("nsp", nsp);
    m.values.emplace_back("nsp_correct", nl.argmax(-1).eq(labels).sum());
  }
  m.loss = loss;
  return m;
}

void UnifiedObjective::report(const StepValues& values, StepReport& r) const {
  double mlm_sum = 0, nsp_sum = 0;
  int64_t nsp_correct = 0;
  double kind_sum[4] = {0, 0, 0, 0};
  for (const MicroValues& mv : values.micro) {
    if (const std::vector<double>* nll = mv.find("mlm")) {
      // A float sum over a CPU tensor, as the micro-batch's own read-back summed it.
      mlm_sum += torch::tensor(std::vector<float>(nll->begin(), nll->end())).sum().item<double>();
      auto obj = micro_[static_cast<size_t>(mv.j)].masked_objective.accessor<int64_t, 1>();
      for (size_t k = 0; k < nll->size(); ++k) kind_sum[obj[static_cast<int64_t>(k)]] += (*nll)[k];
    }
    if (const std::vector<double>* v = mv.find("nsp")) nsp_sum += (*v)[0];
    if (const std::vector<double>* v = mv.find("nsp_correct")) nsp_correct += std::llround((*v)[0]);
  }
  const double mlm = masked_total_ > 0 ? mlm_sum / double(masked_total_) : 0.0;
  const double nsp = nsp_total_ > 0 ? nsp_sum / double(nsp_total_) : 0.0;
  r.loss = mlm + nsp;
  r.log["loss"] = r.loss;
  r.log["mlm"] = mlm;
  r.summed = {"loss", "mlm", "tokens"};
  if (nsp_total_ > 0) {
    r.log["nsp"] = nsp;
    r.log["nsp_acc"] = double(nsp_correct) / double(nsp_total_);
    r.summed.insert(r.summed.end(), {"nsp", "nsp_acc"});
  }
  std::map<std::string, double> kind_loss;  // by name, the order of the log fields
  for (MaskKind k : kAllKinds) {
    const int ki = static_cast<int>(k);
    if (kind_count_[ki] > 0) kind_loss[to_string(k)] = kind_sum[ki] / double(kind_count_[ki]);
  }
  for (const auto& [name, v] : kind_loss) {
    r.log["loss_" + name] = v;
    r.summed.push_back("loss_" + name);
  }
}

void UnifiedObjective::reduced(StepReport& r, PretrainResult& result) const {
  result.last_objective_loss.clear();
  for (MaskKind k : kAllKinds) {
    const std::string key = "loss_" + to_string(k);
    if (!r.log.contains(key)) continue;
    const double v = r.log[key].get<double>();
    result.last_objective_loss[to_string(k)] = v;
    char b2[48];
    std::snprintf(b2, sizeof b2, "%s%s %.3f", r.detail.empty() ? "" : " ", short_name(k), v);
    r.detail += b2;
  }
  if (r.log.contains("nsp")) {
    const double nsp = r.log["nsp"].get<double>();
    result.last_objective_loss["nsp"] = nsp;
    char b2[48];
    std::snprintf(b2, sizeof b2, " nsp %.3f", nsp);
    r.detail += b2;
  }
}

// ERNIE-GEN's multi-flow objective (models/training/ernie_gen.h) on sampled fragments.
class ErnieGenPretrainObjective final : public PretrainObjective {
 public:
  ErnieGenPretrainObjective(UnilmModel& model, const TokenShard& shard, const SpecialIds& ids,
                            const PretrainOptions& opts)
      : model_(model), shard_(shard), ids_(ids), opts_(opts) {
    std::tie(types_.source_type, types_.target_type) =
        segment_ids(MaskKind::kSeq2Seq, opts.data.segments);
    if (opts.ernie.lambda >= 1.0) return;
    const auto t0 = std::chrono::steady_clock::now();
    span_vocab_ = SpanVocab::build(shard, opts.ernie.top_bigrams, opts.ernie.top_trigrams);
    if (opts.progress)
      std::fprintf(stderr,
                   "span vocabulary: %zu bigrams, %zu trigrams "
                   "(t-statistic over %lld tokens, %.1f s)\n",
                   span_vocab_.bigrams(), span_vocab_.trigrams(),
                   static_cast<long long>(shard.tokens()),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  void pack(int64_t step) override {
    micro_.clear();
    total_ = 0;
    for (int64_t j = 0; j < opts_.accum; ++j) {
      micro_.push_back(make_ernie_gen_pretrain_batch(shard_, opts_.data.max_len, types_,
                                                     opts_.ernie, ids_, &span_vocab_, opts_.seed,
                                                     step, j, opts_.accum, opts_.batch_size));
      total_ += micro_.back().labels.size(0);
    }
  }
  MicroLoss loss(int64_t j) override {
    const ErnieGenBatch& b = micro_[static_cast<size_t>(j)];
    const ErnieGenLossTensors l = ernie_gen_loss_tensors(model_, b, opts_.ernie.lambda, 0.0);
    const double w = double(b.labels.size(0)) / double(std::max<int64_t>(1, total_));
    MicroLoss m{l.loss, w, b.tokens, {{"word", l.word_nll}}};
    if (l.span_nll.defined()) m.values.emplace_back("span", l.span_nll);
    return m;
  }
  int64_t masked_total() const override { return total_; }
  void report(const StepValues& values, StepReport& r) const override {
    r.log["loss"] = r.loss;
    r.log["word"] = values.weighted_sum("word");
    r.summed = {"loss", "word", "tokens"};
    if (opts_.ernie.lambda >= 1.0) return;
    r.log["span"] = values.weighted_sum("span");
    r.summed.push_back("span");
  }
  void reduced(StepReport& r, PretrainResult& result) const override {
    const double word = r.log["word"].get<double>();
    result.last_objective_loss = {{"word", word}};
    char b2[64];
    std::snprintf(b2, sizeof b2, "word %.3f", word);
    r.detail = b2;
    if (r.log.contains("span")) {
      const double span = r.log["span"].get<double>();
      result.last_objective_loss["span"] = span;
      std::snprintf(b2, sizeof b2, " span %.3f", span);
      r.detail += b2;
    }
  }

 private:
  UnilmModel& model_;
  const TokenShard& shard_;
  const SpecialIds& ids_;
  const PretrainOptions& opts_;
  Seq2SeqDataOptions types_;
  SpanVocab span_vocab_;
  std::vector<ErnieGenBatch> micro_;
  int64_t total_ = 0;
};

// The checks of pretrain's inputs against the model.
void check_pretrain_model(UnilmModel& model, const SpecialIds& ids, const PretrainOptions& opts,
                          const std::vector<MaskKind>& cycle) {
  bool uses_nsp = false;
  for (MaskKind k : cycle) uses_nsp = uses_nsp || k == MaskKind::kBidirectional;
  if (!model->cls) throw InputError("pre-training needs the MLM head");
  if (uses_nsp && (!model->cls->seq_relationship || !model->bert->pooler))
    throw InputError(
        "the bidirectional objective needs the pooler and the NSP head (pretrain_heads)");
  const BertConfig& cfg = model->config();
  if (opts.data.max_len > cfg.max_position_embeddings)
    throw InputError("--max-len " + std::to_string(opts.data.max_len) +
                     " exceeds the model's max_position_embeddings " +
                     std::to_string(cfg.max_position_embeddings));
  const int64_t need_types = opts.data.max_segment_id(cycle) + 1;
  if (need_types > cfg.type_vocab_size)
    throw InputError("the '" + opts.data.segments + "' segment ids of --objectives " +
                     opts.objectives + " need type_vocab_size >= " + std::to_string(need_types) +
                     " in the model config (it is " + std::to_string(cfg.type_vocab_size) +
                     "); UniLM v1 uses 6, or pass --segments bert");
  if (ids.vocab_size > cfg.vocab_size)
    throw InputError("the vocabulary has " + std::to_string(ids.vocab_size) +
                     " entries but the model's vocab_size is " + std::to_string(cfg.vocab_size));
}

}  // namespace

PretrainResult pretrain(UnilmModel& model, const TokenShard& shard, const SpecialIds& ids,
                        const PretrainOptions& opts, RunDir* run, bool resume) {
  opts.validate();
  const std::vector<MaskKind> cycle = objective_cycle(opts.objectives);
  check_pretrain_model(model, ids, opts, cycle);
  const LoopOptions loop = loop_options_for(opts, opts.total_steps());

  std::unique_ptr<PretrainObjective> objective;
  if (opts.objectives == "ernie-gen")
    objective = std::make_unique<ErnieGenPretrainObjective>(model, shard, ids, opts);
  else
    objective = std::make_unique<UnifiedObjective>(model, shard, ids, opts, cycle);

  PretrainResult result;
  int64_t tokens_seen = 0;
  check_accum_covers_ranks(opts.accum);
  LoopHooks hooks;
  hooks.dropout_stream = kPretrainDropoutStream;
  hooks.micro_batches = [&](int64_t step) {
    objective->pack(step);
    return opts.accum;
  };
  hooks.micro_loss = [&](int64_t, int64_t j) { return objective->loss(j); };
  hooks.report = [&](int64_t, const StepValues& values, StepReport& r) {
    objective->report(values, r);
    r.log_tail["tokens"] = r.tokens;
    r.log_tail["masked"] = objective->masked_total();
    r.log_tail["tokens_seen"] = tokens_seen;  // set by the reduced hook
  };
  // The whole step's values (summed over the ranks): counters, last losses, the progress detail.
  hooks.reduced = [&](StepReport& r) {
    tokens_seen += r.tokens;
    r.log_tail["tokens_seen"] = tokens_seen;
    objective->reduced(r, result);
  };
  hooks.save_state = [&](ojson& s) {
    s["tokens_seen"] = tokens_seen;
    s["objectives"] = opts.objectives;
  };
  hooks.load_state = [&](const nlohmann::json& s) {
    tokens_seen = s.value("tokens_seen", int64_t{0});
    return false;
  };
  const LoopResult done = run_train_loop(model, loop, run, resume, hooks);
  if (done.resumed_line.is_object()) {
    // A finished run resumed: its last losses per objective are the logged ones of its last step.
    StepReport last;
    last.log = done.resumed_line;
    try {
      objective->reduced(last, result);
    } catch (const nlohmann::json::exception&) {
      result.last_objective_loss.clear();  // a line without them (another objective's run)
    }
  }
  copy_loop_result(done, result);
  result.tokens_seen = tokens_seen;
  return result;
}

}  // namespace unieval::models
