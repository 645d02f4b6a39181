#pragma once
// The papers' fine-tuning and decoding recipes, as data, by name (`unieval finetune --preset`,
// listed by `unieval finetune --help`).
//
// Sources: UniLM (Dong et al. 2019) §2.4 (pre-training values that §3 "reuses"), §3.1 (CNN/DM,
// Gigaword), §3.2 (generative CoQA), §3.3 (SQuAD QG), §3.4 (DSTC7), §3.5 (GLUE); ERNIE-GEN (Xiao
// et al. 2020) Table 1 and §4.1. A value the paper does not state is our choice and is listed in
// `unstated` so that nobody mistakes it for the paper's.
//
// Mapping onto our trainer: "batch size" → batch_size (examples per optimizer step, accum 1,
// token budget batch_size × max_len); "maximum length" L with source limit S → max_src_len S,
// max_tgt_len L − S − 3; ERNIE-GEN's noising rate ρ_f → noise_prob on top of UniLM-style target
// masking with mask_prob 0.7 (our UniLM architecture has no multi-flow attention: an
// approximation, stated in `note`).
//
//   const Preset* p = find_preset("gigaword");   // nullptr when unknown
//   TrainOptions t = p->train;  SearchOptions s = p->decode;  double dropout = p->dropout;
#include <optional>
#include <string>
#include <vector>

#include "models/search.h"
#include "models/trainer.h"

namespace unieval::models {

struct Preset {
  std::string name;         // --preset value
  std::string task;         // task name (tasks/ adapters): cnndm, gigaword, squad-qg, coqa-gen, dstc7, ...
  std::string source;       // paper and section/table
  bool seq2seq = true;      // false: an NLU recipe (GLUE) that `finetune` cannot run as seq2seq
  TrainOptions train;       // training hyper-parameters
  SearchOptions decode;     // decoding hyper-parameters
  std::optional<double> dropout;  // hidden/attention dropout of the model (unset: the checkpoint's)
  std::vector<std::string> unstated;  // fields whose value the paper does not give (our choice)
  std::string note;         // deviations / remarks
};

const std::vector<Preset>& presets();
const Preset* find_preset(const std::string& name);
// "name  task  source" lines for --help.
std::string presets_help();

}  // namespace unieval::models
