// `unieval compare` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_compare(const Args& /*args*/) { throw InputError("'unieval compare' is not available in this build yet"); }

}  // namespace unieval::cli
