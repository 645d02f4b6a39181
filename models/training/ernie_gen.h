#pragma once
// Follows ERNIE-GEN (Xiao et al. 2020, PaddlePaddle/ERNIE, Apache-2.0) behaviour; no code copied;
// see THIRD_PARTY_NOTICES.md.
// ERNIE-GEN's multi-flow training (§3, Figures 2–3): infilling generation with [ATTN] symbols,
// noise-aware generation, the span-by-span flow and its t-statistic span vocabulary, and
// multi-granularity target fragments for pre-training (§3.1). Infilling decoding (§3.4, Figure 4)
// is models/decoding/search_unilm.h's scorer with the [ATTN] symbol as its query token (below).
//
// The flows over one shared Transformer (Eq. 5), for source S (n tokens) and target T (m tokens):
//   contextual flow  X   = [S, T']         queries X,   keys X          mask M_C
//   word-by-word     A_W = [ATTN]_1..m     queries A_W, keys [X, A_W]   mask M_W
//   span-by-span     A_S = [ATTN]_1..m     queries A_S, keys [X, A_S]   mask M_S
// T' is T with words replaced by random vocabulary words (noise-aware generation, §3.2); the
// losses predict the true T. Position ids (Figure 3a): X takes 0..n+m-1; the i-th [ATTN] of either
// flow takes the position of t_i (n + i), so an [ATTN] stands *in place of* the word it predicts.
// Segment ids: the source segment for S, the target segment for T' and both [ATTN] flows.
//
// Masks (1 = may attend; Figure 3d, Eqs. 2–4), i, j counted from 0 within S, T and A:
//   M_C  [n+m, n+m]   s_i sees S;  t_i sees S and t_≤i                 (UniLM's seq2seq mask)
//   M_W  [m, n+m+m]   a_i sees S, t_<i (in T') and a_i itself           (Eq. 3)
//   M_S  [m, n+m+m]   a_j with j in span [b_k, b_k+1) sees S, t_<b_k and a_j itself (Eq. 4)
// A flow never sees the other flow, and X never sees a flow: the contextual flow's keys/values are
// computed once per layer and shared by both generation flows (multi_flow_forward), so X is the
// same whatever flows run. With one-token spans M_S = M_W.
//
// Packing as UniLM (models/training/seq2seq_data.h): S = "[CLS] S1 [SEP]" and T = "S2 [SEP]" (the [SEP]
// is predicted, so the model learns to stop); source/target segment ids from the options. With
// data.target_bos (the layout of the official ERNIE-GEN scripts and released checkpoints) the
// target stream is "[CLS] S2 [SEP]": the [CLS] opens it at the first target position, is seen by
// every target word and [ATTN], and is not predicted; the [ATTN]s stand at the positions of
// "S2 [SEP]" as before.
//
// Noise (ρ, ERNIE-GEN's noise_prob), two rules (ErnieGenOptions::noise_rule):
//   kCount (default): floor(ρ · |S2|) positions of S2 drawn without replacement are replaced in T'
//     by a token uniform over the regular vocabulary; the closing [SEP] is never noised. The later
//     ERNIE dygraph port's rule (a fixed count).
//   kPerPosition: the paper code's rule (the `repro` branch of PaddlePaddle/ERNIE,
//     ernie-gen/reader/seq2seq_reader.py, random_noise): every position of "S2 [SEP]" (after the
//     target's [CLS] when there is one), the closing [SEP] included, is replaced with probability
//     ρ, each by itself, by a token uniform over the whole vocabulary, special tokens included
//     (tests/parity/fixtures/ernie_gen_masks.json records a batch of it; the draws come from
//     Python's `random` there and from the run's generator here).
//
// Loss (Eq. 7): λ · CE(word flow) + (1 − λ) · CE(span flow), both over every target position,
// label-smoothed (models/training/trainer.h); the paper's λ is 0.5 in pre-training and 1.0 in fine-tuning,
// where the span flow is then not run at all.
//
// Span vocabulary (§3.3): over a corpus of token sequences, every bigram and trigram w gets the
// t-statistic t(w) = (P(w) − P'(w)) / sqrt(σ²/N) with P(w) = count(w)/N (N = the number of n-grams
// of that order in the corpus), P'(w) = ∏ P(w_i) (unigram probabilities) and σ² = P(w)(1 − P(w))
// (the Bernoulli variance; P(w) when that is 0). V_span = the top_bigrams bigrams and top_trigrams
// trigrams by t (ties: smaller token ids first) plus every unigram. Span boundaries of a target
// (§3.3 second step): from the current word, the trigram, else the bigram, else the unigram that
// is in V_span (deterministic, as the paper states); the closing [SEP] is a span of its own.
//
// Multi-granularity target fragments (§3.1, pre-training): from a text S of n tokens, fragments are
// drawn until γ·n tokens are taken (γ = 0.25): each fragment's length comes from U(1, 4) with
// probability 0.4, else U(4, 32) (capped by the budget left), its start uniform among positions
// whose span does not overlap an earlier fragment (up to 16 tries, else the fragment is skipped).
// T = the fragments sorted by position and concatenated; S' = S without them.
//
//   ErnieGenOptions eg;  eg.lambda = 0.5;  eg.noise_prob = 0.05;
//   ErnieGenBatch b = make_ernie_gen_batch(examples, idx, data, eg, ids, &span_vocab, rng);
//   MultiFlowOutput out = multi_flow_forward(model, b.context, {b.word, b.span});
//
// | ErnieGenOptions | default | meaning                                                      |
// |-----------------|---------|--------------------------------------------------------------|
// | lambda          | 1.0     | λ of Eq. 7: weight of the word-by-word flow (1 = no span flow)|
// | noise_prob      | 0.0     | ρ (ρ_p in pre-training, ρ_f in fine-tuning)                   |
// | noise_rule      | count   | count (floor(ρ·|S2|) words) or per_position (the paper code)  |
// | top_bigrams     | 200000  | bigrams kept in V_span (§3.3)                                  |
// | top_trigrams    | 50000   | trigrams kept in V_span                                        |
// | fragment_ratio  | 0.25    | γ of §3.1                                                      |
#include <torch/torch.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "models/nn/transformer.h"
#include "models/training/pretrain_shard.h"
#include "models/training/seq2seq_data.h"
#include "models/training/smoothing.h"

