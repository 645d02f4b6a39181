#pragma once
// Follows PLATO (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Task adapter `personachat`: Persona-Chat / ConvAI2 response generation scored as ERNIE-GEN
// (PaddlePaddle/ERNIE@b2a7656 ernie-gen/eval/tasks/persona_chat/) and PLATO compute it
// (ERNIE-GEN Table 5): `cat pred | python clean.py > x.clean; python eval.py x.clean ref.tgt`.
//
//   unieval eval --task personachat --data valid_self_original_no_cands.txt --pred responses.txt
//
// Data: ConvAI2 / ParlAI text format ("N your persona: ..." lines, then "N utterance<TAB>response
// [<TAB><TAB>candidates]"); the references are the responses in file order.
// Predictions: one response per line, in the same order (line count must match).
// Preprocessing (option clean, default true): clean.py's replacements on each prediction, in its
// order: " - "->"-", " ' "->"'", " n't"->"n't", " 'm"->"'m", " do not"->" don't", " 's"->"'s",
// " 've"->"'ve", " 're"->"'re" (Python str.replace, left to right).
// Scores (fractions): bleu1, bleu2 = mean over segments of NLTK sentence_bleu with method7 and
// tokens line.strip().split(" ") (metrics/bleu_compat.h plato_bleu); distinct1, distinct2 =
// PLATO inter_dist_1/2 (metrics/distinct.h, flavour ernie-gen).
#include <string>
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> personachat_adapters();

// The responses of a ConvAI2 text file, in order. InputError naming the line when a dialogue
// line has no tab-separated response.
std::vector<std::string> read_convai2_responses(const std::string& path);
// ERNIE-GEN persona_chat/clean.py on one line.
std::string ernie_gen_persona_clean(std::string line);

}  // namespace unieval::tasks
