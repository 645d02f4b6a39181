// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "models/training/seq2seq_data.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

#include "core/error.h"
#include "core/io.h"
#include "models/nn/masks.h"

namespace unieval::models {

SpecialIds special_ids(const Vocab& vocab, const std::string& vocab_path) {
  auto need = [&](const char* tok) {
    const int32_t id = vocab.id(tok);
    if (id < 0)
      throw InputError(vocab_path, 0, std::string("the vocabulary has no ") + tok + " token");
    return static_cast<int64_t>(id);
  };
  SpecialIds ids;
  ids.pad = need("[PAD]");
  ids.unk = need("[UNK]");
  ids.cls = need("[CLS]");
  ids.sep = need("[SEP]");
  ids.mask = need("[MASK]");
  const int32_t attn = vocab.id("[ATTN]");
  ids.attn = attn >= 0 ? attn : ids.mask;
  ids.vocab_size = static_cast<int64_t>(vocab.size());
  ids.first_regular = std::max({ids.pad, ids.unk, ids.cls, ids.sep, ids.mask}) + 1;
  if (ids.first_regular >= ids.vocab_size) ids.first_regular = 0;
  return ids;
}

Seq2SeqExample truncate(const Seq2SeqExample& ex, const Seq2SeqDataOptions& opts) {
  Seq2SeqExample out = ex;
  if (opts.max_src_len >= 0 && static_cast<int>(out.src.size()) > opts.max_src_len)
    out.src.resize(opts.max_src_len);
  if (opts.max_tgt_len >= 0 && static_cast<int>(out.tgt.size()) > opts.max_tgt_len)
    out.tgt.resize(opts.max_tgt_len);
  return out;
}

TrainBatch make_train_batch(const std::vector<Seq2SeqExample>& examples,
                            const std::vector<size_t>& idx, const Seq2SeqDataOptions& opts,
                            const SpecialIds& ids, std::mt19937_64& rng) {
  const int64_t B = static_cast<int64_t>(idx.size());
  int64_t T = 0;
  for (size_t i : idx) T = std::max(T, packed_length(examples[i]));
  TrainBatch batch;
  batch.input_ids = torch::full({B, T}, ids.pad, torch::kInt64);
  batch.token_type_ids = torch::zeros({B, T}, torch::kInt64);
  auto in = batch.input_ids.accessor<int64_t, 2>();
  auto ty = batch.token_type_ids.accessor<int64_t, 2>();
  std::vector<int64_t> src_len(B), tgt_len(B), masked, labels;
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  for (int64_t b = 0; b < B; ++b) {
    const auto& ex = examples[idx[b]];
    int64_t t = 0;
    in[b][t] = ids.cls, ty[b][t++] = opts.source_type;
    for (int64_t w : ex.src) in[b][t] = w, ty[b][t++] = opts.source_type;
    in[b][t] = ids.sep, ty[b][t++] = opts.source_type;
    src_len[b] = t;
    batch.source_len.push_back(static_cast<int64_t>(ex.src.size()));
    for (int64_t w : ex.tgt) in[b][t] = w, ty[b][t++] = opts.target_type;
    in[b][t] = ids.sep, ty[b][t++] = opts.target_type;
    tgt_len[b] = t - src_len[b];
    batch.tokens += t;
    // Masked target positions: a fixed count drawn without replacement (s2s-ft Preprocess4Seq2seq).
    const int64_t n_tgt = tgt_len[b];
    int64_t n_pred = std::max<int64_t>(1, std::llround(opts.mask_prob * double(n_tgt)));
    if (opts.max_pred > 0) n_pred = std::min<int64_t>(n_pred, opts.max_pred);
    n_pred = std::min(n_pred, n_tgt);
    std::vector<int64_t> cand(n_tgt);
    std::iota(cand.begin(), cand.end(), src_len[b]);
    std::shuffle(cand.begin(), cand.end(), rng);
    cand.resize(n_pred);
    std::sort(cand.begin(), cand.end());
    if (opts.noise_prob > 0.0) {
      // Noise-aware generation (ERNIE-GEN §3.2): corrupt the visible target context.
      std::uniform_int_distribution<int64_t> tok(ids.first_regular, ids.vocab_size - 1);
      size_t k = 0;
      for (int64_t pos = src_len[b]; pos < src_len[b] + n_tgt; ++pos) {
        if (k < cand.size() && cand[k] == pos) {
          ++k;
          continue;
        }
        if (uni(rng) < opts.noise_prob) in[b][pos] = tok(rng);
      }
    }
    for (int64_t pos : cand) {
      masked.push_back(b * T + pos);
      labels.push_back(in[b][pos]);
      if (!opts.mask_80_10_10) {
        in[b][pos] = ids.mask;
      } else {
        const double u = uni(rng);
        if (u < 0.8) {
          in[b][pos] = ids.mask;
        } else if (u < 0.9) {
          std::uniform_int_distribution<int64_t> tok(ids.first_regular, ids.vocab_size - 1);
          in[b][pos] = tok(rng);
        }  // else: keep the original token
      }
    }
  }
  batch.attention_mask = seq2seq_mask(src_len, tgt_len, T);
  batch.masked_index = torch::tensor(masked, torch::kInt64);
  batch.labels = torch::tensor(labels, torch::kInt64);
  return batch;
}

std::vector<std::vector<size_t>> make_batches(const std::vector<int64_t>& lengths,
                                              int64_t batch_tokens, int64_t max_examples,
                                              std::mt19937_64& rng) {
  if (batch_tokens <= 0) throw InputError("--batch-tokens must be positive");
  std::vector<size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::vector<size_t>> out;
  std::vector<size_t> cur;
  int64_t longest = 0;
  for (size_t i : order) {
    const int64_t l = std::max<int64_t>(longest, lengths[i]);
    const bool fits = (static_cast<int64_t>(cur.size()) + 1) * l <= batch_tokens &&
                      (max_examples <= 0 || static_cast<int64_t>(cur.size()) < max_examples);
    if (!cur.empty() && !fits) {
      out.push_back(std::move(cur));
      cur.clear();
      longest = 0;
    }
    cur.push_back(i);
    longest = std::max<int64_t>(longest, lengths[i]);
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// ---- Synthetic task ---------------------------------------------------------------------------

std::string SyntheticTask::vocab_text() const {
  std::string s = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
  for (const auto& w : words) s += w + "\n";
  return s;
}

SyntheticTask make_synthetic_task(const SyntheticTaskOptions& o) {
  if (o.kind != "reverse" && o.kind != "sort" && o.kind != "copy")
    throw InputError("unknown synthetic task '" + o.kind + "' (expected reverse, sort or copy)");
  if (o.n_words < 2 || o.min_len < 1 || o.max_len < o.min_len)
    throw InputError("synthetic task: need n_words >= 2 and 1 <= min_len <= max_len");
  SyntheticTask task;
  std::mt19937_64 rng(o.seed);
  // Pseudo-words: consonant-vowel syllables, distinct, lower-case ASCII (WordPiece keeps them whole
  // because each is a vocabulary entry).
  const std::string cons = "bdfgklmnprstvz", vow = "aeiou";
  std::set<std::string> seen;
  while (static_cast<int>(task.words.size()) < o.n_words) {
    std::string w;
    for (int s = 0; s < 2; ++s) {
      w += cons[rng() % cons.size()];
      w += vow[rng() % vow.size()];
    }
    if (seen.insert(w).second) task.words.push_back(w);
  }
  std::set<std::string> used;  // splits do not share sources
  auto make_split = [&](int n, std::vector<std::string>& src, std::vector<std::string>& tgt) {
    std::uniform_int_distribution<int> len_d(o.min_len, o.max_len);
    std::uniform_int_distribution<int> word_d(0, o.n_words - 1);
    int attempts = 0;
    while (static_cast<int>(src.size()) < n) {
      if (++attempts > 100 * n + 1000)
        throw InputError("synthetic task: too few distinct sources for the split sizes");
      std::vector<int> seq(len_d(rng));
      for (auto& x : seq) x = word_d(rng);
      auto join = [&](const std::vector<int>& v) {
        std::string s;
        for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + task.words[v[i]];
        return s;
      };
      std::string s = join(seq);
      if (!used.insert(s).second) continue;
      std::vector<int> out = seq;
      if (o.kind == "reverse") std::reverse(out.begin(), out.end());
      if (o.kind == "sort")
        std::sort(out.begin(), out.end(),
                  [&](int a, int b) { return task.words[a] < task.words[b]; });
      src.push_back(s);
      tgt.push_back(join(out));
    }
  };
  make_split(o.n_test, task.test_src, task.test_tgt);
  make_split(o.n_dev, task.dev_src, task.dev_tgt);
  make_split(o.n_train, task.train_src, task.train_tgt);
  return task;
}

void write_synthetic_task(const SyntheticTask& task, const std::string& dir) {
  std::filesystem::create_directories(dir);
  auto lines = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& l : v) s += l + "\n";
    return s;
  };
  const std::filesystem::path d(dir);
  core::write_file_atomic((d / "train.src").string(), lines(task.train_src));
  core::write_file_atomic((d / "train.tgt").string(), lines(task.train_tgt));
  core::write_file_atomic((d / "dev.src").string(), lines(task.dev_src));
  core::write_file_atomic((d / "dev.tgt").string(), lines(task.dev_tgt));
  core::write_file_atomic((d / "test.src").string(), lines(task.test_src));
  core::write_file_atomic((d / "test.tgt").string(), lines(task.test_tgt));
  core::write_file_atomic((d / "vocab.txt").string(), task.vocab_text());
}

}  // namespace unieval::models