namespace unieval::models {

// The noise rule (header comment): "count" | "per_position".
enum class NoiseRule { kCount, kPerPosition };
NoiseRule parse_noise_rule(const std::string& name);
std::string to_string(NoiseRule rule);
inline std::string field_to_string(NoiseRule rule) { return to_string(rule); }
inline NoiseRule field_from_string(const std::string& name, NoiseRule) {
  return parse_noise_rule(name);
}

struct ErnieGenOptions {
  double lambda = 1.0;                       // word-flow weight (Eq. 7)
  double noise_prob = 0.0;                   // noising rate ρ
  NoiseRule noise_rule = NoiseRule::kCount;  // how ρ is applied (header comment)
  int64_t top_bigrams = 200000;              // V_span bigrams
  int64_t top_trigrams = 50000;              // V_span trigrams
  double fragment_ratio = 0.25;              // γ (pre-training fragments)

  void validate() const;  // InputError naming the option
};

// The t-statistic span vocabulary (header comment).
class SpanVocab {
 public:
  SpanVocab() = default;
  // Builds V_span from token sequences (special tokens excluded by the caller). Ids must be below
  // 2^21 (InputError otherwise).
  static SpanVocab build(const std::vector<std::vector<int64_t>>& corpus, int64_t top_bigrams,
                         int64_t top_trigrams);
  // The same over the sentences of a pre-training shard (n-grams within a sentence).
  static SpanVocab build(const TokenShard& shard, int64_t top_bigrams, int64_t top_trigrams);
  // Span start offsets of `tokens` (ascending, first 0; empty for an empty input).
  std::vector<int64_t> span_starts(const std::vector<int64_t>& tokens) const;
  bool has_bigram(int64_t a, int64_t b) const;
  bool has_trigram(int64_t a, int64_t b, int64_t c) const;
  size_t bigrams() const { return bigrams_.size(); }
  size_t trigrams() const { return trigrams_.size(); }

