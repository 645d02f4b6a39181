#include "pipelines/pretrain.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "core/error.h"
#include "core/io.h"
#include "models/decoding/vocab_limit.h"
#include "models/dist/distributed.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/pretrain_shard.h"
#include "models/training/train_loop.h"
#include "models/training/trainer.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;

namespace {

// --resume with --steps / --tokens: the raised budget in train, and the "budget_changes" entry for
// run.json (null when the budget is unchanged); InputError when it would lower the budget. Nothing
// is written here: record_budget_change writes the entry once every input check has passed.
nlohmann::ordered_json raise_budget(const models::RunDir& run, models::PretrainOptions& train,
                                    const std::optional<int64_t>& steps,
                                    const std::optional<int64_t>& tokens) {
  if (!steps && !tokens) return nullptr;
  models::PretrainOptions raised = train;
  if (tokens) {
    if (*tokens <= 0) throw InputError("--tokens must be > 0");
    raised.tokens = *tokens;
  } else {
    raised.tokens = 0;
    raised.max_steps = *steps;
  }
  const int64_t before = train.total_steps(), after = raised.total_steps();
  const nlohmann::json state = run.trainer_state();
  const int64_t done = state.is_null() ? 0 : state.value("step", int64_t{0});
  if (after < before)
    throw InputError(run.file("run.json"), 0,
                     "--resume with " + std::string(tokens ? "--tokens " : "--steps ") +
                         std::to_string(tokens ? *tokens : *steps) + " gives " +
                         std::to_string(after) + " steps, fewer than the run's " +
                         std::to_string(before) +
                         ": a resumed run's budget can be raised, not lowered (--stop-after "
                         "stops a call sooner)");
  if (after == before) return nullptr;
  nlohmann::ordered_json change;
  change["at_step"] = done;
  change["total_steps_before"] = before;
  change["total_steps_after"] = after;
  if (tokens)
    change["tokens"] = *tokens;
  else
    change["steps"] = *steps;
  train = raised;
  return change;
}

// The raised budget (train) and its change entry into run.json, atomically.
void record_budget_change(const models::RunDir& run, const models::PretrainOptions& train,
                          const nlohmann::ordered_json& change) {
  const std::string run_json = run.file("run.json");
  nlohmann::ordered_json info;
  try {
    info = nlohmann::ordered_json::parse(core::read_file(run_json));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(run_json, 0, std::string("not valid JSON: ") + e.what());
  }
  info["train"] = train.to_json();
  info["total_steps"] = train.total_steps();
  if (!info.contains("budget_changes")) info["budget_changes"] = nlohmann::ordered_json::array();
  info["budget_changes"].push_back(change);
  core::write_file_atomic(run_json, info.dump(2) + "\n");
}

}  // namespace
using ojson = nlohmann::ordered_json;
using namespace unieval::models;

