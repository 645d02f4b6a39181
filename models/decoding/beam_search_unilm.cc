// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// UniLM's beam search with its traces (beam_search_unilm, modeling.py
// BertForSeq2SeqDecoder.beam_search) and the picks of decode_seq2seq.py and
// gen_seq_from_trace.py from a trace (best_from_trace, python_set_order, simple_postprocess_*);
// models/decoding/search.h documents each.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/utf8.h"
#include "models/decoding/search.h"
#include "models/decoding/search_constraints.h"
#include "models/tokenizer/wordpiece.h"

namespace unieval::models {

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
  while (n > 4 && single_punct(words[n - 1]) && words[n - 2] == words[n - 1] &&
         words[n - 3] == words[n - 1] && words[n - 4] == words[n - 1])
    n -= 3;
  return n;
}

std::vector<int32_t> simple_postprocess_pieces(const Vocab& vocab,
                                               const std::vector<int32_t>& pieces) {
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
  return std::vector<int32_t>(pieces.begin(),
                              pieces.begin() + static_cast<std::ptrdiff_t>(word_start[keep]));
}

namespace {

// The hypothesis ending at t.wids[frame][pos], followed back through t.ptrs and cut at the first
// token is_end accepts; frame < 0 (nothing chosen) is the empty hypothesis with score -inf.
template <class IsEnd>
Hypothesis hypothesis_at(const BeamTrace& t, int64_t frame, int64_t pos, double best,
                         IsEnd is_end) {
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
Hypothesis best_from_trace_official(const BeamTrace& t, int64_t sep, int64_t pad,
                                    const SearchOptions& opts) {
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

Hypothesis best_from_trace(const BeamTrace& t, int64_t eos, int64_t pad,
                           const SearchOptions& opts) {
  const bool rerank = opts.trace_alpha > 0;  // gen_seq_from_trace.py --alpha
  if (rerank && opts.trace_selection == "official")
    return best_from_trace_official(t, eos, pad, opts);
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
    while (last >= 0 &&
           (last == T || (pad >= 0 && all_of(last, [&](int64_t w) { return w == pad; }))))
      --last;
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

std::vector<std::vector<Hypothesis>> beam_search_unilm(StepScorer& scorer, int64_t n_examples,
                                                       int64_t eos, const SearchOptions& opts,
                                                       int64_t pad,
                                                       std::vector<BeamTrace>* traces_out,
                                                       const VocabMask& vocab) {
  validate(opts);
  const StepConstraints constraints =
      step_constraints(opts, SearchStrategy::kUnilmBeam, eos, vocab);
  torch::NoGradGuard no_grad;
  const int64_t K = opts.beam;
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
    if (lp.dim() != 2 || lp.size(0) != A * per)
      throw std::runtime_error("StepScorer returned a tensor of the wrong shape");
    const int64_t V = lp.size(1);
    if (V < K)
      throw InputError("--beam " + std::to_string(K) + " exceeds the vocabulary size " +
                       std::to_string(V));
    // The bans of this frame (forbid_word_mask * -10000 added, EOS filled before min_len).
    ConstraintRows view{step, {}};
    for (const auto& s : seqs) view.tokens.push_back(&s);
    lp = constraints.apply(lp, view);
    auto top = lp.topk(K, 1, /*largest=*/true, /*sorted=*/true);
    torch::Tensor kk_scores = std::get<0>(top), kk_ids = std::get<1>(top);  // [A * per, K]
    torch::Tensor k_scores, k_ids, back;
    if (step == 0) {
      k_scores = kk_scores;
      k_ids = kk_ids;
      back = torch::zeros({A, K}, torch::kInt64);
    } else {
      kk_scores =
          kk_scores + (seq_eos.reshape({A * K, 1}) * kUnilmBan + seq_scores.reshape({A * K, 1}));
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
  for (int64_t e = 0; e < n_examples; ++e)
    out[e].push_back(best_from_trace(traces[e], eos, pad, opts));
  if (traces_out) *traces_out = std::move(traces);
  return out;
}

}  // namespace unieval::models
