// unieval-model: the LibTorch half of the `unieval` CLI (encode, finetune, pretrain, decode, demo, run).
// `unieval` execs it for those commands so that scoring never loads LibTorch; it can also be
// run directly with the same arguments.
#include <iostream>
#include <string>

#include "apps/unieval/commands.h"
#include "core/build_info.h"
#include "core/heap.h"
#include "unieval_version.h"

namespace {

struct Command {
  const char* name;
  int (*run)(const unieval::cli::Args&);
};

constexpr Command kCommands[] = {
    {"encode", unieval::cli::cmd_encode},     {"finetune", unieval::cli::cmd_finetune},
    {"pretrain", unieval::cli::cmd_pretrain}, {"decode", unieval::cli::cmd_decode},
    {"demo", unieval::cli::cmd_demo},         {"run", unieval::cli::cmd_run},
};

void usage(std::ostream& os) {
  os << "unieval-model " << UNIEVAL_VERSION << " (" << unieval::core::build_commit() << ")\n"
     << "usage: unieval {encode|finetune|pretrain|decode|demo|run} [options]   (see unieval "
        "--help)\n";
}

}  // namespace

int main(int argc, char** argv) {
  unieval::core::set_build_commit(unieval::build_stamp::commit());
  unieval::core::tune_heap_for_models();  // core/heap.h
  if (argc < 2) {
    usage(std::cerr);
    return unieval::cli::kExitInputError;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return 0;
  }
  for (const auto& c : kCommands) {
    if (name == c.name) {
      return unieval::cli::run_command(name, c.run, unieval::cli::Args(argv + 2, argv + argc));
    }
  }
  std::cerr << "unieval-model: error: unknown command '" << name << "'\n";
  usage(std::cerr);
  return unieval::cli::kExitInputError;
}