 private:
  class Counter;
  static SpanVocab from_counts(const Counter& c, int64_t top_bigrams, int64_t top_trigrams);
  std::unordered_set<uint64_t> bigrams_, trigrams_;  // keys: the ids packed 21 bits each
};

// t-statistic of an n-gram (exposed for tests): count of the n-gram, N n-grams of its order,
// unigram probabilities of its words.
double t_statistic(int64_t count, int64_t total, const std::vector<double>& unigram_probs);

// The three mask matrices for one example (Figure 3d; 0/1 int64): M_C [n+m, n+m], M_W and M_S
// [m, n+2m]. span_starts: offsets into T (ascending, first 0).
struct MultiFlowMasks {
  torch::Tensor context, word, span;
};
MultiFlowMasks multi_flow_masks(int64_t source_len, int64_t target_len,
                                const std::vector<int64_t>& span_starts);

// One flow's inputs (CPU or device tensors): ids/types/positions [B,Tq]; mask [B,Tq,Tk] 0/1.
struct FlowInput {
  torch::Tensor input_ids, token_type_ids, position_ids, mask;
};

struct MultiFlowOutput {
  torch::Tensor context;             // [B,Tx,H] last layer of the contextual flow
  std::vector<torch::Tensor> flows;  // per generation flow [B,Tm,H]
};

// Eq. 5: the contextual flow over its mask (keys X), each generation flow over keys [X, itself]
// with its mask [B,Tm,Tx+Tm]; X's keys/values are computed once per layer and shared.
MultiFlowOutput multi_flow_forward(UnilmModel& model, const FlowInput& context,
                                   const std::vector<FlowInput>& flows);

// A padded multi-flow training batch (CPU tensors).
struct ErnieGenBatch {
  FlowInput context;  // X = [CLS] S [SEP] T' [SEP], mask M_C (padding as models/nn/masks.h)
  FlowInput word;     // A_W, mask M_W (padding rows see themselves only)
  FlowInput span;     // A_S, mask M_S (undefined tensors when lambda == 1)
  torch::Tensor target_index;       // [N] flat b*Tm + i of every real [ATTN] position
  torch::Tensor labels;             // [N] the true target token there
  torch::Tensor noised;             // [B,Tx] 0/1: positions of X whose token was replaced
  int64_t tokens = 0;               // non-padding tokens of X
  std::vector<int64_t> source_len;  // per row |S| (positions 1..|S| of X; the copy head's source)
};

// Given noise draws for the per_position rule, used in order instead of rng's: per target
// position a coin in [0, 1) (noised when < ρ) and, for a noised one, its token (parity tests
// replay the official reader's Python `random` draws). Running out is an InputError.
struct NoiseReplay {
  std::vector<double> coins;
  std::vector<int64_t> tokens;
  size_t next_coin = 0, next_token = 0;
};

// Packs examples[idx...] (already truncated). span_vocab: needed when eg.lambda < 1 (InputError
// otherwise). rng draws the noise (replay, when given, the per_position rule's draws).
ErnieGenBatch make_ernie_gen_batch(const std::vector<Seq2SeqExample>& examples,
                                   const std::vector<size_t>& idx, const Seq2SeqDataOptions& data,
                                   const ErnieGenOptions& eg, const SpecialIds& ids,
                                   const SpanVocab* span_vocab, std::mt19937_64& rng,
                                   NoiseReplay* replay = nullptr);

struct ErnieGenLoss {
  torch::Tensor loss;  // λ·word + (1−λ)·span, label-smoothed (backward() on this)
  double word_nll = 0, span_nll = 0;  // plain NLL means (reporting; span 0 without the flow)
};

// Forward + loss of a batch on the model's device.
ErnieGenLoss ernie_gen_loss(UnilmModel& model, const ErnieGenBatch& batch, double lambda,
                            double label_smoothing, LabelSmoothing form = LabelSmoothing::kUniform);

// ernie_gen_loss without reading anything back to the host (training: the loop reads a step's
// values once, models/training/train_loop.h): the NLL means as tensors on the model's device.
struct ErnieGenLossTensors {
  torch::Tensor loss;      // as ErnieGenLoss::loss
  torch::Tensor word_nll;  // plain NLL mean of the word flow (a scalar)
  torch::Tensor span_nll;  // of the span flow; undefined without it (lambda = 1)
};
ErnieGenLossTensors ernie_gen_loss_tensors(UnilmModel& model, const ErnieGenBatch& batch,
                                           double lambda, double label_smoothing,
                                           LabelSmoothing form = LabelSmoothing::kUniform);

// Multi-granularity target fragments of one text (header comment): {S', T} as token ids.
Seq2SeqExample sample_fragments(const std::vector<int64_t>& text, double ratio,
                                std::mt19937_64& rng);

// One ERNIE-GEN pre-training micro-batch (§3.1): example g = (step·accum + micro)·batch_size + i
// draws, from a generator seeded by (seed, g), a text of up to max_len − 3 tokens (consecutive
// sentences of one document from a uniformly drawn sentence, the last one cut to fit), then its
// multi-granularity fragments (sample_fragments, eg.fragment_ratio) as S' → T; packed by
// make_ernie_gen_batch with types.source_type / target_type, the noise drawn from a generator
// seeded by (seed, step, micro). A pure function of its arguments: resuming needs no data state.
ErnieGenBatch make_ernie_gen_pretrain_batch(const TokenShard& shard, int64_t max_len,
                                            const Seq2SeqDataOptions& types,
                                            const ErnieGenOptions& eg, const SpecialIds& ids,
                                            const SpanVocab* span_vocab, uint64_t seed,
                                            int64_t step, int64_t micro, int64_t accum,
                                            int64_t batch_size);

// The id ERNIE-GEN decoding and training insert: [ATTN] when the vocabulary has it, else [MASK]
// (the official scripts' --attn_token fallback). Filled by special_ids (SpecialIds::attn).

}  // namespace unieval::models
