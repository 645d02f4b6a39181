// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "models/decoding/search_unilm.h"

#include <algorithm>

#include "models/nn/device.h"
#include "models/nn/masks.h"
#include "models/nn/row_ops.h"

namespace unieval::models {

namespace {

torch::Tensor index_tensor(const std::vector<int64_t>& v, torch::Device d) {
  return torch::tensor(v, torch::kInt64).to(d);
}

}  // namespace

UnilmStepScorer::UnilmStepScorer(UnilmModel model, std::vector<std::vector<int64_t>> sources,
                                 SpecialIds ids, Seq2SeqDataOptions types, bool use_cache,
                                 int64_t query_token)
    : model_(std::move(model)),
      sources_(std::move(sources)),
      ids_(ids),
      types_(types),
      use_cache_(use_cache),
      query_(query_token >= 0 ? query_token : ids.mask),
      device_(device_of(*model_)) {
  for (const auto& s : sources_) src_len_.push_back(static_cast<int64_t>(s.size()) + 2);
}

torch::Tensor UnilmStepScorer::step(const StepRequest& req) {
  torch::NoGradGuard no_grad;
  return use_cache_ ? step_cached(req) : step_uncached(req);
}

torch::Tensor UnilmStepScorer::log_probs(const torch::Tensor& hidden,
                                         const torch::Tensor& examples) {
  if (!model_->copy) return log_softmax_last_dim(model_->mlm_logits(hidden).to(torch::kFloat));
  const CopySource rows = copy_source_.select(examples);
  return model_->next_token_log_probs(hidden.unsqueeze(1), {}, &rows);
}

torch::Tensor UnilmStepScorer::step_cached(const StepRequest& req) {
  const int64_t R = static_cast<int64_t>(req.example.size());
  if (req.step == 0) {
    // Encode every source once: [CLS] S1 [SEP] right-padded, bidirectional within the source.
    const int64_t B = static_cast<int64_t>(sources_.size());
    const int64_t L = B ? *std::max_element(src_len_.begin(), src_len_.end()) : 0;
    torch::Tensor ids = torch::full({B, L}, ids_.pad, torch::kInt64);
    torch::Tensor mask = torch::zeros({B, L, L}, torch::kInt64);
    torch::Tensor valid = torch::zeros({B, L}, torch::kInt64);
    auto a = ids.accessor<int64_t, 2>();
    auto m = mask.accessor<int64_t, 3>();
    auto v = valid.accessor<int64_t, 2>();
    for (int64_t b = 0; b < B; ++b) {
      int64_t t = 0;
      a[b][t++] = ids_.cls;
      for (int64_t w : sources_[b]) a[b][t++] = w;
      a[b][t++] = ids_.sep;
      for (int64_t i = 0; i < L; ++i) {
        if (i < src_len_[b]) {
          v[b][i] = 1;
          for (int64_t j = 0; j < src_len_[b]; ++j) m[b][i][j] = 1;
        } else {
          m[b][i][i] = 1;  // padding row sees itself only (finite softmax); no one sees it
        }
      }
    }
    torch::Tensor types = torch::full({B, L}, types_.source_type, torch::kInt64);
    torch::Tensor pos = torch::arange(L, torch::kInt64).unsqueeze(0).expand({B, L}).contiguous();
    KVCache empty;
    StepOutput out = model_->forward_step(ids.to(device_), types.to(device_), pos.to(device_),
                                          mask.to(device_), empty);
    source_cache_ = KVCache{};
    std::vector<int64_t> all(L);
    for (int64_t i = 0; i < L; ++i) all[i] = i;
    append_to_cache(source_cache_, out, all);
    if (model_->copy) {
      std::vector<int64_t> words(B);
      for (int64_t b = 0; b < B; ++b) words[b] = src_len_[b] - 2;
      copy_source_ =
          model_->copy->with_keys(packed_copy_source(out.hidden, ids.to(device_), words));
    }
    // Rows of step 0 = the requested examples.
    cache_ = source_cache_;
    torch::Tensor rows = index_tensor(req.example, device_);
    reorder_cache(cache_, rows);
    reserve_cache(cache_, cache_.length() + 1);  // preallocated from here on (grows if needed)
    valid_ = valid.to(device_).index_select(0, rows);
    if (types_.target_bos) {
      // ERNIE-GEN's layout: [CLS] opens the target, fed with the first query and cached.
      std::vector<int64_t> prev(R, ids_.cls), pos(R);
      for (int64_t r = 0; r < R; ++r) pos[r] = src_len_[req.example[r]];
      return feed_pair(prev, pos, rows);
    }
    // Feed [MASK] at position |S1|+2.
    std::vector<int64_t> p(R);
    for (int64_t r = 0; r < R; ++r) p[r] = src_len_[req.example[r]];
    torch::Tensor q_ids = torch::full({R, 1}, query_, torch::kInt64).to(device_);
    torch::Tensor q_types = torch::full({R, 1}, types_.target_type, torch::kInt64).to(device_);
    torch::Tensor q_pos = index_tensor(p, device_).view({R, 1});
    torch::Tensor q_mask =
        torch::cat({valid_, torch::ones({R, 1}, valid_.options())}, 1).unsqueeze(1);
    StepOutput s = model_->forward_step(q_ids, q_types, q_pos, q_mask, cache_);
    return log_probs(s.hidden.select(1, 0), rows);
  }
  // Step t >= 1: reorder to the surviving rows, then feed [y(t-1), MASK].
  torch::Tensor parent = index_tensor(req.parent, device_);
  reorder_cache(cache_, parent);
  valid_ = valid_.index_select(0, parent);
  const int64_t bos = types_.target_bos ? 1 : 0;
  std::vector<int64_t> pos(R);
  for (int64_t r = 0; r < R; ++r) pos[r] = src_len_[req.example[r]] + bos + req.step - 1;
  return feed_pair(req.last_token, pos, index_tensor(req.example, device_));
}

torch::Tensor UnilmStepScorer::feed_pair(const std::vector<int64_t>& prev,
                                         const std::vector<int64_t>& pos,
                                         const torch::Tensor& examples) {
  const int64_t R = static_cast<int64_t>(prev.size());
  reserve_cache(cache_, cache_.length() + 2);
  std::vector<int64_t> p(2 * R), tok(2 * R);
  for (int64_t r = 0; r < R; ++r) {
    p[2 * r] = pos[r];
    p[2 * r + 1] = pos[r] + 1;
    tok[2 * r] = prev[r];
    tok[2 * r + 1] = query_;
  }
  torch::Tensor q_ids = index_tensor(tok, device_).view({R, 2});
  torch::Tensor q_pos = index_tensor(p, device_).view({R, 2});
  torch::Tensor q_types = torch::full({R, 2}, types_.target_type, torch::kInt64).to(device_);
  // Row 0 (the previous token) sees the cache and itself; row 1 ([MASK]) also sees row 0.
  torch::Tensor tail =
      torch::tensor({1, 0, 1, 1}, torch::kInt64).view({1, 2, 2}).expand({R, 2, 2}).to(device_);
  torch::Tensor q_mask = torch::cat({valid_.unsqueeze(1).expand({R, 2, valid_.size(1)}), tail}, 2);
  StepOutput s = model_->forward_step(q_ids, q_types, q_pos, q_mask, cache_);
  append_to_cache(cache_, s, {0});
  valid_ = torch::cat({valid_, torch::ones({R, 1}, valid_.options())}, 1);
  return log_probs(s.hidden.select(1, 1), examples);
}

torch::Tensor UnilmStepScorer::step_uncached(const StepRequest& req) {
  const int64_t R = static_cast<int64_t>(req.example.size());
  std::vector<std::vector<int64_t>> prefix(R);
  for (int64_t r = 0; r < R; ++r) {
    if (req.step > 0) {
      prefix[r] = prefix_[req.parent[r]];
      prefix[r].push_back(req.last_token[r]);
    } else if (types_.target_bos) {
      prefix[r] = {ids_.cls};  // ERNIE-GEN's layout: [CLS] opens the target
    }
  }
  prefix_ = prefix;
  // "[CLS] S1 [SEP] y1..y(t-1) [MASK]" per row, right-padded, seq2seq mask.
  std::vector<int64_t> sl(R), tl(R);
  int64_t T = 0;
  for (int64_t r = 0; r < R; ++r) {
    sl[r] = src_len_[req.example[r]];
    tl[r] = static_cast<int64_t>(prefix[r].size()) + 1;
    T = std::max(T, sl[r] + tl[r]);
  }
  torch::Tensor ids = torch::full({R, T}, ids_.pad, torch::kInt64);
  torch::Tensor types = torch::full({R, T}, types_.source_type, torch::kInt64);
  auto a = ids.accessor<int64_t, 2>();
  auto ty = types.accessor<int64_t, 2>();
  std::vector<int64_t> last(R);
  for (int64_t r = 0; r < R; ++r) {
    int64_t t = 0;
    a[r][t++] = ids_.cls;
    for (int64_t w : sources_[req.example[r]]) a[r][t++] = w;
    a[r][t++] = ids_.sep;
    for (int64_t w : prefix[r]) ty[r][t] = types_.target_type, a[r][t++] = w;
    ty[r][t] = types_.target_type, a[r][t++] = query_;
    last[r] = r * T + t - 1;
  }
  torch::Tensor mask = seq2seq_mask(sl, tl, T);
  BertOutput out = model_->forward(ids.to(device_), types.to(device_), mask.to(device_));
  torch::Tensor h =
      out.last_hidden_state.reshape({R * T, -1}).index_select(0, index_tensor(last, device_));
  if (!model_->copy) return log_probs(h, {});
  std::vector<int64_t> words(R);
  for (int64_t r = 0; r < R; ++r) words[r] = sl[r] - 2;
  const CopySource rows = packed_copy_source(out.last_hidden_state, ids.to(device_), words);
  return model_->next_token_log_probs(h.unsqueeze(1), {}, &rows);
}

}  // namespace unieval::models
