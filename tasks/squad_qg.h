#pragma once
// Follows UniLM (MIT) and coco-caption (BSD-2-Clause) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// Task adapters `squad-qg` and `squad-qg-reversed`: SQuAD question generation on the Du et al.
// (2017) split, scored with the nqg evaluation as UniLM ran it (microsoft/unilm@b3b78ee
// unilm-v1/src/qg/eval.py = xinyadu/nqg qgevalcap + UniLM's fix_tokenization; docs/metrics/
// bleu_nist_meteor.md §2.5, rouge_squad_coqa_glue.md §3). UniLM Table 8, ERNIE-GEN Table 4.
//
//   unieval eval --task squad-qg --data squad_qg/ --pred unilm.test.txt --json
//       --option meteor_data=meteor/       (METEOR resources; else METEOR is skipped)
//   -> scores bleu1..bleu4, meteor, rougeL (fractions; the papers print x100)
//
// Data (--data): the nqg `data/processed/` folder holding src-{dev,test}.txt and
// tgt-{dev,test}.txt (plain or .gz; para-*.txt is not needed for scoring), or one of those
// src-/tgt- files (its partner is the file with the other prefix beside it).
// Also UniLM's qg_data files (the WordPiece-tokenised references ERNIE-GEN scores against):
// a folder with <split>.pa.tok.txt and <split>.q.tok.txt (or <split>/<split>.*), or one of them.
// Predictions (--pred): one question per line, aligned with the src-/tgt- lines (the line counts
// must agree; the script would crash on fewer and ignore extra lines).
//
// Splits: `squad-qg` test = src-test/tgt-test (11,877 pairs), dev = src-dev/tgt-dev (10,570).
// `squad-qg-reversed` is the "reversed dev-test split" of Zhao et al. (2018) that UniLM Table 8's
// second block and ERNIE-GEN Table 4's lower block use: dev and test are swapped, so its test
// split is Du et al.'s *dev* files (src-dev/tgt-dev, the SQuAD v1.1 dev set, 10,570 pairs) and its
// dev split Du et al.'s test files. (UniLM re-tokenised the references for its headline numbers;
// its footnote 3 gives the numbers "if we directly use the tokenized references provided by Du
// et al.", which is what this adapter reads.) When --data names a file, that file is used as
// given for either task.
//
// Pipeline (per line i, as eval.py; Python 2 byte strings, so strip/lower/split are ASCII-only):
//   key        = src[i][:-1].strip().lower()
//   reference  = tgt[i][:-1].strip()
//   prediction = fix_tokenization(pred[i][:-1].strip()).lower()   (tasks/unilm_text.h)
//   `line[:-1]` drops the newline; on a final line without one it drops the last character, and
//   so do we (noted in the result).
//   Grouping: all references of lines with the same key are the multiple references of that key;
//   the prediction of the key's *last* line wins (`res[key] = [...]` overwrites).
// pipeline=ernie-gen: ERNIE-GEN's qg_eval.sh instead (PaddlePaddle/ERNIE@2a4965c ernie-gen/eval/
// tasks/squad_qg/qg/eval_on_unilm_tokenized_ref.py, Python 3 str, docs §2.5):
//   key        = src[i][:-1].strip().lower()
//   reference  = " ".join(detokenize(tgt[i][:-1].strip().split())).lower()   (## pieces glued)
//   prediction = pred[i][:-1].strip().lower()                                 (no fix_tokenization)
//   with Unicode whitespace and case mapping; same grouping and metrics.
// Metrics over the keys (first-occurrence order; the script iterates a Python 2 dict, which only
// matters for the last bits of the ROUGE-L mean):
//   bleu1..bleu4  coco Bleu(4), option 'closest' (metrics/bleu_compat.h coco_bleu)
//   meteor        meteor-1.5.jar `-stdio -l en -norm` through the coco wrapper: hypothesis with
//                 "|||" removed and "  " -> " ", best reference per key, system score from the
//                 summed statistics (metrics/meteor.h). Needs the METEOR resources (option
//                 meteor_data or $UNIEVAL_METEOR_DATA; skipped with a note otherwise); `-l en` uses
//                 the paraphrase table, which our shared data lacks: pass
//                 meteor_modules=exact,stem,synonym to score without it (the signature says so);
//                 with the default modules and no table METEOR is skipped with a note.
//   rougeL        coco ROUGE-L (beta 1.2, split(" "), max P / max R over references), mean over
//                 keys (metrics/rouge_coco.h)
// Examples = number of keys; pairs and repeated keys go to the notes.
//
// Options (--option KEY=VALUE):
//   | key              | default                      | meaning                                  |
//   | meteor_data      | $UNIEVAL_METEOR_DATA         | METEOR 1.5 resources folder              |
//   | meteor_modules   | exact,stem,synonym,paraphrase| METEOR stages (-m); weights: rank task's |
//   | fix_tokenization | true                         | UniLM fix_tokenization on predictions    |
//   | pipeline         | unilm                        | unilm (qg/eval.py) or ernie-gen          |
//
// Paper presets (fine-tuning and decoding, `unieval finetune --preset`, models/presets.cc): UniLM
// §3.3 "squad-qg" (10 epochs, batch 32, mask 0.7, lr 2e-5, label smoothing 0.1, input truncated to
// 464 tokens; beam size and length penalty not stated), ERNIE-GEN Table 1
// "ernie-gen-{base,large}-squad-qg" (beam size 1). Both papers use the same recipe for the
// reversed split, so the same presets serve `squad-qg-reversed`.
#include <string>
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> squad_qg_adapters();

// The source-keyed grouping of nqg/UniLM eval.py over already-preprocessed lines.
struct QgGroups {
  std::vector<std::string> keys;               // first-occurrence order
  std::vector<std::string> hyps;               // prediction of the key's last line
  std::vector<std::vector<std::string>> refs;  // references of the key, in line order
  std::vector<long> last_line;                 // 1-based line of the winning prediction
  long repeated_keys = 0;                      // keys that occur on more than one line
};
QgGroups group_qg_by_source(const std::vector<std::string>& keys,
                            const std::vector<std::string>& refs,
                            const std::vector<std::string>& hyps);

// The lines of a file as Python's `for line in f: line[:-1]` sees them: a final line without a
// newline loses its last byte (*clipped = true then). Plain or gzip; UTF-8 checked.
std::vector<std::string> read_lines_py_slice(const std::string& path, bool* clipped);

}  // namespace unieval::tasks
