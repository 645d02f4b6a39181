// `unieval finetune` (being written).
#include "apps/unieval/commands.h"
#include "metrics/core/error.h"

namespace unieval::cli {

int cmd_finetune(const Args& /*args*/) { throw InputError("'unieval finetune' is not available in this build yet"); }

}  // namespace unieval::cli
