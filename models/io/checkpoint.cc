// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Checkpoint directories and HF BERT weight names; see checkpoint.h for the mapping rules.
#include "models/io/checkpoint.h"

#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"

namespace unieval::models {

namespace fs = std::filesystem;

namespace {

// Rules 1-2 (without alias resolution).
std::string fix_key(const std::string& key) {
  std::string k = key;
  if (core::py_endswith(k, "LayerNorm.gamma"))
    k = k.substr(0, k.size() - 5) + "weight";
  else if (core::py_endswith(k, "LayerNorm.beta"))
    k = k.substr(0, k.size() - 4) + "bias";
  if (core::py_startswith(k, "embeddings.") || core::py_startswith(k, "encoder.") ||
      core::py_startswith(k, "pooler."))
    k = "bert." + k;
  return k;
}

const char* alias_target(const std::string& name) {
  for (const auto& [alias, target] : kTiedAliases)
    if (name == alias) return target;
  return nullptr;
}

bool ignored(const std::string& name) {
  for (const char* p : kIgnoredCheckpointPrefixes)
    if (core::py_startswith(name, p)) return true;
  return false;
}

std::string shape_str(at::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", '" : "'") + v[i] + "'";
  return out + "]";
}

}  // namespace

std::string checkpoint_key_to_parameter(const std::string& key) {
  std::string k = fix_key(key);
  if (const char* t = alias_target(k)) return t;
  return k;
}

std::string LoadReport::summary() const {
  std::string out;
  if (!unexpected_keys.empty())
    out += "Some weights of the model checkpoint at " + source +
           " were not used when initializing the model: " + list(unexpected_keys) + "\n";
  if (!missing_keys.empty())
    out += "Some weights of the model were not initialized from the model checkpoint at " + source +
           " and are newly initialized: " + list(missing_keys) + "\n";
  if (!unknown_config_fields.empty())
    out += "Fields of " + config_source +
           " that no numerics of this model read (ignored): " + list(unknown_config_fields) + "\n";
  if (!tied_conflicts.empty())
    out += "Tied weights stored with different values in " + source +
           " (the decoder copy was used, as HF does): " + list(tied_conflicts) + "\n";
  return out;
}

namespace {

// One stored tensor, read on demand (safetensors: from the mapping; .bin: already in memory).
struct StoredTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;  // for messages
  std::function<torch::Tensor()> get;
};

LoadReport load_stored(torch::nn::Module& model, const std::vector<StoredTensor>& stored,
                       const std::string& source, const LoadOptions& options) {
  LoadReport report;
  report.source = source;
  auto params = model.named_parameters(/*recurse=*/true);
  std::set<std::string> supplied;
  torch::NoGradGuard no_grad;

  struct Pending {
    const StoredTensor* info;
    std::string target;
    bool alias;
  };
  std::vector<Pending> plain, aliases;
  const CheckpointNames* names = options.names;
  for (const auto& info : stored) {
    std::string k = names && names->fix ? names->fix(info.name) : fix_key(info.name);
    if (k != info.name) report.renamed_keys.push_back(info.name + " -> " + k);
    if (names && names->ignored ? names->ignored(k) : ignored(k)) {
      report.ignored_keys.push_back(info.name);
      continue;
    }
    std::string target;
    if (names && names->alias)
      target = names->alias(k);
    else if (const char* t = alias_target(k))
      target = t;
    if (!target.empty()) {
      aliases.push_back({&info, target, true});
    } else {
      plain.push_back({&info, k, false});
    }
  }
  auto load_one = [&](const Pending& p) {
    torch::Tensor* param = params.find(p.target);
    if (!param) {
      report.unexpected_keys.push_back(p.info->name);
      return;
    }
    if (param->sizes() != at::IntArrayRef(p.info->shape))
      throw InputError(source, 0,
                       "tensor '" + p.info->name + "' has shape " + shape_str(p.info->shape) +
                           " but the model's '" + p.target + "' is " + shape_str(param->sizes()) +
                           " (config.json does not match the weights?)");
    torch::Tensor t = p.info->get();
    if (param->is_floating_point() && !t.is_floating_point())
      throw InputError(source, 0,
                       "tensor '" + p.info->name + "' has integer dtype " + p.info->dtype +
                           " but '" + p.target + "' is floating point");
    t = t.to(param->dtype());
    if (p.alias && supplied.count(p.target) && !torch::equal(param->to(torch::kCPU), t))
      report.tied_conflicts.push_back(p.info->name + " != " + p.target);
    param->copy_(t);
    if (p.alias) report.tied_keys.push_back(p.info->name);
    if (supplied.insert(p.target).second) ++report.loaded;
  };
  for (const auto& p : plain) load_one(p);
  for (const auto& p : aliases) load_one(p);  // HF loads the decoder after the embeddings
  for (const auto& item : params)
    if (!supplied.count(item.key())) report.missing_keys.push_back(item.key());
  if (options.strict && !report.complete())
    throw InputError(source, 0, "checkpoint does not match the model:\n" + report.summary());
  return report;
}

}  // namespace

