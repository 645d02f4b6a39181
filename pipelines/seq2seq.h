#pragma once
// Sequence-to-sequence pipelines behind `unieval finetune`, `unieval decode` and `unieval demo`:
// reading UniLM's line-file data layout, tokenising, training into a run directory
// (models/training/trainer.h), decoding a split with beam search or sampling (models/decoding/search.h), and the
// self-contained demo (synthetic task → tiny model → beam search → exact match / BLEU).
//
// Data layout (as UniLM's distributed data, e.g. cnndm / gigaword / qg folders):
//   DATA/train.src, DATA/train.tgt, DATA/dev.src, DATA/dev.tgt, DATA/test.src, DATA/test.tgt
// one example per line, source and target files line-aligned (InputError naming the files when
// their line counts differ). Text is WordPiece-tokenised with the run's vocab.txt.
//
//   FinetuneOptions f;  f.model_dir = "unilm-base";  f.data_dir = "gigaword";  f.out_dir = "run1";
//   f.train = resolve_preset("gigaword").train;   // pipelines/presets.h
//   finetune(f);                                  // run1/ as described in models/training/trainer.h
//   DecodeOptions d;  d.run_dir = "run1";  d.split = "test";  d.out = "run1/test.hyp";
//   d.search.beam = 5;  d.search.no_repeat_ngram = 3;
//   decode(d);
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/decoding/search.h"
#include "models/nn/config.h"
#include "models/nn/device.h"
#include "models/nn/transformer.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/seq2seq_data.h"
#include "models/training/trainer.h"

