// RunDir and the weights of a run directory (models/io/run_dir.h).
#include "models/io/run_dir.h"

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error.h"
#include "core/fs.h"
#include "core/io.h"
#include "models/io/safetensors.h"

namespace unieval::models {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const char* const kRunWeightsFile = "model.safetensors";
const char* const kRunOptimizerFile = "optimizer.safetensors";

void save_model_weights(torch::nn::Module& model, const std::string& path) {
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : model.named_parameters())
    tensors.emplace_back(item.key(), item.value().detach());
  write_safetensors(path, tensors);
}

void load_model_weights(torch::nn::Module& model, const std::string& path) {
  SafetensorsFile file = SafetensorsFile::open(path);
  torch::NoGradGuard no_grad;
  for (auto& item : model.named_parameters()) {
    if (!file.contains(item.key()))
      throw InputError(path, 0, "missing parameter '" + item.key() + "'");
    torch::Tensor t = file.tensor(item.key());
    if (t.sizes() != item.value().sizes())
      throw InputError(path, 0, "parameter '" + item.key() + "' has the wrong shape");
    item.value().copy_(t.to(item.value().dtype()));
  }
}

RunDir::RunDir(std::string path) : path_(std::move(path)) {}

std::string RunDir::file(const std::string& name) const {
  return (fs::path(path_) / name).string();
}
std::string RunDir::checkpoint_dir() const { return file("checkpoint"); }
std::string RunDir::best_dir() const { return file("best"); }

namespace {

// f(text, record) for each line of the log at `path` that parses (empty lines skipped; a torn line,
// which atomic writes never leave, dropped).
void for_each_log_line(const std::string& path,
                       const std::function<void(const std::string&, const ojson&)>& f) {
  std::istringstream in(core::read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ojson j;
    try {
      j = ojson::parse(line);
    } catch (const nlohmann::json::exception&) {
      continue;
    }
    f(line, j);
  }
}

std::string raw_bytes(const std::string& path) {
  std::string bytes;
  core::read_raw_file(path, bytes);
  return bytes;
}

// Writes directory root/name as a whole: `fill` writes root/name.tmp.PID, then name -> name.old,
// tmp -> name, name.old removed. A crash in between leaves name.old (or the previous name).
void replace_dir(const fs::path& root, const std::string& name,
                 const std::function<void(const fs::path&)>& fill) {
  const fs::path tmp = root / (name + ".tmp." + std::to_string(::getpid()));
  const fs::path cur = root / name;
  const fs::path old = root / (name + ".old");
  std::error_code ec;
  core::remove_tree(tmp.string(), ec);
  fs::create_directories(tmp);
  fill(tmp);
  core::remove_tree(old.string(), ec);
  if (fs::exists(cur)) fs::rename(cur, old);
  fs::rename(tmp, cur);
  core::remove_tree(old.string(), ec);
}

// The tokenizer files a run folder may hold (WordPiece; the GPT BPE pair, plain or gzipped):
// each present one is copied into every checkpoint and RUN/best.
constexpr const char* kTokenizerFiles[] = {"vocab.txt", "encoder_bpe_40000.json", "vocab_40000.bpe",
                                           "vocab.json", "merges.txt"};

void copy_tokenizer_files(const fs::path& run, const fs::path& dst) {
  for (const char* name : kTokenizerFiles)
    for (const char* suffix : {"", ".gz"}) {
      const fs::path src = run / (std::string(name) + suffix);
      if (fs::exists(src))
        core::write_file_atomic((dst / src.filename()).string(), raw_bytes(src.string()));
    }
}

}  // namespace

void RunDir::add_tokenizer_files(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    const std::string name = fs::path(p).filename().string();
    bool known = false;
    for (const char* n : kTokenizerFiles)
      known = known || name == n || name == std::string(n) + ".gz";
    if (!known) throw InputError(p, 0, "not a tokenizer file a run folder carries");
    core::write_file_atomic(file(name), raw_bytes(p));
  }
}

void RunDir::save_best(torch::nn::Module& model, const ojson& info) {
  replace_dir(fs::path(path_), "best", [&](const fs::path& tmp) {
    save_model_weights(model, (tmp / kRunWeightsFile).string());
    core::write_file_atomic((tmp / "config.json").string(), core::read_file(file("config.json")));
    copy_tokenizer_files(fs::path(path_), tmp);
    core::write_file_atomic((tmp / "best.json").string(), info.dump(2) + "\n");
  });
}

bool RunDir::has_checkpoint() const {
  return fs::exists(fs::path(checkpoint_dir()) / "trainer_state.json") ||
         fs::exists(fs::path(path_) / "checkpoint.old" / "trainer_state.json");
}

void RunDir::create(const ojson& run_info, const BertConfig& cfg, const std::string& vocab_text) {
  fs::create_directories(path_);
  core::write_file_atomic(file("run.json"), run_info.dump(2) + "\n");
  core::write_file_atomic(file("config.json"), cfg.to_json().dump(2) + "\n");
  core::write_file_atomic(file("vocab.txt"), vocab_text);
  core::write_file_atomic(file("log.jsonl"), "");
}

