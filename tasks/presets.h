#pragma once
// Follows UniLM (MIT) behaviour; clean-room, see THIRD_PARTY_NOTICES.md.
// The papers' fine-tuning and decoding recipes, as data, by name (`unieval finetune --preset`,
// `unieval run --preset`, listed by `unieval finetune --help`). A preset is plain data: the
// training and decoding options are JSON objects with the keys of the run directory's run.json
// ("train": models::TrainOptions::to_json keys, "decode": the search options' keys), so this
// library needs no LibTorch and a model knows no task; pipelines/presets.h turns a preset into
// the model's option structs.
//
// Sources: UniLM (Dong et al. 2019) §2.4 (pre-training values that §3 "reuses"), §3.1 (CNN/DM,
// Gigaword), §3.2 (generative CoQA), §3.3 (SQuAD QG), §3.4 (DSTC7), §3.5 (GLUE); ERNIE-GEN (Xiao
// et al. 2020) Table 1 and §4.1. A value the paper does not state is our choice and is listed in
// `unstated` so that nobody mistakes it for the paper's.
//
// Mapping onto the trainer: "batch size" -> batch_size (examples per optimizer step, accum 1,
// token budget batch_size x max_len); "maximum length" L with source limit S -> max_src_len S,
// max_tgt_len L - S - 3; ERNIE-GEN's noising rate rho_f -> noise_prob on top of UniLM-style target
// masking with mask_prob 0.7 (our UniLM architecture has no multi-flow attention: an
// approximation, stated in `note`).
//
//   const tasks::Preset* p = tasks::find_preset("gigaword");   // nullptr when unknown
//   p->train["epochs"];  p->decode["beam"];  p->dropout;
//
// | Preset field | meaning                                                                  |
// |--------------|--------------------------------------------------------------------------|
// | name         | --preset value                                                           |
// | task         | the task adapter it is for (cnndm, gigaword, squad-qg, coqa-gen, ...)    |
// | source       | paper and section/table                                                  |
// | seq2seq      | false: an NLU recipe (GLUE) that the seq2seq trainer cannot run          |
// | train        | training options (JSON, TrainOptions keys)                               |
// | decode       | decoding options (JSON, search option keys)                              |
// | dropout      | hidden/attention dropout of the model (unset: the checkpoint's)          |
// | unstated     | fields whose value the paper does not give (our choice)                  |
// | note         | deviations, remarks                                                      |
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace unieval::tasks {

struct Preset {
  std::string name;                   // --preset value
  std::string task;                   // task name (tasks/ adapters)
  std::string source;                 // paper and section/table
  bool seq2seq = true;                // false: an NLU recipe (GLUE)
  nlohmann::ordered_json train = nlohmann::ordered_json::object();   // TrainOptions keys
  nlohmann::ordered_json decode = nlohmann::ordered_json::object();  // search option keys
  std::optional<double> dropout;      // hidden/attention dropout (unset: the checkpoint's)
  std::vector<std::string> unstated;  // fields whose value the paper does not give (our choice)
  std::string note;                   // deviations / remarks
};

const std::vector<Preset>& presets();
// nullptr when unknown.
const Preset* find_preset(const std::string& name);
// "name  task  source  recipe" lines for --help.
std::string presets_help();

}  // namespace unieval::tasks
