// score_meteor.cc: the meteor metric family of `unieval score` (being written).
#include "apps/unieval/score.h"

namespace unieval::cli {

void register_meteor_metrics(ScoreRegistry& /*reg*/) {}

}  // namespace unieval::cli
