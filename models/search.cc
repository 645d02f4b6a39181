// Follows HF transformers (Apache-2.0) and UniLM (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "models/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "core/error.h"
#include "core/utf8.h"
#include "models/tokenizer/wordpiece.h"
#include "models/row_ops.h"

namespace unieval::models {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Row {
  int64_t example;
  std::vector<int64_t> tokens;
  double log_prob;
};

// Scorer output as a contiguous CPU double matrix [rows, V].
torch::Tensor to_cpu_double(const torch::Tensor& t, size_t rows) {
  if (t.dim() != 2 || t.size(0) != static_cast<int64_t>(rows))
    throw std::runtime_error("StepScorer returned a tensor of the wrong shape");
  return t.detach().to(torch::kCPU, torch::kDouble).contiguous();
}

// Applies min_len and n-gram blocking to one row of log-probs (in place).
void constrain(double* lp, int64_t vocab, const std::vector<int64_t>& tokens, int64_t eos,
               const SearchOptions& opts) {
  if (static_cast<int>(tokens.size()) < opts.min_len && eos >= 0 && eos < vocab) lp[eos] = kNegInf;
  if (opts.no_repeat_ngram > 0)
    for (int64_t w : banned_by_ngram(tokens, opts.no_repeat_ngram, opts.ngram_ignore))
      if (w >= 0 && w < vocab) lp[w] = kNegInf;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

void validate(const SearchOptions& o) {
  if (o.beam < 1) throw InputError("--beam must be at least 1");
  if (o.n_best < 1 || o.n_best > o.beam) throw InputError("--n-best must be between 1 and --beam");
  if (o.max_len < 1) throw InputError("--max-len must be at least 1");
  if (o.min_len < 0 || o.min_len > o.max_len) throw InputError("--min-len must be between 0 and --max-len");
  if (o.no_repeat_ngram < 0) throw InputError("--no-repeat-ngram must be >= 0");
  if (o.top_k < 0) throw InputError("--top-k must be >= 0");
  if (!(o.top_p > 0.0 && o.top_p <= 1.0)) throw InputError("--top-p must be in (0, 1]");
  if (!(o.temperature > 0.0)) throw InputError("--temperature must be > 0");
  if (o.algorithm != "exact" && o.algorithm != "unilm")
    throw InputError("--search must be exact or unilm (got '" + o.algorithm + "')");
  if (o.trace_alpha < 0) throw InputError("--trace-alpha must be >= 0");
  if (o.trace_alpha > 0 && o.algorithm != "unilm") throw InputError("--trace-alpha needs --search unilm");
  if (o.trace_selection != "official" && o.trace_selection != "intended")
    throw InputError("--trace-selection must be official or intended (got '" + o.trace_selection + "')");
  if (o.algorithm == "unilm" && o.n_best != 1) throw InputError("--search unilm returns one hypothesis (--n-best 1)");
}

double length_normalised(double lp, int64_t len, double alpha) {
  if (alpha == 0.0 || len <= 0) return lp;
  return lp / std::pow(double(len), alpha);
}

std::vector<int64_t> banned_by_ngram(const std::vector<int64_t>& prefix, int n, const std::vector<int64_t>& ignore) {
  std::vector<int64_t> banned;
  if (n <= 0) return banned;
  auto ignored = [&](int64_t w) { return std::find(ignore.begin(), ignore.end(), w) != ignore.end(); };
  const size_t len = prefix.size();
  if (n == 1) {  // UniLM's context is then the whole prefix (seq[-0:])
    for (int64_t w : prefix)
      if (ignored(w)) return {};
    return prefix;
  }
  if (len + 1 < static_cast<size_t>(n)) return banned;
  const size_t k = n - 1;  // context length
  // UniLM get_dup_ngram_candidates: a context holding an ignored word bans nothing.
  for (size_t i = len - k; i < len; ++i)
    if (ignored(prefix[i])) return banned;
  // The last n-1 tokens; every earlier window equal to them bans the token that followed it
  // (unless that token is ignored).
  for (size_t start = 0; start + k < len; ++start) {
    if (std::equal(prefix.begin() + start, prefix.begin() + start + k, prefix.end() - k) &&
        !ignored(prefix[start + k]))
      banned.push_back(prefix[start + k]);
  }
  return banned;
}

std::vector<std::vector<Hypothesis>> beam_search_reference(StepScorer& scorer, int64_t n_examples,
                                                           int64_t eos, const SearchOptions& opts) {
  validate(opts);
  const int K = opts.beam;
  std::vector<std::vector<Hypothesis>> finished(n_examples);
  std::vector<Row> rows;
  for (int64_t e = 0; e < n_examples; ++e) rows.push_back({e, {}, 0.0});

  auto push_finished = [&](std::vector<Hypothesis>& fin, Hypothesis h) {
    fin.push_back(std::move(h));
    // Keep the K best by score; stable so that earlier (better-ranked) ties stay first.
    std::stable_sort(fin.begin(), fin.end(),
                     [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (static_cast<int>(fin.size()) > K) fin.resize(K);
  };

  StepRequest req;
  for (int step = 0; step < opts.max_len && !rows.empty(); ++step) {
    req.step = step;
    req.example.clear();
    for (const auto& r : rows) req.example.push_back(r.example);
    torch::Tensor lp = to_cpu_double(scorer.step(req), rows.size());
    const int64_t V = lp.size(1);
    double* data = lp.data_ptr<double>();
    for (size_t r = 0; r < rows.size(); ++r) constrain(data + r * V, V, rows[r].tokens, eos, opts);

    std::vector<Row> next;
    std::vector<int64_t> next_parent, next_token;
    const bool last = step + 1 == opts.max_len;
    size_t begin = 0;
    while (begin < rows.size()) {
      const int64_t e = rows[begin].example;
      size_t end = begin;
      while (end < rows.size() && rows[end].example == e) ++end;
      auto& fin = finished[e];
      // Candidates: (total log-prob, row, token), best first, ties by row then token.
      struct Cand {
        double s;
        size_t row;
        int64_t tok;
      };
      std::vector<Cand> live;
      for (size_t r = begin; r < end; ++r) {
        const double* row_lp = data + r * V;
        const int64_t len = static_cast<int64_t>(rows[r].tokens.size()) + 1;
        for (int64_t w = 0; w < V; ++w) {
          if (row_lp[w] == kNegInf || std::isnan(row_lp[w])) continue;
          const double s = rows[r].log_prob + row_lp[w];
          if (w == eos || last) {
            const double score = length_normalised(s, len, opts.length_penalty);
            if (static_cast<int>(fin.size()) < K || score > fin.back().score) {
              Hypothesis h;
              h.tokens = rows[r].tokens;
              if (w != eos) h.tokens.push_back(w);
              h.log_prob = s;
              h.score = score;
              h.eos = w == eos;
              push_finished(fin, std::move(h));
            }
          } else {
            live.push_back({s, r, w});
          }
        }
      }
      const size_t keep = std::min<size_t>(K, live.size());
      std::partial_sort(live.begin(), live.begin() + keep, live.end(), [](const Cand& a, const Cand& b) {
        if (a.s != b.s) return a.s > b.s;
        if (a.row != b.row) return a.row < b.row;
        return a.tok < b.tok;
      });
      live.resize(keep);
      // Early stop: K finished and no live hypothesis can reach the K-th score.
      bool done = live.empty();
      if (!done && static_cast<int>(fin.size()) >= K) {
        const double worst = fin.back().score;
        bool can_improve = false;
        for (const auto& c : live) {
          const int64_t len_now = static_cast<int64_t>(rows[c.row].tokens.size()) + 1;
          const double bound = std::max(length_normalised(c.s, len_now + 1, opts.length_penalty),
                                        length_normalised(c.s, opts.max_len, opts.length_penalty));
          if (bound > worst) {
            can_improve = true;
            break;
          }
        }
        done = !can_improve;
      }
      if (!done) {
        for (const auto& c : live) {
          Row nr{e, rows[c.row].tokens, c.s};
          nr.tokens.push_back(c.tok);
          next.push_back(std::move(nr));
          next_parent.push_back(static_cast<int64_t>(c.row));
          next_token.push_back(c.tok);
        }
      }
      begin = end;
    }
    rows = std::move(next);
    req.parent = std::move(next_parent);
    req.last_token = std::move(next_token);
  }
  for (auto& fin : finished)
    if (static_cast<int>(fin.size()) > opts.n_best) fin.resize(opts.n_best);
  return finished;
}

namespace {

// Scorer output with min_len / n-gram bans and NaN -> -inf applied, on the scorer's device and in
// its dtype (one out-of-place pass, then one scatter of the banned (row, token) pairs; the ban
// lists are computed from the hypotheses' token ids, which live on the host).
torch::Tensor constrained(const torch::Tensor& out, const std::vector<Row>& rows, int64_t eos,
                          const SearchOptions& opts) {
  if (out.dim() != 2 || out.size(0) != static_cast<int64_t>(rows.size()))
    throw std::runtime_error("StepScorer returned a tensor of the wrong shape");
  const double inf = std::numeric_limits<double>::infinity();
  torch::Tensor lp = nan_to_neg_inf(out.detach());  // torch::nan_to_num(out, -inf, inf, -inf)
  const int64_t V = lp.size(1);
  std::vector<int64_t> ban_r, ban_w;
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& tokens = rows[r].tokens;
    if (static_cast<int>(tokens.size()) < opts.min_len && eos >= 0 && eos < V)
      ban_r.push_back(static_cast<int64_t>(r)), ban_w.push_back(eos);
    if (opts.no_repeat_ngram > 0)
      for (int64_t w : banned_by_ngram(tokens, opts.no_repeat_ngram, opts.ngram_ignore))
        if (w >= 0 && w < V) ban_r.push_back(static_cast<int64_t>(r)), ban_w.push_back(w);
  }
  if (!ban_r.empty()) {
    torch::Tensor ri = torch::tensor(ban_r, torch::kInt64).to(lp.device());
    torch::Tensor wi = torch::tensor(ban_w, torch::kInt64).to(lp.device());
    lp.index_put_({ri, wi}, -inf);
  }
  return lp;
}

struct RowCand {
  int64_t tok;
  double lp;
};

// Per row, the candidates the exact search can use, in token order: the `need` best tokens by
// (log-prob desc, token asc) — found with one top-k over the vocabulary on the device — plus EOS.
// Only [rows, need + 1] values and indices and one EOS column come to the host. A row whose
// need-th value is tied with the next one (the top-k's choice among ties is unspecified) is
// resolved exactly from that row alone.
std::vector<std::vector<RowCand>> row_candidates(const torch::Tensor& lp, int64_t need, int64_t eos) {
  const int64_t R = lp.size(0), V = lp.size(1);
  need = std::min(need, V);
  const int64_t kk = std::min(V, need + 1);
  auto top = lp.topk(kk, 1, /*largest=*/true, /*sorted=*/true);
  torch::Tensor vals = std::get<0>(top).to(torch::kCPU, torch::kDouble).contiguous();
  torch::Tensor idx = std::get<1>(top).to(torch::kCPU).contiguous();
  torch::Tensor eos_lp;
  if (eos >= 0 && eos < V) eos_lp = lp.select(1, eos).to(torch::kCPU, torch::kDouble).contiguous();
  const double* v = vals.data_ptr<double>();
  const int64_t* ix = idx.data_ptr<int64_t>();
  std::vector<std::vector<RowCand>> out(R);
  for (int64_t r = 0; r < R; ++r) {
    std::vector<RowCand>& c = out[r];
    const double* rv = v + r * kk;
    const int64_t* ri = ix + r * kk;
    const bool tied = kk > need && rv[need] == rv[need - 1] && rv[need] != kNegInf;
    if (!tied) {
      for (int64_t j = 0; j < need; ++j) c.push_back({ri[j], rv[j]});
    } else {
      // Every token with the boundary value, smallest ids first, after the strictly better ones.
      const double boundary = rv[need - 1];
      for (int64_t j = 0; j < kk; ++j)
        if (rv[j] > boundary) c.push_back({ri[j], rv[j]});
      torch::Tensor row = lp.select(0, r);
      torch::Tensor eq = torch::nonzero(row.eq(boundary)).flatten().to(torch::kCPU);
      const int64_t* e = eq.data_ptr<int64_t>();
      for (int64_t j = 0; j < eq.numel() && static_cast<int64_t>(c.size()) < need; ++j)
        c.push_back({e[j], boundary});
    }
    if (eos_lp.defined()) {
      bool has_eos = false;
      for (const auto& x : c) has_eos |= x.tok == eos;
      if (!has_eos) c.push_back({eos, eos_lp.data_ptr<double>()[r]});
    }
    std::sort(c.begin(), c.end(), [](const RowCand& a, const RowCand& b) { return a.tok < b.tok; });
  }
  return out;
}

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, int64_t n_examples,
                                                 int64_t eos, const SearchOptions& opts) {
  validate(opts);
  const int K = opts.beam;
  std::vector<std::vector<Hypothesis>> finished(n_examples);
  std::vector<Row> rows;
  for (int64_t e = 0; e < n_examples; ++e) rows.push_back({e, {}, 0.0});

  auto push_finished = [&](std::vector<Hypothesis>& fin, Hypothesis h) {
    fin.push_back(std::move(h));
    std::stable_sort(fin.begin(), fin.end(),
                     [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (static_cast<int>(fin.size()) > K) fin.resize(K);
  };

  StepRequest req;
  for (int step = 0; step < opts.max_len && !rows.empty(); ++step) {
    req.step = step;
    req.example.clear();
    for (const auto& r : rows) req.example.push_back(r.example);
    torch::NoGradGuard no_grad;
    torch::Tensor lp = constrained(scorer.step(req), rows, eos, opts);
    // K + 1 per row: the K best live extensions of a row survive an EOS among them; on the last
    // step every extension is a finished candidate and the K best of a row are enough.
    const std::vector<std::vector<RowCand>> cands = row_candidates(lp, K + 1, eos);

    std::vector<Row> next;
    std::vector<int64_t> next_parent, next_token;
    const bool last = step + 1 == opts.max_len;
    size_t begin = 0;
    while (begin < rows.size()) {
      const int64_t e = rows[begin].example;
      size_t end = begin;
      while (end < rows.size() && rows[end].example == e) ++end;
      auto& fin = finished[e];
      struct Cand {
        double s;
        size_t row;
        int64_t tok;
      };
      std::vector<Cand> live;
      for (size_t r = begin; r < end; ++r) {
        const int64_t len = static_cast<int64_t>(rows[r].tokens.size()) + 1;
        for (const RowCand& rc : cands[r]) {
          if (rc.lp == kNegInf || std::isnan(rc.lp)) continue;
          const int64_t w = rc.tok;
          const double s = rows[r].log_prob + rc.lp;
          if (w == eos || last) {
            const double score = length_normalised(s, len, opts.length_penalty);
            if (static_cast<int>(fin.size()) < K || score > fin.back().score) {
              Hypothesis h;
              h.tokens = rows[r].tokens;
              if (w != eos) h.tokens.push_back(w);
              h.log_prob = s;
              h.score = score;
              h.eos = w == eos;
              push_finished(fin, std::move(h));
            }
          } else {
            live.push_back({s, r, w});
          }
        }
      }
      const size_t keep = std::min<size_t>(K, live.size());
      std::partial_sort(live.begin(), live.begin() + keep, live.end(), [](const Cand& a, const Cand& b) {
        if (a.s != b.s) return a.s > b.s;
        if (a.row != b.row) return a.row < b.row;
        return a.tok < b.tok;
      });
      live.resize(keep);
      bool done = live.empty();
      if (!done && static_cast<int>(fin.size()) >= K) {
        const double worst = fin.back().score;
        bool can_improve = false;
        for (const auto& c : live) {
          const int64_t len_now = static_cast<int64_t>(rows[c.row].tokens.size()) + 1;
          const double bound = std::max(length_normalised(c.s, len_now + 1, opts.length_penalty),
                                        length_normalised(c.s, opts.max_len, opts.length_penalty));
          if (bound > worst) {
            can_improve = true;
            break;
          }
        }
        done = !can_improve;
      }
      if (!done) {
        for (const auto& c : live) {
          Row nr{e, rows[c.row].tokens, c.s};
          nr.tokens.push_back(c.tok);
          next.push_back(std::move(nr));
          next_parent.push_back(static_cast<int64_t>(c.row));
          next_token.push_back(c.tok);
        }
      }
      begin = end;
    }
    rows = std::move(next);
    req.parent = std::move(next_parent);
    req.last_token = std::move(next_token);
  }
  for (auto& fin : finished)
    if (static_cast<int>(fin.size()) > opts.n_best) fin.resize(opts.n_best);
  return finished;
}

std::vector<std::vector<Hypothesis>> greedy_or_sample(StepScorer& scorer,
                                                      const std::vector<int64_t>& example_ids,
                                                      int64_t eos, const SearchOptions& opts, int64_t end2) {
  validate(opts);
  const int64_t n = static_cast<int64_t>(example_ids.size());
  std::vector<std::vector<Hypothesis>> out(n);
  std::vector<std::mt19937_64> rngs;
  for (int64_t id : example_ids) rngs.emplace_back(splitmix64(opts.seed ^ splitmix64(uint64_t(id))));
  std::vector<Row> rows;
  for (int64_t e = 0; e < n; ++e) rows.push_back({e, {}, 0.0});
  StepRequest req;
  for (int step = 0; step < opts.max_len && !rows.empty(); ++step) {
    req.step = step;
    req.example.clear();
    for (const auto& r : rows) req.example.push_back(r.example);
    torch::Tensor lp = to_cpu_double(scorer.step(req), rows.size());
    const int64_t V = lp.size(1);
    double* data = lp.data_ptr<double>();
    std::vector<Row> next;
    std::vector<int64_t> next_parent, next_token;
    for (size_t r = 0; r < rows.size(); ++r) {
      double* row_lp = data + r * V;
      std::vector<double> model_lp(row_lp, row_lp + V);
      constrain(row_lp, V, rows[r].tokens, eos, opts);
      int64_t pick = -1;
      if (!opts.sample) {
        double best = kNegInf;
        for (int64_t w = 0; w < V; ++w)
          if (row_lp[w] > best) best = row_lp[w], pick = w;
      } else {
        // Filtered distribution over token ids (order by probability, ties by id).
        std::vector<int64_t> order;
        for (int64_t w = 0; w < V; ++w)
          if (row_lp[w] != kNegInf && !std::isnan(row_lp[w])) order.push_back(w);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row_lp[a] > row_lp[b]; });
        if (opts.top_k > 0 && static_cast<int64_t>(order.size()) > opts.top_k) order.resize(opts.top_k);
        if (!order.empty()) {
          std::vector<double> p(order.size());
          const double mx = row_lp[order[0]] / opts.temperature;
          double z = 0;
          for (size_t i = 0; i < order.size(); ++i) z += p[i] = std::exp(row_lp[order[i]] / opts.temperature - mx);
          for (auto& x : p) x /= z;
          if (opts.top_p < 1.0) {
            double mass = 0;
            size_t keep = 0;
            while (keep < p.size() && mass < opts.top_p) mass += p[keep++];
            order.resize(keep);
            p.resize(keep);
            for (auto& x : p) x /= mass;
          }
          std::uniform_real_distribution<double> uni(0.0, 1.0);
          double u = uni(rngs[rows[r].example]);
          pick = order.back();
          double acc = 0;
          for (size_t i = 0; i < p.size(); ++i) {
            acc += p[i];
            if (u < acc) {
              pick = order[i];
              break;
            }
          }
        }
      }
      Row cur = rows[r];
      if (pick < 0) {  // every token banned: end the hypothesis here
        out[cur.example].push_back({cur.tokens, cur.log_prob,
                                    length_normalised(cur.log_prob, cur.tokens.size(), opts.length_penalty), false});
        continue;
      }
      cur.log_prob += model_lp[pick];
      const int64_t len = static_cast<int64_t>(cur.tokens.size()) + 1;
      const bool ended = pick == eos || (end2 >= 0 && pick == end2);
      if (ended || step + 1 == opts.max_len) {
        if (!ended) cur.tokens.push_back(pick);
        out[cur.example].push_back(
            {cur.tokens, cur.log_prob, length_normalised(cur.log_prob, len, opts.length_penalty), ended});
        continue;
      }
      cur.tokens.push_back(pick);
      next.push_back(std::move(cur));
      next_parent.push_back(static_cast<int64_t>(r));
      next_token.push_back(pick);
    }
    rows = std::move(next);
    req.parent = std::move(next_parent);
    req.last_token = std::move(next_token);
  }
  return out;
}

std::pair<int64_t, int64_t> python_set_order(int64_t a, int64_t b) {
  // CPython setobject.c set_add_entry on an empty 8-slot table (mask 7; no linear probing there,
  // as i + LINEAR_PROBES > mask): a goes to slot a & 7; b starts at b & 7 and, while the slot is
  // taken, perturb >>= 5, i = (i * 5 + 1 + perturb) & 7. Iteration runs over the slots in order.
  if (a == b) return {a, b};
  const uint64_t sa = static_cast<uint64_t>(a) & 7;
  uint64_t i = static_cast<uint64_t>(b) & 7, perturb = static_cast<uint64_t>(b);
  while (i == sa) {
    perturb >>= 5;
    i = (i * 5 + 1 + perturb) & 7;
  }
  return i < sa ? std::make_pair(b, a) : std::make_pair(a, b);
}

namespace {

// Unicode general category P* (unicodedata.category(c).startswith('P')): outside ASCII, BERT's
// punctuation class is exactly P*; in ASCII it also holds the symbols $ + < = > ^ ` | ~ (S*).
bool is_unicode_punctuation(char32_t cp) {
  if (cp < 0x80) {
    static const std::string kAsciiP = "!\"#%&'()*,-./:;?@[\\]_{}";
    return kAsciiP.find(static_cast<char>(cp)) != std::string::npos;
  }
  return (char_class(static_cast<uint32_t>(cp)) & kCharPunct) != 0;
}

}  // namespace

size_t simple_postprocess_keep(const std::vector<std::string>& words) {
  size_t n = words.size();
  auto single_punct = [](const std::string& w) {
    if (w.empty()) return false;
    size_t i = 0;
    const char32_t cp = core::next_code_point(w, i);
    return i == w.size() && is_unicode_punctuation(cp);
  };
  while (n > 4 && single_punct(words[n - 1]) && words[n - 2] == words[n - 1] && words[n - 3] == words[n - 1] &&
         words[n - 4] == words[n - 1])
    n -= 3;
  return n;
}

std::vector<int32_t> simple_postprocess_pieces(const Vocab& vocab, const std::vector<int32_t>& pieces) {
  // gen_seq_from_trace.py detokenize: a "##" piece joins the word before (a leading one is a word).
  std::vector<std::string> words;
  std::vector<size_t> word_start;  // index of each word's first piece
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = vocab.token(pieces[i]);
    if (p.size() > 2 && p.compare(0, 2, "##") == 0 && !words.empty()) {
      words.back() += p.substr(2);
    } else {
      words.push_back(p);
      word_start.push_back(i);
    }
  }
  const size_t keep = simple_postprocess_keep(words);
  if (keep == words.size()) return pieces;
  return std::vector<int32_t>(pieces.begin(), pieces.begin() + static_cast<std::ptrdiff_t>(word_start[keep]));
}

std::vector<std::string> official_greedy_ignores(const SearchOptions& opts) {
  std::vector<std::string> out;
  if (opts.sample || opts.beam != 1 || opts.algorithm != "unilm") return out;
  if (opts.min_len > 0) out.push_back("min_len " + std::to_string(opts.min_len));
  if (opts.no_repeat_ngram > 0) out.push_back("no_repeat_ngram " + std::to_string(opts.no_repeat_ngram));
  return out;
}

namespace {

// The hypothesis ending at t.wids[frame][pos], followed back through t.ptrs and cut at the first
// token is_end accepts; frame < 0 (nothing chosen) is the empty hypothesis with score -inf.
template <class IsEnd>
Hypothesis hypothesis_at(const BeamTrace& t, int64_t frame, int64_t pos, double best, IsEnd is_end) {
  Hypothesis h;
  if (frame < 0) {
    h.log_prob = h.score = kNegInf;
    return h;
  }
  h.log_prob = t.scores[frame][pos];
  h.score = best;
  std::vector<int64_t> seq{t.wids[frame][pos]};
  for (int64_t f = frame, p = pos; f > 0; --f) {
    p = t.ptrs[f][p];
    seq.push_back(t.wids[f - 1][p]);
  }
  std::reverse(seq.begin(), seq.end());
  for (int64_t w : seq) {
    if (is_end(w)) {
      h.eos = true;
      break;
    }
    h.tokens.push_back(w);
  }
  return h;
}

// gen_seq_from_trace.py get_best_sequence with --alpha as the script runs (see search.h): frames
// 0..T-1 of the trace, then decode_seq2seq.py's padding frames (token 0, score 0), of which one
// stands for all (they are identical and none is ever a candidate).
Hypothesis best_from_trace_official(const BeamTrace& t, int64_t sep, int64_t pad, const SearchOptions& opts) {
  const auto [eos_o, pad_o] = python_set_order(sep, pad);
  (void)eos_o;  // the script only tests membership of {eos_id, pad_id}, whichever is which
  const int64_t T = static_cast<int64_t>(t.wids.size());
  const size_t K = T > 0 ? t.wids[0].size() : 0;
  auto is_end = [&](int64_t w) { return w == sep || w == pad; };
  auto frame_all = [&](int64_t f, auto pred) {
    if (f >= T) return pred(int64_t{0});  // a padding frame: every token is 0
    for (int64_t w : t.wids[f])
      if (!pred(w)) return false;
    return true;
  };
  int64_t last = T;  // no qualifying frame: the last padding frame, equivalent to the first
  for (int64_t f = 0; f <= T; ++f)
    if (frame_all(f, is_end)) {
      last = f;
      break;
    }
  while (last >= 0 && frame_all(last, [&](int64_t w) { return w == pad_o; })) --last;
  double best = kNegInf;
  int64_t frame = -1, pos = -1;
  for (int64_t f = 0; f <= last && f < T; ++f) {
    for (size_t i = 0; i < K; ++i) {
      double s = t.scores[f][i];
      if (s >= 0) continue;  // "skip paddings"
      if (!is_end(t.wids[f][i]) && f != last) continue;
      if (opts.trace_alpha != 0) s = s / std::pow((5.0 + f + 1) / 6.0, opts.trace_alpha);
      if (s > best) {
        best = s;
        frame = f;
        pos = static_cast<int64_t>(i);
      }
    }
  }
  return hypothesis_at(t, frame, pos, best, is_end);  // frame -1: the script's empty sequence
}

}  // namespace

Hypothesis best_from_trace(const BeamTrace& t, int64_t eos, int64_t pad, const SearchOptions& opts) {
  const bool rerank = opts.trace_alpha > 0;  // gen_seq_from_trace.py --alpha
  if (rerank && opts.trace_selection == "official") return best_from_trace_official(t, eos, pad, opts);
  const int64_t T = static_cast<int64_t>(t.wids.size());
  auto is_end = [&](int64_t w) { return w == eos || (pad >= 0 && w == pad); };
  auto all_of = [&](int64_t f, auto pred) {
    for (int64_t w : t.wids[f])
      if (!pred(w)) return false;
    return true;
  };
  int64_t last = T - 1;
  if (!rerank) {
    for (int64_t f = 0; f < T; ++f)
      if (all_of(f, [&](int64_t w) { return w == eos; })) {
        last = f;
        break;
      }
  } else {
    // The trace is followed by [PAD] frames (scores 0): the first frame of EOS/[PAD] only, stepped
    // back over frames that are all [PAD] (a padding frame always is).
    last = T;
    for (int64_t f = 0; f < T; ++f)
      if (all_of(f, is_end)) {
        last = f;
        break;
      }
    while (last >= 0 && (last == T || (pad >= 0 && all_of(last, [&](int64_t w) { return w == pad; })))) --last;
  }
  const double penalty = rerank ? opts.trace_alpha : opts.length_penalty;
  double best = kNegInf;
  int64_t frame = -1, pos = -1;
  for (int64_t f = 0; f <= last; ++f) {
    for (size_t i = 0; i < t.wids[f].size(); ++i) {
      const int64_t w = t.wids[f][i];
      double s = t.scores[f][i];
      if (rerank && s >= 0) continue;  // taken for padding
      if (!(rerank ? is_end(w) : w == eos) && f != last) continue;
      if (penalty > 0) s = s / std::pow((5.0 + f + 1) / 6.0, penalty);
      if (s > best) {
        best = s;
        frame = f;
        pos = static_cast<int64_t>(i);
      }
    }
  }
  return hypothesis_at(t, frame, pos, best, is_end);
}

std::vector<std::vector<Hypothesis>> beam_search_unilm(StepScorer& scorer, int64_t n_examples, int64_t eos,
                                                       const SearchOptions& opts, int64_t pad,
                                                       std::vector<BeamTrace>* traces_out) {
  validate(opts);
  torch::NoGradGuard no_grad;
  const int64_t K = opts.beam;
  constexpr double kBan = -10000.0;  // UniLM's additive ban
  std::vector<BeamTrace> traces(n_examples);
  std::vector<int64_t> active(n_examples);  // examples with rows in the current request, in order
  std::iota(active.begin(), active.end(), 0);
  std::vector<std::vector<int64_t>> seqs(n_examples);  // per row: its tokens (UniLM partial_seqs)
  torch::Tensor seq_scores, seq_eos;                   // [A, K] the previous frame, on the device
  StepRequest req;
  for (int step = 0; step < opts.max_len && !active.empty(); ++step) {
    const int64_t A = static_cast<int64_t>(active.size());
    const int64_t per = step == 0 ? 1 : K;  // rows per example in this request
    req.step = step;
    req.example.clear();
    for (int64_t e : active)
      for (int64_t k = 0; k < per; ++k) req.example.push_back(e);
    torch::Tensor lp = scorer.step(req).detach();
    if (lp.dim() != 2 || lp.size(0) != A * per) throw std::runtime_error("StepScorer returned a tensor of the wrong shape");
    const int64_t V = lp.size(1);
    if (V < K) throw InputError("--beam " + std::to_string(K) + " exceeds the vocabulary size " + std::to_string(V));
    // Bans of this frame, computed from the rows' tokens (forbid_word_mask * -10000 added).
    std::vector<int64_t> ban_r, ban_w;
    if (opts.no_repeat_ngram > 0)
      for (size_t r = 0; r < seqs.size(); ++r) {
        std::vector<int64_t> b = banned_by_ngram(seqs[r], opts.no_repeat_ngram, opts.ngram_ignore);
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        for (int64_t w : b)
          if (w >= 0 && w < V) ban_r.push_back(static_cast<int64_t>(r)), ban_w.push_back(w);
      }
    const bool ban_eos = opts.min_len > 0 && step < opts.min_len && eos >= 0 && eos < V;
    if (!ban_r.empty() || ban_eos) lp = lp.clone();
    if (!ban_r.empty()) {
      torch::Tensor ri = torch::tensor(ban_r, torch::kInt64).to(lp.device());
      torch::Tensor wi = torch::tensor(ban_w, torch::kInt64).to(lp.device());
      lp.index_put_({ri, wi}, lp.index({ri, wi}) + kBan);
    }
    if (ban_eos) lp.select(1, eos).fill_(kBan);
    auto top = lp.topk(K, 1, /*largest=*/true, /*sorted=*/true);
    torch::Tensor kk_scores = std::get<0>(top), kk_ids = std::get<1>(top);  // [A * per, K]
    torch::Tensor k_scores, k_ids, back;
    if (step == 0) {
      k_scores = kk_scores;
      k_ids = kk_ids;
      back = torch::zeros({A, K}, torch::kInt64);
    } else {
      kk_scores = kk_scores + (seq_eos.reshape({A * K, 1}) * kBan + seq_scores.reshape({A * K, 1}));
      auto best = kk_scores.reshape({A, K * K}).topk(K, 1, /*largest=*/true, /*sorted=*/true);
      k_scores = std::get<0>(best);
      back = std::get<1>(best).div(K, "floor");
      k_ids = kk_ids.reshape({A, K * K}).gather(1, std::get<1>(best));
    }
    seq_scores = k_scores;
    seq_eos = k_ids.eq(eos).to(k_scores.scalar_type());
    // The frame to the host: [A, K] scores, tokens, back pointers.
    torch::Tensor hs = k_scores.to(torch::kCPU, torch::kDouble).contiguous();
    torch::Tensor hi = k_ids.to(torch::kCPU, torch::kInt64).contiguous();
    torch::Tensor hb = back.to(torch::kCPU, torch::kInt64).contiguous();
    const double* ps = hs.data_ptr<double>();
    const int64_t* pi = hi.data_ptr<int64_t>();
    const int64_t* pb = hb.data_ptr<int64_t>();
    std::vector<int64_t> keep, next_active, next_parent, next_token;
    std::vector<std::vector<int64_t>> next_seqs;
    for (int64_t a = 0; a < A; ++a) {
      const int64_t e = active[a];
      BeamTrace& tr = traces[e];
      tr.scores.emplace_back(ps + a * K, ps + (a + 1) * K);
      tr.wids.emplace_back(pi + a * K, pi + (a + 1) * K);
      tr.ptrs.emplace_back(pb + a * K, pb + (a + 1) * K);
      bool all_eos = true;
      for (int64_t k = 0; k < K; ++k) all_eos &= pi[a * K + k] == eos;
      if (all_eos) continue;  // UniLM's last frame for this example
      keep.push_back(a);
      next_active.push_back(e);
      for (int64_t k = 0; k < K; ++k) {
        const int64_t parent = a * per + pb[a * K + k];
        std::vector<int64_t> sq = seqs[parent];
        sq.push_back(pi[a * K + k]);
        next_seqs.push_back(std::move(sq));
        next_parent.push_back(parent);
        next_token.push_back(pi[a * K + k]);
      }
    }
    if (static_cast<int64_t>(keep.size()) != A && !keep.empty()) {
      torch::Tensor ki = torch::tensor(keep, torch::kInt64).to(seq_scores.device());
      seq_scores = seq_scores.index_select(0, ki);
      seq_eos = seq_eos.index_select(0, ki);
    }
    active = std::move(next_active);
    seqs = std::move(next_seqs);
    req.parent = std::move(next_parent);
    req.last_token = std::move(next_token);
  }
  std::vector<std::vector<Hypothesis>> out(n_examples);
  for (int64_t e = 0; e < n_examples; ++e) out[e].push_back(best_from_trace(traces[e], eos, pad, opts));
  if (traces_out) *traces_out = std::move(traces);
  return out;
}

std::vector<std::vector<Hypothesis>> generate(StepScorer& scorer, const std::vector<int64_t>& example_ids,
                                              int64_t eos, const SearchOptions& opts, int64_t pad) {
  if (!opts.sample && opts.beam == 1 && opts.algorithm == "unilm") {
    // decode_seq2seq.py's greedy path: argmax to [SEP] or [PAD], no min_len, no n-gram ban.
    SearchOptions g = opts;
    g.min_len = 0;
    g.no_repeat_ngram = 0;
    return greedy_or_sample(scorer, example_ids, eos, g, pad);
  }
  if (opts.sample || opts.beam == 1) return greedy_or_sample(scorer, example_ids, eos, opts);
  if (opts.algorithm == "unilm")
    return beam_search_unilm(scorer, static_cast<int64_t>(example_ids.size()), eos, opts, pad);
  return beam_search(scorer, static_cast<int64_t>(example_ids.size()), eos, opts);
}

}  // namespace unieval::models
