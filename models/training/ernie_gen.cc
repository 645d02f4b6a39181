// Follows ERNIE-GEN (Xiao et al. 2020, PaddlePaddle/ERNIE, Apache-2.0) behaviour; no code copied;
// see THIRD_PARTY_NOTICES.md.
#include "models/training/ernie_gen.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/nn/masks.h"
#include "models/training/train_util.h"
#include "models/training/trainer.h"

namespace unieval::models {

namespace {

constexpr int kKeyBits = 21;
constexpr int64_t kMaxId = int64_t{1} << kKeyBits;

// Packs 1-3 ids (each < 2^21) so that key order is lexicographic id order.
uint64_t key_of(std::initializer_list<int64_t> ids) {
  uint64_t k = 0;
  int n = 0;
  for (int64_t id : ids) k = (k << kKeyBits) | static_cast<uint64_t>(id), ++n;
  return k << (kKeyBits * (3 - n));
}

std::string shape_text(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? "," : "") + std::to_string(t.size(i));
  return s + "]";
}

}  // namespace

NoiseRule parse_noise_rule(const std::string& name) {
  if (name == "count") return NoiseRule::kCount;
  if (name == "per_position") return NoiseRule::kPerPosition;
  throw InputError("unknown noise rule '" + name + "' (count or per_position)");
}

std::string to_string(NoiseRule rule) {
  return rule == NoiseRule::kCount ? "count" : "per_position";
}

void ErnieGenOptions::validate() const {
  if (!(lambda >= 0.0 && lambda <= 1.0)) throw InputError("--span-lambda must be in [0, 1]");
  if (!(noise_prob >= 0.0 && noise_prob < 1.0)) throw InputError("--noise-prob must be in [0, 1)");
  if (top_bigrams < 0 || top_trigrams < 0)
    throw InputError("--span-bigrams and --span-trigrams must be >= 0");
  if (!(fragment_ratio > 0.0 && fragment_ratio < 1.0))
    throw InputError("--fragment-ratio must be in (0, 1)");
}

// ---- span vocabulary ----------------------------------------------------------------------------

double t_statistic(int64_t count, int64_t total, const std::vector<double>& unigram_probs) {
  if (total <= 0 || count <= 0) return 0.0;
  const double p = double(count) / double(total);
  double indep = 1.0;
  for (double q : unigram_probs) indep *= q;
  double var = p * (1.0 - p);
  if (var <= 0.0) var = p;
  return (p - indep) / std::sqrt(var / double(total));
}

// n-gram counts of a corpus (keys: key_of).
class SpanVocab::Counter {
 public:
  void add(const int64_t* s, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (s[i] < 0 || s[i] >= kMaxId)
        throw InputError("span vocabulary: token id " + std::to_string(s[i]) +
                         " is outside [0, 2^21)");
      ++uni_[s[i]], ++n1_;
      if (i + 1 < n) ++bi_[key_of({s[i], s[i + 1]})], ++n2_;
      if (i + 2 < n) ++tri_[key_of({s[i], s[i + 1], s[i + 2]})], ++n3_;
    }
  }
  // The top `keep` n-grams of order `n` by t-statistic (ties: smaller ids first).
  std::unordered_set<uint64_t> top(int n, int64_t keep) const {
    const auto& counts = n == 2 ? bi_ : tri_;
    const int64_t total = n == 2 ? n2_ : n3_;
    std::vector<std::pair<double, uint64_t>> scored;
    scored.reserve(counts.size());
    std::vector<double> probs(n);
    for (const auto& [k, c] : counts) {
      for (int i = 0; i < n; ++i) {
        const int64_t id = static_cast<int64_t>((k >> (kKeyBits * (2 - i))) & (kMaxId - 1));
        probs[i] = double(uni_.at(id)) / double(n1_);
      }
      scored.emplace_back(t_statistic(c, total, probs), k);
    }
    const size_t m = std::min(scored.size(), static_cast<size_t>(std::max<int64_t>(0, keep)));
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(m), scored.end(),
                      [](const auto& a, const auto& b) {
                        return a.first != b.first ? a.first > b.first : a.second < b.second;
                      });
    std::unordered_set<uint64_t> out;
    for (size_t i = 0; i < m; ++i) out.insert(scored[i].second);
    return out;
  }

 private:
  std::unordered_map<int64_t, int64_t> uni_;
  std::unordered_map<uint64_t, int64_t> bi_, tri_;
  int64_t n1_ = 0, n2_ = 0, n3_ = 0;
};

