// Follows UniLM (MIT) and google-research/bert (Apache-2.0) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// The cloze masking loop of unilm-v1 `Preprocess4Seq2seq` (spans, 80/10/10), BERT
// `create_pretraining_data.py` pair sampling (NSP, truncate_seq_pair); the header says where this
// differs.
#include "models/training/pretrain_data.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "models/training/train_util.h"

namespace unieval::models {

void PretrainDataOptions::validate() const {
  if (max_len < 8) throw InputError("--max-len must be at least 8");
  if (!(mask_prob > 0.0 && mask_prob <= 1.0)) throw InputError("--mask-prob must be in (0, 1]");
  if (max_pred < 1) throw InputError("--max-pred must be at least 1");
  if (span_prob < 0.0 || span_prob > 1.0) throw InputError("--span-prob must be in [0, 1]");
  if (max_span < 1) throw InputError("--max-span must be at least 1");
  if (short_seq_prob < 0.0 || short_seq_prob > 1.0)
    throw InputError("--short-seq-prob must be in [0, 1]");
  if (nsp_random_prob < 0.0 || nsp_random_prob > 1.0)
    throw InputError("--nsp-random-prob must be in [0, 1]");
  if (segments != "unilm" && segments != "bert")
    throw InputError("--segments must be 'unilm' or 'bert', got '" + segments + "'");
}

std::pair<int64_t, int64_t> segment_ids(MaskKind objective, const std::string& scheme) {
  if (scheme == "bert") return {0, 1};
  switch (objective) {
    case MaskKind::kBidirectional:
      return {0, 1};
    case MaskKind::kLeftToRight:
      return {2, 2};
    case MaskKind::kRightToLeft:
      return {3, 3};
    case MaskKind::kSeq2Seq:
      return {4, 5};
  }
  return {0, 1};
}

int64_t PretrainDataOptions::max_segment_id(const std::vector<MaskKind>& cycle) const {
  int64_t m = 0;
  for (MaskKind k : cycle) {
    auto [a, b] = segment_ids(k, segments);
    const bool pair = k == MaskKind::kBidirectional || k == MaskKind::kSeq2Seq;
    m = std::max(m, pair ? std::max(a, b) : a);
  }
  return m;
}

std::vector<MaskKind> objective_cycle(const std::string& objectives) {
  if (objectives == "ernie-gen")
    return {MaskKind::kSeq2Seq};  // its segments; the batches: models/training/ernie_gen.h
  if (objectives == "unified") {
    return {MaskKind::kBidirectional, MaskKind::kSeq2Seq,     MaskKind::kBidirectional,
            MaskKind::kSeq2Seq,       MaskKind::kLeftToRight, MaskKind::kRightToLeft};
  }
  try {
    return {parse_mask_kind(objectives)};
  } catch (const InputError&) {
    throw InputError(
        "unknown --objectives '" + objectives +
        "' (expected unified, bidirectional, left-to-right, right-to-left, seq2seq or ernie-gen)");
  }
}

namespace {

int64_t uniform_int(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // inclusive
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

double uniform01(std::mt19937_64& rng) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

// Sentences from s onward in its document until `budget` tokens are reached (at least one
// sentence); when the document ends first, earlier sentences of it are added in front.
std::vector<std::vector<int64_t>> sample_chunk(const TokenShard& shard, int64_t s, int64_t budget) {
  const int64_t d = shard.document_of(s);
  const int64_t begin = shard.doc_begin(d), end = shard.doc_end(d);
  std::vector<std::vector<int64_t>> out;
  int64_t have = 0;
  int64_t last = s;
  for (; last < end && (out.empty() || have < budget); ++last) {
    out.emplace_back();
    shard.append_sentence(last, out.back());
    have += static_cast<int64_t>(out.back().size());
  }
  for (int64_t first = s - 1; first >= begin && have < budget; --first) {
    std::vector<int64_t> sent;
    shard.append_sentence(first, sent);
    have += static_cast<int64_t>(sent.size());
    out.insert(out.begin(), std::move(sent));
  }
  return out;
}

std::vector<int64_t> concat(const std::vector<std::vector<int64_t>>& sents, size_t from,
                            size_t to) {
  std::vector<int64_t> out;
  for (size_t i = from; i < to && i < sents.size(); ++i)
    out.insert(out.end(), sents[i].begin(), sents[i].end());
  return out;
}

// BERT truncate_seq_pair: the longer side loses a token at its front or back until they fit.
void truncate_pair(std::vector<int64_t>& a, std::vector<int64_t>& b, int64_t budget,
                   std::mt19937_64& rng) {
  while (static_cast<int64_t>(a.size() + b.size()) > budget) {
    auto& longer = a.size() > b.size() ? a : b;
    if (uniform01(rng) < 0.5)
      longer.erase(longer.begin());
    else
      longer.pop_back();
  }
}

}  // namespace

void cloze_mask(std::vector<int64_t>& input_ids, const std::vector<char>& candidate,
                const PretrainDataOptions& opts, const SpecialIds& ids, std::mt19937_64& rng,
                std::vector<int64_t>& positions, std::vector<int64_t>& labels) {
  const int64_t T = static_cast<int64_t>(input_ids.size());
  if (static_cast<int64_t>(candidate.size()) != T)
    throw InputError("cloze masking: " + std::to_string(candidate.size()) +
                     " candidate flags for " + std::to_string(T) + " tokens");
  std::vector<int64_t> cand;
  for (int64_t t = 0; t < T; ++t)
    if (candidate[t]) cand.push_back(t);
  if (cand.empty()) return;
  const int64_t n_pred = std::min<int64_t>(
      opts.max_pred,
      std::max<int64_t>(1, std::llround(opts.mask_prob * static_cast<double>(cand.size()))));
  std::shuffle(cand.begin(), cand.end(), rng);
  std::vector<char> chosen(T, 0);
  int64_t n_chosen = 0;
  for (int64_t pos : cand) {
    if (n_chosen >= n_pred) break;
    if (chosen[pos]) continue;
    int64_t span = 1;
    if (opts.max_span >= 2 && uniform01(rng) < opts.span_prob)
      span = uniform_int(rng, 2, opts.max_span);
    for (int64_t p = pos; p < pos + span && n_chosen < n_pred; ++p) {
      if (p >= T || !candidate[p]) break;
      if (!chosen[p]) {
        chosen[p] = 1;
        ++n_chosen;
      }
    }
  }
  for (int64_t t = 0; t < T; ++t) {
    if (!chosen[t]) continue;
    positions.push_back(t);
    labels.push_back(input_ids[t]);
    const double u = uniform01(rng);
    if (u < 0.8)
      input_ids[t] = ids.mask;
    else if (u < 0.9)
      input_ids[t] = uniform_int(rng, ids.first_regular, ids.vocab_size - 1);
  }
}

PretrainInstance make_instance(const TokenShard& shard, MaskKind objective,
                               const PretrainDataOptions& opts, const SpecialIds& ids,
                               std::mt19937_64& rng) {
  const bool pair = objective == MaskKind::kBidirectional || objective == MaskKind::kSeq2Seq;
  const int64_t max_text = opts.max_len - (pair ? 3 : 2);
  int64_t budget = max_text;
  if (uniform01(rng) < opts.short_seq_prob)
    budget = uniform_int(rng, std::min<int64_t>(2, max_text), max_text);
  const int64_t start = uniform_int(rng, 0, shard.sentences() - 1);
  auto sents = sample_chunk(shard, start, budget);

  PretrainInstance inst;
  inst.objective = objective;
  const auto [type_a, type_b] = segment_ids(objective, opts.segments);
  std::vector<int64_t> a, b;
  if (pair) {
    const size_t k = sents.size();
    bool random_next = false;
    if (objective == MaskKind::kBidirectional)
      random_next = k == 1 || uniform01(rng) < opts.nsp_random_prob;
    if (random_next) {
      const size_t a_end =
          k == 1 ? 1 : static_cast<size_t>(uniform_int(rng, 1, static_cast<int64_t>(k) - 1));
      a = concat(sents, 0, a_end);
      // Another document (BERT: a random document, then a random start in it); a one-document
      // corpus can only give its own text.
      const int64_t doc = shard.document_of(start);
      int64_t other_doc = doc;
      if (shard.documents() > 1) {
        other_doc = uniform_int(rng, 0, shard.documents() - 2);
        if (other_doc >= doc) ++other_doc;
      }
      const int64_t other =
          uniform_int(rng, shard.doc_begin(other_doc), shard.doc_end(other_doc) - 1);
      const int64_t b_budget = std::max<int64_t>(1, budget - static_cast<int64_t>(a.size()));
      auto bs = sample_chunk(shard, other, b_budget);
      b = concat(bs, 0, bs.size());
      inst.nsp_label = 1;
    } else if (k >= 2) {
      const size_t a_end = static_cast<size_t>(uniform_int(rng, 1, static_cast<int64_t>(k) - 1));
      a = concat(sents, 0, a_end);
      b = concat(sents, a_end, k);
      if (objective == MaskKind::kBidirectional) inst.nsp_label = 0;
    } else {
      // One sentence (seq2seq only): cut it at a random token.
      a = concat(sents, 0, 1);
      if (static_cast<int64_t>(a.size()) > budget) a.resize(budget);
      if (a.size() >= 2) {
        const size_t cut =
            static_cast<size_t>(uniform_int(rng, 1, static_cast<int64_t>(a.size()) - 1));
        b.assign(a.begin() + static_cast<std::ptrdiff_t>(cut), a.end());
        a.resize(cut);
      }
    }
    truncate_pair(a, b, max_text, rng);
    inst.input_ids.push_back(ids.cls);
    inst.input_ids.insert(inst.input_ids.end(), a.begin(), a.end());
    inst.input_ids.push_back(ids.sep);
    inst.source_length = static_cast<int64_t>(inst.input_ids.size());
    inst.input_ids.insert(inst.input_ids.end(), b.begin(), b.end());
    inst.input_ids.push_back(ids.sep);
    inst.token_type_ids.assign(inst.source_length, type_a);
    inst.token_type_ids.resize(inst.input_ids.size(), type_b);
  } else {
    a = concat(sents, 0, sents.size());
    if (static_cast<int64_t>(a.size()) > budget) a.resize(budget);
    inst.input_ids.push_back(ids.cls);
    inst.input_ids.insert(inst.input_ids.end(), a.begin(), a.end());
    inst.input_ids.push_back(ids.sep);
    inst.source_length = static_cast<int64_t>(inst.input_ids.size());
    inst.token_type_ids.assign(inst.input_ids.size(), type_a);
  }

  // Cloze masking over the text tokens ([CLS] and [SEP] positions are never candidates).
  const int64_t T = static_cast<int64_t>(inst.input_ids.size());
  std::vector<char> candidate(T, 1);
  candidate[0] = 0;
  candidate[T - 1] = 0;
  if (pair) candidate[inst.source_length - 1] = 0;
  cloze_mask(inst.input_ids, candidate, opts, ids, rng, inst.masked_positions, inst.labels);
  return inst;
}

PretrainBatch collate(const std::vector<PretrainInstance>& instances, int64_t pad_id) {
  const int64_t B = static_cast<int64_t>(instances.size());
  int64_t T = 0;
  for (const auto& in : instances)
    T = std::max<int64_t>(T, static_cast<int64_t>(in.input_ids.size()));
  PretrainBatch batch;
  batch.input_ids = torch::full({B, T}, pad_id, torch::kInt64);
  batch.token_type_ids = torch::zeros({B, T}, torch::kInt64);
  batch.attention_mask = torch::zeros({B, T, T}, torch::kInt64);
  auto in = batch.input_ids.accessor<int64_t, 2>();
  auto ty = batch.token_type_ids.accessor<int64_t, 2>();
  std::vector<int64_t> masked, labels, objective, nsp_rows, nsp_labels;
  for (int64_t b = 0; b < B; ++b) {
    const auto& x = instances[b];
    for (size_t t = 0; t < x.input_ids.size(); ++t) {
      in[b][t] = x.input_ids[t];
      ty[b][t] = x.token_type_ids[t];
    }
    batch.tokens += static_cast<int64_t>(x.input_ids.size());
    for (size_t k = 0; k < x.masked_positions.size(); ++k) {
      masked.push_back(b * T + x.masked_positions[k]);
      labels.push_back(x.labels[k]);
      objective.push_back(static_cast<int64_t>(x.objective));
    }
    if (x.nsp_label >= 0) {
      nsp_rows.push_back(b);
      nsp_labels.push_back(x.nsp_label);
    }
    batch.objectives.push_back(x.objective);
  }
  // Each objective's rows get its mask (models/nn/masks.h), built for its examples together.
  for (MaskKind kind : {MaskKind::kBidirectional, MaskKind::kLeftToRight, MaskKind::kRightToLeft,
                        MaskKind::kSeq2Seq}) {
    std::vector<int64_t> rows, lengths, sources;
    for (int64_t b = 0; b < B; ++b) {
      if (instances[b].objective != kind) continue;
      rows.push_back(b);
      lengths.push_back(static_cast<int64_t>(instances[b].input_ids.size()));
      sources.push_back(instances[b].source_length);
    }
    if (rows.empty()) continue;
    torch::Tensor m =
        build_mask(kind, lengths, T, kind == MaskKind::kSeq2Seq ? sources : std::vector<int64_t>{});
    batch.attention_mask.index_copy_(0, torch::tensor(rows, torch::kInt64), m);
  }
  auto vec = [](const std::vector<int64_t>& v) { return torch::tensor(v, torch::kInt64); };
  batch.masked_index = masked.empty() ? torch::zeros({0}, torch::kInt64) : vec(masked);
  batch.labels = labels.empty() ? torch::zeros({0}, torch::kInt64) : vec(labels);
  batch.masked_objective = objective.empty() ? torch::zeros({0}, torch::kInt64) : vec(objective);
  batch.nsp_rows = nsp_rows.empty() ? torch::zeros({0}, torch::kInt64) : vec(nsp_rows);
  batch.nsp_labels = nsp_labels.empty() ? torch::zeros({0}, torch::kInt64) : vec(nsp_labels);
  return batch;
}

PretrainBatch make_pretrain_batch(const TokenShard& shard, const std::vector<MaskKind>& cycle,
                                  const PretrainDataOptions& opts, const SpecialIds& ids,
                                  uint64_t seed, int64_t step, int64_t micro, int64_t accum,
                                  int64_t batch_size) {
  std::vector<PretrainInstance> instances;
  instances.reserve(static_cast<size_t>(batch_size));
  for (int64_t i = 0; i < batch_size; ++i) {
    const uint64_t g = static_cast<uint64_t>((step * accum + micro) * batch_size + i);
    std::mt19937_64 rng(seed_mix(seed, g));
    instances.push_back(make_instance(shard, cycle[g % cycle.size()], opts, ids, rng));
  }
  return collate(instances, ids.pad);
}

}  // namespace unieval::models
