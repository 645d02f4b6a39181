#pragma once
// The training and decoding flags shared by `unieval finetune`, `decode` and `run`: one
// definition of each flag, applied on top of a preset (flags given override it).
#include <optional>

#include "apps/unieval/cli.h"
#include "models/decoding/search.h"
#include "models/training/trainer.h"

namespace unieval::cli {

// --lr --epochs --steps --warmup --batch-tokens --batch-size --accum --mask-prob --mask-80-10-10
// --noise-prob --span-lambda --span-bigrams --span-trigrams --label-smoothing --optimizer --weight-decay --adam-eps --max-grad-norm
// --max-src-len --max-tgt-len --dropout --seed --save-every --log-every
void add_train_flags(po::options_description& desc);
void apply_train_flags(const po::variables_map& vm, models::TrainOptions& t, std::optional<double>& dropout);
// --arch of finetune / run (each command defines the flag: run also takes gpt): "unilm" or
// "ernie-gen" into t.arch; InputError otherwise.
void apply_arch_flag(const std::string& arch, models::TrainOptions& t);

// --beam --length-penalty --min-len --max-len --no-repeat-ngram --ngram-ignore --search --trace-alpha
// --trace-selection
// --sample --top-k --top-p
// --temperature --decode-seed (seed_flag: the name of the sampling-seed flag)
void add_search_flags(po::options_description& desc, const char* seed_flag);

// --segment-ids S,T: the segment ids of source and target (default: the checkpoint family's,
// models/nn/config.h seq2seq_segment_ids). InputError on a malformed value.
void add_segment_ids_flag(po::options_description& desc);
std::optional<std::pair<int64_t, int64_t>> segment_ids_flag(const po::variables_map& vm);
void apply_search_flags(const po::variables_map& vm, models::SearchOptions& s, const char* seed_flag);

// --lowercase --no-lowercase --tokenized-input (finetune, decode, run; each command keeps its own
// --no-lowercase definition out: these define all three).
void add_text_flags(po::options_description& desc);
// Lower-casing from the flags (at most one of --lowercase / --no-lowercase), else the checkpoint's
// (pipelines::decide_lowercase: tokenizer_config.json, then the vocabulary); warnings on stderr.
// checkpoint / vocab: "" when there is none.
bool lowercase_from_flags(const po::variables_map& vm, const std::string& checkpoint, const std::string& vocab);
std::optional<bool> lowercase_flag(const po::variables_map& vm);

// --nproc N --master-port P --backend gloo|nccl (models/dist/distributed.h).
void add_dist_flags(po::options_description& desc);
// With --nproc N > 1 in a process that is not a worker (WORLD_SIZE unset): starts N workers of
// `command args` on loopback, waits for them and returns the exit code; otherwise nullopt (run
// here). InputError when WORLD_SIZE is set and differs from a --nproc given.
std::optional<int> launch_workers_if_asked(const po::variables_map& vm, const std::string& command, const Args& args);
// False on the ranks > 0 of a launch: they print nothing and write no summary.
bool is_main_rank();

}  // namespace unieval::cli