SpanVocab SpanVocab::from_counts(const Counter& c, int64_t top_bigrams, int64_t top_trigrams) {
  SpanVocab v;
  v.bigrams_ = c.top(2, top_bigrams);
  v.trigrams_ = c.top(3, top_trigrams);
  return v;
}

SpanVocab SpanVocab::build(const std::vector<std::vector<int64_t>>& corpus, int64_t top_bigrams,
                           int64_t top_trigrams) {
  Counter c;
  for (const auto& s : corpus) c.add(s.data(), s.size());
  return from_counts(c, top_bigrams, top_trigrams);
}

SpanVocab SpanVocab::build(const TokenShard& shard, int64_t top_bigrams, int64_t top_trigrams) {
  Counter c;
  std::vector<int64_t> sent;
  for (int64_t s = 0; s < shard.sentences(); ++s) {
    sent.clear();
    shard.append_sentence(s, sent);
    c.add(sent.data(), sent.size());
  }
  return from_counts(c, top_bigrams, top_trigrams);
}

bool SpanVocab::has_bigram(int64_t a, int64_t b) const {
  return bigrams_.count(key_of({a, b})) > 0;
}
bool SpanVocab::has_trigram(int64_t a, int64_t b, int64_t c) const {
  return trigrams_.count(key_of({a, b, c})) > 0;
}

std::vector<int64_t> SpanVocab::span_starts(const std::vector<int64_t>& t) const {
  std::vector<int64_t> starts;
  size_t i = 0;
  while (i < t.size()) {
    starts.push_back(static_cast<int64_t>(i));
    if (i + 2 < t.size() && has_trigram(t[i], t[i + 1], t[i + 2])) {
      i += 3;
    } else if (i + 1 < t.size() && has_bigram(t[i], t[i + 1])) {
      i += 2;
    } else {
      i += 1;
    }
  }
  return starts;
}

// ---- masks --------------------------------------------------------------------------------------

namespace {

void check_starts(const std::vector<int64_t>& starts, int64_t m) {
  if (m > 0 && (starts.empty() || starts.front() != 0))
    throw InputError("span starts must begin at 0");
  for (size_t k = 0; k < starts.size(); ++k) {
    if (starts[k] < 0 || starts[k] >= m || (k > 0 && starts[k] <= starts[k - 1]))
      throw InputError("span starts must be ascending offsets into the target (length " +
                       std::to_string(m) + ")");
  }
}

// Per target offset i, the start of its span.
std::vector<int64_t> span_start_of(const std::vector<int64_t>& starts, int64_t m) {
  std::vector<int64_t> out(m, 0);
  size_t k = 0;
  for (int64_t i = 0; i < m; ++i) {
    while (k + 1 < starts.size() && starts[k + 1] <= i) ++k;
    out[i] = starts.empty() ? i : starts[k];
  }
  return out;
}

// Generation-flow mask [B,Tm,Tx+Tm]: real row i of example b sees X keys j < src[b] + first[b][i]
// (S and the target before first[b][i]) and its own symbol; padding rows see their own symbol.
torch::Tensor flow_mask(const std::vector<int64_t>& src, const std::vector<int64_t>& tgt,
                        const std::vector<std::vector<int64_t>>& first, int64_t Tx, int64_t Tm) {
  const int64_t B = static_cast<int64_t>(src.size());
  torch::Tensor limit = torch::zeros({B, Tm, 1}, torch::kInt64);
  auto l = limit.accessor<int64_t, 3>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < tgt[b]; ++i) l[b][i][0] = src[b] + first[b][i];
  auto j = torch::arange(Tx, torch::kInt64).view({1, 1, Tx});
  auto xpart = (j < limit).to(torch::kInt64);
  auto apart = torch::eye(Tm, torch::kInt64).unsqueeze(0).expand({B, Tm, Tm});
  return torch::cat({xpart, apart}, 2).contiguous();
}

}  // namespace

