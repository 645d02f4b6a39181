#pragma once
// Follows DSTC7 (no code licence) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
// Task adapter `dstc7`: DSTC7 Task 2 (grounded response generation, Reddit), scored as the
// organisers' evaluation/src/dstc.py does (@e2b50e5; `dstc.py -c SUBMISSION --refs test.refs`,
// see docs/metrics/bleu_nist_meteor.md §6). This is UniLM Table 10's metric set.
//
//   unieval eval --task dstc7 --data test.refs --option keys=test.2k.txt --pred submission.txt
//   unieval eval --task dstc7 --data test.2k.keys.txt.gz --pred constant-baseline.test.convos.txt.gz
//     (reference-free: only Entropy-1..4, Div-1/2 and avg length; the official test.refs is not
//      redistributable)
//
// The behaviour reproduced (that of dstc.py extract_hyp_refs / nlp_metrics, as documented):
//   * keep the submission lines whose hash (column 0) is one of the keys; hypothesis = the last
//     tab-separated column; lines sorted by hash (a repeated hash keeps its last line, as the
//     official dict does — noted in the result);
//   * references: every column after the hash of the test.refs line, text = the part after the
//     first '|' ("score|text"); reference stream i (i < n_refs) takes ref i mod |refs|, moved on
//     by one when it is the held-out human response (vshuman, default 1);
//   * with clean (default on, the official `-c`) hypotheses and references go through DSTC7's
//     clean_str (metrics/text/dstc7_clean.h) — needed for the official numbers ("don't" ->
//     "do n't");
//   * NIST-1..4 and BLEU-1..4: mteval-v14c cumulative (metrics/nist.h); METEOR: meteor-1.5
//     `-r n_refs -l en -norm` Final score (metrics/meteor.h; needs the METEOR resources, option
//     meteor_data or $UNIEVAL_METEOR_DATA; skipped with a note otherwise);
//     entropy-1..4, div-1/2, avg_len: metrics.py (metrics/entropy.h, metrics/distinct.h).
//     The official hypothesis file is written with '\n'.join, so a final empty hypothesis is
//     lost for entropy/div/len (kept here too, and noted).
//
// Scores: nist1..4 (raw), bleu1..4 (fraction), meteor (fraction), entropy1..4 (nats), div1, div2
// (fraction), avg_len (tokens) — the column names of the organisers' score sheet.
//
// Options (--option KEY=VALUE):
//   | key         | default                   | meaning                                           |
//   | keys        | keys beside the refs file | hash list (keys/test.2k.txt; .gz ok)              |
//   | clean       | true                      | dstc.py --clean (clean_str on hyps and refs)      |
//   | n_refs      | 6                         | dstc.py --n_refs                                  |
//   | vshuman     | 1                         | dstc.py --vshuman (-1 = keep every reference)     |
//   | meteor_data | $UNIEVAL_METEOR_DATA      | METEOR 1.5 resources folder                       |
#include <map>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> dstc7_adapters();

// The organisers' automatic score sheet (dstc7-task2-automatic-scores.tsv: a header "Name
// n_lines nist1 ... avg_len" and one row per system). name -> column -> value (units as the
// sheet: BLEU and METEOR fractions, NIST raw, entropy nats). InputError on a malformed row.
using Dstc7ScoreSheet = std::map<std::string, std::map<std::string, double>>;
Dstc7ScoreSheet read_dstc7_score_sheet(const std::string& path);

// Hypotheses of a submission restricted to keys, sorted by key (dstc.py extract_cells + sorted).
struct Dstc7Hypotheses {
  std::vector<std::string> keys;  // sorted
  std::vector<std::string> hyps;  // last column of the line of each key
  int duplicates = 0;             // repeated keys (last line kept)
};
// Missing keys are an InputError naming the first missing hash.
Dstc7Hypotheses read_dstc7_submission(const std::string& path,
                                      const std::vector<std::string>& keys);
std::vector<std::string> read_dstc7_keys(const std::string& path);

}  // namespace unieval::tasks
