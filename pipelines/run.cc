#include "pipelines/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/error.h"
#include "core/io.h"
#include "models/checkpoint.h"
#include "models/config.h"
#include "pipelines/evaluate.h"
#include "pipelines/presets.h"
#include "pipelines/run_common.h"
#include "pipelines/run_gpt.h"
#include "pipelines/run_nlu.h"
#include "models/run_dir.h"
#include "models/seq2seq_data.h"
#include "models/tokenizer/wordpiece.h"
#include "models/vocab_limit.h"
#include "pipelines/seq2seq.h"
#include "results/curves.h"
#include "results/sha256.h"
#include "tasks/diagnostics.h"
#include "tasks/nlu_tasks.h"
#include "tasks/seq2seq_tasks.h"
#include "tasks/task.h"

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
  if (o.task != "coqa-gen") return;
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
ojson generation_baselines(const tasks::Seq2SeqSplit& eval, const fs::path& run, const tasks::EvalRequest& model,
                           uint64_t seed) {
  const std::vector<std::string> targets = core::read_lines((run / "data" / "train.tgt").string());
  // The most frequent target: the diagnostics' most_common (exact strings, ties: first to occur).
  const tasks::OutputDiagnostics freq = tasks::diagnose_outputs(targets, {});
  std::vector<int64_t> lengths;
  for (const auto& t : targets) {
    int64_t n = 0;
    for (const auto& w : tasks::whitespace_words(t)) n += w != "[X_SEP]";  // cnndm's separator is no word
    lengths.push_back(n);
  }
  const int64_t n_words = rounded_median(lengths);
  std::vector<std::string> constant, copy;
  for (const auto& src : eval.src) {
    constant.push_back(tasks::postprocess_hypothesis(eval.task, freq.most_common));
    const std::vector<std::string> w = tasks::whitespace_words(src);
    std::string first;
    for (size_t i = 0; i < w.size() && static_cast<int64_t>(i) < n_words; ++i) first += (i ? " " : "") + w[i];
    copy.push_back(tasks::postprocess_hypothesis(eval.task, first));
  }
  const std::string file = fs::path(model.pred).filename().string();
  std::vector<BaselinePred> list;
  auto add = [&](const std::string& name, const std::string& description, const std::vector<std::string>& hyps) {
    const fs::path dir = run / "baselines" / name;
    fs::create_directories(dir);
    tasks::write_predictions(eval, hyps, (dir / file).string());
    list.push_back({name, description, (dir / file).string(), std::nullopt});
  };
  add("constant",
      "the most frequent target of the training split (" + std::to_string(freq.most_common_count) + " of " +
          std::to_string(targets.size()) + " training targets; ties: the first to occur), for every example",
      constant);
  add("copy-source",
      "the first " + std::to_string(n_words) + " whitespace words of each source (the median word count of the " +
          "training targets, rounded)",
      copy);
  tasks::EvalRequest req = model;
  req.bootstrap = kBaselineResamples;
  req.seed = seed;
  return evaluate_baselines(req, list);
}

}  // namespace

std::string default_preset(const std::string& task) {
  if (task == "squad-qg-reversed") return "squad-qg";
  if (task == "personachat") return "ernie-gen-large-personachat";
  return tasks::find_preset(task) ? task : "";
}

void apply_preset(RunOptions& o, const std::string& name) {
  const tasks::Preset* p = tasks::find_preset(name);
  if (!p) throw InputError("unknown --preset '" + name + "' (see unieval finetune --help)");
  if (!p->seq2seq) {
    if (!tasks::is_nlu_task(o.task))
      throw InputError("--preset " + p->name + " is an NLU recipe; --task " + o.task + " is a generation task");
    apply_nlu_preset(o, *p);
    return;
  }
  if (tasks::is_nlu_task(o.task))
    throw InputError("--preset " + p->name + " is a generation recipe; --task " + o.task + " is an understanding task");
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
  if (!o.skip_metrics.empty()) j["skip_metrics"] = o.skip_metrics;  // (absent: older runs' requests stay equal)
  if (!o.baselines) j["baselines"] = false;  // --no-baselines (absent = on: older runs' requests stay equal)
  // Only when given, so that the request of a RUN started without it stays the same.
  if (o.segment_ids) j["segment_ids"] = {o.segment_ids->first, o.segment_ids->second};
  return j;
}

