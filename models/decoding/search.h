#pragma once
// Follows HF transformers (Apache-2.0) and UniLM (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// Decoding algorithms over an abstract next-token scorer: beam search, greedy, and top-k/top-p
// sampling. The model side is a StepScorer: UniLM / ERNIE-GEN incremental decoding with cached
// keys/values in models/decoding/search_unilm.h, GPT in models/decoding/search_gpt.h; these functions only see
// log-probabilities, so they are tested against toy scorers (beam search with a wide beam ==
// exhaustive search).
//
// Decoding is a strategy (SearchStrategy, chosen by search_strategy from the options) over one
// list of step constraints (models/decoding/search_constraints.h: minimum length, n-gram ban, vocabulary
// limit), which every strategy applies in one place per step, on the scorer's device:
//
// | strategy     | options                     | source               | constraints          |
// |--------------|-----------------------------|----------------------|----------------------|
// | kBeam        | beam > 1, algorithm "exact" | beam_search.cc       | -inf bans, NaN->-inf |
// | kUnilmBeam   | beam > 1, algorithm "unilm" | beam_search_unilm.cc | additive -10000 bans |
// | kGreedy      | beam 1, algorithm "exact"   | sampling.cc (argmax) | -inf bans            |
// | kUnilmGreedy | beam 1, algorithm "unilm"   | sampling.cc (argmax) | vocabulary only      |
// | kSample      | sample                      | sampling.cc (draw)   | -inf bans            |
//
//   SearchOptions opts;  opts.beam = 5;  opts.no_repeat_ngram = 3;  opts.max_len = 32;
//   auto nbest = generate(scorer, /*example ids*/ {0, 1, 2}, eos_id, opts);
//   nbest[i][0].tokens   // best hypothesis of example i, without the EOS
//
// | option          | default | meaning                                                              |
// |-----------------|---------|----------------------------------------------------------------------|
// | beam            | 1       | beam size K (1 and sample = false: greedy)                            |
// | n_best          | 1       | hypotheses returned per example (≤ beam)                              |
// | length_penalty  | 0       | alpha: score = sum log p / len^alpha, len counts the EOS (HF style)   |
// | min_len         | 0       | EOS is forbidden before this many tokens have been generated         |
// | max_len         | 32      | at most this many tokens (EOS included); a hypothesis that reaches it |
// |                 |         | without EOS ends there ("truncated")                                 |
// | no_repeat_ngram | 0       | n > 0: a token that would repeat an n-gram of the hypothesis is banned |
// |                 |         | (fairseq/UniLM "remove duplicated trigrams" with n = 3)              |
// | ngram_ignore    | {}      | token ids exempt from the n-gram ban as UniLM's --forbid_ignore_word: |
// |                 |         | a context (last n-1 tokens) holding one bans nothing, and one is never |
// |                 |         | banned (banned_by_ngram)                                              |
// | ngram_ignore_words | {}   | the same as words (".", "[X_SEP]"); the caller resolves them to ids   |
// |                 |         | with its vocabulary (pipelines: decode); kept for run.json / presets  |
// | not_predict     | {}      | token ids never generated: the caller passes them in       |
// |                 |         | generate's VocabMask (log-prob -inf at every step)         |
// | not_predict_words | {}    | the same as words, '|'-separated on the command line (UniLM's          |
// |                 |         | --not_predict_token); "@special" stands for every bracketed vocabulary |
// |                 |         | entry ([PAD] [CLS] [MASK] [unused7] ...) but the end token; resolved by |
// |                 |         | the caller with its vocabulary (pipelines: decode)                     |
// | algorithm       | "exact" | beam search: "exact" (below) or "unilm": microsoft/unilm's            |
// |                 |         | BertForSeq2SeqDecoder.beam_search, frame by frame with traces         |
// |                 |         | (beam_search_unilm); length_penalty is then its GNMT-form penalty     |
// | trace_alpha     | 0       | "unilm" only, > 0: the hypothesis is picked by re-ranking the traces  |
// |                 |         | as gen_seq_from_trace.py --alpha does (best_from_trace)               |
// | trace_selection | "official" | how trace_alpha re-ranks: "official" = gen_seq_from_trace.py as it  |
// |                 |         | runs (its set-unpacking of ([SEP], [PAD]) ids, the zero frames         |
// |                 |         | decode_seq2seq.py pads traces with, and simple_postprocess applied by  |
// |                 |         | the caller: the published CNN/DM and Gigaword numbers), "intended" =   |
// |                 |         | what the script meant ([SEP] ends, [PAD] pads); see best_from_trace    |
// | sample          | false   | sample each token instead of searching (beam ignored)                |
//
// Greedy (beam 1, no sampling) with algorithm "unilm" is decode_seq2seq.py's greedy path
// (BertForSeq2SeqDecoder.forward with beam size 1): the argmax at every step, ended by [SEP] or
// [PAD]; it applies --not_predict_token but never --min_len nor the n-gram ban, so min_len and
// no_repeat_ngram are ignored there (official_greedy_ignores lists them for a warning). Greedy with
// algorithm "exact" applies both.
// | top_k, top_p    | 0, 1.0  | sampling: keep the k best / the smallest set with mass ≥ p (0/1: off) |
// | temperature     | 1.0     | sampling: logits divided by it                                       |
// | seed            | 0       | sampling: each example draws from its own generator seeded by (seed,  |
// |                 |         | example id), so results do not depend on batch composition           |
//
// Beam search, precisely (one step, per example): every live hypothesis h (log-prob s_h) is
// extended by every allowed token w: s = s_h + log p(w|h). Extensions by EOS, and extensions that
// reach max_len, become finished candidates; of the others the K best (by s; ties by row then
// token) stay live. The finished set keeps the K best by normalised score. An example stops when
// it has no live hypothesis, or K finished ones and no live hypothesis can still beat the K-th
// (log-probs only fall; with alpha the bound is taken at the best reachable length), so the
// result equals running every hypothesis to max_len, and with K ≥ |V|^max_len equals exhaustive
// search. Results of an example never depend on the other examples in the batch.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/fields.h"

