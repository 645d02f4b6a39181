#include "apps/unieval/torch/model_flags.h"

#include "apps/unieval/torch/launch_local.h"

#include <iostream>
#include <type_traits>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/dist/distributed.h"
#include "models/training/optim.h"
#include "pipelines/seq2seq.h"

namespace unieval::cli {

void add_train_flags(po::options_description& desc) {
  desc.add_options()
      ("lr", po::value<double>(), "peak learning rate")
      ("epochs", po::value<int64_t>(), "epochs")
      ("steps", po::value<int64_t>(), "total optimizer steps (overrides epochs; 0 = no training, as --no-train)")
      ("no-train", po::bool_switch(), "zero optimizer steps: the run's checkpoint is the initial model, evaluated as is")
      ("warmup", po::value<double>(), "warm-up: steps if >= 1, else a fraction of the total")
      ("batch-tokens", po::value<int64_t>(), "token budget per micro-batch")
      ("batch-size", po::value<int64_t>(), "examples per micro-batch cap (0 = none)")
      ("accum", po::value<int64_t>(), "micro-batches per optimizer step")
      ("mask-prob", po::value<double>(), "fraction of target tokens masked")
      ("mask-80-10-10", po::bool_switch(), "BERT 80/10/10 replacement of masked tokens")
      ("noise-prob", po::value<double>(),
       "ERNIE-GEN noise-aware generation: rate of target words replaced by random ones (with --arch unilm: of the "
       "unmasked target tokens)")
      ("span-lambda", po::value<double>(),
       "ernie-gen: lambda of Eq. 7, weight of the word-by-word flow; < 1 adds the span-by-span flow (default 1)")
      ("target-bos", po::bool_switch(),
       "ernie-gen: [CLS] opens the target stream (the official ERNIE-GEN layout, for its released checkpoints; "
       "config.json \"unieval_target_bos\": true sets it too)")
      ("span-bigrams", po::value<int64_t>(), "ernie-gen: bigrams of the t-statistic span vocabulary (200000)")
      ("span-trigrams", po::value<int64_t>(), "ernie-gen: trigrams of the t-statistic span vocabulary (50000)")
      ("label-smoothing", po::value<double>(), "label smoothing eps")
      ("optimizer", po::value<std::string>(), "adamw | adam | adamax")
      ("weight-decay", po::value<double>(), "weight decay (not on bias/LayerNorm)")
      ("adam-eps", po::value<double>(), "Adam epsilon")
      ("max-grad-norm", po::value<double>(), "gradient clipping (<= 0 off)")
      ("skip-nonfinite", po::bool_switch(),
       "a step whose loss or gradient norm is NaN/inf is skipped (logged); without it training stops with "
       "an error and the last checkpoint intact")
      ("max-src-len", po::value<int>(), "source tokens kept")
      ("max-tgt-len", po::value<int>(), "target tokens kept")
      ("dropout", po::value<double>(), "hidden and attention dropout of the model")
      ("seed", po::value<uint64_t>(), "seed")
      ("save-every", po::value<int64_t>(), "checkpoint every N steps (0 = at the end)")
      ("log-every", po::value<int64_t>(), "log every N steps");
}

void apply_train_flags(const po::variables_map& vm, models::TrainOptions& t, std::optional<double>& dropout) {
  if (vm.count("lr")) t.optim.lr = vm["lr"].as<double>();
  if (vm.count("epochs")) t.epochs = vm["epochs"].as<int64_t>();
  if (vm.count("steps")) {
    const int64_t s = vm["steps"].as<int64_t>();
    if (s < 0) throw InputError("--steps must be >= 0");
    if (s == 0) t.no_train = true;  // zero means zero (not "unset": the preset's epochs would run)
    else t.max_steps = s;
  }
  if (vm["no-train"].as<bool>()) t.no_train = true;
  if (vm.count("warmup")) {
    const double w = vm["warmup"].as<double>();
    if (w < 0) throw InputError("--warmup must be >= 0");
    if (w >= 1) t.warmup_steps = static_cast<int64_t>(w);
    else t.warmup_steps = -1, t.warmup_ratio = w;
  }
  if (vm.count("batch-tokens")) t.batch_tokens = vm["batch-tokens"].as<int64_t>();
  if (vm.count("batch-size")) t.batch_size = vm["batch-size"].as<int64_t>();
  if (vm.count("accum")) t.accum = vm["accum"].as<int64_t>();
  if (vm.count("mask-prob")) t.data.mask_prob = vm["mask-prob"].as<double>();
  if (vm["mask-80-10-10"].as<bool>()) t.data.mask_80_10_10 = true;
  if (vm.count("noise-prob")) t.data.noise_prob = vm["noise-prob"].as<double>();
  if (vm.count("target-bos") && vm["target-bos"].as<bool>()) t.data.target_bos = true;
  if (vm.count("span-lambda")) t.ernie.lambda = vm["span-lambda"].as<double>();
  if (vm.count("span-bigrams")) t.ernie.top_bigrams = vm["span-bigrams"].as<int64_t>();
  if (vm.count("span-trigrams")) t.ernie.top_trigrams = vm["span-trigrams"].as<int64_t>();
  if (vm.count("label-smoothing")) t.label_smoothing = vm["label-smoothing"].as<double>();
  if (vm.count("optimizer")) t.optim.kind = models::parse_optimizer_kind(vm["optimizer"].as<std::string>());
  if (vm.count("weight-decay")) t.optim.weight_decay = vm["weight-decay"].as<double>();
  if (vm.count("adam-eps")) t.optim.eps = vm["adam-eps"].as<double>();
  if (vm.count("max-grad-norm")) t.max_grad_norm = vm["max-grad-norm"].as<double>();
  if (vm.count("skip-nonfinite") && vm["skip-nonfinite"].as<bool>()) t.skip_nonfinite = true;
  if (vm.count("max-src-len")) t.data.max_src_len = vm["max-src-len"].as<int>();
  if (vm.count("max-tgt-len")) t.data.max_tgt_len = vm["max-tgt-len"].as<int>();
  if (vm.count("dropout")) dropout = vm["dropout"].as<double>();
  if (vm.count("seed")) t.seed = vm["seed"].as<uint64_t>();
  if (vm.count("save-every")) t.save_every = vm["save-every"].as<int64_t>();
  if (vm.count("log-every")) t.log_every = vm["log-every"].as<int64_t>();
}

void apply_arch_flag(const std::string& arch, models::TrainOptions& t) {
  if (arch != "unilm" && arch != "ernie-gen")
    throw InputError("--arch: unknown architecture '" + arch + "' (expected unilm or ernie-gen)");
  t.arch = arch;
}

namespace {

// The flag of a SearchOptions field ("" = none): its own, and the sampling seed's name per command.
std::string search_flag(const fields::Field& f, const char* seed_flag) {
  return std::string(f.key) == "seed" ? std::string(seed_flag) : f.flag_name;
}

}  // namespace

// The search flags, from SearchOptions' one declaration (models/decoding/search.h).
void add_search_flags(po::options_description& desc, const char* seed_flag) {
  const models::SearchOptions defaults;
  models::SearchOptions::fields(defaults, [&](const fields::Field& f, const auto& member) {
    using T = std::decay_t<decltype(member)>;
    const std::string flag = search_flag(f, seed_flag);
    if (flag.empty()) return;
    if constexpr (std::is_same_v<T, bool>)
      desc.add_options()(flag.c_str(), po::bool_switch(), f.help);
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      desc.add_options()(flag.c_str(), po::value<std::string>(), f.help);
    else
      desc.add_options()(flag.c_str(), po::value<T>(), f.help);
  });
}

namespace {

// "a|b||c" -> {a, b, c}; "" -> {}.
std::vector<std::string> split_bars(const std::string& v) {
  std::vector<std::string> out;
  for (size_t b = 0; b <= v.size() && !v.empty();) {
    size_t e = v.find('|', b);
    if (e == std::string::npos) e = v.size();
    if (e > b) out.push_back(v.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

}  // namespace

void apply_search_flags(const po::variables_map& vm, models::SearchOptions& s, const char* seed_flag) {
  models::SearchOptions::fields(s, [&](const fields::Field& f, auto& member) {
    using T = std::decay_t<decltype(member)>;
    const std::string flag = search_flag(f, seed_flag);
    if (flag.empty() || !vm.count(flag)) return;
    if constexpr (std::is_same_v<T, bool>) {
      if (vm[flag].as<bool>()) member = true;  // a switch only turns it on
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      member = split_bars(vm[flag].as<std::string>());
    } else {
      member = vm[flag].as<T>();
    }
  });
  if (s.n_best > s.beam) s.n_best = s.beam;
}

void add_text_flags(po::options_description& desc) {
  desc.add_options()
      ("lowercase", po::bool_switch(), "uncased tokenizer (default: as the checkpoint: tokenizer_config.json "
       "do_lower_case, else its vocabulary: upper-case pieces mean cased)")
      ("no-lowercase", po::bool_switch(), "cased tokenizer (default: as the checkpoint)")
      ("tokenized-input", po::bool_switch(),
       "the lines are WordPiece pieces joined by spaces, used as they are (UniLM --tokenized_input; "
       "an unknown piece is [UNK])");
}

std::optional<bool> lowercase_flag(const po::variables_map& vm) {
  const bool lower = vm.count("lowercase") && vm["lowercase"].as<bool>();
  const bool cased = vm.count("no-lowercase") && vm["no-lowercase"].as<bool>();
  if (lower && cased) throw InputError("give at most one of --lowercase and --no-lowercase");
  if (lower || cased) return lower;
  return std::nullopt;
}

bool lowercase_from_flags(const po::variables_map& vm, const std::string& checkpoint, const std::string& vocab) {
  const pipelines::LowercaseDecision d = pipelines::decide_lowercase(lowercase_flag(vm), checkpoint, vocab);
  if (is_main_rank())
    for (const auto& w : d.warnings) std::cerr << "warning: " << w << "\n";
  return d.lowercase;
}

void add_segment_ids_flag(po::options_description& desc) {
  desc.add_options()("segment-ids", po::value<std::string>(),
                     "S,T: segment ids of source and target (default: the checkpoint family's, 4,5 for UniLM v1 "
                     "with type_vocab_size 6, else the config's unilm_segment_ids, else 0,1)");
}

std::optional<std::pair<int64_t, int64_t>> segment_ids_flag(const po::variables_map& vm) {
  if (!vm.count("segment-ids")) return std::nullopt;
  const std::string v = vm["segment-ids"].as<std::string>();
  const size_t comma = v.find(',');
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("--segment-ids " + v + ": expected two non-negative integers S,T (e.g. 4,5)");
    return static_cast<int64_t>(std::stoll(s));
  };
  if (comma == std::string::npos) number("");
  return std::make_pair(number(v.substr(0, comma)), number(v.substr(comma + 1)));
}

void add_dist_flags(po::options_description& desc) {
  desc.add_options()
      ("nproc", po::value<int>()->default_value(1), "worker processes on this machine (data parallel; see README)")
      ("master-port", po::value<int>()->default_value(0), "--nproc: rendezvous port of 127.0.0.1 (0 = a free one)")
      ("backend", po::value<std::string>()->default_value(""), "process group: gloo | nccl (default: nccl on CUDA, else gloo)");
}

std::optional<int> launch_workers_if_asked(const po::variables_map& vm, const std::string& command, const Args& args) {
  const int nproc = vm["nproc"].as<int>();
  if (nproc < 1) throw InputError("--nproc must be at least 1");
  if (models::dist::launched_as_worker()) {
    const int world = models::dist::env_from_environment().world_size;
    if (!vm["nproc"].defaulted() && nproc != world)
      throw InputError("--nproc " + std::to_string(nproc) + " differs from WORLD_SIZE=" + std::to_string(world));
    return std::nullopt;
  }
  if (nproc == 1) return std::nullopt;
  // What every worker would refuse is refused once, before any starts.
  if (!models::dist::have_c10d())
    throw InputError("--nproc " + std::to_string(nproc) + ": this build of unieval has no c10d process groups; run "
                     "with --nproc 1");
  const torch::Device device = models::parse_device(vm.count("device") ? vm["device"].as<std::string>() : "cpu");
  (void)models::dist::resolve_backend(vm["backend"].as<std::string>(), device);
  if (device.is_cuda()) {
    const int gpus = static_cast<int>(torch::cuda::device_count());
    if (nproc > gpus)
      throw InputError("--nproc " + std::to_string(nproc) + " with --device cuda: each worker takes its own GPU "
                       "(cuda:LOCAL_RANK), and " + std::to_string(gpus) + " are visible");
  }
  LaunchOptions o;
  o.nproc = nproc;
  o.master_port = vm["master-port"].as<int>();
  o.command = command;
  o.args = args;
  return launch_local(o);
}

bool is_main_rank() { return !models::dist::launched_as_worker() || models::dist::env_from_environment().rank == 0; }

}  // namespace unieval::cli
