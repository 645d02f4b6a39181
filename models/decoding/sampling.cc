// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Greedy decoding and top-k/top-p sampling of models/decoding/search.h (greedy_or_sample): one strategy
// that extends every row by one token per step, with the token chosen by a sampler (the argmax,
// or a draw from the filtered distribution).
#include <algorithm>
#include <cmath>
#include <random>

#include "models/decoding/search.h"
#include "models/decoding/search_constraints.h"

namespace unieval::models {

namespace {

struct SampleRow {
  int64_t example;
  std::vector<int64_t> tokens;
  double log_prob;
};

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Picks the next token of one row from its constrained log-probabilities; -1 when every token is
// banned (-inf or NaN).
class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual int64_t pick(const double* lp, int64_t V, std::mt19937_64& rng) const = 0;
};

// Greedy: the first maximum.
class ArgmaxSampler : public Sampler {
 public:
  int64_t pick(const double* lp, int64_t V, std::mt19937_64&) const override {
    int64_t pick = -1;
    double best = kNegInf;
    for (int64_t w = 0; w < V; ++w)
      if (lp[w] > best) best = lp[w], pick = w;
    return pick;
  }
};

// A draw from the distribution filtered by top_k, temperature and top_p.
class FilteredSampler : public Sampler {
 public:
  explicit FilteredSampler(const SearchOptions& opts)
      : top_k_(opts.top_k), top_p_(opts.top_p), temperature_(opts.temperature) {}
  int64_t pick(const double* lp, int64_t V, std::mt19937_64& rng) const override {
    // Filtered distribution over token ids (order by probability, ties by id).
    std::vector<int64_t> order;
    for (int64_t w = 0; w < V; ++w)
      if (lp[w] != kNegInf && !std::isnan(lp[w])) order.push_back(w);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return lp[a] > lp[b]; });
    if (top_k_ > 0 && static_cast<int64_t>(order.size()) > top_k_) order.resize(top_k_);
    if (order.empty()) return -1;
    std::vector<double> p(order.size());
    const double mx = lp[order[0]] / temperature_;
    double z = 0;
    for (size_t i = 0; i < order.size(); ++i)
      z += p[i] = std::exp(lp[order[i]] / temperature_ - mx);
    for (auto& x : p) x /= z;
    if (top_p_ < 1.0) {
      double mass = 0;
      size_t keep = 0;
      while (keep < p.size() && mass < top_p_) mass += p[keep++];
      order.resize(keep);
      p.resize(keep);
      for (auto& x : p) x /= mass;
    }
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    const double u = uni(rng);
    double acc = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      acc += p[i];
      if (u < acc) return order[i];
    }
    return order.back();
  }

 private:
  int top_k_;
  double top_p_, temperature_;
};

}  // namespace

std::vector<std::vector<Hypothesis>> greedy_or_sample(StepScorer& scorer,
                                                      const std::vector<int64_t>& example_ids,
                                                      int64_t eos, const SearchOptions& opts,
                                                      int64_t end2, const VocabMask& vocab) {
  validate(opts);
  const SearchStrategy strategy = opts.sample ? SearchStrategy::kSample : SearchStrategy::kGreedy;
  const StepConstraints constraints = step_constraints(opts, strategy, eos, vocab);
  const ArgmaxSampler argmax;
  const FilteredSampler filtered(opts);
  const Sampler& sampler = opts.sample ? static_cast<const Sampler&>(filtered) : argmax;
  const int64_t n = static_cast<int64_t>(example_ids.size());
  std::vector<std::vector<Hypothesis>> out(n);
  std::vector<std::mt19937_64> rngs;
  for (int64_t id : example_ids)
    rngs.emplace_back(splitmix64(opts.seed ^ splitmix64(uint64_t(id))));
  std::vector<SampleRow> rows;
  for (int64_t e = 0; e < n; ++e) rows.push_back({e, {}, 0.0});
  StepRequest req;
  for (int step = 0; step < opts.max_len && !rows.empty(); ++step) {
    req.step = step;
    req.example.clear();
    for (const auto& r : rows) req.example.push_back(r.example);
    ConstraintRows view{step, {}};
    for (const auto& r : rows) view.tokens.push_back(&r.tokens);
    const torch::Tensor lp =
        constraints.apply(scorer.step(req), view).to(torch::kCPU, torch::kDouble).contiguous();
    const int64_t V = lp.size(1);
    const double* data = lp.data_ptr<double>();
    std::vector<SampleRow> next;
    std::vector<int64_t> next_parent, next_token;
    for (size_t r = 0; r < rows.size(); ++r) {
      const double* row_lp = data + r * V;
      const int64_t pick = sampler.pick(row_lp, V, rngs[rows[r].example]);
      SampleRow cur = rows[r];
      if (pick < 0) {  // every token banned: end the hypothesis here
        out[cur.example].push_back(
            {cur.tokens, cur.log_prob,
             length_normalised(cur.log_prob, cur.tokens.size(), opts.length_penalty), false});
        continue;
      }
      // A picked token is never banned: its constrained log-prob is the model's.
      cur.log_prob += row_lp[pick];
      const int64_t len = static_cast<int64_t>(cur.tokens.size()) + 1;
      const bool ended = pick == eos || (end2 >= 0 && pick == end2);
      if (ended || step + 1 == opts.max_len) {
        if (!ended) cur.tokens.push_back(pick);
        out[cur.example].push_back({cur.tokens, cur.log_prob,
                                    length_normalised(cur.log_prob, len, opts.length_penalty),
                                    ended});
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

}  // namespace unieval::models
