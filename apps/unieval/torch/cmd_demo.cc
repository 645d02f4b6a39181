// `unieval demo` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_demo(const Args& /*args*/) { throw InputError("'unieval demo' is not available in this build yet"); }

}  // namespace unieval::cli
