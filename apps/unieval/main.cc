// unieval: evaluation and paper reproduction for UniLM / ERNIE-GEN / GPT-style models.
//
// This binary links no LibTorch, so scoring starts in milliseconds. The model commands
// (encode, finetune, pretrain, decode, demo, run) live in the sibling binary `unieval-model`, which this one
// execs with the same arguments; a user still types `unieval finetune ...`.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "apps/unieval/commands.h"
#include "core/blas_core.h"
#include "core/build_info.h"
#include "core/heap.h"
#include "unieval_version.h"

namespace {

using unieval::cli::Args;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args&);  // nullptr: a model command, run by unieval-model
};

const std::vector<Command>& commands() {
  using namespace unieval::cli;
  static const std::vector<Command> kCommands = {
      {"score",
       "Score system outputs with an official metric (BLEU, ROUGE, METEOR, NIST, SQuAD, ...)",
       cmd_score},
      {"eval", "Evaluate predictions on a task with its official metric set", cmd_eval},
      {"tokenize", "WordPiece-tokenize text with a vocab.txt, or GPT BPE (--bpe DIR)",
       cmd_tokenize},
      {"vocab",
       "A small WordPiece vocab for a from-scratch model: a corpus's most used base entries",
       cmd_vocab},
      {"encode",
       "Run a BERT/UniLM or GPT checkpoint on HF-style inputs (parity check; needs LibTorch)",
       nullptr},
      {"finetune", "Fine-tune a UniLM/BERT model on a task (needs LibTorch)", nullptr},
      {"pretrain", "Pre-train a small UniLM on your text: unified LM objectives (needs LibTorch)",
       nullptr},
      {"decode",
       "Decode a split with a fine-tuned run, or continue prompts with GPT: beam search, sampling "
       "(needs LibTorch)",
       nullptr},
      {"demo", "Train, decode and score a tiny model on a generated task (needs LibTorch)",
       nullptr},
      {"run",
       "Task + checkpoint -> fine-tune, decode, score: a paper row in one resumable run (needs "
       "LibTorch)",
       nullptr},
      {"reproduce", "Reproduce a paper table: published values beside ours", cmd_reproduce},
      {"table", "Render result JSON files as a leaderboard (md, latex, html, csv)", cmd_table},
      {"compare", "Regression gate: compare two result JSON files", cmd_compare},
      {"plot", "Training curves of a run (loss, dev loss, learning rate, tokens/s) as SVG",
       cmd_plot},
  };
  return kCommands;
}

void usage(std::ostream& os) {
  os << "unieval " << UNIEVAL_VERSION << " (" << unieval::core::build_commit() << ")\n"
     << "usage: unieval COMMAND [options]   (unieval COMMAND --help for the "
        "options)\n\ncommands:\n";
  for (const auto& c : commands()) {
    std::string name = c.name;
    os << "  " << name << std::string(12 - name.size(), ' ') << c.summary << "\n";
  }
  os << "\nexit codes: 0 ok, 1 check failed (regression/mismatch), 2 bad input or option, 3 "
        "internal error\n";
}

// The directory this executable lives in ("" when /proc/self/exe cannot be read).
std::string own_directory() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string path(buf, static_cast<size_t>(n));
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// Replaces this process with unieval-model (UNIEVAL_MODEL_BINARY overrides where it is).
int exec_model_binary(int argc, char** argv) {
  const char* env = std::getenv("UNIEVAL_MODEL_BINARY");
  std::string path = env && *env ? env : own_directory() + "/unieval-model";
  std::vector<char*> child_argv;
  child_argv.push_back(const_cast<char*>(path.c_str()));
  for (int i = 1; i < argc; ++i) child_argv.push_back(argv[i]);
  child_argv.push_back(nullptr);
  // OpenMP workers that spin between LibTorch ops take the cores the BLAS threads need: on 2 cores
  // beam search ran 3.8x and fine-tuning 1.7x faster with a passive wait policy, same outputs
  // (#24). The user's own setting wins.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  // A CPU newer than the OpenBLAS would get its SSE3 fallback kernels: ~3x slower training
  // (core/blas_core.h). The user's own OPENBLAS_CORETYPE wins.
  if (auto core = unieval::core::openblas_coretype_override())
    setenv("OPENBLAS_CORETYPE", core->c_str(), 0);
  execv(path.c_str(), child_argv.data());
  int err = errno;
  std::cerr << "unieval " << argv[1] << ": error: the model commands need " << path << " ("
            << std::strerror(err) << ")";
  if (err == ENOENT) {
    std::cerr << "; it is built with LibTorch: install libtorch-dev and rebuild "
                 "(cmake -DUNIEVAL_WITH_TORCH=ON), or set UNIEVAL_MODEL_BINARY";
  }
  std::cerr << "\n";
  return unieval::cli::kExitInputError;
}

}  // namespace

int main(int argc, char** argv) {
  unieval::core::set_build_commit(unieval::build_stamp::commit());
  unieval::core::tune_heap_for_scoring();  // core/heap.h
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
    std::cout << "unieval " << UNIEVAL_VERSION << " (" << unieval::core::build_commit() << ")\n";
    return 0;
  }
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    if (c.run == nullptr) return exec_model_binary(argc, argv);
    return unieval::cli::run_command(name, c.run, Args(argv + 2, argv + argc));
  }
  std::cerr << "unieval: error: unknown command '" << name << "'\n";
  usage(std::cerr);
  return unieval::cli::kExitInputError;
}