MultiFlowMasks multi_flow_masks(int64_t n, int64_t m, const std::vector<int64_t>& span_starts) {
  if (n < 0 || m < 0) throw InputError("multi-flow masks: negative length");
  check_starts(span_starts, m);
  MultiFlowMasks out;
  out.context = seq2seq_mask({n}, {m}).squeeze(0);
  std::vector<int64_t> own(m);
  std::iota(own.begin(), own.end(), int64_t{0});
  out.word = flow_mask({n}, {m}, {own}, n + m, m).squeeze(0);
  out.span = flow_mask({n}, {m}, {span_start_of(span_starts, m)}, n + m, m).squeeze(0);
  return out;
}

// ---- forward ------------------------------------------------------------------------------------

MultiFlowOutput multi_flow_forward(UnilmModel& model, const FlowInput& context,
                                   const std::vector<FlowInput>& flows) {
  const torch::Device device = device_of(*model);
  auto& bert = model->bert;
  const auto dtype = bert->embeddings->word_embeddings->weight.scalar_type();
  const int64_t B = context.input_ids.size(0), Tx = context.input_ids.size(1);
  if (context.mask.dim() != 3 || context.mask.size(0) != B || context.mask.size(1) != Tx ||
      context.mask.size(2) != Tx)
    throw InputError("contextual-flow mask shape " + shape_text(context.mask) + " does not fit " +
                     shape_text(context.input_ids));
  auto dev = [&](const torch::Tensor& t) { return t.defined() ? t.to(device) : t; };
  torch::Tensor x = bert->embeddings->forward(dev(context.input_ids), dev(context.token_type_ids),
                                              dev(context.position_ids));
  const torch::Tensor bias_c = additive_attention_mask(dev(context.mask), dtype);
  std::vector<torch::Tensor> a, bias;
  for (const FlowInput& f : flows) {
    const int64_t Tm = f.input_ids.size(1);
    if (f.input_ids.size(0) != B || f.mask.dim() != 3 || f.mask.size(0) != B ||
        f.mask.size(1) != Tm || f.mask.size(2) != Tx + Tm)
      throw InputError("generation-flow mask shape " + shape_text(f.mask) + " does not fit " +
                       std::to_string(Tm) + " symbols after a contextual flow of " +
                       std::to_string(Tx) + " (expected [B,Tm,Tx+Tm])");
    a.push_back(
        bert->embeddings->forward(dev(f.input_ids), dev(f.token_type_ids), dev(f.position_ids)));
    bias.push_back(additive_attention_mask(dev(f.mask), dtype));
  }
  for (auto& layer : bert->encoder->layers) {
    torch::Tensor k, v;
    torch::Tensor next = layer->forward(x, bias_c, {}, {}, &k, &v);
    for (size_t f = 0; f < a.size(); ++f) a[f] = layer->forward(a[f], bias[f], k, v);
    x = next;
  }
  return {x, a};
}

// ---- batches ------------------------------------------------------------------------------------

