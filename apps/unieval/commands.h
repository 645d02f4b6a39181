#pragma once
// Every `unieval` subcommand: `int cmd_NAME(const Args& args)` returns the exit code.
// args excludes the program and subcommand names.
#include "apps/unieval/cli.h"

namespace unieval::cli {

int cmd_score(const Args& args);      // cmd_score.cc (metrics/protocol.h)
int cmd_eval(const Args& args);       // cmd_eval.cc
int cmd_tokenize(const Args& args);   // cmd_tokenize.cc
int cmd_vocab(const Args& args);      // cmd_vocab.cc (models/tokenizer/vocab_subset.h)
int cmd_reproduce(const Args& args);  // cmd_reproduce.cc
int cmd_table(const Args& args);      // cmd_table.cc
int cmd_compare(const Args& args);    // cmd_compare.cc
int cmd_plot(const Args& args);       // cmd_plot.cc
// The model commands: apps/unieval/torch/, linked into unieval-model only.
int cmd_encode(const Args& args);    // torch/cmd_encode.cc
int cmd_finetune(const Args& args);  // torch/cmd_finetune.cc
int cmd_pretrain(const Args& args);  // torch/cmd_pretrain.cc
int cmd_decode(const Args& args);    // torch/cmd_decode.cc
int cmd_demo(const Args& args);      // torch/cmd_demo.cc
int cmd_run(const Args& args);       // torch/cmd_run.cc

}  // namespace unieval::cli
