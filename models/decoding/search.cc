// Follows HF transformers (Apache-2.0) and UniLM (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// Search options, the n-gram ban and length normalisation, and generate's choice of strategy
// (models/decoding/search.h). The strategies: beam_search.cc, beam_search_unilm.cc, sampling.cc.
#include "models/decoding/search.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace unieval::models {

nlohmann::ordered_json search_to_json(const SearchOptions& s) { return fields::to_json(s); }

SearchOptions search_from_json(const nlohmann::json& j, const std::string& source) {
  SearchOptions s;
  fields::from_json(j, s, source);
  return s;
}

std::optional<SearchAlgorithm> parse_search_algorithm(const std::string& name) {
  if (name == "exact") return SearchAlgorithm::kExact;
  if (name == "unilm") return SearchAlgorithm::kUnilm;
  return std::nullopt;
}

SearchStrategy search_strategy(const SearchOptions& opts) {
  if (opts.sample) return SearchStrategy::kSample;
  const bool unilm = parse_search_algorithm(opts.algorithm) == SearchAlgorithm::kUnilm;
  if (opts.beam == 1) return unilm ? SearchStrategy::kUnilmGreedy : SearchStrategy::kGreedy;
  return unilm ? SearchStrategy::kUnilmBeam : SearchStrategy::kBeam;
}

void validate(const SearchOptions& o) {
  if (o.beam < 1) throw InputError("--beam must be at least 1");
  if (o.n_best < 1 || o.n_best > o.beam) throw InputError("--n-best must be between 1 and --beam");
  if (o.max_len < 1) throw InputError("--max-len must be at least 1");
  if (o.min_len < 0 || o.min_len > o.max_len)
    throw InputError("--min-len must be between 0 and --max-len");
  if (o.no_repeat_ngram < 0) throw InputError("--no-repeat-ngram must be >= 0");
  if (o.top_k < 0) throw InputError("--top-k must be >= 0");
  if (!(o.top_p > 0.0 && o.top_p <= 1.0)) throw InputError("--top-p must be in (0, 1]");
  if (!(o.temperature > 0.0)) throw InputError("--temperature must be > 0");
  const std::optional<SearchAlgorithm> algorithm = parse_search_algorithm(o.algorithm);
  if (!algorithm) throw InputError("--search must be exact or unilm (got '" + o.algorithm + "')");
  const bool unilm = *algorithm == SearchAlgorithm::kUnilm;
  if (o.trace_alpha < 0) throw InputError("--trace-alpha must be >= 0");
  if (o.trace_alpha > 0 && !unilm) throw InputError("--trace-alpha needs --search unilm");
  if (o.trace_selection != "official" && o.trace_selection != "intended")
    throw InputError("--trace-selection must be official or intended (got '" + o.trace_selection +
                     "')");
  if (unilm && o.n_best != 1)
    throw InputError("--search unilm returns one hypothesis (--n-best 1)");
}

double length_normalised(double lp, int64_t len, double alpha) {
  if (alpha == 0.0 || len <= 0) return lp;
  return lp / std::pow(double(len), alpha);
}

std::vector<int64_t> banned_by_ngram(const std::vector<int64_t>& prefix, int n,
                                     const std::vector<int64_t>& ignore) {
  std::vector<int64_t> banned;
  if (n <= 0) return banned;
  auto ignored = [&](int64_t w) {
    return std::find(ignore.begin(), ignore.end(), w) != ignore.end();
  };
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

std::vector<std::string> official_greedy_ignores(const SearchOptions& opts) {
  std::vector<std::string> out;
  if (search_strategy(opts) != SearchStrategy::kUnilmGreedy) return out;
  if (opts.min_len > 0) out.push_back("min_len " + std::to_string(opts.min_len));
  if (opts.no_repeat_ngram > 0)
    out.push_back("no_repeat_ngram " + std::to_string(opts.no_repeat_ngram));
  return out;
}

std::vector<std::vector<Hypothesis>> generate(StepScorer& scorer,
                                              const std::vector<int64_t>& example_ids, int64_t eos,
                                              const SearchOptions& opts, int64_t pad,
                                              const VocabMask& vocab) {
  const int64_t n = static_cast<int64_t>(example_ids.size());
  switch (search_strategy(opts)) {
    case SearchStrategy::kUnilmGreedy: {
      // decode_seq2seq.py's greedy path: argmax to [SEP] or [PAD], no min_len, no n-gram ban.
      SearchOptions g = opts;
      g.min_len = 0;
      g.no_repeat_ngram = 0;
      return greedy_or_sample(scorer, example_ids, eos, g, pad, vocab);
    }
    case SearchStrategy::kGreedy:
    case SearchStrategy::kSample:
      return greedy_or_sample(scorer, example_ids, eos, opts, -1, vocab);
    case SearchStrategy::kUnilmBeam:
      return beam_search_unilm(scorer, n, eos, opts, pad, nullptr, vocab);
    case SearchStrategy::kBeam:
      break;
  }
  return beam_search(scorer, n, eos, opts, vocab);
}

}  // namespace unieval::models
