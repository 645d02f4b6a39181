#pragma once
// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
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
// Decoding of the UniLM presets follows microsoft/unilm (MIT licence): the official decode
// commands of unilm-v1/README.md (read at commit 768a3c8, "Abstractive Summarization - Gigaword /
// CNN/DM", "Question Generation - SQuAD"), `biunilm/decode_seq2seq.py` flags:
//   gigaword  --max_tgt_length 32  --beam_size 5 --length_penalty 0 --forbid_duplicate_ngrams
//             --forbid_ignore_word "."          (ngram_size default 3, min_len default None)
//   cnndm     --max_tgt_length 128 --beam_size 5 --length_penalty 0 --forbid_duplicate_ngrams
//             --forbid_ignore_word ".|[X_SEP]" --need_score_traces, then gen_seq_from_trace.py
//             --alpha 1.0 (the hypothesis picked by re-ranking the beam traces), eval.py
//             --trunc_len 70
// These become decode options: "algorithm": "unilm" (UniLM's own beam search, models/decoding/search.h
// beam_search_unilm), "trace_alpha" (gen_seq_from_trace's re-ranking), "ngram_ignore_words"
// (--forbid_ignore_word, resolved to ids with the run's vocabulary by the decode pipeline).
//   squad-qg  --max_tgt_length 48  --beam_size 1 --length_penalty 0
// The README gives no decode command for CoQA and DSTC7: those keep the paper's §3.2 / §3.4
// values (beam 3 / 10, maximum length) and no n-gram ban.
//
// Mapping onto the trainer: "batch size" -> batch_size (examples per optimizer step, accum 1,
// token budget batch_size x max_len); "maximum length" L with source limit S -> max_src_len S,
// max_tgt_len L - S - 3; ERNIE-GEN presets train with "arch": "ernie-gen" (models/training/ernie_gen.h:
// multi-flow attention, the noising rate rho_f -> noise_prob on the contextual flow's target,
// lambda 1.0 as §3.3 gives for fine-tuning) and decode by infilling decoding.
//
//   const tasks::Preset* p = tasks::find_preset("gigaword");   // nullptr when unknown
//   p->train["epochs"];  p->decode["beam"];  p->dropout;
//
// | Preset field | meaning                                                                  |
// |--------------|--------------------------------------------------------------------------|
// | name         | --preset value                                                           |
// | task         | the task adapter it is for (cnndm, gigaword, squad-qg, coqa-gen, ...)    |
// | source       | paper and section/table                                                  |
// | seq2seq      | false: an NLU recipe (GLUE, SQuAD, CoQA) for pipelines/run_nlu.h        |
// | train        | training options (JSON, TrainOptions keys)                               |
// | decode       | decoding options (JSON, search option keys)                              |
// | dropout      | hidden/attention dropout of the model (unset: the checkpoint's)          |
// | unstated     | fields whose value the paper does not give (our choice)                  |
// | note         | deviations, remarks                                                      |
// | eval_options | the eval adapter options of the paper's evaluation command (--option)    |
// | decode_source| where the decoding values come from                                      |
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace unieval::tasks {

struct Preset {
  std::string name;     // --preset value
  std::string task;     // task name (tasks/ adapters)
  std::string source;   // paper and section/table
  bool seq2seq = true;  // false: an NLU recipe (GLUE, SQuAD, CoQA)
  nlohmann::ordered_json train = nlohmann::ordered_json::object();   // TrainOptions keys
  nlohmann::ordered_json decode = nlohmann::ordered_json::object();  // search option keys
  std::optional<double> dropout;      // hidden/attention dropout (unset: the checkpoint's)
  std::vector<std::string> unstated;  // fields whose value the paper does not give (our choice)
  std::string note;                   // deviations / remarks
  std::map<std::string, std::string> eval_options;  // eval adapter options of the paper's command
  std::string decode_source;                        // where the decoding values come from
};

const std::vector<Preset>& presets();
// nullptr when unknown.
const Preset* find_preset(const std::string& name);
// "name  task  source  recipe" lines for --help.
std::string presets_help();

}  // namespace unieval::tasks
