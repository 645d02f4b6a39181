// score_bleu.cc: the bleu metric family of `unieval score` (being written).
#include "apps/unieval/score.h"

namespace unieval::cli {

void register_bleu_metrics(ScoreRegistry& /*reg*/) {}

}  // namespace unieval::cli
