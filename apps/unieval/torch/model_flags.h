#pragma once
// The training and decoding flags shared by `unieval finetune`, `decode` and `run`: one
// definition of each flag, applied on top of a preset (flags given override it).
#include <optional>

#include "apps/unieval/cli.h"
#include "models/search.h"
#include "models/trainer.h"

namespace unieval::cli {

// --lr --epochs --steps --warmup --batch-tokens --batch-size --accum --mask-prob --mask-80-10-10
// --noise-prob --label-smoothing --optimizer --weight-decay --adam-eps --max-grad-norm
// --max-src-len --max-tgt-len --dropout --seed --save-every --log-every
void add_train_flags(po::options_description& desc);
void apply_train_flags(const po::variables_map& vm, models::TrainOptions& t, std::optional<double>& dropout);

// --beam --length-penalty --min-len --max-len --no-repeat-ngram --ngram-ignore --search --trace-alpha
// --sample --top-k --top-p
// --temperature --decode-seed (seed_flag: the name of the sampling-seed flag)
void add_search_flags(po::options_description& desc, const char* seed_flag);

// --segment-ids S,T: the segment ids of source and target (default: the checkpoint family's,
// models/config.h seq2seq_segment_ids). InputError on a malformed value.
void add_segment_ids_flag(po::options_description& desc);
std::optional<std::pair<int64_t, int64_t>> segment_ids_flag(const po::variables_map& vm);
void apply_search_flags(const po::variables_map& vm, models::SearchOptions& s, const char* seed_flag);

}  // namespace unieval::cli
