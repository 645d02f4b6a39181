// VocabLimitScorer: masks the log-probabilities of ids past the vocabulary; check_vocab_fits
// refuses a vocabulary past the embedding table (models/vocab_limit.h).
#include "models/vocab_limit.h"

#include <limits>
#include <stdexcept>
#include <utility>

#include "core/error.h"

namespace unieval::models {

VocabLimitScorer::VocabLimitScorer(StepScorer& inner, int64_t vocab_entries, std::vector<int64_t> banned)
    : inner_(inner), vocab_entries_(vocab_entries), banned_(std::move(banned)) {
  if (vocab_entries < 1) throw std::invalid_argument("VocabLimitScorer: vocab_entries must be >= 1");
  for (int64_t id : banned_)
    if (id < 0 || id >= vocab_entries) throw std::invalid_argument("VocabLimitScorer: banned id out of range");
}

torch::Tensor VocabLimitScorer::step(const StepRequest& req) {
  torch::Tensor lp = inner_.step(req);
  const int64_t v = lp.size(-1);
  if (v <= vocab_entries_ && banned_.empty()) return lp;
  // A copy: the inner scorer may keep (and reuse) the tensor it returned.
  torch::Tensor out = lp.clone();
  const double ninf = -std::numeric_limits<double>::infinity();
  if (v > vocab_entries_) out.narrow(-1, vocab_entries_, v - vocab_entries_).fill_(ninf);
  if (!banned_.empty()) {
    if (!banned_index_.defined() || banned_index_.device() != out.device())
      banned_index_ = torch::tensor(banned_, torch::kLong).to(out.device());
    out.index_fill_(-1, banned_index_, ninf);
  }
  return out;
}

void check_vocab_fits(int64_t vocab_entries, const std::string& vocab_path, int64_t vocab_size,
                      const std::string& config_path) {
  if (vocab_entries <= vocab_size) return;
  throw InputError(vocab_path, 0,
                   "has " + std::to_string(vocab_entries) + " entries, more than the vocab_size " +
                       std::to_string(vocab_size) + " of " + config_path + " (ids " + std::to_string(vocab_size) +
                       ".." + std::to_string(vocab_entries - 1) +
                       " would be past the model's embedding table: give the model's own vocabulary)");
}

}  // namespace unieval::models
