// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// The exact beam search of models/decoding/search.h (beam_search): the distribution stays on the scorer's
// device, one top-(K+1) per row comes to the host, and the finished/live bookkeeping runs there.
#include <algorithm>
#include <cmath>

#include "models/decoding/search.h"
#include "models/decoding/search_constraints.h"

namespace unieval::models {

namespace {

struct BeamRow {
  int64_t example;
  std::vector<int64_t> tokens;
  double log_prob;
};

struct RowCand {
  int64_t tok;
  double lp;
};

// Per row, the candidates the exact search can use, in token order: the `need` best tokens by
// (log-prob desc, token asc) — found with one top-k over the vocabulary on the device — plus EOS.
// Only [rows, need + 1] values and indices and one EOS column come to the host. A row whose
// need-th value is tied with the next one (the top-k's choice among ties is unspecified) is
// resolved exactly from that row alone.
std::vector<std::vector<RowCand>> row_candidates(const torch::Tensor& lp, int64_t need,
                                                 int64_t eos) {
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
                                                 int64_t eos, const SearchOptions& opts,
                                                 const VocabMask& vocab) {
  validate(opts);
  const StepConstraints constraints = step_constraints(opts, SearchStrategy::kBeam, eos, vocab);
  const int K = opts.beam;
  std::vector<std::vector<Hypothesis>> finished(n_examples);
  std::vector<BeamRow> rows;
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
    ConstraintRows view{step, {}};
    for (const auto& r : rows) view.tokens.push_back(&r.tokens);
    torch::Tensor lp = constraints.apply(scorer.step(req), view);
    // K + 1 per row: the K best live extensions of a row survive an EOS among them; on the last
    // step every extension is a finished candidate and the K best of a row are enough.
    const std::vector<std::vector<RowCand>> cands = row_candidates(lp, K + 1, eos);

    std::vector<BeamRow> next;
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
      std::partial_sort(live.begin(), live.begin() + keep, live.end(),
                        [](const Cand& a, const Cand& b) {
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
          BeamRow nr{e, rows[c.row].tokens, c.s};
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
