#pragma once
// The test oracle of beam_search (models/decoding/search.h), and the baseline of
// bench/search_torch_bench.cc: the exact beam search as it was first written, walking every
// step's whole [rows, V] distribution on the host in float64 with the bans applied there row by
// row. beam_search (top-k on the device, bans in models/decoding/search_constraints.h) must return what it
// returns; it is no part of the library.
//
//   auto want = beam_search_reference(scorer, n_examples, eos, opts);
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/decoding/search.h"

namespace unieval::models {

namespace reference_detail {

constexpr double kRefNegInf = -std::numeric_limits<double>::infinity();

struct RefRow {
  int64_t example;
  std::vector<int64_t> tokens;
  double log_prob;
};

// Scorer output as a contiguous CPU double matrix [rows, V].
inline torch::Tensor to_cpu_double(const torch::Tensor& t, size_t rows) {
  if (t.dim() != 2 || t.size(0) != static_cast<int64_t>(rows))
    throw std::runtime_error("StepScorer returned a tensor of the wrong shape");
  return t.detach().to(torch::kCPU, torch::kDouble).contiguous();
}

// Applies min_len and n-gram blocking to one row of log-probs (in place).
inline void constrain(double* lp, int64_t vocab, const std::vector<int64_t>& tokens, int64_t eos,
                      const SearchOptions& opts) {
  if (static_cast<int>(tokens.size()) < opts.min_len && eos >= 0 && eos < vocab)
    lp[eos] = kRefNegInf;
  if (opts.no_repeat_ngram > 0)
    for (int64_t w : banned_by_ngram(tokens, opts.no_repeat_ngram, opts.ngram_ignore))
      if (w >= 0 && w < vocab) lp[w] = kRefNegInf;
}

}  // namespace reference_detail

inline std::vector<std::vector<Hypothesis>> beam_search_reference(StepScorer& scorer,
                                                                  int64_t n_examples, int64_t eos,
                                                                  const SearchOptions& opts) {
  validate(opts);
  const int K = opts.beam;
  std::vector<std::vector<Hypothesis>> finished(n_examples);
  std::vector<reference_detail::RefRow> rows;
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
    torch::Tensor lp = reference_detail::to_cpu_double(scorer.step(req), rows.size());
    const int64_t V = lp.size(1);
    double* data = lp.data_ptr<double>();
    for (size_t r = 0; r < rows.size(); ++r)
      reference_detail::constrain(data + r * V, V, rows[r].tokens, eos, opts);

    std::vector<reference_detail::RefRow> next;
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
          if (row_lp[w] == reference_detail::kRefNegInf || std::isnan(row_lp[w])) continue;
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
      std::partial_sort(live.begin(), live.begin() + keep, live.end(),
                        [](const Cand& a, const Cand& b) {
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
          reference_detail::RefRow nr{e, rows[c.row].tokens, c.s};
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

}  // namespace unieval::models
