// `unieval reproduce` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_reproduce(const Args& /*args*/) { throw InputError("'unieval reproduce' is not available in this build yet"); }

}  // namespace unieval::cli
