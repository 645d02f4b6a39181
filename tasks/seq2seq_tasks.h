#pragma once
// Follows UniLM (MIT) data layouts; no code copied; see THIRD_PARTY_NOTICES.md.
// Generation tasks as sequence-to-sequence examples, read from each dataset's distributed format
// (what `unieval run` trains and decodes on), and the way back: a split's references in the form
// the task's eval adapter (tasks/task.h) reads, predictions in its prediction format, and the
// post-processing that turns a decoded line into that task's reference format.
//
//   Seq2SeqSplit s = read_seq2seq_split("squad-qg", "squad_qg/", "dev", /*limit*/ 300);
//   s.src[0], s.tgt[0];                       // model input / target text
//   EvalFiles e = write_eval_files(s, "RUN/eval");          // references for pipelines::evaluate
//   write_predictions(s, hyps, e.pred);                      // hyps already post-processed
//
// Every reader throws InputError naming the file (and line or id) on malformed input: a missing
// split, ragged source/target files, a bad JSON field. Text is kept as the distribution has it
// (casing included); the WordPiece tokenizer of the run lower-cases for uncased models. What each
// reader does:
//
// | task              | --data                                   | source → target; truncation, casing            |
// |-------------------|------------------------------------------|-------------------------------------------------|
// | squad-qg          | nqg data/processed: src-S.txt, tgt-S.txt | sentence → question (Du et al. 2017, tokenised, |
// |                   | (.gz ok); splits train, dev, test        | lower-cased by nqg); PTB brackets -lrb- ... are |
// |                   |                                          | mapped to ( ) [ ] { } and `` '' to " for the    |
// |                   |                                          | model (UniLM's eval.py fix_tokenization maps    |
// |                   |                                          | them back); no truncation here (max_src_len)    |
// | squad-qg-reversed | same files, dev and test swapped          | as squad-qg (Zhao et al. 2018 split)           |
// | cnndm             | UniLM folder S.src + S.tgt (or           | article → summary sentences joined by          |
// |                   | S.src.txt/S.tgt.txt), or raw CNN/DM      | " [X_SEP] " (UniLM's decoder separator; gold    |
// |                   | stories: S/*.story, or stories/*.story + | separators <S_SEP> [X_SEP] <q> ##SENT## read); |
// |                   | S.list (one story file name per line)    | casing kept; article truncated by max_src_len  |
// | gigaword          | UniLM org_data: S.src.txt + S.tgt.txt    | sentence → headline; as distributed (lower,    |
// |                   | (or S.src/S.tgt)                         | digits '#', UNK); no truncation here           |
// | coqa-gen          | CoQA JSON (coqa-train-v1.0.json,         | "q1 a1 ... q(k-1) a(k-1) qk" + passage chunk →  |
// |                   | coqa-dev-v1.0.json) or a folder with     | free-form answer; UniLM §3.2: history first,   |
// |                   | them (train, dev)                        | then the passage window of max_src_words −      |
// |                   |                                          | |history| units with the most word overlap     |
// |                   |                                          | with the question (default 470); units are     |
// |                   |                                          | words, or WordPiece tokens when `length` is    |
// |                   |                                          | given (`unieval run` does); casing kept        |
// | dstc7             | task-2 S.convos.txt + S.facts.txt        | context turns (EOS → " ") + facts of the        |
// |                   | (hash, subreddit, conv id, score, turns, | conversation → response; the context keeps     |
// |                   | response / hash, subreddit, conv id,     | its last max_src_words/2 words, facts fill the |
// |                   | domain, fact)                            | rest (default 469 words); casing kept          |
// | personachat       | ConvAI2 text (S_self_original_no_cands   | persona sentences + dialogue history + the      |
// |                   | .txt, .gz ok; S = train, valid) or file  | partner's utterance → response; the history    |
// |                   |                                          | keeps its last words to fit max_src_words      |
// |                   |                                          | (default 469); text lower-cased as ConvAI2 is  |
//
// | Seq2SeqReadOptions | default | meaning                                                       |
// |--------------------|---------|---------------------------------------------------------------|
// | limit              | 0       | > 0: keep only the first N examples                           |
// | max_src_words      | 0       | coqa-gen / dstc7 / personachat source budget in words (0 =    |
// |                    |         | the task's default above)                                     |
// | length             | null    | coqa-gen: the length of one whitespace word in the budget's   |
// |                    |         | units; null = 1 (words). `unieval run` passes the WordPiece   |
// |                    |         | token count of its vocabulary (UniLM §3.2 counts the 470 in   |
// |                    |         | tokens; tasks/ knows no tokenizer, pipelines/ injects it)     |
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace unieval::tasks {

struct Seq2SeqReadOptions {
  int64_t limit = 0;                                 // > 0: first N examples only
  int max_src_words = 0;                             // source budget in words (0 = task default)
  std::function<size_t(const std::string&)> length;  // coqa-gen: units of one word (null: 1)
  std::string length_unit = "words";                 // what `length` counts (for the reader line)
};

struct Seq2SeqSplit {
  std::string task;              // task key
  std::string split;             // split as asked (train, dev, test, valid)
  std::vector<std::string> src;  // model input text
  std::vector<std::string>
      tgt;  // target text (training form: e.g. cnndm sentences joined by [X_SEP])
  std::vector<std::string> refs;   // reference in the eval adapter's form (cnndm: " <S_SEP> ")
  std::vector<std::string> ids;    // example ids (coqa "story_id/turn", dstc7 hash, line numbers)
  std::vector<std::string> files;  // files read (provenance: hashed into the result)
  std::string reader;              // one line: format, truncation, casing (recorded in the result)
  // coqa-gen: the stories of the split with their turns, kept to write the subset JSON.
  std::string coqa_json;  // the split's JSON text (coqa-gen only)
};

// The tasks `unieval run` handles: cnndm, gigaword, squad-qg, squad-qg-reversed, coqa-gen,
// dstc7, personachat.
const std::vector<std::string>& seq2seq_task_names();
bool is_seq2seq_task(const std::string& task);

// Reads one split. InputError naming the folder when the split is not there, the file and line
// on malformed input.
Seq2SeqSplit read_seq2seq_split(const std::string& task, const std::string& data,
                                const std::string& split, const Seq2SeqReadOptions& opts = {});

// What pipelines::evaluate needs to score predictions of a split's examples (written under a folder).
struct EvalFiles {
  std::string data;                            // EvalRequest::data
  std::string split;                           // EvalRequest::split
  std::string pred;                            // where write_predictions writes
  std::map<std::string, std::string> options;  // EvalRequest::options
};
// Writes the references of s into dir (atomically), in the adapter's format.
EvalFiles write_eval_files(const Seq2SeqSplit& s, const std::string& dir);
// Writes predictions (one per example, already post-processed) in the adapter's format.
void write_predictions(const Seq2SeqSplit& s, const std::vector<std::string>& hyps,
                       const std::string& path);

// A decoded line (WordPiece pieces glued, no HF clean-up) → the task's prediction text:
// cnndm: the "[ x _ sep ]" pieces an uncased vocabulary makes of [X_SEP] restored (UniLM's
// eval.py then splits on it); every task: whitespace runs → one space, trimmed. The task
// adapters apply the official post-processing (fix_tokenization, ...) themselves.
std::string postprocess_hypothesis(const std::string& task, const std::string& decoded);

// UniLM's cnndm target form: sentences joined by " [X_SEP] ".
std::string join_summary_sentences(const std::vector<std::string>& sentences);
// PTB tokens of the nqg data → text: brackets (-lrb- → "("), `` and '' → '"', "n't" glued to
// the previous token.
std::string unptb_brackets(const std::string& text);

}  // namespace unieval::tasks