ErnieGenBatch make_ernie_gen_batch(const std::vector<Seq2SeqExample>& examples,
                                   const std::vector<size_t>& idx, const Seq2SeqDataOptions& data,
                                   const ErnieGenOptions& eg, const SpecialIds& ids,
                                   const SpanVocab* span_vocab, std::mt19937_64& rng,
                                   NoiseReplay* replay) {
  const bool with_span = eg.lambda < 1.0;
  if (with_span && !span_vocab)
    throw InputError("the span-by-span flow (lambda < 1) needs a span vocabulary");
  const int64_t B = static_cast<int64_t>(idx.size());
  const int64_t bos = data.target_bos ? 1 : 0;  // "[CLS]" opening the target stream
  // src: the source part of X (with the target's [CLS] when bos), tgt: the predicted symbols.
  std::vector<int64_t> src(B), tgt(B), batch_source_len(B);
  int64_t Tx = 0, Tm = 0;
  for (int64_t b = 0; b < B; ++b) {
    const auto& ex = examples[idx[b]];
    src[b] = static_cast<int64_t>(ex.src.size()) + 2 + bos;
    batch_source_len[b] = static_cast<int64_t>(ex.src.size());
    tgt[b] = static_cast<int64_t>(ex.tgt.size()) + 1;
    Tx = std::max(Tx, src[b] + tgt[b]);
    Tm = std::max(Tm, tgt[b]);
  }
  ErnieGenBatch batch;
  batch.source_len = batch_source_len;
  auto& c = batch.context;
  c.input_ids = torch::full({B, Tx}, ids.pad, torch::kInt64);
  c.token_type_ids = torch::full({B, Tx}, data.source_type, torch::kInt64);
  c.position_ids = torch::arange(Tx, torch::kInt64).unsqueeze(0).expand({B, Tx}).contiguous();
  if (bos) {
    // M_C with the [CLS] in the target part: the source does not see it, the target does.
    std::vector<int64_t> s0(B), t0(B);
    for (int64_t b = 0; b < B; ++b) s0[b] = src[b] - 1, t0[b] = tgt[b] + 1;
    c.mask = seq2seq_mask(s0, t0, Tx);
  } else {
    c.mask = seq2seq_mask(src, tgt, Tx);
  }
  batch.noised = torch::zeros({B, Tx}, torch::kInt64);
  FlowInput flow;
  flow.input_ids = torch::full({B, Tm}, ids.pad, torch::kInt64);
  flow.token_type_ids = torch::full({B, Tm}, data.target_type, torch::kInt64);
  flow.position_ids = torch::zeros({B, Tm}, torch::kInt64);
  auto in = c.input_ids.accessor<int64_t, 2>();
  auto ty = c.token_type_ids.accessor<int64_t, 2>();
  auto nz = batch.noised.accessor<int64_t, 2>();
  auto fi = flow.input_ids.accessor<int64_t, 2>();
  auto fp = flow.position_ids.accessor<int64_t, 2>();
  std::vector<int64_t> target_index, labels;
  std::vector<std::vector<int64_t>> own(B), first(B);
  std::uniform_int_distribution<int64_t> random_token(ids.first_regular, ids.vocab_size - 1);
  for (int64_t b = 0; b < B; ++b) {
    const auto& ex = examples[idx[b]];
    int64_t t = 0;
    in[b][t++] = ids.cls;
    for (int64_t w : ex.src) in[b][t++] = w;
    in[b][t++] = ids.sep;
    if (bos) in[b][t] = ids.cls, ty[b][t++] = data.target_type;
    for (int64_t w : ex.tgt) in[b][t] = w, ty[b][t++] = data.target_type;
    in[b][t] = ids.sep, ty[b][t++] = data.target_type;
    batch.tokens += t;
    // Noise-aware generation: target tokens replaced in T' (labels stay true).
    const int64_t n_words = static_cast<int64_t>(ex.tgt.size());
    if (eg.noise_rule == NoiseRule::kPerPosition && eg.noise_prob > 0) {
      // The paper code: each of "S2 [SEP]" with probability ρ, by any token of the vocabulary.
      std::uniform_real_distribution<double> coin(0.0, 1.0);
      std::uniform_int_distribution<int64_t> any_token(0, ids.vocab_size - 1);
      auto draw_coin = [&] {
        if (!replay) return coin(rng);
        if (replay->next_coin >= replay->coins.size())
          throw InputError("noise replay: out of coins");
        return replay->coins[replay->next_coin++];
      };
      auto draw_token = [&] {
        if (!replay) return any_token(rng);
        if (replay->next_token >= replay->tokens.size())
          throw InputError("noise replay: out of tokens");
        return replay->tokens[replay->next_token++];
      };
      for (int64_t p = src[b]; p < src[b] + tgt[b]; ++p)
        if (draw_coin() < eg.noise_prob) in[b][p] = draw_token(), nz[b][p] = 1;
    }
    const int64_t n_noise = eg.noise_rule == NoiseRule::kCount
                                ? static_cast<int64_t>(std::floor(eg.noise_prob * double(n_words)))
                                : 0;
    if (n_noise > 0) {
      std::vector<int64_t> pos(n_words);
      std::iota(pos.begin(), pos.end(), src[b]);
      std::shuffle(pos.begin(), pos.end(), rng);
      for (int64_t k = 0; k < n_noise; ++k) in[b][pos[k]] = random_token(rng), nz[b][pos[k]] = 1;
    }
    for (int64_t i = 0; i < tgt[b]; ++i) {
      fi[b][i] = ids.attn;
      fp[b][i] = src[b] + i;
      target_index.push_back(b * Tm + i);
      labels.push_back(i < n_words ? ex.tgt[i] : ids.sep);
      own[b].push_back(i);
    }
    if (with_span) {
      std::vector<int64_t> starts = span_vocab->span_starts(ex.tgt);
      starts.push_back(n_words);  // the closing [SEP] is a span of its own
      first[b] = span_start_of(starts, tgt[b]);
    }
  }
  batch.word = flow;
  batch.word.mask = flow_mask(src, tgt, own, Tx, Tm);
  if (with_span) {
    batch.span = flow;
    batch.span.mask = flow_mask(src, tgt, first, Tx, Tm);
  }
  batch.target_index = torch::tensor(target_index, torch::kInt64);
  batch.labels = torch::tensor(labels, torch::kInt64);
  return batch;
}