namespace unieval::models {

class Vocab;        // models/tokenizer/wordpiece.h
class WordLexicon;  // models/decoding/word_lexicon.h

enum class SearchAlgorithm { kExact, kUnilm };  // SearchOptions::algorithm "exact" / "unilm"

struct SearchOptions {
  int beam = 1;                                 // beam size K
  int n_best = 1;                               // hypotheses returned per example
  double length_penalty = 0.0;                  // alpha (score = logp / len^alpha)
  int min_len = 0;                              // EOS forbidden before this many tokens
  int max_len = 32;                             // maximum generated tokens, EOS included
  int no_repeat_ngram = 0;                      // n-gram blocking size (0 = off)
  bool sample = false;                          // sampling instead of search
  int top_k = 0;                                // sampling: top-k filter (0 = off)
  double top_p = 1.0;                           // sampling: nucleus filter (1 = off)
  double temperature = 1.0;                     // sampling: temperature
  uint64_t seed = 0;                            // sampling: seed
  std::vector<int64_t> ngram_ignore;            // token ids exempt from the n-gram ban
  std::vector<std::string> ngram_ignore_words;  // the same as words (resolved by the caller)
  std::vector<int64_t> not_predict;             // token ids never generated
  std::vector<std::string> not_predict_words;   // the same as words ("@special": bracketed entries)
  std::string algorithm = "exact";              // beam search: "exact" or "unilm"
  double trace_alpha = 0.0;                     // "unilm": gen_seq_from_trace --alpha (0 = off)
  std::string trace_selection = "official";     // trace_alpha > 0: "official" or "intended"

