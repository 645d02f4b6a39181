#include "pipelines/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/error.h"
#include "core/io.h"
#include "models/decoding/vocab_limit.h"
#include "models/io/checkpoint.h"
#include "models/io/run_dir.h"
#include "models/nn/config.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/seq2seq_data.h"
#include "pipelines/evaluate.h"
#include "pipelines/presets.h"
#include "pipelines/run_common.h"
#include "pipelines/run_driver.h"
#include "pipelines/run_gpt.h"
#include "pipelines/run_nlu.h"
#include "pipelines/seq2seq.h"
#include "results/curves.h"
#include "results/sha256.h"
#include "tasks/diagnostics.h"
#include "tasks/nlu_tasks.h"
#include "tasks/seq2seq_tasks.h"
#include "tasks/task.h"
#include "tasks/task_spec.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

std::string resolve_dev_split(const RunOptions& o) {
  if (o.dev_split == "none" || o.dev_split.empty()) return "";
  if (o.dev_split != "auto") return o.dev_split;
  if (o.train_split == "dev" || o.eval_split == "dev") return "";
  return "dev";
}

void write_split_files(const tasks::Seq2SeqSplit& s, const fs::path& dir, const std::string& name) {
  std::string src, tgt;
  for (size_t i = 0; i < s.src.size(); ++i) {
    src += s.src[i] + "\n";
    tgt += s.tgt[i] + "\n";
  }
  core::write_file_atomic((dir / (name + ".src")).string(), src);
  core::write_file_atomic((dir / (name + ".tgt")).string(), tgt);
}

// coqa-gen's 470 budget counts WordPiece tokens of the run's vocabulary (UniLM §3.2); the reader
// (tasks/, which knows no tokenizer) gets the count as a function. A missing vocabulary is
// reported by the data stage's vocabulary check.
void count_wordpieces(const RunOptions& o, tasks::Seq2SeqReadOptions& ro) {
  if (!tasks::run_task_spec(o.task).wordpiece_budget) return;
  std::string vocab = o.vocab;
  if (vocab.empty() && !o.model.empty()) vocab = models::locate_checkpoint(o.model).vocab;
  if (vocab.empty() || !fs::exists(vocab)) return;
  auto tok = std::make_shared<models::WordPieceTokenizer>(
      models::WordPieceTokenizer::from_file(vocab, models::TokenizerOptions::bert(o.lowercase)));
  ro.length = [tok](const std::string& word) {
    std::vector<int32_t> ids;
    tok->encode_ids(word, &ids);
    return ids.size();
  };
  ro.length_unit = "WordPiece tokens";
}

// The generation baselines (pipelines/run.h, stage 4): "constant" and "copy-source", written in
// the task's prediction format under RUN/baselines/NAME/ (the model's file name) and scored with
// the model's request; the result's "baselines".
ojson generation_baselines(const tasks::Seq2SeqSplit& eval, const fs::path& run,
                           const tasks::EvalRequest& model, uint64_t seed) {
  const std::vector<std::string> targets = core::read_lines((run / "data" / "train.tgt").string());
  // The most frequent target: the diagnostics' most_common (exact strings, ties: first to occur).
  const tasks::OutputDiagnostics freq = tasks::diagnose_outputs(targets, {});
  std::vector<int64_t> lengths;
  for (const auto& t : targets) {
    int64_t n = 0;
    for (const auto& w : tasks::whitespace_words(t))
      n += w != "[X_SEP]";  // cnndm's separator is no word
    lengths.push_back(n);
  }
  const int64_t n_words = rounded_median(lengths);
  std::vector<std::string> constant, copy;
  for (const auto& src : eval.src) {
    constant.push_back(tasks::postprocess_hypothesis(eval.task, freq.most_common));
    const std::vector<std::string> w = tasks::whitespace_words(src);
    std::string first;
    for (size_t i = 0; i < w.size() && static_cast<int64_t>(i) < n_words; ++i)
      first += (i ? " " : "") + w[i];
    copy.push_back(tasks::postprocess_hypothesis(eval.task, first));
  }
  const std::string file = fs::path(model.pred).filename().string();
  std::vector<BaselinePred> list;
  auto add = [&](const std::string& name, const std::string& description,
                 const std::vector<std::string>& hyps) {
    const fs::path dir = run / "baselines" / name;
    fs::create_directories(dir);
    tasks::write_predictions(eval, hyps, (dir / file).string());
    list.push_back({name, description, (dir / file).string(), std::nullopt});
  };
  add("constant",
      "the most frequent target of the training split (" + std::to_string(freq.most_common_count) +
          " of " + std::to_string(targets.size()) +
          " training targets; ties: the first to occur), for every example",
      constant);
  add("copy-source",
      "the first " + std::to_string(n_words) +
          " whitespace words of each source (the median word count of the " +
          "training targets, rounded)",
      copy);
  tasks::EvalRequest req = model;
  req.bootstrap = kBaselineResamples;
  req.seed = seed;
  return evaluate_baselines(req, list);
}

}  // namespace

