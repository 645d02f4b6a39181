// `unieval tokenize` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_tokenize(const Args& /*args*/) { throw InputError("'unieval tokenize' is not available in this build yet"); }

}  // namespace unieval::cli