RunOutcome run_task(const RunOptions& in) {
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  RunOptions o = in;
  if (o.task.empty()) throw InputError("--task is required");
  // UniLM's --tokenized_input: WordPiece lines for the generation tasks only (no silent no-op).
  if (o.tokenized_input && (o.arch == "gpt" || tasks::is_nlu_task(o.task)))
    throw InputError("--tokenized-input is for the UniLM/ERNIE-GEN generation tasks (WordPiece lines), not --task " +
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
  if (tasks::is_nlu_task(o.task)) return run_nlu_task(in);
  if (!tasks::is_seq2seq_task(o.task))
    throw InputError("--task " + o.task + ": run handles the generation tasks cnndm, gigaword, squad-qg, "
                     "squad-qg-reversed, coqa-gen, dstc7, personachat and the understanding tasks glue-cola, "
                     "glue-sst2, glue-mrpc, glue-stsb, glue-qqp, glue-mnli, glue-mnli-mm, glue-qnli, glue-rte, "
                     "glue-wnli, squad-v1.1, squad-v2, coqa (with --arch gpt also snli, scitail, race, race-m, "
                     "race-h, story-cloze)");
  check_run_sources(o);
  if (!o.model.empty()) {
    // The checkpoint's architecture, resolved here so that request.json and the result say it.
    apply_config_generation_keys(models::locate_checkpoint(o.model).config, arch_given, o.finetune);
    arch_given = true;
  }
  o.finetune.validate();  // before anything is written
  if (o.decode_batch < 1) throw InputError("--decode-batch must be at least 1");
  if (o.eval_split.empty()) o.eval_split = o.task == "coqa-gen" ? "dev" : o.task == "personachat" ? "valid" : "test";
  models::validate(o.search);
  if (o.search.n_best > o.search.beam) o.search.n_best = o.search.beam;

  const fs::path run(o.out);
  const fs::path data_dir = run / "data";
  const fs::path eval_dir = run / "eval";
  const std::string request_path = (run / "request.json").string();
  const std::string result_path = (run / "result.json").string();
  const ojson request = run_request(o);
  const std::string dev_split = request["dev_split"].get<std::string>();

  RunOutcome outcome;
  const RunRanks ranks = join_run_ranks(o);  // data parallel: rank 0 writes RUN
  // A run that was started before: the same options, or an error naming the first difference.
  if (auto done = open_run(run, request, ranks)) return *done;

  // ---- stage 1: data (read and checked before anything is written) ----
  tasks::Seq2SeqReadOptions ro;
  ro.max_src_words = o.max_src_words;
  ro.limit = o.eval_limit;
  count_wordpieces(o, ro);
  tasks::Seq2SeqSplit eval_split = tasks::read_seq2seq_split(o.task, o.data, o.eval_split, ro);
  {  // the metric set's resources (METEOR data, ...) before anything is written or trained
    tasks::EvalRequest check;
    check.task = o.task;
    check.options = o.eval_options;
    check.skip_metrics = o.skip_metrics;
    check_eval_resources(check);
  }
  const bool have_data = fs::exists(data_dir / "manifest.json");
  if (!have_data) {
    ro.limit = o.train_limit;
    tasks::Seq2SeqSplit train = tasks::read_seq2seq_split(o.task, o.data, o.train_split, ro);
    std::optional<tasks::Seq2SeqSplit> dev;
    if (!dev_split.empty()) {
      ro.limit = o.dev_limit;
      if (o.dev_split == "auto") {
        try {
          dev = tasks::read_seq2seq_split(o.task, o.data, dev_split, ro);
        } catch (const InputError&) {
          dev.reset();  // auto: no dev split in this dataset
        }
      } else {
        dev = tasks::read_seq2seq_split(o.task, o.data, dev_split, ro);
      }
    }
    // Model files and the vocabulary.
    auto check_segment_ids = [&](const models::BertConfig& cfg, const std::string& file) {
      if (o.segment_ids && std::max(o.segment_ids->first, o.segment_ids->second) >= cfg.type_vocab_size)
        throw InputError(file, 0, "--segment-ids " + std::to_string(o.segment_ids->first) + "," +
                                      std::to_string(o.segment_ids->second) + " need type_vocab_size > " +
                                      std::to_string(std::max(o.segment_ids->first, o.segment_ids->second)) +
                                      " (it is " + std::to_string(cfg.type_vocab_size) + ")");
    };
    std::string vocab = o.vocab;
    if (!o.model.empty()) {
      models::CheckpointFiles files = models::locate_checkpoint(o.model);
      models::BertConfig cfg = models::BertConfig::from_json_file(files.config);
      check_segment_ids(cfg, files.config);
      if (vocab.empty()) vocab = files.vocab;
      if (vocab.empty()) throw InputError(o.model, 0, "no vocab.txt in the checkpoint (give --vocab)");
      models::check_vocab_fits(static_cast<int64_t>(models::Vocab::from_file(vocab).size()), vocab, cfg.vocab_size,
                               files.config);
    } else {
      models::BertConfig cfg = models::BertConfig::from_json_file(o.model_config);
      check_segment_ids(cfg, o.model_config);
      if (!fs::exists(vocab)) throw InputError(vocab, 0, "no such file");
      models::check_vocab_fits(static_cast<int64_t>(models::Vocab::from_file(vocab).size()), vocab, cfg.vocab_size,
                               o.model_config);
    }
    // The special tokens fine-tuning needs ([PAD] [UNK] [CLS] [SEP] [MASK]), before anything is
    // written: a vocabulary without them must leave no run directory behind.
    {  // and the decoding words (--ngram-ignore, --not-predict), which decoding would refuse after training
      const models::Vocab v = models::Vocab::from_file(vocab);
      models::SearchOptions s = o.search;
      resolve_decode_words(v, vocab, models::special_ids(v, vocab).sep, s);
    }
    if (ranks.writer()) {  // the other ranks read what it writes after ranks.sync() below
      // Write: request, the splits, the references, the manifest (last: marks the stage done).
      fs::create_directories(data_dir);
      core::write_file_atomic(request_path, request.dump(2) + "\n");
      write_split_files(train, data_dir, "train");
      if (dev) write_split_files(*dev, data_dir, "dev");
      write_split_files(eval_split, data_dir, "eval");
      ojson manifest;
      ojson files = ojson::array();
      std::vector<std::string> all = train.files;
      if (dev) all.insert(all.end(), dev->files.begin(), dev->files.end());
      all.insert(all.end(), eval_split.files.begin(), eval_split.files.end());
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      for (const auto& f : all) files.push_back({{"path", abs_path(f)}, {"sha256", results::sha256_file(f)}});
      manifest["files"] = files;
      manifest["reader"] = eval_split.reader;
      manifest["train_examples"] = train.src.size();
      manifest["dev_examples"] = dev ? dev->src.size() : 0;
      manifest["eval_examples"] = eval_split.src.size();
      manifest["dev_split"] = dev ? dev_split : std::string();
      core::write_file_atomic((data_dir / "manifest.json").string(), manifest.dump(2) + "\n");
    }
  } else if (!fs::exists(request_path)) {
    throw InputError(o.out, 0, "holds data/ but no request.json");
  }
  // The references (rank 0: the scorer), before the other ranks read what it wrote.
  const tasks::EvalFiles ef = ranks.writer() ? tasks::write_eval_files(eval_split, eval_dir.string()) : tasks::EvalFiles{};
  ranks.sync();
  const ojson manifest = ojson::parse(core::read_file((data_dir / "manifest.json").string()));
  outcome.stage = "data";

  // ---- stage 2: train ----
  models::RunDir rd(o.out);
  auto train_done = [&]() {
    const fs::path st = run / "checkpoint" / "trainer_state.json";
    if (!fs::exists(st)) return false;
    auto j = nlohmann::json::parse(core::read_file(st.string()));
    return j.value("step", int64_t{0}) >= j.value("total_steps", int64_t{1}) || j.value("early_stopped", false);
  };
  models::TrainResult train_summary;
  if (!train_done()) {
    FinetuneOptions f;
    f.task = o.task;
    f.preset = o.preset;
    f.data_dir = data_dir.string();
    f.out_dir = o.out;
    f.lowercase = o.lowercase;
    f.tokenized_input = o.tokenized_input;
    f.train = o.finetune;
    f.arch_given = arch_given;
    f.train.stop_after = o.stop_after;
    f.train.progress = o.progress;
    f.decode = o.search;
    f.dropout = o.dropout;
    f.device = o.device;
    f.resume = rd.has_checkpoint();
    f.segment_ids = o.segment_ids;
    f.dev_split = manifest.value("dev_split", std::string()).empty() ? "" : "dev";
    if (!o.model.empty()) f.model_dir = o.model;
    else f.config = models::BertConfig::from_json_file(o.model_config);
    f.vocab = o.vocab;
    f.backend = o.backend;
    if (f.resume && o.progress) std::cerr << "run: resuming training from " << rd.checkpoint_dir() << "\n";
    FinetuneResult fr = finetune(f);
    outcome.stage = "train";
    if (!fr.train.finished) {
      outcome.finished = false;
      return outcome;
    }
  }
  // Decoded before (hyp.txt complete)? Asked before the ranks part: nobody decodes before sync().
  const std::string hyp_path = (eval_dir / "hyp.txt").string();
  const bool decoded_before = fs::exists(hyp_path) && !fs::exists(hyp_path + ".partial");
  ranks.sync();  // rank 0's last checkpoint and best are written
  const ojson state = ojson::parse(core::read_file((run / "checkpoint" / "trainer_state.json").string()));

  // ---- stage 3: decode ----
  const bool have_best = fs::exists(run / "best" / models::kRunWeightsFile);
  const fs::path ckpt = have_best ? run / "best" : run / "checkpoint";
  DecodeOptions d;
  d.run_dir = o.out;
  d.split = "eval";
  d.data_dir = data_dir.string();
  d.out = hyp_path;
  d.search = o.search;
  d.batch_size = o.decode_batch;
  d.device = o.device;
  d.progress = o.progress;
  d.checkpoint = ckpt.string();
  d.clean_up = false;
  d.backend = o.backend;
  d.tokenized_input = o.tokenized_input;
  std::vector<std::string> decoded;
  if (decoded_before) {
    decoded = core::read_lines(d.out);
  } else {
    DecodeResult dr = decode(d);  // sharded over the ranks; rank 0 holds the merged hypotheses
    decoded = dr.hyps;
    outcome.stage = "decode";
  }
  if (!ranks.writer()) {  // rank 0 scores
    outcome.finished = true;
    return outcome;
  }
  if (decoded.size() != eval_split.src.size())
    throw InputError(d.out, 0, std::to_string(decoded.size()) + " hypotheses for " +
                                   std::to_string(eval_split.src.size()) + " examples (remove it to decode again)");

  // ---- stage 4: score ----
  std::vector<std::string> hyps;
  int64_t empty = 0;
  for (const auto& h : decoded) {
    hyps.push_back(tasks::postprocess_hypothesis(o.task, h));
    if (hyps.back().empty()) ++empty;
  }
  tasks::write_predictions(eval_split, hyps, ef.pred);
  tasks::EvalRequest req;
  req.task = o.task;
  req.data = ef.data;
  req.pred = ef.pred;
  req.split = o.eval_split;
  req.options = ef.options;
  for (const auto& [k, v] : o.eval_options) req.options[k] = v;
  req.skip_metrics = o.skip_metrics;
  req.system = !o.system.empty() ? o.system : "unieval-run:" + (o.preset.empty() ? o.task : o.preset);
  results::RunResult r = evaluate(req);
  r.split = o.eval_split;
  r.data_path = abs_path(o.data);
  r.data_sha256 = results::sha256_path(o.data);
  if (empty > 0) {
    const std::string note = std::to_string(empty) + " of " + std::to_string(hyps.size()) +
                             " hypotheses are empty (scored as empty strings)";
    r.notes.push_back(note);
    std::cerr << "run: warning: " << note << "\n";
  }
  if (o.eval_limit > 0)
    r.notes.push_back("eval split limited to its first " + std::to_string(o.eval_limit) + " examples");
  if (o.train_split == o.eval_split)
    r.notes.push_back("trained and evaluated on the same split (" + o.eval_split + ")");
  if (o.baselines) {
    r.extra["baselines"] = generation_baselines(eval_split, run, req, o.finetune.seed);
    for (auto& w : baseline_warnings(r)) r.notes.push_back(std::move(w));
  }

  ojson info;
  info["request"] = request;
  const tasks::Preset* p = o.preset.empty() ? nullptr : tasks::find_preset(o.preset);
  if (p) {
    info["preset_source"] = p->source;
    ojson peo = ojson::object();
    for (const auto& [k, v] : p->eval_options) peo[k] = v;
    info["preset_eval_options"] = peo;
  }
  info["model_sha256"] = o.model.empty() ? std::string()
                                         : results::sha256_file(models::locate_checkpoint(o.model).weights);
  info["data_files"] = manifest["files"];
  info["reader"] = manifest["reader"];
  info["train_examples"] = manifest["train_examples"];
  info["dev_examples"] = manifest["dev_examples"];
  info["eval_examples"] = eval_split.src.size();
  ojson tr;
  tr["steps"] = state.value("step", int64_t{0});
  tr["total_steps"] = state.value("total_steps", int64_t{0});
  if (state.contains("best_dev_loss")) {
    tr["best_dev_loss"] = state["best_dev_loss"];
    tr["best_step"] = state["best_step"];
    tr["early_stopped"] = state.value("early_stopped", false);
  }
  info["train"] = tr;
  info["checkpoint"] = have_best ? "best" : "checkpoint";
  info["checkpoint_sha256"] = results::sha256_file((ckpt / models::kRunWeightsFile).string());
  info["hypotheses_sha256"] = results::sha256_file(d.out);
  info["empty_hypotheses"] = empty;
  r.extra["run"] = info;
  r.timings.total_s = std::chrono::duration<double>(Clock::now() - t_start).count();
  results::write_run_result(result_path, r);
  // The training curves beside the result (`unieval plot --run RUN` draws them again).
  if (fs::exists(run / "log.jsonl"))
    core::write_file_atomic((run / "curves.svg").string(),
                            results::render_curves_svg(results::read_training_log((run / "log.jsonl").string()), run.string()));
  outcome.result = results::read_run_result(result_path);
  outcome.finished = true;
  outcome.stage = "score";
  return outcome;
}

}  // namespace unieval::pipelines
