// VocabLimitScorer: masks the log-probabilities of ids past the vocabulary; check_vocab_fits
// refuses a vocabulary past the embedding table (models/decoding/vocab_limit.h).
#include "models/decoding/vocab_limit.h"

#include <utility>

#include "core/error.h"

namespace unieval::models {

VocabLimitScorer::VocabLimitScorer(StepScorer& inner, int64_t vocab_entries,
                                   std::vector<int64_t> banned)
    : inner_(inner), limit_(vocab_entries, std::move(banned)) {}

torch::Tensor VocabLimitScorer::step(const StepRequest& req) {
  torch::Tensor lp = inner_.step(req);
  StepEdits edits;
  limit_.collect(ConstraintRows{}, lp, edits);
  return edits.apply(lp);
}

void check_vocab_fits(int64_t vocab_entries, const std::string& vocab_path, int64_t vocab_size,
                      const std::string& config_path) {
  if (vocab_entries <= vocab_size) return;
  throw InputError(
      vocab_path, 0,
      "has " + std::to_string(vocab_entries) + " entries, more than the vocab_size " +
          std::to_string(vocab_size) + " of " + config_path + " (ids " +
          std::to_string(vocab_size) + ".." + std::to_string(vocab_entries - 1) +
          " would be past the model's embedding table: give the model's own vocabulary)");
}

}  // namespace unieval::models
