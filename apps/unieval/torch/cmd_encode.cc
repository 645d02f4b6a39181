// `unieval encode` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_encode(const Args& /*args*/) { throw InputError("'unieval encode' is not available in this build yet"); }

}  // namespace unieval::cli