std::string default_preset(const std::string& task) {
  const tasks::TaskSpec* t = tasks::find_run_task(task);
  return t ? t->default_preset : "";
}

void apply_preset(RunOptions& o, const std::string& name) {
  const tasks::Preset* p = tasks::find_preset(name);
  if (!p) throw InputError("unknown --preset '" + name + "' (see unieval finetune --help)");
  const tasks::TaskSpec* task = tasks::find_run_task(o.task);
  const bool understanding = task && task->family != tasks::RunFamily::kGeneration;
  if (!p->seq2seq) {
    if (!understanding)
      throw InputError("--preset " + p->name + " is an NLU recipe; --task " + o.task +
                       " is a generation task");
    apply_nlu_preset(o, *p);
    return;
  }
  if (understanding)
    throw InputError("--preset " + p->name + " is a generation recipe; --task " + o.task +
                     " is an understanding task");
  const ModelPreset m = resolve_preset(*p);
  o.preset = p->name;
  o.finetune = m.train;
  o.search = m.decode;
  o.dropout = m.dropout;
  for (const auto& [k, v] : p->eval_options)
    if (!o.eval_options.count(k)) o.eval_options[k] = v;
}

ojson run_request(const RunOptions& o) {
  ojson j;
  j["task"] = o.task;
  j["data"] = abs_path(o.data);
  j["model"] = abs_path(o.model);
  j["model_config"] = abs_path(o.model_config);
  j["vocab"] = abs_path(o.vocab);
  j["preset"] = o.preset;
  j["train_split"] = o.train_split;
  j["dev_split"] = resolve_dev_split(o);
  j["eval_split"] = o.eval_split;
  j["train_limit"] = o.train_limit;
  j["dev_limit"] = o.dev_limit;
  j["eval_limit"] = o.eval_limit;
  j["max_src_words"] = o.max_src_words;
  j["lowercase"] = o.lowercase;
  if (o.tokenized_input) j["tokenized_input"] = true;  // (absent: older runs' requests stay equal)
  ojson t = o.finetune.to_json();
  t.erase("save_every");
  t.erase("log_every");
  j["finetune"] = t;
  j["dropout"] = o.dropout ? ojson(*o.dropout) : ojson();
  j["decode"] = search_to_json(o.search);
  j["decode_batch"] = o.decode_batch;
  j["system"] = o.system;
  ojson eo = ojson::object();
  for (const auto& [k, v] : o.eval_options) eo[k] = v;
  j["eval_options"] = eo;
  if (!o.skip_metrics.empty())
    j["skip_metrics"] = o.skip_metrics;  // (absent: older runs' requests stay equal)
  if (!o.baselines)
    j["baselines"] = false;  // --no-baselines (absent = on: older runs' requests stay equal)
  if (o.lexicon_train) j["lexicon"] = "train";  // (absent: older runs' requests stay equal)
  // Only when given, so that the request of a RUN started without it stays the same.
  if (o.segment_ids) j["segment_ids"] = {o.segment_ids->first, o.segment_ids->second};
  return j;
}

namespace {

// The generation family (pipelines/run.h, stages 1-4): UniLM / ERNIE-GEN fine-tuning, beam-search
// decoding, the task's prediction format and the constant / copy-source baselines.
class Seq2SeqStages : public RunStages {
 public:
  Seq2SeqStages(const RunOptions& o, bool arch_given)
      : o_(o), arch_given_(arch_given), request_(run_request(o)) {
    dev_split_ = request_["dev_split"].get<std::string>();
  }
  const ojson& request() const override { return request_; }