  // The options' one declaration (core/fields.h): JSON key, flag, help, write rule. The id lists
  // (ngram_ignore, not_predict) are resolved from the words by the caller and never stored.
  template <class S, class V>
  static void fields(S& s, V&& v) {
    using unieval::fields::Field;
    v(Field("beam", "beam size (1 = greedy)"), s.beam);
    v(Field("n_best", "hypotheses returned per example").flag(""), s.n_best);
    v(Field("length_penalty", "alpha: score = log p / len^alpha"), s.length_penalty);
    v(Field("min_len", "minimum generated tokens before EOS"), s.min_len);
    v(Field("max_len", "maximum generated tokens (EOS included)"), s.max_len);
    v(Field("no_repeat_ngram", "block repeated n-grams of this size (0 = off)"), s.no_repeat_ngram);
    v(Field("sample", "sample instead of search"), s.sample);
    v(Field("top_k", "sampling: top-k (0 = off)"), s.top_k);
    v(Field("top_p", "sampling: nucleus mass (1 = off)"), s.top_p);
    v(Field("temperature", "sampling: temperature"), s.temperature);
    v(Field("seed", "sampling seed"), s.seed);
    // Written only when set, so that the run folders of earlier versions keep their request.json.
    v(Field("ngram_ignore_words",
            "words exempt from the n-gram ban, '|'-separated (UniLM --forbid_ignore_word, e.g. "
            "\".|[X_SEP]\"; \"\" = none)")
          .flag("ngram-ignore")
          .unless_default(),
      s.ngram_ignore_words);
    v(Field("not_predict_words",
            "tokens never generated, '|'-separated (UniLM --not_predict_token); @special = every "
            "bracketed vocabulary entry but [SEP] ([PAD] [CLS] [MASK] [unused7] ...); \"\" = none")
          .flag("not-predict")
          .unless_default(),
      s.not_predict_words);
    v(Field(
          "algorithm",
          "beam search: exact (default; finished hypotheses ranked by log p / len^alpha) or unilm "
          "(microsoft/unilm's beam search; --length-penalty is then its ((5+len)/6)^lp form)")
          .flag("search")
          .unless_default(),
      s.algorithm);
    v(Field("trace_alpha",
            "--search unilm: pick the hypothesis by re-ranking the beam traces as "
            "gen_seq_from_trace.py --alpha (0 = off)")
          .unless_default(),
      s.trace_alpha);
    v(Field("trace_selection",
            "--trace-alpha: official (default; gen_seq_from_trace.py as it runs: its [SEP]/[PAD] "
            "swap and simple_postprocess, which produced the published numbers) or intended (what "
            "the script meant)")
          .when(s.trace_alpha != 0.0 || s.trace_selection != "official"),
      s.trace_selection);
  }
};

// SearchOptions as JSON (request.json "decode", run.json, presets) and back; reading is strict
// (core/fields.h): an unknown key or a value of the wrong type is an InputError naming `source`.
nlohmann::ordered_json search_to_json(const SearchOptions& s);
SearchOptions search_from_json(const nlohmann::json& j, const std::string& source);

// "exact" / "unilm" (the JSON / command-line spelling); nullopt for any other name.
std::optional<SearchAlgorithm> parse_search_algorithm(const std::string& name);

// How generate decodes with opts (see the table above); an unknown algorithm counts as "exact"
// here (validate refuses it).
enum class SearchStrategy { kBeam, kUnilmBeam, kGreedy, kUnilmGreedy, kSample };
SearchStrategy search_strategy(const SearchOptions& opts);

// The ids a decoding may never produce, masked to -inf at every step by the VocabLimit constraint
// (models/decoding/search_constraints.h): ids >= entries (a config vocab_size padded past the vocabulary,
// see models/decoding/vocab_limit.h) and the banned ids (SearchOptions::not_predict). entries 0: no limit
// (banned must then be empty).
// lexicon: when set, every word written is one of its words (models/decoding/word_lexicon.h).
struct VocabMask {
  int64_t entries = 0;
  std::vector<int64_t> banned;
  std::shared_ptr<const WordLexicon> lexicon;
};

// What decoding with opts ignores because it follows decode_seq2seq.py's greedy path (algorithm
// "unilm", beam 1, no sampling): "min_len N" and "no_repeat_ngram N" when set; empty otherwise.
std::vector<std::string> official_greedy_ignores(const SearchOptions& opts);

// Checks ranges (InputError naming the option).
void validate(const SearchOptions& opts);

// What the search asks the scorer for at one step. Row r continues row parent[r] of the previous
// call by appending last_token[r] (both empty at step 0, where there is one row per example).
struct StepRequest {
  int step = 0;                     // tokens already generated in every row
  std::vector<int64_t> example;     // per row: index of its example in the batch
  std::vector<int64_t> parent;      // per row: row index in the previous request (step > 0)
  std::vector<int64_t> last_token;  // per row: the token appended at step-1 (step > 0)
};

class StepScorer {
 public:
  virtual ~StepScorer() = default;
  // Log-probabilities [rows, vocab] of the next token of every row of req.
  virtual torch::Tensor step(const StepRequest& req) = 0;
};

struct Hypothesis {
  std::vector<int64_t> tokens;  // generated tokens, EOS excluded
  double log_prob = 0.0;        // sum of log-probabilities (EOS included when finished by it)
  double score = 0.0;           // log_prob / len^alpha
  bool eos = false;             // ended by EOS (false: reached max_len)
};

// n-best lists (best first) for examples 0..example_ids.size()-1 of the scorer's batch;
// example_ids are the examples' global ids (they seed sampling). pad: the [PAD] id, which the
// "unilm" algorithm treats as an end of sequence as UniLM does (-1: none); vocab: the ids never
// produced. Dispatches on search_strategy(opts).
std::vector<std::vector<Hypothesis>> generate(StepScorer& scorer,
                                              const std::vector<int64_t>& example_ids, int64_t eos,
                                              const SearchOptions& opts, int64_t pad = -1,
                                              const VocabMask& vocab = {});

// Beam search with the vocabulary distribution kept on the scorer's device: per step the bans are
// applied there (NaN -> -inf, min_len, n-gram bans scattered from the hypotheses' token ids), one
// top-(K+2) over the vocabulary per row runs there, and only [rows, K+2] values/ids plus the EOS
// column come to the host, where the finished/live bookkeeping runs on those few candidates. The
// result is identical to the host walk over the whole distribution in float64 that it replaced
// (tests/models/beam_search_reference.h, the tests' oracle; same candidates reach the same
// decisions; a top-k tie at the cut is resolved exactly, smallest token id first): tested.
std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, int64_t n_examples,
                                                 int64_t eos, const SearchOptions& opts,
                                                 const VocabMask& vocab = {});
