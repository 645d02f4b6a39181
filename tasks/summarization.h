#pragma once
// Task adapters `cnndm`, `gigaword`, `gigaword-10k`: abstractive summarization scored with
// ROUGE-1.5.5 `-c 95 -m -r 1000 -n 2 -a` (metrics/rouge.h), the BertSum/UniLM pyrouge settings
// UniLM Tables 3/4 and ERNIE-GEN Tables 2/3 report (F1 of ROUGE-1/2/L).
//
//   unieval eval --task cnndm --data test.summary --pred unilm.decoded.txt
//
// Data: one reference summary per line (UniLM / BertSum / See et al. line files). Predictions:
// one summary per line, same order. Sentence boundaries (ROUGE-L is summary-level) are taken
// from the markers these distributions use: `<S_SEP>`, `[X_SEP]`, `<q>`, `##SENT##`, and
// REALSumm's `<t> … </t>`; Gigaword summaries are one sentence.
// cnndm with --option unilm_postprocess=true: UniLM's cnndm/eval.py --perl pipeline instead
// (tasks/unilm_text.h unilm_cnndm_postprocess): predictions split on [X_SEP], fix_tokenization,
// sentences of <= 4 tokens dropped, de-duplication (duplicate_rate, 0.7), truncation to
// trunc_len tokens (60; ERNIE-GEN's cnndm_eval.sh passes 100); references split on " <S_SEP> "
// only; pairs with an empty reference not scored. Gigaword: neither UniLM's repository nor our
// specs hold a Gigaword post-processing script (ERNIE-GEN's gigaword/eval.py is not available),
// so none is applied there.
//
// Resources (the one ROUGE policy of metrics/rouge.h find_rouge_resources, as `unieval score
// --metric rouge -m`): -m needs ROUGE-1.5.5's WordNet-2.0 exception lists from rouge_data or
// $UNIEVAL_ROUGE_DATA; without them the run stops with an InputError naming both and
// wordnet_exceptions=false (stemming without them, signature "exc:none", noted in the result).
//
// Scores (fractions; CIs from ROUGE-1.5.5's own bootstrap): rouge1_f, rouge2_f, rougeL_f, and
// the recalls / precisions rouge1_r, rouge1_p, ...
//
// Options (--option KEY=VALUE):
//   | key        | default              | meaning                                              |
//   | rouge_data | $UNIEVAL_ROUGE_DATA  | ROUGE-1.5.5 data/ (WordNet-2.0 exceptions for -m)    |
//   | stem       | true                 | -m (Porter stemming)                                 |
//   | wordnet_exceptions | true         | with stem: the WordNet exception lookup; false =     |
//   |            |                      | stem without it (not the published numbers)          |
//   | unilm_postprocess | false         | cnndm: UniLM cnndm/eval.py post-processing           |
//   | trunc_len  | 60                   | cnndm, with unilm_postprocess: --trunc_len           |
//   | duplicate_rate | 0.7              | cnndm, with unilm_postprocess: --duplicate_rate      |
#include <string>
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> summarization_adapters();

// One line -> its sentences (markers above; no marker = one sentence).
std::vector<std::string> summary_sentences(const std::string& line);

}  // namespace unieval::tasks
