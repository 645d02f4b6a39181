#pragma once
// The training and decoding flags shared by `unieval finetune`, `decode` and `run`: one
// definition of each flag, applied on top of a preset (flags given override it).
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/unieval/cli.h"
#include "core/fields.h"
#include "models/decoding/search.h"
#include "models/nn/device.h"
#include "models/training/trainer.h"

namespace unieval::cli {

// "a|b||c" -> {a, b, c}; "" -> {} (the flag form of a list field).
std::vector<std::string> split_bars(const std::string& v);

// The flag of a field: its own (Field::flag_name), or a command's renaming (decode and run name
// the sampling seed differently). "" = no flag.
using FlagName = std::function<std::string(const fields::Field&)>;
inline std::string own_flag(const fields::Field& f) { return f.flag_name; }

// The flags of an options struct, derived from its one declaration (core/fields.h): one flag
// per field with a flag name, typed as the field (a bool is a switch that only turns it on, an
// enum takes its JSON spelling, a list is '|'-separated), help from the declaration.
// apply_option_flags sets the fields whose flags were given, except those named in `custom`
// (the caller reads them).
template <class Options>
void add_option_flags(po::options_description& desc, const FlagName& flag_of = own_flag) {
  const Options defaults{};
  Options::fields(defaults, [&](const fields::Field& f, const auto& member) {
    using T = std::decay_t<decltype(member)>;
    const std::string flag = flag_of(f);
    if (flag.empty()) return;
    if constexpr (std::is_same_v<T, bool>)
      desc.add_options()(flag.c_str(), po::bool_switch(), f.help);
    else if constexpr (std::is_enum_v<T> || std::is_same_v<T, std::string> ||
                       std::is_same_v<T, std::vector<std::string>>)
      desc.add_options()(flag.c_str(), po::value<std::string>(), f.help);
    else if constexpr (std::is_same_v<T, std::optional<double>>)
      desc.add_options()(flag.c_str(), po::value<double>(), f.help);
    else
      desc.add_options()(flag.c_str(), po::value<T>(), f.help);
  });
}

template <class Options>
void apply_option_flags(const po::variables_map& vm, Options& o,
                        const std::set<std::string>& custom = {},
                        const FlagName& flag_of = own_flag) {
  Options::fields(o, [&](const fields::Field& f, auto& member) {
    using T = std::decay_t<decltype(member)>;
    const std::string flag = flag_of(f);
    if (flag.empty() || custom.count(flag) || !vm.count(flag)) return;
    if constexpr (std::is_same_v<T, bool>) {
      if (vm[flag].as<bool>()) member = true;
    } else if constexpr (std::is_enum_v<T>) {
      member = field_from_string(vm[flag].as<std::string>(), member);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      member = split_bars(vm[flag].as<std::string>());
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
      member = vm[flag].as<double>();
    } else {
      member = vm[flag].as<T>();
    }
  });
}

// --warmup W: steps when >= 1 (warmup_steps), else a fraction of the total (warmup_ratio).
void add_warmup_flag(po::options_description& desc, const char* help);
void apply_warmup_flag(const po::variables_map& vm, int64_t& warmup_steps, double& warmup_ratio);

// The fine-tuning flags of finetune and run: TrainOptions' (models/training/trainer.h; --steps 0
// means --no-train), --warmup and --dropout.
void add_train_flags(po::options_description& desc);
void apply_train_flags(const po::variables_map& vm, models::TrainOptions& t,
                       std::optional<double>& dropout);
// --arch of finetune / run (each command defines the flag: run also takes gpt): "unilm" or
// "ernie-gen" into t.arch; InputError otherwise.
void apply_arch_flag(const std::string& arch, models::TrainOptions& t);

// --device cpu|cuda|cuda:N and --threads N of every model command (`threads_help`: the CPU
// threads' help); device_flags reads them into a DeviceOptions (precision left at its default).
inline constexpr const char* kThreadsHelp = "CPU threads (0 = LibTorch default)";
void add_device_flags(po::options_description& desc, const char* threads_help = kThreadsHelp);
// --threads alone (the CPU-only demo).
void add_threads_flag(po::options_description& desc, const char* help = kThreadsHelp);
// --precision auto|fp32|bf16|fp16 (default auto) of the commands that train or decode.
void add_precision_flag(po::options_description& desc);
// The flags above that the command defines (device, threads, precision) into a DeviceOptions.
models::DeviceOptions device_flags(const po::variables_map& vm);

// --beam --length-penalty --min-len --max-len --no-repeat-ngram --ngram-ignore --search --trace-alpha
// --trace-selection
// --sample --top-k --top-p
// --temperature --decode-seed (seed_flag: the name of the sampling-seed flag)
void add_search_flags(po::options_description& desc, const char* seed_flag);

// --segment-ids S,T: the segment ids of source and target (default: the checkpoint family's,
// models/nn/config.h seq2seq_segment_ids). InputError on a malformed value.
void add_segment_ids_flag(po::options_description& desc);
std::optional<std::pair<int64_t, int64_t>> segment_ids_flag(const po::variables_map& vm);
void apply_search_flags(const po::variables_map& vm, models::SearchOptions& s,
                        const char* seed_flag);

// --lowercase --no-lowercase --tokenized-input (finetune, decode, run; each command keeps its own
// --no-lowercase definition out: these define all three).
void add_text_flags(po::options_description& desc);
// Lower-casing from the flags (at most one of --lowercase / --no-lowercase), else the checkpoint's
// (pipelines::decide_lowercase: tokenizer_config.json, then the vocabulary); warnings on stderr.
// checkpoint / vocab: "" when there is none.
bool lowercase_from_flags(const po::variables_map& vm, const std::string& checkpoint,
                          const std::string& vocab);
std::optional<bool> lowercase_flag(const po::variables_map& vm);

// --nproc N --master-port P --backend gloo|nccl (models/dist/distributed.h).
void add_dist_flags(po::options_description& desc);
// With --nproc N > 1 in a process that is not a worker (WORLD_SIZE unset): starts N workers of
// `command args` on loopback, waits for them and returns the exit code; otherwise nullopt (run
// here). InputError when WORLD_SIZE is set and differs from a --nproc given.
std::optional<int> launch_workers_if_asked(const po::variables_map& vm, const std::string& command,
                                           const Args& args);
// False on the ranks > 0 of a launch: they print nothing and write no summary.
bool is_main_rank();

}  // namespace unieval::cli