// Greedy (opts.sample false: the argmax) or sampling: one strategy with two samplers, one
// hypothesis per example. end2 >= 0: a second end token (UniLM's greedy path stops at [SEP] or
// [PAD]).
std::vector<std::vector<Hypothesis>> greedy_or_sample(StepScorer& scorer,
                                                      const std::vector<int64_t>& example_ids,
                                                      int64_t eos, const SearchOptions& opts,
                                                      int64_t end2 = -1,
                                                      const VocabMask& vocab = {});

// UniLM's beam search (microsoft/unilm unilm-v1 modeling.py BertForSeq2SeqDecoder.beam_search),
// behaviour for behaviour. Frame t holds K entries per example (score, token, back pointer):
// frame 0 = the top-K tokens of the first distribution; frame t = the top-K of the K x K
// candidates (top-K tokens of each entry's distribution, plus the entry's score; an entry that is
// EOS adds -10000 to its continuations, which stay in the beam). Bans are additive -10000 on the
// log-probs (n-gram bans with opts.ngram_ignore, as get_dup_ngram_candidates), min_len fills
// -10000 into EOS. Every frame is kept (the "trace"); an example stops at its first frame whose
// K tokens are all EOS (UniLM ignores every later frame), or after max_len frames. The hypothesis
// is then picked from the trace by best_from_trace. One hypothesis per example (n_best 1).
// Float arithmetic in the scorer's dtype, as UniLM's tensors; ties at a top-k cut go as
// torch::topk puts them.
struct BeamTrace {
  std::vector<std::vector<double>> scores;  // [frame][K] accumulated log-prob of each entry
  std::vector<std::vector<int64_t>> wids;   // [frame][K] token of each entry
  std::vector<std::vector<int64_t>> ptrs;   // [frame][K] entry of frame-1 it extends (0 at frame 0)
};
std::vector<std::vector<Hypothesis>> beam_search_unilm(StepScorer& scorer, int64_t n_examples,
                                                       int64_t eos, const SearchOptions& opts,
                                                       int64_t pad = -1,
                                                       std::vector<BeamTrace>* traces = nullptr,
                                                       const VocabMask& vocab = {});