void RunDir::create(const ojson& run_info, const nlohmann::json& config_json,
                    const std::string& vocab_text) {
  fs::create_directories(path_);
  core::write_file_atomic(file("run.json"), run_info.dump(2) + "\n");
  core::write_file_atomic(file("config.json"), config_json.dump(2) + "\n");
  if (!vocab_text.empty()) core::write_file_atomic(file("vocab.txt"), vocab_text);
  core::write_file_atomic(file("log.jsonl"), "");
}

nlohmann::json RunDir::run_info() const {
  const std::string p = file("run.json");
  try {
    return nlohmann::json::parse(core::read_file(p));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p, 0, std::string("not valid JSON: ") + e.what());
  }
}

void RunDir::save_checkpoint(torch::nn::Module& model, const Optimizer& opt, const ojson& state) {
  // A crash during the swap leaves checkpoint.old, which load_checkpoint falls back to.
  replace_dir(fs::path(path_), "checkpoint", [&](const fs::path& tmp) {
    save_model_weights(model, (tmp / kRunWeightsFile).string());
    core::write_file_atomic((tmp / "config.json").string(), core::read_file(file("config.json")));
    copy_tokenizer_files(fs::path(path_), tmp);
    // Streamed from the live moments: no second copy of the optimizer state in memory (#24).
    write_safetensors((tmp / kRunOptimizerFile).string(), opt.state_views());
    {
      std::map<std::string, torch::Tensor> rng;
      at::Generator gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      rng["cpu"] = gen.get_state();
      core::write_file_atomic((tmp / "rng.pt").string(), serialize_tensors(rng));
    }
    core::write_file_atomic((tmp / "trainer_state.json").string(), state.dump(2) + "\n");
  });
}

nlohmann::json RunDir::load_checkpoint(torch::nn::Module& model, Optimizer& opt) const {
  fs::path dir = checkpoint_dir();
  if (!fs::exists(dir / "trainer_state.json")) dir = fs::path(path_) / "checkpoint.old";
  if (!fs::exists(dir / "trainer_state.json"))
    throw InputError(path_, 0,
                     "no checkpoint to resume from (RUN/checkpoint/trainer_state.json missing)");
  load_model_weights(model, (dir / kRunWeightsFile).string());
  const std::string opt_path = (dir / kRunOptimizerFile).string();
  if (fs::exists(opt_path)) {
    SafetensorsFile file = SafetensorsFile::open(opt_path);
    try {
      opt.load_state([&](const std::string& name) {
        return file.contains(name) ? file.tensor(name) : torch::Tensor();
      });
    } catch (const InputError& e) {
      if (!e.file().empty()) throw;  // already names the file
      throw InputError(opt_path, 0, e.problem());
    }
  } else {  // a checkpoint written before optimizer.safetensors (LibTorch archive)
    const std::string old_path = (dir / "optimizer.pt").string();
    opt.load_state_dict(deserialize_tensors(core::read_file(old_path), old_path));
  }
  const std::string rng_path = (dir / "rng.pt").string();
  if (fs::exists(rng_path)) {
    auto rng = deserialize_tensors(core::read_file(rng_path), rng_path);
    if (rng.count("cpu")) {
      at::Generator gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(rng["cpu"]);
    }
  }
  const std::string state_path = (dir / "trainer_state.json").string();
  try {
    return nlohmann::json::parse(core::read_file(state_path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(state_path, 0, std::string("not valid JSON: ") + e.what());
  }
}

void RunDir::append_log(const std::vector<ojson>& lines) {
  if (lines.empty()) return;
  std::string text;
  const std::string p = file("log.jsonl");
  if (fs::exists(p)) text = core::read_file(p);
  for (const auto& l : lines) text += l.dump() + "\n";
  core::write_file_atomic(p, text);
}

void RunDir::truncate_log(int64_t last_step) {
  const std::string p = file("log.jsonl");
  if (!fs::exists(p)) return;
  std::string kept;
  for_each_log_line(p, [&](const std::string& line, const ojson& j) {
    if (j.is_object() && j.contains("step") &&
        (!j["step"].is_number() || j["step"].get<int64_t>() > last_step))
      return;  // a later step (or a step that is not a number)
    kept += line + "\n";
  });
  core::write_file_atomic(p, kept);
}

nlohmann::ordered_json RunDir::log_line(int64_t step) const {
  const std::string p = file("log.jsonl");
  nlohmann::ordered_json found;
  if (!fs::exists(p)) return found;
  for_each_log_line(p, [&](const std::string&, const ojson& j) {
    if (j.is_object() && j.contains("step") && j["step"].is_number_integer() &&
        j["step"].get<int64_t>() == step)
      found = j;
  });
  return found;
}

nlohmann::json RunDir::trainer_state() const {
  const fs::path st = fs::path(checkpoint_dir()) / "trainer_state.json";
  if (!fs::exists(st)) return nlohmann::json();
  try {
    return nlohmann::json::parse(core::read_file(st.string()));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(st.string(), 0, std::string("not valid JSON: ") + e.what());
  }
}

bool RunDir::training_finished() const {
  const nlohmann::json j = trainer_state();
  if (j.is_null()) return false;
  return j.value("step", int64_t{0}) >= j.value("total_steps", int64_t{1}) ||
         j.value("early_stopped", false);
}

}  // namespace unieval::models