namespace unieval::pipelines {

struct FinetuneOptions {
  std::string task;       // task name, recorded in run.json
  std::string model_dir;  // checkpoint dir (config.json, model.safetensors, vocab.txt)
  std::optional<models::BertConfig> config;  // train from scratch with this config instead
  std::string config_path;                   // the file `config` came from, named in errors
  std::string vocab;              // vocab.txt ("" = MODEL/vocab.txt, else DATA/vocab.txt)
  std::string data_dir;           // DATA/train.src, train.tgt
  std::string out_dir;            // the run directory
  std::string preset;             // preset name, recorded in run.json ("" = none)
  bool lowercase = true;          // tokenizer lower-casing (uncased checkpoints)
  bool tokenized_input = false;   // lines are WordPiece pieces joined by spaces, used
                                  // as they are (UniLM --tokenized_input; run.json)
  models::TrainOptions train;     // training options (preset + overrides)
  models::SearchOptions decode;   // decoding defaults stored in run.json for `decode`
  std::optional<double> dropout;  // overrides the config's hidden/attention dropout
  models::DeviceOptions device;   // device, threads, precision
  bool resume = false;            // continue RUN from its checkpoint
  int64_t limit = 0;              // > 0: use only the first N training examples
  std::string dev_split;          // "" = none; else DATA/<dev_split>.src/.tgt give the
                                  // dev loss every train.dev_every steps (RUN/best)
  int64_t dev_limit = 0;          // > 0: only the first N dev examples
  std::optional<std::pair<int64_t, int64_t>> segment_ids;  // source/target segment ids (unset: the
      // checkpoint family's, BertConfig::seq2seq_segment_ids);
      // recorded in run.json train.source_type/target_type
  std::string backend;      // process group backend with WORLD_SIZE > 1 (models/
                            // distributed.h): gloo | nccl | "" (nccl on CUDA, else gloo)
  bool arch_given = false;  // train.arch was chosen (flag or preset); false: the
                            // checkpoint's config.json "unieval_arch" if any, else unilm
};

struct FinetuneResult {
  models::TrainResult train;
  std::string run_dir;
  int64_t examples = 0;
};

FinetuneResult finetune(const FinetuneOptions& opts);

// Lower-casing follows the model (#38). The checkpoint's own word: tokenizer_config.json
// "do_lower_case" (next to config.json) when it holds one, else its vocabulary (upper-case pieces
// other than [BRACKETED] specials: cased, models::vocab_is_cased). A flag (--lowercase /
// --no-lowercase) overrides it. Warnings, each naming both sides: a flag that contradicts the
// checkpoint, and a tokenizer_config.json that contradicts its vocabulary.
struct LowercaseDecision {
  bool lowercase = true;
  std::string source;  // what decided: "--no-lowercase", "DIR/tokenizer_config.json
                       // do_lower_case", "the vocabulary V (cased pieces)", "default"
  std::vector<std::string> warnings;
};
// flag: the explicit choice (unset: none). checkpoint: a directory or weights file (as --model;
// "" = none); vocab_path: the vocabulary used ("" = the checkpoint's, if any).
LowercaseDecision decide_lowercase(std::optional<bool> flag, const std::string& checkpoint,
                                   const std::string& vocab_path);

// The generation keys of a checkpoint's config.json (ours; written by ERNIE-GEN pre-training and
// by hand into converted releases): "unieval_arch": "unilm" | "ernie-gen" sets train.arch unless
// the caller chose one (arch_given); for ernie-gen, "unieval_target_bos": true sets
// train.data.target_bos. finetune applies them; `unieval run` applies them first so that its
// request records what will run. InputError naming config_path on a bad value.
void apply_config_generation_keys(const std::string& config_path, bool arch_given,
                                  models::TrainOptions& train);

struct DecodeOptions {
  std::string run_dir;  // a run directory (its checkpoint/ is loaded)
  std::string model;    // instead of run_dir: a UniLM/BERT-layout or ERNIE-GEN checkpoint
                        // (directory, .bin legacy pickle or zip, .safetensors; config.json and
                        // vocab.txt beside it); data_dir is then required, and `train` below
                        // gives the source length and (with --preset) nothing else
  models::TrainOptions train;  // with `model`: data.max_src_len, arch ("" in arch: config.json's
                               // unieval_arch, else unilm); ignored for runs (run.json has them)
  std::optional<bool>
      lowercase;  // with `model`: the flag (unset: decide_lowercase from the checkpoint)
  std::string split = "test";    // DATA/<split>.src is decoded
  std::string data_dir;          // "" = the run's data directory
  std::string out;               // output file, one detokenised hypothesis per line
  models::SearchOptions search;  // decoding options
  int64_t batch_size = 32;       // examples decoded together
  models::DeviceOptions device;  // device, threads
  bool use_cache = true;         // incremental decoding with cached keys/values
  bool progress = true;          // progress on stderr
  int64_t limit = 0;             // > 0: decode only the first N examples
  bool dedupe = true;  // search decodes each distinct source line once and copies its output to
                       // the repeats (Du's QG splits repeat a sentence for each of its questions);
                       // sampling (seeded per example) decodes every line
  int64_t stop_after = 0;  // > 0: stop after N batches of this call, leaving OUT.partial
  std::string checkpoint;  // "" = RUN/checkpoint; else a checkpoint dir of the run (RUN/best)
  bool clean_up = true;    // HF clean_up_tokenization on the output (false: pieces glued only)
  std::optional<std::pair<int64_t, int64_t>> segment_ids;  // unset: the run's (run.json train)
  std::string backend;  // process group backend with WORLD_SIZE > 1 ("" = auto)
  std::string arch;     // "" = the run's (run.json train.arch); "ernie-gen": infilling
                        // decoding with [ATTN] (models/decoding/search_unilm.h), "unilm": [MASK]
  std::optional<bool> tokenized_input;  // source lines are WordPiece pieces joined by spaces
      // (pretokenized_ids); unset = the run's (run.json tokenized_input)
  std::vector<std::string> lexicon;  // text files (.gz ok): every word written is a word of these
      // files or of the source lines decoded (models/decoding/word_lexicon.h); empty = no lexicon
};

struct DecodeResult {
  int64_t examples = 0;     // lines in the output
  int64_t distinct = 0;     // source lines decoded (examples less repeated sources when deduped)
  int64_t decoded_now = 0;  // decoded by this call (the rest came from a partial output)
  double seconds = 0;       // decoding time of this call
  bool complete = false;    // OUT written (false: stopped by stop_after)
  std::vector<std::string> hyps;
};

// The preparation both sides of a seq2seq run share, so that what decoding feeds the model is what
// training fed it (tests/pipelines/decode_consistency_test.cc checks it on real pairs):
//  * training_examples: tokenised and truncated pairs as `finetune` trains on them (heads kept to
//    max_src_len/max_tgt_len; a pair over the position table keeps its target, its source shortened);
//  * decode_source: a source as `decode` feeds it (the same tokeniser, heads kept to max_src_len and
//    to what leaves max_len positions for the output);
//  * decode_setup: what `decode` reads from a run before decoding (config, tokenizer with the run's
//    lower-casing, special ids, run.json's train options, the query token: [ATTN] for ERNIE-GEN runs,
//    [MASK] for UniLM); load_decode_model the checkpoint's weights in eval mode on a device.
// With tokenized_input the lines are WordPiece pieces joined by white space (pretokenized_ids).
std::vector<models::Seq2SeqExample> training_examples(const models::WordPieceTokenizer& tok,
                                                      const std::vector<std::string>& src,
                                                      const std::vector<std::string>& tgt,
                                                      const models::Seq2SeqDataOptions& data,
                                                      int64_t max_position_embeddings,
                                                      bool tokenized_input = false);
std::vector<int64_t> decode_source(const models::WordPieceTokenizer& tok, const std::string& text,
                                   const models::Seq2SeqDataOptions& data,
                                   int64_t max_position_embeddings, int max_len,
                                   bool tokenized_input = false);
// --tokenized-input (UniLM's --tokenized_input: WhitespaceTokenizer + convert_tokens_to_ids): the
// white-space separated pieces of `line` looked up as they are (no lower-casing, no splitting);
// a piece the vocabulary lacks becomes [UNK] (the official script raises KeyError there).
std::vector<int64_t> pretokenized_ids(const models::Vocab& vocab, const std::string& line);
struct DecodeSetup {
  std::string checkpoint;  // the checkpoint directory decoded with
  std::string config_path, vocab_path;
  models::BertConfig cfg;
  std::shared_ptr<models::WordPieceTokenizer> tok;
  models::SpecialIds ids;
  models::TrainOptions train;  // run.json's, with arch / segment ids overridden as asked
  int64_t query_token = 0;
  std::string data_dir;          // the run's data directory
  bool tokenized_input = false;  // the run was trained on pre-tokenised lines (run.json)
  std::string weights;           // with a checkpoint (decode_setup_model): its weights file
};
// checkpoint "" = RUN/checkpoint; arch "" = the run's; segment_ids unset = the run's.
// decode_setup_model: the same from a checkpoint (DecodeOptions::model): its config.json, vocab.txt
// and weights, lower-casing by decide_lowercase (warnings on stderr), the segment ids of its family
// (models/nn/config.h) unless given, arch from `arch`, else config.json's unieval_arch, else unilm.
DecodeSetup decode_setup_model(const std::string& model, const std::string& arch,
                               const std::optional<std::pair<int64_t, int64_t>>& segment_ids,
                               std::optional<bool> lowercase, const models::TrainOptions& train);
DecodeSetup decode_setup(const std::string& run_dir, const std::string& checkpoint,
                         const std::string& arch,
                         const std::optional<std::pair<int64_t, int64_t>>& segment_ids);
models::UnilmModel load_decode_model(const DecodeSetup& setup, const torch::Device& device);

// Decodes into OUT atomically. Resumable: finished batches are appended to OUT.partial (with
// OUT.partial.json recording the options); a later call with the same options continues after
// the last complete line, a call with other options starts over.
//
// Sharded (WORLD_SIZE = N > 1, models/dist/distributed.h): batch b (examples [b·batch_size,
// (b+1)·batch_size)) is decoded by rank b mod N, so every batch holds the same examples as in one
// process and the output is byte-identical. Rank r keeps OUT.shard-r-of-N.partial (+ .json) while
// it runs (a killed run resumes per shard, at a batch boundary) and writes OUT.shard-r-of-N at the
// end; after a barrier rank 0 merges the shards in input order into OUT and removes them. On
// rank 0 the result holds every hypothesis; on the others their shard's.
//
// Fine-tuning with WORLD_SIZE > 1 trains data parallel (models/training/train_loop.h); only rank 0 creates
// the run directory and writes into it.
DecodeResult decode(const DecodeOptions& opts);

// The words of `search` as ids of `vocab`: ngram_ignore_words -> ngram_ignore (UniLM's
// --forbid_ignore_word lookup) and not_predict_words -> not_predict ("@special": every bracketed
// entry but eos). A word the vocabulary lacks, or eos in not_predict_words, is an InputError naming
// vocab_path. decode() calls it; `unieval run` calls it before anything is written.
void resolve_decode_words(const models::Vocab& vocab, const std::string& vocab_path, int64_t eos,
                          models::SearchOptions& search);

// True when gen_seq_from_trace.py's simple_postprocess applies to the hypotheses, decoding following
// the script (official_trace_postprocess: --search unilm, beam > 1, --trace-alpha > 0,
// --trace-selection official): the pieces are grouped into words as its detokenize() groups them
// (models::simple_postprocess_pieces).
bool official_trace_postprocess(const models::SearchOptions& s);
// Prints a warning on stderr (rank 0) when s follows decode_seq2seq.py's greedy path and so ignores
// min_len / no_repeat_ngram (models::official_greedy_ignores).
void warn_official_greedy(const models::SearchOptions& s);

// Search options <-> the JSON of run.json's "decode" and of presets (models/decoding/search.h: keys as
// the field names, absent keys keep the defaults, unknown keys are errors).
using models::search_from_json;
using models::search_to_json;

// The search options stored in a run (from its preset), to be overridden by flags.
models::SearchOptions run_search_defaults(const std::string& run_dir);

struct DemoOptions {
  models::SyntheticTaskOptions task;  // the generated task
  std::string out_dir;                // keep data, run and outputs here ("" = temporary, removed)
  int threads = 0;                    // CPU threads (0 = default)
  bool progress = true;               // progress bars on stderr
  models::BertConfig config = demo_config();     // the tiny model
  models::TrainOptions train = demo_train();     // its training recipe
  models::SearchOptions search = demo_search();  // beam search used on the test split

  static models::BertConfig demo_config();
  static models::TrainOptions demo_train();
  static models::SearchOptions demo_search();
};

struct DemoResult {
  int64_t examples = 0;  // test examples decoded
  double exact_match =
      0;            // fraction (0-1) of test hypotheses equal to the reference (SQuAD v1.1 EM)
  double bleu = 0;  // sacreBLEU corpus BLEU (13a, exp smoothing), 0-100
  std::string bleu_signature;
  double first_loss = 0, last_loss = 0;
  int64_t steps = 0;
  double train_seconds = 0, decode_seconds = 0;
  double tokens_per_second = 0;
  std::string run_dir;  // where the run was (gone when out_dir was "")
  nlohmann::ordered_json to_json() const;
};

DemoResult run_demo(const DemoOptions& opts);

}  // namespace unieval::pipelines