// The hypothesis UniLM outputs from one trace. trace_alpha == 0: decode_seq2seq.py's pick (the
// last frame is the first all-EOS frame, else the final one; candidates are EOS entries and the
// last frame's entries; score / ((5 + len) / 6)^length_penalty when length_penalty > 0; first
// maximum). trace_alpha > 0: gen_seq_from_trace.py --alpha (traces padded with [PAD] frames; the
// last frame is the first frame of EOS/[PAD] only, stepped back over all-[PAD] frames; entries
// with score >= 0 are skipped as padding; candidates are EOS/[PAD] entries and the last frame's;
// score / ((5 + len) / 6)^alpha). len = frame index + 1. The tokens are the back-tracked entry
// sequence up to its first EOS/[PAD]; log_prob = the entry's score, score = the ranked value.
// That is trace_selection "intended". With "official" (the default) it is what the script does:
// `eos_id, pad_id = set(ids of [SEP], [PAD])` unpacks the set in CPython's iteration order
// (python_set_order: for BERT's 102 and 0 that is (0, 102), so [PAD] plays the end token and
// [SEP] the padding), and the trace is followed by decode_seq2seq.py's padding frames (token 0,
// score 0, pointer 0). The last frame is the first frame of [SEP]/[PAD] tokens only (a padding
// frame qualifies when 0 is one of them), stepped back over frames whose tokens all equal the
// unpacked pad_id; candidates are the entries with score < 0 that are [SEP]/[PAD] or in the last
// frame. Consequences for BERT ids: a trace where no beam ends picks among the ended entries only
// (empty output when none ended), a trace whose beams all end at one frame backs off one frame,
// and unfinished hypotheses are never candidates. A step-back below frame 0 gives an empty
// hypothesis (the script would read its padding frames from the end).
Hypothesis best_from_trace(const BeamTrace& trace, int64_t eos, int64_t pad,
                           const SearchOptions& opts);

// The order CPython iterates set([a, b]) of two non-negative ints below 2^61 (hash = value, an
// 8-slot table: slot a & 7, b probes (i * 5 + 1 + (perturb >>= 5)) & 7 on a collision): the pair
// gen_seq_from_trace.py unpacks into (eos_id, pad_id). a == b: {a, a} (the script raises there).
std::pair<int64_t, int64_t> python_set_order(int64_t a, int64_t b);

// gen_seq_from_trace.py simple_postprocess on the words of a hypothesis: while there are more than
// 4 words, the last is one character of Unicode category P*, and the last 4 are equal, the last 3
// are dropped. words: the hypothesis' pieces grouped as its detokenize() groups them (a "##" piece
// joins the word before). Returns the number of words kept.
size_t simple_postprocess_keep(const std::vector<std::string>& words);
// The same on a hypothesis' pieces (ids of vocab): the pieces of the words kept.
std::vector<int32_t> simple_postprocess_pieces(const Vocab& vocab,
                                               const std::vector<int32_t>& pieces);

// Tokens banned after `prefix` by n-gram blocking of size n (tokens that follow an earlier
// occurrence of the last n-1 tokens). With `ignore` (UniLM's forbid_ignore_set): nothing is banned
// when one of the last n-1 tokens is ignored, and an ignored token is never banned. Exposed for
// tests.
std::vector<int64_t> banned_by_ngram(const std::vector<int64_t>& prefix, int n,
                                     const std::vector<int64_t>& ignore = {});

// Normalised score of a hypothesis of `len` tokens (EOS included) with log-prob lp.
double length_normalised(double lp, int64_t len, double alpha);

}  // namespace unieval::models
