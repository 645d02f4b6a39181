// score_rouge.cc: the rouge metric family of `unieval score` (being written).
#include "apps/unieval/score.h"

namespace unieval::cli {

void register_rouge_metrics(ScoreRegistry& /*reg*/) {}

}  // namespace unieval::cli