PretrainPipelineResult run_pretrain(const PretrainPipelineOptions& in) {
  PretrainPipelineOptions opts = in;
  if (opts.out_dir.empty()) throw InputError("--out (the run directory) is required");
  Runtime rt = configure_runtime(opts.device);
  dist::ProcessGroup* group = dist::init_from_env(opts.backend, rt.device);  // null in one process
  const bool writer = dist::rank() == 0;
  RunDir run(opts.out_dir);

  BertConfig cfg;
  std::string vocab_path;
  nlohmann::ordered_json budget_change;  // a raised budget on --resume, written after the checks
  std::string config_path =
      opts.config_path.empty() ? "model config" : opts.config_path;  // for errors
  if (opts.resume) {
    if (!run.has_checkpoint())
      throw InputError(opts.out_dir, 0, "--resume: the run has no checkpoint yet");
    const auto info = run.run_info();
    if (info.value("kind", std::string()) != "unilm-pretrain")
      throw InputError(run.file("run.json"), 0,
                       "not a pre-training run (kind is not unilm-pretrain)");
    opts.train = PretrainOptions{};
    opts.train.update_from_json(info.at("train"), run.file("run.json"));
    opts.train.stop_after = in.train.stop_after;
    opts.train.progress = in.train.progress;
    budget_change = raise_budget(run, opts.train, in.resume_steps, in.resume_tokens);
    opts.corpus = info.at("corpus").get<std::vector<std::string>>();
    opts.shard = info.at("shard").get<std::string>();
    opts.lowercase = info.value("lowercase", true);
    config_path = run.file("config.json");
    cfg = BertConfig::from_json_file(config_path);
    vocab_path = run.file("vocab.txt");
  } else {
    if (run.has_checkpoint())
      throw InputError(opts.out_dir, 0,
                       "already holds a checkpoint: use --resume to continue it or another --out");
    if (opts.corpus.empty()) throw InputError("--corpus is required (one or more text files)");
    if (!opts.config) throw InputError("--model-config (a config.json) is required");
    if (opts.vocab.empty()) throw InputError("--vocab is required");
    cfg = *opts.config;
    if (opts.dropout) {
      cfg.hidden_dropout_prob = *opts.dropout;
      cfg.attention_probs_dropout_prob = *opts.dropout;
    }
    cfg.validate(config_path);
    vocab_path = opts.vocab;
    if (opts.shard.empty()) opts.shard = run.file("corpus.shard");
  }
  opts.train.validate();
  check_accum_covers_ranks(opts.train.accum);  // before anything is written
  const std::string vocab_text = core::read_file(vocab_path);
  WordPieceTokenizer tok =
      WordPieceTokenizer::from_file(vocab_path, TokenizerOptions::bert(opts.lowercase));
  const SpecialIds ids = special_ids(tok.vocab(), vocab_path);
  check_vocab_fits(ids.vocab_size, vocab_path, cfg.vocab_size, config_path);
  const auto cycle = objective_cycle(opts.train.objectives);
  const int64_t need_types = opts.train.data.max_segment_id(cycle) + 1;
  if (need_types > cfg.type_vocab_size)
    throw InputError(config_path, 0,
                     "type_vocab_size is " + std::to_string(cfg.type_vocab_size) + " but the '" +
                         opts.train.data.segments + "' segment ids of --objectives " +
                         opts.train.objectives + " need type_vocab_size >= " +
                         std::to_string(need_types) + ": UniLM v1 uses 6; or pass --segments bert");
  if (opts.train.data.max_len > cfg.max_position_embeddings)
    throw InputError(config_path, 0,
                     "--max-len " + std::to_string(opts.train.data.max_len) +
                         " exceeds max_position_embeddings " +
                         std::to_string(cfg.max_position_embeddings));

  // The shard: reuse when it was built from the same files, vocabulary and casing.
  PretrainPipelineResult result;
  const auto key = shard_source_key(opts.corpus, vocab_text, opts.lowercase);
  bool reuse = false;
  if (fs::exists(opts.shard)) {
    try {
      reuse = TokenShard::open(opts.shard).meta().value("source", nlohmann::json()) == key;
    } catch (const InputError&) {
      reuse = false;
    }
    if (!reuse && writer)
      std::cerr << "shard " << opts.shard << " was built from other inputs: rebuilding it\n";
  }
  if (!reuse && writer) {  // rank 0 builds it; the others wait at the barrier below
    const auto t0 = std::chrono::steady_clock::now();
    ShardBuildOptions b;
    b.lowercase = opts.lowercase;
    b.threads = rt.threads > 0
                    ? rt.threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    b.progress = opts.train.progress;
    build_shard(opts.corpus, tok, vocab_text, opts.shard, b);
    result.shard_built = true;
    result.shard_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (group) group->barrier();
  TokenShard shard = TokenShard::open(opts.shard);
  result.shard = opts.shard;
  result.corpus_tokens = shard.tokens();
  result.corpus_documents = shard.documents();

  torch::manual_seed(opts.train.seed);
  UnilmModel model(cfg, pretrain_heads(opts.train));
  if (!opts.resume && writer) {
    ojson info;
    info["kind"] = "unilm-pretrain";
    ojson corpus = ojson::array();
    for (const auto& c : opts.corpus) corpus.push_back(fs::absolute(c).lexically_normal().string());
    info["corpus"] = corpus;
    info["shard"] = fs::absolute(opts.shard).lexically_normal().string();
    info["corpus_tokens"] = shard.tokens();
    info["corpus_sentences"] = shard.sentences();
    info["corpus_documents"] = shard.documents();
    info["vocab"] = fs::absolute(vocab_path).lexically_normal().string();
    info["lowercase"] = opts.lowercase;
    info["train"] = opts.train.to_json();
    info["total_steps"] = opts.train.total_steps();
    info["runtime"] = rt.describe();
    if (opts.train.objectives == "ernie-gen") {
      // The checkpoints say how to fine-tune and decode them (pipelines/seq2seq.h).
      nlohmann::json config = cfg.to_json();
      config["unieval_arch"] = "ernie-gen";
      run.create(info, config, vocab_text);
    } else {
      run.create(info, cfg, vocab_text);
    }
  }
  if (opts.resume && writer && !budget_change.is_null())
    record_budget_change(run, opts.train, budget_change);
  model->to(rt.device);
  result.run_dir = opts.out_dir;
  result.objectives = opts.train.objectives;
  {
    AutocastScope amp(rt);
    result.train = pretrain(model, shard, ids, opts.train, &run, opts.resume);
  }
  return result;
}

}  // namespace unieval::pipelines