  DataManifest read() override {
    tasks::Seq2SeqReadOptions ro;
    ro.max_src_words = o_.max_src_words;
    ro.limit = o_.eval_limit;
    count_wordpieces(o_, ro);
    eval_ = tasks::read_seq2seq_split(o_.task, o_.data, o_.eval_split, ro);
    {  // the metric set's resources (METEOR data, ...) before anything is written or trained
      tasks::EvalRequest check;
      check.task = o_.task;
      check.options = o_.eval_options;
      check.skip_metrics = o_.skip_metrics;
      check_eval_resources(check);
    }
    DataManifest m;
    if (fs::exists(fs::path(o_.out) / "data" / "manifest.json"))
      return m;  // the data stage is done
    ro.limit = o_.train_limit;
    train_ = tasks::read_seq2seq_split(o_.task, o_.data, o_.train_split, ro);
    if (!dev_split_.empty()) {
      ro.limit = o_.dev_limit;
      if (o_.dev_split == "auto") {
        try {
          dev_ = tasks::read_seq2seq_split(o_.task, o_.data, dev_split_, ro);
        } catch (const InputError&) {
          dev_.reset();  // auto: no dev split in this dataset
        }
      } else {
        dev_ = tasks::read_seq2seq_split(o_.task, o_.data, dev_split_, ro);
      }
    }
    check_model();
    m.files = train_.files;
    if (dev_) m.files.insert(m.files.end(), dev_->files.begin(), dev_->files.end());
    m.files.insert(m.files.end(), eval_.files.begin(), eval_.files.end());
    m.reader = eval_.reader;
    m.train_examples = static_cast<int64_t>(train_.src.size());
    m.dev_examples = dev_ ? static_cast<int64_t>(dev_->src.size()) : 0;
    m.eval_examples = static_cast<int64_t>(eval_.src.size());
    m.dev_split = dev_ ? dev_split_ : std::string();
    return m;
  }

  void write_splits(const RunPaths& paths) override {
    write_split_files(train_, paths.data, "train");
    if (dev_) write_split_files(*dev_, paths.data, "dev");
    write_split_files(eval_, paths.data, "eval");
  }

  void write_references(const RunPaths& paths, bool writer) override {
    if (writer) eval_files_ = tasks::write_eval_files(eval_, paths.eval.string());
  }

  bool train(const RunPaths& paths) override {
    const ojson manifest = ojson::parse(core::read_file(paths.manifest.string()));
    models::RunDir rd(o_.out);
    FinetuneOptions f;
    f.task = o_.task;
    f.preset = o_.preset;
    f.data_dir = paths.data.string();
    f.out_dir = o_.out;
    f.lowercase = o_.lowercase;
    f.tokenized_input = o_.tokenized_input;
    f.train = o_.finetune;
    f.arch_given = arch_given_;
    f.train.stop_after = o_.stop_after;
    f.train.progress = o_.progress;
    f.decode = o_.search;
    f.dropout = o_.dropout;
    f.device = o_.device;
    f.resume = rd.has_checkpoint();
    f.segment_ids = o_.segment_ids;
    f.dev_split = manifest.value("dev_split", std::string()).empty() ? "" : "dev";
    if (!o_.model.empty())
      f.model_dir = o_.model;
    else
      f.config = models::BertConfig::from_json_file(o_.model_config);
    f.vocab = o_.vocab;
    f.backend = o_.backend;
    if (f.resume && o_.progress)
      std::cerr << "run: resuming training from " << rd.checkpoint_dir() << "\n";
    return finetune(f).train.finished;
  }

  // Decoded before (hyp.txt complete)? Asked before the ranks wait: nobody decodes before that.
  void before_predict(const RunPaths& paths) override {
    hyp_path_ = (paths.eval / "hyp.txt").string();
    decoded_before_ = fs::exists(hyp_path_) && !fs::exists(hyp_path_ + ".partial");
  }