LoadReport load_weights(torch::nn::Module& model, const SafetensorsFile& file,
                        const LoadOptions& options) {
  std::vector<StoredTensor> stored;
  for (const auto& info : file.tensors())
    stored.push_back(
        {info.name, info.shape, info.dtype, [&file, &info] { return file.tensor(info); }});
  return load_stored(model, stored, file.path(), options);
}

LoadReport load_weights(torch::nn::Module& model, const NamedTensors& tensors,
                        const std::string& source, const LoadOptions& options) {
  std::vector<StoredTensor> stored;
  for (const auto& [name, t] : tensors)
    stored.push_back(
        {name, t.sizes().vec(), std::string(c10::toString(t.scalar_type())), [&t] { return t; }});
  return load_stored(model, stored, source, options);
}

LoadReport load_weights(torch::nn::Module& model, const std::string& weights_path,
                        const LoadOptions& options) {
  if (is_torch_bin(weights_path))
    return load_weights(model, read_torch_state_dict(weights_path), weights_path, options);
  return load_weights(model, SafetensorsFile::open(weights_path), options);
}

bool is_torch_bin(const std::string& path) {
  return core::py_endswith(path, ".bin") || core::py_endswith(path, ".pt") ||
         core::py_endswith(path, ".pth");
}

CheckpointFiles locate_checkpoint(const std::string& path) {
  CheckpointFiles files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    if (!core::py_endswith(path, ".safetensors") && !is_torch_bin(path))
      throw InputError(path, 0,
                       "a checkpoint is a directory (config.json + model.safetensors or "
                       "pytorch_model.bin), a .safetensors file or a .bin file");
    files.weights = path;
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    files.config = (dir / "config.json").string();
    if (fs::exists(dir / "vocab.txt", ec)) files.vocab = (dir / "vocab.txt").string();
  } else if (fs::is_directory(path, ec)) {
    fs::path dir(path);
    files.config = (dir / "config.json").string();
    files.weights = (dir / "model.safetensors").string();
    if (fs::exists(dir / "vocab.txt", ec)) files.vocab = (dir / "vocab.txt").string();
    if (!fs::exists(files.weights, ec)) {
      // model.safetensors first (HF's preference), then pytorch_model.bin.
      if (fs::exists(dir / "pytorch_model.bin", ec))
        files.weights = (dir / "pytorch_model.bin").string();
      else
        throw InputError(
            path, 0, "checkpoint directory has neither model.safetensors nor pytorch_model.bin");
    }
  } else {
    throw InputError(path, 0, "no such checkpoint directory or file");
  }
  if (!fs::exists(files.config, ec))
    throw InputError(path, 0, "checkpoint has no config.json (expected " + files.config + ")");
  return files;
}

UnilmModel load_checkpoint(const std::string& path, const UnilmHeads& heads, LoadReport* report,
                           const LoadOptions& options) {
  CheckpointFiles files = locate_checkpoint(path);
  BertConfig cfg = BertConfig::from_json_file(files.config);
  UnilmModel model(cfg, heads);
  model->init_weights();  // what a missing parameter keeps (HF: "newly initialized")
  LoadReport r = load_weights(*model, files.weights, options);
  r.config_source = files.config;
  r.unknown_config_fields = cfg.unknown_fields;
  model->eval();
  if (report) *report = std::move(r);
  return model;
}

std::vector<std::pair<std::string, torch::Tensor>> checkpoint_tensors(torch::nn::Module& model,
                                                                      bool store_tied_decoder) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  auto params = model.named_parameters(/*recurse=*/true);
  for (const auto& item : params) out.emplace_back(item.key(), item.value().detach());
  if (store_tied_decoder) {
    for (const auto& [alias, target] : kTiedAliases) {
      // Only when the head the alias belongs to exists (cls.predictions.bias present).
      if (!params.find("cls.predictions.bias")) break;
      if (const torch::Tensor* t = params.find(target))
        out.emplace_back(alias, t->detach().clone());
    }
  }
  return out;
}

void save_weights(torch::nn::Module& model, const std::string& safetensors_path,
                  bool store_tied_decoder) {
  write_safetensors(safetensors_path, checkpoint_tensors(model, store_tied_decoder),
                    {{"format", "pt"}});
}

void save_checkpoint(UnilmModel& model, const std::string& dir, const SaveOptions& options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "cannot create checkpoint directory: " + ec.message());
  fs::path d(dir);
  if (!options.vocab_path.empty()) {
    std::string vocab = core::read_file(options.vocab_path);
    core::write_file_atomic((d / "vocab.txt").string(), vocab);
  }
  save_weights(*model, (d / "model.safetensors").string(), options.store_tied_decoder);
  // config.json last: a directory with a config has complete weights.
  core::write_file_atomic((d / "config.json").string(), model->config().to_json().dump(2) + "\n");
}

}  // namespace unieval::models
