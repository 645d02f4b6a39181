#pragma once
// Follows openai/finetune-transformer-lm (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// `unieval run --arch gpt`: GPT (Radford et al. 2018) fine-tuned with the input transformations
// of §3.3 / Figure 1 and the auxiliary LM loss, or its §5 zero-shot heuristics, on the tasks of
// GPT Tables 2-4: the GLUE tasks (glue-cola, glue-sst2, glue-mrpc, glue-stsb, glue-qqp, glue-mnli,
// glue-mnli-mm, glue-qnli, glue-rte, glue-wnli) and snli, scitail, race, race-m, race-h,
// story-cloze (texts read by tasks/gpt_tasks.h). Same CLI and run-directory contract as
// pipelines/run_nlu.h: RUN/request.json, resumable training, RUN/eval/pred.tsv (GLUE: with the
// sliced gold.tsv), RUN/result.json scored by the `unieval eval` adapter.
//
// Splits of the non-GLUE tasks below --data (a file is used as is): snli DATA/snli_1.0_S.jsonl
// (or .txt), scitail DATA/scitail_1.0_S.tsv (or DATA/tsv_format/...), race* DATA/S (RACE/train,
// RACE/dev, RACE/test), story-cloze the DATA/*S*.csv file (GPT fine-tunes on the validation
// stories: --train-split val --eval-split test). Their eval split is scored whole (the adapter
// needs a prediction for every example): only the training split may be sliced or limited. SNLI
// pairs without a gold label ("-") are neither trained on nor scored.
//
//   RunOptions o;  o.arch = "gpt";  o.task = "glue-rte";  o.data = "glue/RTE";  o.out = "runs/rte";
//   o.model = "openai-gpt";            // HF folder: config.json, model.safetensors, vocab.json, merges.txt
//   apply_gpt_preset(o, "gpt");        // §4.1 recipe (tasks/presets.cc)
//   RunOutcome r = run_gpt_task(o);
//
// Model and tokenizer: --model DIR is an openai-gpt checkpoint (models/nn/gpt.h; weights loaded by
// name, the missing/unexpected report printed); the BPE files are --vocab DIR when given, else
// the checkpoint folder's (models/tokenizer/bpe.h: vocab.json + merges.txt or the release's
// encoder_bpe_40000.json + vocab_40000.bpe). --model-config CONFIG.json + --vocab BPE_DIR trains
// from scratch. The token matrix grows to the BPE's encoder + 3 rows: _start_, _delimiter_,
// _classify_ (new rows N(0, 0.02²)).
//
// Input transformations (each sequence at most max_seq_len tokens; texts cut longest-first):
//   glue-cola, glue-sst2                     [start] a [extract]                      classify
//   glue-mnli(-mm), glue-qnli, glue-rte,     [start] a [delim] b [extract]            classify
//   glue-wnli (entailment)
//   glue-mrpc, glue-qqp (similarity)         [start] a [delim] b [extract] and        classify
//                                            [start] b [delim] a [extract], summed
//   glue-stsb (similarity)                   the same two orders                      regress
//   snli, scitail (entailment)               [start] premise [delim] hypothesis [extract]
//   race*, story-cloze (multiple choice)     [start] document question [delim] answer_k [extract]
//                                            per option (story-cloze: the four sentences and
//                                            each ending), softmax over k; race: the document is
//                                            cut at its end when a sequence is too long;
//                                            story-cloze: the story and each ending cut to their
//                                            first max_seq_len/2 − 2 tokens, as the release's
//                                            transform_roc (models::gpt_choice_feature)
// Training: models::train_gpt (loss L2 + λ·L1, λ = lm_coef; RUN/log.jsonl logs loss, task_loss,
// lm_loss). Prediction: argmax of the head (STS-B: the value).
//
// Zero-shot (--zero-shot; §5, Figure 2 right; no training, the pretrained LM only):
//   glue-sst2  a "very" -> compare log p("positive") and log p("negative") for the next token
//              ("positive</w>" vs "negative</w>"); 1 when positive is likelier
//   glue-cola  the average token log-probability of a (every token after the first), thresholded;
//              no special token is used (the pretrained model has no rows for them); the threshold is the one that maximises MCC on the training split
//              (--train-split, --train-limit; the paper does not say how it thresholded), and is
//              recorded in the result ("run"."zero_shot_threshold")
//   race*, story-cloze  the option with the highest average token log-probability of its tokens
//              given document + question (the document's end kept when too long)
// Other tasks have no §5 heuristic here (InputError).
#include "pipelines/run.h"
#include "tasks/presets.h"

namespace unieval::pipelines {

// The run for --arch gpt (run_task dispatches here when o.arch == "gpt").
RunOutcome run_gpt_task(const RunOptions& opts);

// Fills o.finetune, o.nlu.max_seq_len / classifier_dropout, o.dropout and o.lm_coef from a GPT
// preset ("lm_coef" in its train object).
void apply_gpt_preset(RunOptions& o, const tasks::Preset& p);

// The tasks --arch gpt runs.
bool is_gpt_run_task(const std::string& task);

}  // namespace unieval::pipelines