  std::string predict(const RunPaths& paths, const RunRanks&) override {
    have_best_ = fs::exists(paths.run / "best" / models::kRunWeightsFile);
    if (decoded_before_) {
      decoded_ = core::read_lines(hyp_path_);
      return "";
    }
    DecodeOptions d;
    d.run_dir = o_.out;
    d.split = "eval";
    d.data_dir = paths.data.string();
    d.out = hyp_path_;
    d.search = o_.search;
    d.batch_size = o_.decode_batch;
    d.device = o_.device;
    d.progress = o_.progress;
    d.checkpoint = (paths.run / checkpoint_used()).string();
    d.clean_up = false;
    d.backend = o_.backend;
    d.tokenized_input = o_.tokenized_input;
    if (o_.lexicon_train)
      d.lexicon = {(paths.data / "train.src").string(), (paths.data / "train.tgt").string()};
    decoded_ = decode(d).hyps;  // sharded over the ranks; rank 0 holds the merged hypotheses
    return "decode";
  }

  results::RunResult score(const RunPaths&, ojson& info) override {
    if (decoded_.size() != eval_.src.size())
      throw InputError(hyp_path_, 0,
                       std::to_string(decoded_.size()) + " hypotheses for " +
                           std::to_string(eval_.src.size()) +
                           " examples (remove it to decode again)");
    std::vector<std::string> hyps;
    int64_t empty = 0;
    for (const auto& h : decoded_) {
      hyps.push_back(tasks::postprocess_hypothesis(o_.task, h));
      if (hyps.back().empty()) ++empty;
    }
    tasks::write_predictions(eval_, hyps, eval_files_.pred);
    req_.task = o_.task;
    req_.data = eval_files_.data;
    req_.pred = eval_files_.pred;
    req_.split = o_.eval_split;
    req_.options = eval_files_.options;
    for (const auto& [k, v] : o_.eval_options) req_.options[k] = v;
    req_.skip_metrics = o_.skip_metrics;
    req_.system =
        !o_.system.empty() ? o_.system : "unieval-run:" + (o_.preset.empty() ? o_.task : o_.preset);
    // Empty hypotheses are stated once, by the diagnostics' warning (over 1% of the grouped
    // sources, pipelines::evaluate); the run info keeps the count of empty pairs.
    results::RunResult r = evaluate(req_);
    info["hypotheses_sha256"] = results::sha256_file(hyp_path_);
    info["empty_hypotheses"] = empty;
    return r;
  }

  void baselines(const RunPaths& paths, results::RunResult& r) override {
    r.extra["baselines"] = generation_baselines(eval_, paths.run, req_, o_.finetune.seed);
    for (auto& w : baseline_warnings(r)) r.notes.push_back(std::move(w));
  }

  std::string checkpoint_used() const override { return have_best_ ? "best" : "checkpoint"; }
  std::string model_weights() const override {
    return o_.model.empty() ? std::string() : models::locate_checkpoint(o_.model).weights;
  }

 private:
  // Model files and the vocabulary, the special tokens fine-tuning needs ([PAD] [UNK] [CLS] [SEP]
  // [MASK]) and the decoding words (--ngram-ignore, --not-predict), which decoding would refuse
  // after training: a run that cannot finish leaves no run directory behind.
  void check_model() const {
    auto check_segment_ids = [&](const models::BertConfig& cfg, const std::string& file) {
      if (o_.segment_ids &&
          std::max(o_.segment_ids->first, o_.segment_ids->second) >= cfg.type_vocab_size)
        throw InputError(
            file, 0,
            "--segment-ids " + std::to_string(o_.segment_ids->first) + "," +
                std::to_string(o_.segment_ids->second) + " need type_vocab_size > " +
                std::to_string(std::max(o_.segment_ids->first, o_.segment_ids->second)) +
                " (it is " + std::to_string(cfg.type_vocab_size) + ")");
    };
    std::string vocab = o_.vocab;
    std::string config_path = o_.model_config;
    if (!o_.model.empty()) {
      const models::CheckpointFiles files = models::locate_checkpoint(o_.model);
      config_path = files.config;
      check_segment_ids(models::BertConfig::from_json_file(config_path), config_path);
      if (vocab.empty()) vocab = files.vocab;
      if (vocab.empty())
        throw InputError(o_.model, 0, "no vocab.txt in the checkpoint (give --vocab)");
    } else {
      check_segment_ids(models::BertConfig::from_json_file(config_path), config_path);
      if (!fs::exists(vocab)) throw InputError(vocab, 0, "no such file");
    }
    const models::BertConfig cfg = models::BertConfig::from_json_file(config_path);
    models::check_vocab_fits(static_cast<int64_t>(models::Vocab::from_file(vocab).size()), vocab,
                             cfg.vocab_size, config_path);
    const models::Vocab v = models::Vocab::from_file(vocab);
    models::SearchOptions s = o_.search;
    resolve_decode_words(v, vocab, models::special_ids(v, vocab).sep, s);
  }

