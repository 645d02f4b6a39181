#include "apps/unieval/torch/model_flags.h"

#include <iostream>
#include <type_traits>

#include "apps/unieval/torch/launch_local.h"
#include "core/error.h"
#include "models/dist/distributed.h"
#include "models/nn/device.h"
#include "models/training/optim.h"
#include "pipelines/seq2seq.h"

namespace unieval::cli {

void add_warmup_flag(po::options_description& desc, const char* help) {
  desc.add_options()("warmup", po::value<double>(), help);
}

void apply_warmup_flag(const po::variables_map& vm, int64_t& warmup_steps, double& warmup_ratio) {
  if (!vm.count("warmup")) return;
  const double w = vm["warmup"].as<double>();
  if (w < 0) throw InputError("--warmup must be >= 0");
  if (w >= 1)
    warmup_steps = static_cast<int64_t>(w);
  else
    warmup_steps = -1, warmup_ratio = w;
}

void add_train_flags(po::options_description& desc) {
  add_option_flags<models::TrainOptions>(desc);
  add_warmup_flag(desc, "warm-up: steps if >= 1, else a fraction of the total");
  desc.add_options()("dropout", po::value<double>(), "hidden and attention dropout of the model");
}

void apply_train_flags(const po::variables_map& vm, models::TrainOptions& t,
                       std::optional<double>& dropout) {
  apply_option_flags(vm, t, {"steps"});
  if (vm.count("steps")) {
    const int64_t s = vm["steps"].as<int64_t>();
    if (s < 0) throw InputError("--steps must be >= 0");
    if (s == 0)
      t.no_train = true;  // zero means zero (not "unset": the preset's epochs would run)
    else
      t.max_steps = s;
  }
  apply_warmup_flag(vm, t.warmup_steps, t.warmup_ratio);
  if (vm.count("dropout")) dropout = vm["dropout"].as<double>();
}

void add_threads_flag(po::options_description& desc, const char* help) {
  desc.add_options()("threads", po::value<int>()->default_value(0), help);
}

void add_device_flags(po::options_description& desc, const char* threads_help) {
  desc.add_options()("device", po::value<std::string>()->default_value("cpu"),
                     "cpu | cuda | cuda:N");
  add_threads_flag(desc, threads_help);
  desc.add_options()("gemm", po::value<std::string>()->default_value("libtorch"),
                     "linear-layer products on the CPU in fp32: libtorch (its BLAS) | onednn "
                     "(oneDNN's sgemm; same results to rounding, faster where that BLAS lacks "
                     "kernels for the CPU: docs/training.md)");
}

void add_precision_flag(po::options_description& desc) {
  desc.add_options()("precision", po::value<std::string>()->default_value("auto"),
                     "auto | fp32 | bf16 | fp16 (reduced: CUDA only)");
}

models::DeviceOptions device_flags(const po::variables_map& vm) {
  models::DeviceOptions d;
  if (vm.count("device")) d.device = vm["device"].as<std::string>();
  if (vm.count("threads")) d.threads = vm["threads"].as<int>();
  if (vm.count("precision")) d.precision = vm["precision"].as<std::string>();
  if (vm.count("gemm")) d.gemm = vm["gemm"].as<std::string>();
  return d;
}

void apply_arch_flag(const std::string& arch, models::TrainOptions& t) {
  if (arch != "unilm" && arch != "ernie-gen")
    throw InputError("--arch: unknown architecture '" + arch + "' (expected unilm or ernie-gen)");
  t.arch = arch;
}

namespace {

// The flag of a SearchOptions field ("" = none): its own, and the sampling seed's name per command.
FlagName search_flag(const char* seed_flag) {
  return [seed_flag](const fields::Field& f) {
    return std::string(f.key) == "seed" ? std::string(seed_flag) : f.flag_name;
  };
}

}  // namespace

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

// The search flags, from SearchOptions' one declaration (models/decoding/search.h).
void add_search_flags(po::options_description& desc, const char* seed_flag) {
  add_option_flags<models::SearchOptions>(desc, search_flag(seed_flag));
}

void apply_search_flags(const po::variables_map& vm, models::SearchOptions& s,
                        const char* seed_flag) {
  apply_option_flags(vm, s, {}, search_flag(seed_flag));
  if (s.n_best > s.beam) s.n_best = s.beam;
}

void add_text_flags(po::options_description& desc) {
  desc.add_options()("lowercase", po::bool_switch(),
                     "uncased tokenizer (default: as the checkpoint: tokenizer_config.json "
                     "do_lower_case, else its vocabulary: upper-case pieces mean cased)")(
      "no-lowercase", po::bool_switch(), "cased tokenizer (default: as the checkpoint)")(
      "tokenized-input", po::bool_switch(),
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

bool lowercase_from_flags(const po::variables_map& vm, const std::string& checkpoint,
                          const std::string& vocab) {
  const pipelines::LowercaseDecision d =
      pipelines::decide_lowercase(lowercase_flag(vm), checkpoint, vocab);
  if (is_main_rank())
    for (const auto& w : d.warnings) std::cerr << "warning: " << w << "\n";
  return d.lowercase;
}

void add_segment_ids_flag(po::options_description& desc) {
  desc.add_options()(
      "segment-ids", po::value<std::string>(),
      "S,T: segment ids of source and target (default: the checkpoint family's, 4,5 for UniLM v1 "
      "with type_vocab_size 6, else the config's unilm_segment_ids, else 0,1)");
}

std::optional<std::pair<int64_t, int64_t>> segment_ids_flag(const po::variables_map& vm) {
  if (!vm.count("segment-ids")) return std::nullopt;
  const std::string v = vm["segment-ids"].as<std::string>();
  const size_t comma = v.find(',');
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("--segment-ids " + v +
                       ": expected two non-negative integers S,T (e.g. 4,5)");
    return static_cast<int64_t>(std::stoll(s));
  };
  if (comma == std::string::npos) number("");
  return std::make_pair(number(v.substr(0, comma)), number(v.substr(comma + 1)));
}

void add_dist_flags(po::options_description& desc) {
  desc.add_options()("nproc", po::value<int>()->default_value(1),
                     "worker processes on this machine (data parallel; see README)")(
      "master-port", po::value<int>()->default_value(0),
      "--nproc: rendezvous port of 127.0.0.1 (0 = a free one)")(
      "backend", po::value<std::string>()->default_value(""),
      "process group: gloo | nccl (default: nccl on CUDA, else gloo)");
}

std::optional<int> launch_workers_if_asked(const po::variables_map& vm, const std::string& command,
                                           const Args& args) {
  const int nproc = vm["nproc"].as<int>();
  if (nproc < 1) throw InputError("--nproc must be at least 1");
  if (models::dist::launched_as_worker()) {
    const int world = models::dist::env_from_environment().world_size;
    if (!vm["nproc"].defaulted() && nproc != world)
      throw InputError("--nproc " + std::to_string(nproc) +
                       " differs from WORLD_SIZE=" + std::to_string(world));
    return std::nullopt;
  }
  if (nproc == 1) return std::nullopt;
  // What every worker would refuse is refused once, before any starts.
  if (!models::dist::have_c10d())
    throw InputError("--nproc " + std::to_string(nproc) +
                     ": this build of unieval has no c10d process groups; run "
                     "with --nproc 1");
  const torch::Device device =
      models::parse_device(vm.count("device") ? vm["device"].as<std::string>() : "cpu");
  (void)models::dist::resolve_backend(vm["backend"].as<std::string>(), device);
  if (device.is_cuda()) {
    const int gpus = static_cast<int>(torch::cuda::device_count());
    if (nproc > gpus)
      throw InputError("--nproc " + std::to_string(nproc) +
                       " with --device cuda: each worker takes its own GPU "
                       "(cuda:LOCAL_RANK), and " +
                       std::to_string(gpus) + " are visible");
  }
  LaunchOptions o;
  o.nproc = nproc;
  o.master_port = vm["master-port"].as<int>();
  o.command = command;
  o.args = args;
  return launch_local(o);
}

bool is_main_rank() {
  return !models::dist::launched_as_worker() || models::dist::env_from_environment().rank == 0;
}

}  // namespace unieval::cli
