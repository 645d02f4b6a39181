// score_qa.cc: the qa metric family of `unieval score` (being written).
#include "apps/unieval/score.h"

namespace unieval::cli {

void register_qa_metrics(ScoreRegistry& /*reg*/) {}

}  // namespace unieval::cli