ErnieGenLossTensors ernie_gen_loss_tensors(UnilmModel& model, const ErnieGenBatch& batch,
                                           double lambda, double label_smoothing,
                                           LabelSmoothing form) {
  const torch::Device device = device_of(*model);
  std::vector<FlowInput> flows = {batch.word};
  const bool with_span = lambda < 1.0;
  if (with_span) flows.push_back(batch.span);
  MultiFlowOutput out = multi_flow_forward(model, batch.context, flows);
  const torch::Tensor index = batch.target_index.to(device);
  const torch::Tensor labels = batch.labels.to(device);
  // With the copy head (config unieval_copy) each flow's predictions mix in a copy of S, read from
  // the contextual flow's states; label_smoothed_nll of log-probabilities is the loss of them
  // (log_softmax leaves log-probabilities as they are).
  CopySource copy_source;
  if (model->copy)
    copy_source =
        packed_copy_source(out.context, batch.context.input_ids.to(device), batch.source_len);
  auto flow_loss = [&](const torch::Tensor& h) {
    const int64_t H = h.size(-1);
    if (model->copy)
      return label_smoothed_nll(model->next_token_log_probs(h, index, &copy_source), labels,
                                label_smoothing, nullptr, form);
    return label_smoothed_nll(model->mlm_logits(h.reshape({-1, H}).index_select(0, index)), labels,
                              label_smoothing, nullptr, form);
  };
  ErnieGenLossTensors r;
  auto [lw, nw] = flow_loss(out.flows[0]);
  r.word_nll = nw.detach();
  r.loss = lw;
  if (with_span) {
    auto [ls, ns] = flow_loss(out.flows[1]);
    r.span_nll = ns.detach();
    r.loss = lambda * lw + (1.0 - lambda) * ls;
  }
  return r;
}