  const RunOptions& o_;
  bool arch_given_;
  ojson request_;
  std::string dev_split_;
  tasks::Seq2SeqSplit train_, eval_;
  std::optional<tasks::Seq2SeqSplit> dev_;
  tasks::EvalFiles eval_files_;
  tasks::EvalRequest req_;
  std::string hyp_path_;
  bool decoded_before_ = false;
  bool have_best_ = false;
  std::vector<std::string> decoded_;
};

}  // namespace

RunOutcome run_task(const RunOptions& in) {
  const auto t_start = std::chrono::steady_clock::now();
  RunOptions o = in;
  if (o.task.empty()) throw InputError("--task is required");
  const tasks::TaskSpec& task = tasks::run_task_spec(o.task);
  // UniLM's --tokenized_input: WordPiece lines for the generation tasks only (no silent no-op).
  if (o.tokenized_input && (o.arch == "gpt" || task.family != tasks::RunFamily::kGeneration))
    throw InputError(
        "--tokenized-input is for the UniLM/ERNIE-GEN generation tasks (WordPiece lines), not "
        "--task " +
        o.task + (o.arch == "gpt" ? " with --arch gpt" : ""));
  if (o.lexicon_train && (o.arch == "gpt" || task.family != tasks::RunFamily::kGeneration))
    throw InputError("--lexicon-train is for the UniLM/ERNIE-GEN generation tasks, not --task " +
                     o.task + (o.arch == "gpt" ? " with --arch gpt" : ""));
  if (o.arch == "gpt") return run_gpt_task(in);
  if (!o.arch.empty() && o.arch != "unilm" && o.arch != "bert" && o.arch != "ernie-gen")
    throw InputError("--arch " + o.arch + ": expected gpt, ernie-gen, or unilm/bert (the default)");
  // The generation architecture: --arch, else the preset's (ERNIE-GEN presets), else the
  // checkpoint's config.json "unieval_arch" (pipelines/seq2seq.h), else unilm.
  bool arch_given = !o.arch.empty() || o.finetune.arch != "unilm";
  if (o.arch == "ernie-gen") o.finetune.arch = "ernie-gen";
  if (o.arch == "unilm" || o.arch == "bert") o.finetune.arch = "unilm";
  if (o.zero_shot) throw InputError("--zero-shot is a GPT heuristic: give --arch gpt");
  if (task.family == tasks::RunFamily::kUnderstanding) return run_nlu_task(in);
  if (task.family != tasks::RunFamily::kGeneration)
    throw InputError("--task " + o.task + " is run by GPT only: add --arch gpt");
  check_run_sources(o);
  if (!o.model.empty()) {
    // The checkpoint's architecture, resolved here so that request.json and the result say it.
    apply_config_generation_keys(models::locate_checkpoint(o.model).config, arch_given, o.finetune);
    arch_given = true;
  }
  o.finetune.validate();  // before anything is written
  if (o.decode_batch < 1) throw InputError("--decode-batch must be at least 1");
  if (o.eval_split.empty()) o.eval_split = task.default_eval_split;
  models::validate(o.search);
  if (o.search.n_best > o.search.beam) o.search.n_best = o.search.beam;
  const RunRanks ranks = join_run_ranks(o);  // data parallel: rank 0 writes RUN
  Seq2SeqStages family(o, arch_given);
  return drive_run(family, o, ranks, t_start);
}

}  // namespace unieval::pipelines
