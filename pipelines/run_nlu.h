#pragma once
// Follows google-research/bert (Apache-2.0) run_classifier.py / run_squad.py behaviour; no code
// copied; see THIRD_PARTY_NOTICES.md.
// `unieval run` for the understanding tasks (UniLM §3.2 extractive QA, §3.5 GLUE): glue-cola,
// glue-sst2, glue-mrpc, glue-stsb, glue-qqp, glue-mnli, glue-mnli-mm, glue-qnli, glue-rte,
// glue-wnli, squad-v1.1, squad-v2, coqa. Same CLI and run-directory contract as the generation
// tasks (pipelines/run.h): RUN/request.json, resumable stages, RUN/result.json.
//
//   RunOptions o;  o.task = "glue-sst2";  o.data = "glue/SST-2";  o.out = "runs/sst2";
//   o.train_split = "dev[:436]";  o.eval_split = "dev[436:]";    // split slicing, any task
//   o.model = "unilm1-base-cased";  apply_preset(o, "glue-sst2");
//   RunOutcome r = run_task(o);                                   // dispatches here
//
// Stages:
//   1. data     the task's reader (tasks/nlu_tasks.h) on the train and eval splits (and, for
//               squad-v2 with an explicit --dev-split, the split the no-answer threshold is tuned
//               on); the eval split's gold subset -> RUN/eval/gold.{tsv,json} (what `unieval eval`
//               scores against), RUN/data/manifest.json (files + sha256, reader, counts).
//   2. train    WordPiece features (below), models::train_nlu into RUN (checkpoint/, log.jsonl,
//               run.json); resumable (--stop-after, then the same command).
//   3. predict  models::predict_nlu on the eval features with RUN/checkpoint: length-sorted
//               batches padded to their longest row (SQuAD/CoQA windows: to max_seq_len, as
//               run_squad.py feeds them; see Answers).
//   4. score    predictions in the official formats -> RUN/eval/: GLUE `pred.tsv` (index<TAB>
//               prediction), SQuAD `predictions.json` + `na_prob.json` (v2.0: null score minus the
//               best span score, BERT's null_odds), CoQA `predictions.json` ([{id, turn_id,
//               answer}]); pipelines::evaluate (the `unieval eval` adapters) -> RUN/result.json.
//               Baselines (unless --no-baselines), under RUN/baselines/NAME/ in the same formats,
//               scored by the same adapter with a paired bootstrap of the model against each
//               (pipelines::evaluate_baselines) -> the result's "baselines": GLUE "majority" (the
//               most frequent training label, ties: the first to occur; STS-B the mean training
//               score), SQuAD/CoQA "first-window" (the first L whitespace words of each context,
//               L = the median word count of the training answers, at least 1; squad-v2 never
//               no-answer, scored without the model's na_prob file).
//
// Features (BERT): GLUE [CLS] a [SEP] (b [SEP]) truncated longest-first to max_seq_len; SQuAD/CoQA
// [CLS] question [SEP] window [SEP], the question cut to max_query_len tokens (CoQA keeps the
// last ones: the current question and the most recent history), the context WordPiece-tokenised
// word by word (tokens map back to whitespace words) and cut into windows of max_seq_len -
// |question| - 3 tokens every doc_stride tokens; a training window whose answer is not wholly
// inside it, and every window of an unanswerable question, targets the [CLS] span (0, 0); the
// answer span is narrowed to the tokenised answer text (BERT _improve_answer_span). A position
// counts as an answer start only in the window where it has the most context (BERT
// _check_is_max_context).
// Answers: the best span over all windows of a question (n_best start x end candidates, length
// <= max_answer_len; as in run_squad.py the n_best highest logits are taken over all max_seq_len
// positions of the padded window, so padding, question and [SEP] positions use up candidates and
// a short window can have none valid), printed as the original text it covers, trimmed inside its first and last
// whitespace word as BERT's get_final_text does ("1990s" where the pieces say "1990";
// bert_final_text below), from the pieces' text as run_squad.py builds it (bert_pred_text: every
// "##" dropped, so a span starting inside a word maps to that word's tail). A question with no
// valid span in any window: squad_no_span below.
// SQuAD 2.0 no-answer: score_diff = null score (min over windows of [CLS] start + end) - best
// span score. The threshold is chosen on the tuning split (an explicit --dev-split, else the
// eval split itself, as BERT's run_squad and the official best_f1_thresh do): the official
// evaluate-v2.0 best_f1_thresh of na_prob = score_diff over the best-span predictions. Final
// predictions are "" where score_diff > threshold, scored with na_prob_thresh = threshold; the
// threshold, its split and the best_* scores are in the result ("run"."na_threshold").
// CoQA: answer class = argmax of the summed per-window softmax of the [CLS] class head; yes / no /
// unknown print as that word, a span as its words.
#include "models/tokenizer/wordpiece.h"
#include "pipelines/run.h"
#include "tasks/presets.h"

namespace unieval::pipelines {

// The run for an understanding task (run_task calls it for tasks::is_nlu_task).
RunOutcome run_nlu_task(const RunOptions& opts);

// The text run_squad.py (google-research/bert, write_predictions) hands to get_final_text for the
// WordPiece tokens of a span: " ".join(tokens), " ##" removed, then every remaining "##" removed
// (a span starting at "##man" reads "man"), spaces collapsed. {"##man", ",", "viking"} ->
// "man , viking"; get_final_text then maps that into the span's words ("Norseman, Viking" ->
// "man, Viking").
std::string bert_pred_text(const std::vector<std::string>& pieces);

// A SQuAD question none of whose windows holds a valid span (every n-best start/end pair outside
// the document, reversed, longer than max_answer_len, or its start not at its max-context window).
// run_squad.py writes its nonce "empty" for SQuAD 1.1 and crashes for SQuAD 2.0
// (best_non_null_entry is None); unieval predicts, for squad: "empty" as run_squad.py does; for
// squad-v2: no answer, "" with score_diff = kSquadNoSpanScoreDiff (above any threshold the
// best_f1_thresh search can pick from real spans, so the question stays no-answer).
inline constexpr double kSquadNoSpanScoreDiff = 1e6;
struct SquadNoSpan {
  std::string text;       // the predicted text
  double score_diff = 0;  // null score - best span score (squad-v2's na_prob)
};
SquadNoSpan squad_no_span(const std::string& task);

// BERT's get_final_text (run_squad.py): the predicted pieces' text `pred_text` ("##" joined,
// one space between tokens) located in the BasicTokenizer tokens of `orig_text` (the whitespace
// words of the span) and mapped back to orig_text's characters, so that the answer can end
// inside a word ("1990s" -> "1990"); orig_text itself when the alignment fails (as BERT).
std::string bert_final_text(const std::string& pred_text, const std::string& orig_text,
                            const models::WordPieceTokenizer& tok);

// Fills o.finetune, o.nlu and o.dropout from an NLU preset (tasks/presets.h, seq2seq false).
void apply_nlu_preset(RunOptions& o, const tasks::Preset& p);

}  // namespace unieval::pipelines