ErnieGenLoss ernie_gen_loss(UnilmModel& model, const ErnieGenBatch& batch, double lambda,
                            double label_smoothing, LabelSmoothing form) {
  const ErnieGenLossTensors t = ernie_gen_loss_tensors(model, batch, lambda, label_smoothing, form);
  ErnieGenLoss r;
  r.loss = t.loss;
  r.word_nll = t.word_nll.item<double>();
  if (t.span_nll.defined()) r.span_nll = t.span_nll.item<double>();
  return r;
}

// ---- pre-training fragments ---------------------------------------------------------------------

Seq2SeqExample sample_fragments(const std::vector<int64_t>& text, double ratio,
                                std::mt19937_64& rng) {
  const int64_t n = static_cast<int64_t>(text.size());
  int64_t budget = std::max<int64_t>(1, static_cast<int64_t>(std::llround(ratio * double(n))));
  if (n < 2) return {text, {}};
  budget = std::min(budget, n - 1);  // keep at least one source token
  std::vector<char> taken(n, 0);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  int64_t left = budget;
  int misses = 0;
  while (left > 0 && misses < 16) {
    const bool short_span = uni(rng) < 0.4;
    std::uniform_int_distribution<int64_t> len_dist(short_span ? 1 : 4, short_span ? 4 : 32);
    const int64_t len = std::min(len_dist(rng), left);
    bool placed = false;
    for (int tries = 0; tries < 16 && !placed; ++tries) {
      std::uniform_int_distribution<int64_t> start_dist(0, n - len);
      const int64_t s = start_dist(rng);
      bool free = true;
      for (int64_t i = s; i < s + len && free; ++i) free = !taken[i];
      if (!free) continue;
      for (int64_t i = s; i < s + len; ++i) taken[i] = 1;
      left -= len;
      placed = true;
    }
    misses = placed ? 0 : misses + 1;
  }
  Seq2SeqExample ex;
  for (int64_t i = 0; i < n; ++i) (taken[i] ? ex.tgt : ex.src).push_back(text[i]);
  return ex;
}

ErnieGenBatch make_ernie_gen_pretrain_batch(const TokenShard& shard, int64_t max_len,
                                            const Seq2SeqDataOptions& types,
                                            const ErnieGenOptions& eg, const SpecialIds& ids,
                                            const SpanVocab* span_vocab, uint64_t seed,
                                            int64_t step, int64_t micro, int64_t accum,
                                            int64_t batch_size) {
  if (shard.sentences() == 0) throw InputError("the pre-training shard holds no sentences");
  const int64_t budget = max_len - 3;
  if (budget < 2)
    throw InputError("--max-len " + std::to_string(max_len) +
                     " leaves no room for a text (ernie-gen)");
  std::vector<Seq2SeqExample> examples;
  std::vector<int64_t> text;
  for (int64_t i = 0; i < batch_size; ++i) {
    const uint64_t g = static_cast<uint64_t>((step * accum + micro) * batch_size + i);
    std::mt19937_64 rng(seed_mix(seed, g));
    std::uniform_int_distribution<int64_t> pick(0, shard.sentences() - 1);
    const int64_t first = pick(rng);
    const int64_t end = shard.doc_end(shard.document_of(first));
    text.clear();
    for (int64_t s = first; s < end && static_cast<int64_t>(text.size()) < budget; ++s)
      shard.append_sentence(s, text);
    if (static_cast<int64_t>(text.size()) > budget) text.resize(budget);
    examples.push_back(sample_fragments(text, eg.fragment_ratio, rng));
  }
  std::vector<size_t> idx(examples.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  const uint64_t noise_stream = kErnieGenNoiseStream + static_cast<uint64_t>(micro);
  std::mt19937_64 noise(seed_mix(seed_mix(seed, static_cast<uint64_t>(step)), noise_stream));
  return make_ernie_gen_batch(examples, idx, types, eg, ids, span_vocab, noise);
}

}  // namespace unieval::models
