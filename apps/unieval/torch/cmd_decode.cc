// `unieval decode` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_decode(const Args& /*args*/) { throw InputError("'unieval decode' is not available in this build yet"); }

}  // namespace unieval::cli
