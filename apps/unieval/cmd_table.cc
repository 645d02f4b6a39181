// `unieval table` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_table(const Args& /*args*/) { throw InputError("'unieval table' is not available in this build yet"); }

}  // namespace unieval::cli
