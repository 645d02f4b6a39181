// unieval: evaluation and paper reproduction for UniLM / ERNIE-GEN / GPT-style models.
#include <iostream>
#include <string>
#include <vector>

#include "apps/unieval/commands.h"
#include "metrics/core/error.h"
#include "unieval_version.h"

namespace {

using unieval::cli::Args;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args&);
};

#ifndef UNIEVAL_HAVE_TORCH
int without_torch(const Args&) {
  std::cerr << "unieval: error: this unieval was built without LibTorch; rebuild with "
               "libtorch-dev installed (or -DUNIEVAL_WITH_TORCH=ON) for model commands\n";
  return unieval::cli::kExitInputError;
}
#endif

const std::vector<Command>& commands() {
  using namespace unieval::cli;
  static const std::vector<Command> kCommands = {
      {"score", "Score system outputs with an official metric (BLEU, ROUGE, METEOR, NIST, SQuAD, ...)",
       cmd_score},
      {"eval", "Evaluate predictions on a task with its official metric set", cmd_eval},
      {"tokenize", "WordPiece-tokenize text with a vocab.txt", cmd_tokenize},
#ifdef UNIEVAL_HAVE_TORCH
      {"encode", "Run a checkpoint on HF-style inputs (parity check)", cmd_encode},
      {"finetune", "Fine-tune a UniLM/BERT model on a task", cmd_finetune},
      {"decode", "Decode a split with a fine-tuned run (beam search, sampling)", cmd_decode},
      {"demo", "Train, decode and score a tiny model on a generated task (CPU, minutes)", cmd_demo},
#else
      {"encode", "Run a checkpoint on HF-style inputs (needs LibTorch)", without_torch},
      {"finetune", "Fine-tune a UniLM/BERT model on a task (needs LibTorch)", without_torch},
      {"decode", "Decode a split with a fine-tuned run (needs LibTorch)", without_torch},
      {"demo", "Train, decode and score a tiny model (needs LibTorch)", without_torch},
#endif
      {"reproduce", "Reproduce a paper table: published values beside ours", cmd_reproduce},
      {"table", "Render result JSON files as a leaderboard (md, latex, html, csv)", cmd_table},
      {"compare", "Regression gate: compare two result JSON files", cmd_compare},
  };
  return kCommands;
}

void usage(std::ostream& os) {
  os << "unieval " << UNIEVAL_VERSION << " (" << UNIEVAL_GIT_COMMIT << ")\n"
     << "usage: unieval COMMAND [options]   (unieval COMMAND --help for the options)\n\ncommands:\n";
  for (const auto& c : commands()) {
    std::string name = c.name;
    os << "  " << name << std::string(12 - name.size(), ' ') << c.summary << "\n";
  }
  os << "\nexit codes: 0 ok, 1 check failed (regression/mismatch), 2 bad input or option, 3 internal error\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return unieval::cli::kExitInputError;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return 0;
  }
  if (name == "--version") {
    std::cout << "unieval " << UNIEVAL_VERSION << " (" << UNIEVAL_GIT_COMMIT << ")\n";
    return 0;
  }
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    Args args(argv + 2, argv + argc);
    try {
      return c.run(args);
    } catch (const unieval::cli::Exit& e) {
      return e.code;
    } catch (const unieval::InputError& e) {
      std::cerr << "unieval " << name << ": error: " << e.what() << "\n";
      return unieval::cli::kExitInputError;
    } catch (const std::exception& e) {
      std::cerr << "unieval " << name << ": internal error: " << e.what() << "\n";
      return unieval::cli::kExitInternal;
    }
  }
  std::cerr << "unieval: error: unknown command '" << name << "'\n";
  usage(std::cerr);
  return unieval::cli::kExitInputError;
}
