// `unieval eval` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_eval(const Args& /*args*/) { throw InputError("'unieval eval' is not available in this build yet"); }

}  // namespace unieval::cli
