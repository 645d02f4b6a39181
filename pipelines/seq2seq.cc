// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "pipelines/seq2seq.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/fs.h"
#include "core/io.h"
#include "metrics/bleu.h"
#include "metrics/squad.h"
#include "models/decoding/search_unilm.h"
#include "models/decoding/vocab_limit.h"
#include "models/decoding/word_lexicon.h"
#include "models/dist/distributed.h"
#include "models/io/checkpoint.h"
#include "models/io/run_dir.h"
#include "models/tokenizer/vocab_subset.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/train_loop.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using namespace unieval::models;

LowercaseDecision decide_lowercase(std::optional<bool> flag, const std::string& checkpoint,
                                   const std::string& vocab_path) {
  LowercaseDecision d;
  // The checkpoint's word: tokenizer_config.json, then the vocabulary.
  std::optional<bool> config_says, vocab_says;
  std::string config_file, vocab_file = vocab_path;
  std::error_code ec;
  if (!checkpoint.empty()) {
    fs::path dir = fs::is_regular_file(checkpoint, ec) ? fs::path(checkpoint).parent_path()
                                                       : fs::path(checkpoint);
    if (dir.empty()) dir = ".";
    const fs::path tc = dir / "tokenizer_config.json";
    if (fs::exists(tc, ec)) {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(core::read_file(tc.string()));
      } catch (const nlohmann::json::exception& e) {
        throw InputError(tc.string(), 0, std::string("not JSON: ") + e.what());
      }
      if (j.is_object() && j.contains("do_lower_case")) {
        if (!j["do_lower_case"].is_boolean())
          throw InputError(tc.string(), 0, "do_lower_case is not true/false");
        config_says = j["do_lower_case"].get<bool>();
        config_file = tc.string();
      }
    }
    if (vocab_file.empty() && fs::exists(dir / "vocab.txt", ec))
      vocab_file = (dir / "vocab.txt").string();
  }
  // A WordPiece vocab.txt only: a GPT BPE folder (--vocab DIR) says nothing about casing here.
  if (!vocab_file.empty() && fs::is_regular_file(vocab_file, ec))
    vocab_says = !vocab_is_cased(Vocab::from_file(vocab_file));
  auto vocab_words = [&](bool lower) {
    return "the vocabulary " + vocab_file +
           (lower ? " (no upper-case pieces: uncased)" : " (upper-case pieces: cased)");
  };
  std::optional<bool> model_says;
  std::string model_source;
  if (config_says) {
    model_says = config_says;
    model_source = config_file + " do_lower_case " + (*config_says ? "true" : "false");
    if (vocab_says && *vocab_says != *config_says)
      d.warnings.push_back(model_source + " contradicts " + vocab_words(*vocab_says) + "; " +
                           config_file + " decides");
  } else if (vocab_says) {
    model_says = vocab_says;
    model_source = vocab_words(*vocab_says);
  }
  if (flag) {
    d.lowercase = *flag;
    d.source = *flag ? "--lowercase" : "--no-lowercase";
    if (model_says && *model_says != *flag)
      d.warnings.push_back(d.source + " contradicts " + model_source + "; " + d.source +
                           " decides");
  } else if (model_says) {
    d.lowercase = *model_says;
    d.source = model_source;
  } else {
    d.lowercase = true;
    d.source = "default (no tokenizer_config.json or vocabulary to tell)";
  }
  return d;
}

std::vector<int64_t> pretokenized_ids(const Vocab& vocab, const std::string& line) {
  // UniLM's WhitespaceTokenizer (str.split()) then convert_tokens_to_ids; the script raises on a
  // piece its vocabulary lacks, here it becomes [UNK] (-1 when the vocabulary has none: an error).
  std::vector<int64_t> out;
  const int32_t unk = vocab.id("[UNK]");
  size_t i = 0;
  const std::string ws = " \t\n\r\f\v";
  while (i < line.size()) {
    const size_t b = line.find_first_not_of(ws, i);
    if (b == std::string::npos) break;
    size_t e = line.find_first_of(ws, b);
    if (e == std::string::npos) e = line.size();
    const int32_t id = vocab.id(std::string_view(line).substr(b, e - b));
    if (id < 0 && unk < 0)
      throw InputError("--tokenized-input: the piece '" + line.substr(b, e - b) +
                       "' is not in the vocabulary, which has no [UNK]");
    out.push_back(id >= 0 ? id : unk);
    i = e;
  }
  return out;
}

namespace {

std::vector<int64_t> encode_ids64(const WordPieceTokenizer& tok, const std::string& text,
                                  bool tokenized_input) {
  if (tokenized_input) return pretokenized_ids(tok.vocab(), text);
  std::vector<int32_t> ids;
  tok.encode_ids(text, &ids);
  return std::vector<int64_t>(ids.begin(), ids.end());
}

// DATA/<split>.src and .tgt (tgt optional when need_tgt is false).
void read_split(const std::string& data_dir, const std::string& split, bool need_tgt,
                std::vector<std::string>& src, std::vector<std::string>& tgt) {
  const std::string sp = (fs::path(data_dir) / (split + ".src")).string();
  const std::string tp = (fs::path(data_dir) / (split + ".tgt")).string();
  src = core::read_lines(sp);
  if (need_tgt || fs::exists(tp)) {
    tgt = core::read_lines(tp);
    if (tgt.size() != src.size())
      throw InputError(tp, 0,
                       "has " + std::to_string(tgt.size()) + " lines but " + sp + " has " +
                           std::to_string(src.size()));
  }
}

}  // namespace

// UniLM's _get_token_id_set: a bracketed word is upper-cased; UniLM's tokenizer spells
// [unused1] "[X_SEP]" (its extra_map), so a vocabulary without [X_SEP] gives [unused1]. A word
// that the vocabulary lacks is an InputError (UniLM's lookup fails on it too).
static std::vector<int64_t> ignore_ids(const Vocab& vocab, const std::vector<std::string>& words,
                                       const std::string& vocab_path) {
  std::vector<int64_t> out;
  for (std::string w : words) {
    if (w.size() >= 2 && w.front() == '[' && w.back() == ']')
      for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    int32_t id = vocab.id(w);
    if (id < 0 && w == "[X_SEP]") id = vocab.id("[unused1]");
    if (id < 0)
      throw InputError(vocab_path, 0, "has no entry for the n-gram ignore word '" + w + "'");
    out.push_back(id);
  }
  return out;
}

// SearchOptions::not_predict_words as ids: "@special" = every bracketed entry but [SEP] (the end
// token); another word must be an entry (bracketed ones matched in upper case).
static std::vector<int64_t> not_predict_ids(const Vocab& vocab,
                                            const std::vector<std::string>& words, int64_t eos,
                                            const std::string& vocab_path) {
  std::vector<int64_t> out;
  for (std::string w : words) {
    if (w == "@special") {
      for (int64_t id = 0; id < static_cast<int64_t>(vocab.size()); ++id) {
        const std::string& t = vocab.token(static_cast<int32_t>(id));
        if (id != eos && t.size() >= 3 && t.front() == '[' && t.back() == ']') out.push_back(id);
      }
      continue;
    }
    if (w.size() >= 2 && w.front() == '[' && w.back() == ']')
      for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const int32_t id = vocab.id(w);
    if (id < 0)
      throw InputError(vocab_path, 0, "has no entry for the not-predict word '" + w + "'");
    if (id == eos)
      throw InputError("--not-predict: '" + w +
                       "' is the end token; banning it would never end a hypothesis");
    out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void resolve_decode_words(const Vocab& vocab, const std::string& vocab_path, int64_t eos,
                          SearchOptions& search) {
  search.ngram_ignore = ignore_ids(vocab, search.ngram_ignore_words, vocab_path);
  search.not_predict = not_predict_ids(vocab, search.not_predict_words, eos, vocab_path);
}

// (pipelines/seq2seq.h) The generation keys of a checkpoint's config.json (ours; written by ERNIE-GEN pre-training, and
// by hand into converted releases): "unieval_arch": "unilm" | "ernie-gen" sets train.arch unless
// the caller chose one (arch_given); for ernie-gen, "unieval_target_bos": true opens the target
// stream with [CLS] (models/training/seq2seq_data.h target_bos).
void apply_config_generation_keys(const std::string& config_path, bool arch_given,
                                  TrainOptions& train) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(core::read_file(config_path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(config_path, 0, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return;
  if (!arch_given && j.contains("unieval_arch")) {
    const auto& a = j.at("unieval_arch");
    if (!a.is_string() || (a.get<std::string>() != "unilm" && a.get<std::string>() != "ernie-gen"))
      throw InputError(config_path, 0, "unieval_arch: expected \"unilm\" or \"ernie-gen\"");
    train.arch = a.get<std::string>();
  }
  if (train.arch == "ernie-gen" && j.contains("unieval_target_bos")) {
    if (!j.at("unieval_target_bos").is_boolean())
      throw InputError(config_path, 0, "unieval_target_bos: expected true/false");
    train.data.target_bos = j.at("unieval_target_bos").get<bool>();
  }
}

// ---- finetune --------------------------------------------------------------------------------

std::vector<Seq2SeqExample> training_examples(const WordPieceTokenizer& tok,
                                              const std::vector<std::string>& src,
                                              const std::vector<std::string>& tgt,
                                              const Seq2SeqDataOptions& data,
                                              int64_t max_position_embeddings,
                                              bool tokenized_input) {
  // (ERNIE-GEN's [CLS]-opened target takes one position more.)
  const int64_t max_positions = max_position_embeddings - (data.target_bos ? 1 : 0);
  std::vector<Seq2SeqExample> examples;
  examples.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    Seq2SeqExample ex = truncate(
        {encode_ids64(tok, src[i], tokenized_input), encode_ids64(tok, tgt.at(i), tokenized_input)},
        data);
    if (packed_length(ex) > max_positions) {
      // Keep the target, shorten the source to fit the position table.
      const int64_t room =
          std::max<int64_t>(0, max_positions - 3 - static_cast<int64_t>(ex.tgt.size()));
      if (static_cast<int64_t>(ex.src.size()) > room) ex.src.resize(room);
      if (packed_length(ex) > max_positions)
        ex.tgt.resize(std::max<int64_t>(0, max_positions - 3 - ex.src.size()));
    }
    examples.push_back(std::move(ex));
  }
  return examples;
}

std::vector<int64_t> decode_source(const WordPieceTokenizer& tok, const std::string& text,
                                   const Seq2SeqDataOptions& data, int64_t max_position_embeddings,
                                   int max_len, bool tokenized_input) {
  auto s = encode_ids64(tok, text, tokenized_input);
  const int64_t room = std::max<int64_t>(
      1, std::min<int64_t>(data.max_src_len,
                           max_position_embeddings - 2 - (data.target_bos ? 1 : 0) - max_len));
  if (static_cast<int64_t>(s.size()) > room) s.resize(room);
  return s;
}

DecodeSetup decode_setup(const std::string& run_dir, const std::string& checkpoint,
                         const std::string& arch,
                         const std::optional<std::pair<int64_t, int64_t>>& segment_ids) {
  RunDir run(run_dir);
  const auto info = run.run_info();
  DecodeSetup d;
  d.checkpoint = checkpoint.empty() ? run.checkpoint_dir() : checkpoint;
  const fs::path ckpt(d.checkpoint);
  if (!fs::exists(ckpt / kRunWeightsFile))
    throw InputError(ckpt.string(), 0, "has no checkpoint to decode with");
  d.config_path = (ckpt / "config.json").string();
  d.cfg = BertConfig::from_json_file(d.config_path);
  d.vocab_path = (ckpt / "vocab.txt").string();
  d.tok = std::make_shared<WordPieceTokenizer>(WordPieceTokenizer::from_file(
      d.vocab_path, TokenizerOptions::bert(info.value("lowercase", true))));
  // Before any output: the mask of decode keeps decoding inside a SMALLER vocabulary, a larger one
  // has ids past the embedding table.
  check_vocab_fits(static_cast<int64_t>(d.tok->vocab().size()), d.vocab_path, d.cfg.vocab_size,
                   d.config_path);
  d.ids = special_ids(d.tok->vocab(), d.vocab_path);
  d.train.update_from_json(info.at("train"), run.file("run.json"));
  if (!arch.empty()) {
    d.train.arch = arch;
    d.train.validate();  // an unknown --arch, or the [CLS]-opened layout without ernie-gen
  }
  // ERNIE-GEN runs decode by infilling ([ATTN] at the next position), UniLM runs with [MASK].
  d.query_token = d.train.arch == "ernie-gen" ? d.ids.attn : d.ids.mask;
  if (segment_ids) std::tie(d.train.data.source_type, d.train.data.target_type) = *segment_ids;
  if (d.train.data.source_type >= d.cfg.type_vocab_size ||
      d.train.data.target_type >= d.cfg.type_vocab_size || d.train.data.source_type < 0 ||
      d.train.data.target_type < 0)
    throw InputError("segment ids " + std::to_string(d.train.data.source_type) + "," +
                     std::to_string(d.train.data.target_type) + " need type_vocab_size > " +
                     std::to_string(std::max(d.train.data.source_type, d.train.data.target_type)));
  d.data_dir = info.at("data").get<std::string>();
  d.tokenized_input = info.value("tokenized_input", false);
  return d;
}

DecodeSetup decode_setup_model(const std::string& model, const std::string& arch,
                               const std::optional<std::pair<int64_t, int64_t>>& segment_ids,
                               std::optional<bool> lowercase, const TrainOptions& train) {
  const CheckpointFiles files = locate_checkpoint(model);
  DecodeSetup d;
  d.checkpoint = model;
  d.weights = files.weights;
  d.config_path = files.config;
  d.cfg = BertConfig::from_json_file(files.config);
  if (files.vocab.empty()) throw InputError(model, 0, "no vocab.txt beside the checkpoint");
  d.vocab_path = files.vocab;
  const LowercaseDecision lc = decide_lowercase(lowercase, model, files.vocab);
  for (const auto& w : lc.warnings)
    if (dist::rank() == 0) std::cerr << "warning: " << w << "\n";
  d.tok = std::make_shared<WordPieceTokenizer>(
      WordPieceTokenizer::from_file(d.vocab_path, TokenizerOptions::bert(lc.lowercase)));
  check_vocab_fits(static_cast<int64_t>(d.tok->vocab().size()), d.vocab_path, d.cfg.vocab_size,
                   d.config_path);
  d.ids = special_ids(d.tok->vocab(), d.vocab_path);
  d.train = train;
  if (!arch.empty()) d.train.arch = arch;
  // arch: the flag, else the preset's (train.arch set), else config.json's unieval_arch, else unilm.
  apply_config_generation_keys(files.config, !d.train.arch.empty(), d.train);
  if (d.train.arch.empty()) d.train.arch = "unilm";
  d.train.validate();
  d.query_token = d.train.arch == "ernie-gen" ? d.ids.attn : d.ids.mask;
  std::tie(d.train.data.source_type, d.train.data.target_type) =
      segment_ids ? *segment_ids : d.cfg.seq2seq_segment_ids();
  if (d.train.data.source_type >= d.cfg.type_vocab_size ||
      d.train.data.target_type >= d.cfg.type_vocab_size || d.train.data.source_type < 0 ||
      d.train.data.target_type < 0)
    throw InputError("segment ids " + std::to_string(d.train.data.source_type) + "," +
                     std::to_string(d.train.data.target_type) + " need type_vocab_size > " +
                     std::to_string(std::max(d.train.data.source_type, d.train.data.target_type)));
  return d;
}

UnilmModel load_decode_model(const DecodeSetup& setup, const torch::Device& device) {
  UnilmHeads heads;
  heads.pooler = false;
  UnilmModel model(setup.cfg, heads);
  if (!setup.weights.empty()) {
    // A checkpoint as released or as run_seq2seq.py saves it: BERT names, the MLM head needed.
    model->init_weights();
    const LoadReport report = load_weights(*model, setup.weights);
    if (report.loaded == 0)
      throw InputError(setup.weights, 0, "no parameter of the model was found in the checkpoint");
    for (const auto& k : report.missing_keys)
      if (k.rfind("cls.", 0) == 0)
        throw InputError(setup.weights, 0, "has no masked-LM head (" + k + "): it cannot generate");
    const std::string summary = report.summary();
    if (!summary.empty() && dist::rank() == 0) std::cerr << summary << "\n";
    model->to(device);
    model->eval();
    return model;
  }
  load_model_weights(model, (fs::path(setup.checkpoint) / kRunWeightsFile).string());
  model->to(device);
  model->eval();
  return model;
}

namespace {

// Where a fine-tuning run's model comes from.
struct FinetuneModelFiles {
  BertConfig cfg;
  std::string config_path;  // where cfg came from, for errors
  std::string vocab_path;
  std::string weights_path;  // pretrained weights ("" = from scratch, or a resumed run)
};

// --resume: the run's own options (run.json) replace the request's, but for stop_after and
// progress.
FinetuneModelFiles resume_files(const FinetuneOptions& in, RunDir& run, FinetuneOptions& opts) {
  if (!run.has_checkpoint())
    throw InputError(opts.out_dir, 0, "--resume: the run has no checkpoint yet");
  const nlohmann::json info = run.run_info();
  opts.train = TrainOptions{};
  opts.train.update_from_json(info.at("train"), run.file("run.json"));
  opts.train.stop_after = in.train.stop_after;
  opts.train.progress = in.train.progress;
  opts.data_dir = info.at("data").get<std::string>();
  opts.lowercase = info.value("lowercase", true);
  opts.tokenized_input = info.value("tokenized_input", false);
  opts.limit = info.value("limit", int64_t{0});
  opts.dev_split = info.value("dev_split", std::string());
  opts.dev_limit = info.value("dev_limit", int64_t{0});
  FinetuneModelFiles f;
  f.config_path = run.file("config.json");
  f.cfg = BertConfig::from_json_file(f.config_path);
  f.vocab_path = run.file("vocab.txt");
  return f;
}

// A new run: --model-config or the checkpoint's files, with --dropout applied and the segment ids
// chosen (opts.train.data).
FinetuneModelFiles new_run_files(RunDir& run, FinetuneOptions& opts) {
  if (run.has_checkpoint())
    throw InputError(opts.out_dir, 0,
                     "already holds a checkpoint: use --resume to continue it or another --out");
  FinetuneModelFiles f;
  if (opts.config) {
    f.cfg = *opts.config;
    f.config_path = !opts.config_path.empty() ? opts.config_path : "--model-config";
    f.vocab_path =
        !opts.vocab.empty() ? opts.vocab : (fs::path(opts.data_dir) / "vocab.txt").string();
  } else {
    if (opts.model_dir.empty())
      throw InputError("--model (a checkpoint directory) or --model-config is required");
    CheckpointFiles files = locate_checkpoint(opts.model_dir);
    f.config_path = files.config;
    f.cfg = BertConfig::from_json_file(files.config);
    apply_config_generation_keys(files.config, opts.arch_given, opts.train);
    f.weights_path = files.weights;
    f.vocab_path = !opts.vocab.empty() ? opts.vocab : files.vocab;
    if (f.vocab_path.empty()) throw InputError(opts.model_dir, 0, "no vocab.txt (give --vocab)");
  }
  if (opts.dropout) {
    f.cfg.hidden_dropout_prob = *opts.dropout;
    f.cfg.attention_probs_dropout_prob = *opts.dropout;
  }
  f.cfg.validate("model config");
  // Segment ids: --segment-ids, else the checkpoint family's (4/5 for UniLM v1, type_vocab_size 6;
  // models/nn/config.h).
  std::tie(opts.train.data.source_type, opts.train.data.target_type) =
      opts.segment_ids ? *opts.segment_ids : f.cfg.seq2seq_segment_ids();
  return f;
}

// The segment ids: a resumed run's must be the ones asked for, and every run's must fit the model.
void check_segment_ids(const FinetuneOptions& opts, const BertConfig& cfg, RunDir& run) {
  const auto& data = opts.train.data;
  if (opts.resume && opts.segment_ids &&
      *opts.segment_ids != std::make_pair(data.source_type, data.target_type))
    throw InputError(run.file("run.json"), 0,
                     "the run was trained with segment ids " + std::to_string(data.source_type) +
                         "," + std::to_string(data.target_type) + ", not the --segment-ids given");
  if (data.source_type >= cfg.type_vocab_size || data.target_type >= cfg.type_vocab_size)
    throw InputError("segment ids " + std::to_string(data.source_type) + "/" +
                     std::to_string(data.target_type) + " need type_vocab_size > " +
                     std::to_string(std::max(data.source_type, data.target_type)));
}

// Reads DATA/<split>.src/.tgt, keeping the first `limit` pairs when limit > 0; `required`: none is
// an InputError.
void read_pairs(const std::string& data_dir, const std::string& split, int64_t limit, bool required,
                std::vector<std::string>& src, std::vector<std::string>& tgt) {
  read_split(data_dir, split, true, src, tgt);
  if (required && src.empty())  // before the run directory is created
    throw InputError((fs::path(data_dir) / (split + ".src")).string(), 0,
                     "no training examples (the file is empty)");
  if (limit > 0 && static_cast<int64_t>(src.size()) > limit) {
    src.resize(limit);
    tgt.resize(limit);
  }
}

// The training and dev pairs, tokenised and truncated.
struct FinetuneExamples {
  std::vector<Seq2SeqExample> train;
  std::vector<Seq2SeqExample> dev;  // empty without --dev-split
};

FinetuneExamples finetune_examples(const FinetuneOptions& opts, const WordPieceTokenizer& tok,
                                   const BertConfig& cfg) {
  auto tokenise = [&](const std::string& split, int64_t limit, bool required) {
    std::vector<std::string> src, tgt;
    read_pairs(opts.data_dir, split, limit, required, src, tgt);
    return training_examples(tok, src, tgt, opts.train.data, cfg.max_position_embeddings,
                             opts.tokenized_input);
  };
  FinetuneExamples e;
  e.train = tokenise("train", opts.limit, true);
  if (!opts.dev_split.empty()) e.dev = tokenise(opts.dev_split, opts.dev_limit, false);
  return e;
}

// run.json of a new fine-tuning run.
ojson finetune_run_info(const FinetuneOptions& opts, size_t examples, const Runtime& rt) {
  ojson run_info;
  run_info["kind"] = "unilm-seq2seq";
  run_info["task"] = opts.task;
  run_info["preset"] = opts.preset;
  run_info["data"] = fs::absolute(opts.data_dir).string();
  run_info["model"] = opts.model_dir.empty() ? std::string("(from scratch)")
                                             : fs::absolute(opts.model_dir).string();
  run_info["lowercase"] = opts.lowercase;
  if (opts.tokenized_input) run_info["tokenized_input"] = true;
  run_info["limit"] = opts.limit;
  run_info["dev_split"] = opts.dev_split;
  run_info["dev_limit"] = opts.dev_limit;
  run_info["segment_ids_from"] = opts.segment_ids ? "--segment-ids" : "checkpoint family";
  run_info["train"] = opts.train.to_json();
  run_info["decode"] = search_to_json(opts.decode);
  run_info["examples"] = examples;
  run_info["runtime"] = rt.describe();
  return run_info;
}

// A new run: the model's first weights (pretrained or initialised) and the run directory
// (run.json, config.json, vocab.txt), written by rank 0.
void start_finetune_run(UnilmModel& model, const FinetuneModelFiles& files,
                        const FinetuneOptions& opts, size_t examples, const Runtime& rt,
                        RunDir& run) {
  model->init_weights();
  if (!files.weights_path.empty()) {
    LoadReport report = load_weights(*model, files.weights_path);
    if (report.loaded == 0)
      throw InputError(files.weights_path, 0,
                       "no parameter of the model was found in the checkpoint");
    const std::string s = report.summary();
    if (!s.empty()) std::cerr << s << "\n";
  }
  const ojson run_info = finetune_run_info(opts, examples, rt);
  opts.train.validate();  // before the run directory is created
  check_accum_covers_ranks(opts.train.accum);
  if (dist::rank() != 0) return;
  // An ERNIE-GEN run's checkpoints say so, as pre-training's do: `decode --model RUN/best` and a
  // later fine-tune then use infilling decoding and the same target layout without --arch.
  if (opts.train.arch == "ernie-gen") {
    nlohmann::json config = files.cfg.to_json();
    config["unieval_arch"] = "ernie-gen";
    if (opts.train.data.target_bos) config["unieval_target_bos"] = true;
    run.create(run_info, config, core::read_file(files.vocab_path));
  } else {
    run.create(run_info, files.cfg, core::read_file(files.vocab_path));
  }
}

}  // namespace

FinetuneResult finetune(const FinetuneOptions& in) {
  FinetuneOptions opts = in;
  if (opts.out_dir.empty()) throw InputError("--out (the run directory) is required");
  Runtime rt = configure_runtime(opts.device);
  dist::init_from_env(opts.backend, rt.device);  // null (nothing) in one process
  RunDir run(opts.out_dir);
  const FinetuneModelFiles files =
      opts.resume ? resume_files(in, run, opts) : new_run_files(run, opts);
  check_segment_ids(opts, files.cfg, run);

  WordPieceTokenizer tok =
      WordPieceTokenizer::from_file(files.vocab_path, TokenizerOptions::bert(opts.lowercase));
  check_vocab_fits(static_cast<int64_t>(tok.vocab().size()), files.vocab_path, files.cfg.vocab_size,
                   files.config_path);
  const SpecialIds ids = special_ids(tok.vocab(), files.vocab_path);
  const FinetuneExamples examples = finetune_examples(opts, tok, files.cfg);

  torch::manual_seed(opts.train.seed);
  UnilmHeads heads;
  heads.pooler = false;  // seq2seq needs the MLM head only
  UnilmModel model(files.cfg, heads);
  if (!opts.resume) start_finetune_run(model, files, opts, examples.train.size(), rt, run);
  model->to(rt.device);  // autocast regions wrap the whole training call (master weights stay fp32)
  FinetuneResult result;
  result.run_dir = opts.out_dir;
  result.examples = static_cast<int64_t>(examples.train.size());
  {
    AutocastScope amp(rt);
    result.train = train_seq2seq(model, examples.train, ids, opts.train, &run, opts.resume,
                                 examples.dev.empty() ? nullptr : &examples.dev);
  }
  return result;
}

// ---- decode ----------------------------------------------------------------------------------

bool official_trace_postprocess(const SearchOptions& s) {
  return search_strategy(s) == SearchStrategy::kUnilmBeam && s.trace_alpha > 0 &&
         s.trace_selection == "official";
}

void warn_official_greedy(const SearchOptions& s) {
  const std::vector<std::string> ignored = official_greedy_ignores(s);
  if (ignored.empty() || dist::rank() != 0) return;
  std::string list;
  for (const auto& x : ignored) list += (list.empty() ? "" : ", ") + x;
  std::cerr << "warning: --search unilm --beam 1 decodes as decode_seq2seq.py's greedy path, which "
               "ignores "
            << list << "; use --search exact to apply them\n";
}

SearchOptions run_search_defaults(const std::string& run_dir) {
  RunDir run(run_dir);
  auto info = run.run_info();
  return search_from_json(info.contains("decode") ? info["decode"] : nlohmann::json(),
                          run.file("run.json") + " decode");
}

namespace {

// This rank's examples: the whole batches b ≡ rank (mod world), in input order (all of them in one
// process).
std::vector<int64_t> shard_examples(int64_t n, int64_t batch_size, int rank, int world) {
  std::vector<int64_t> mine;
  for (int64_t b = 0; b * batch_size < n; ++b)
    if (b % world == rank)
      for (int64_t i = b * batch_size; i < std::min(n, (b + 1) * batch_size); ++i)
        mine.push_back(i);
  return mine;
}

// OUT.partial.json: what a partial output is decoded with; a later call continues it only when its
// own is equal.
ojson partial_meta(const DecodeOptions& opts, const DecodeSetup& setup, const std::string& data_dir,
                   int64_t n, int64_t distinct, bool tokenized_input, int rank, int world) {
  const fs::path ckpt(setup.checkpoint);
  const TrainOptions& train = setup.train;
  ojson meta;
  meta["run"] = fs::absolute(opts.model.empty() ? opts.run_dir : opts.model).string();
  if (!opts.model.empty()) {
    meta["model"] = true;
    meta["lowercase"] = setup.tok->options().do_lower_case;
    meta["max_src_len"] = train.data.max_src_len;
  }
  meta["split"] = opts.split;
  meta["data"] = data_dir;
  meta["examples"] = n;
  if (distinct != n) meta["distinct"] = distinct;  // OUT.partial holds the distinct sources' lines
  meta["search"] = search_to_json(opts.search);
  meta["checkpoint"] = ckpt.string();
  meta["clean_up"] = opts.clean_up;
  if (tokenized_input) meta["tokenized_input"] = true;
  if (opts.segment_ids) meta["segment_ids"] = {train.data.source_type, train.data.target_type};
  if (train.arch != "unilm") meta["arch"] = train.arch;
  if (!opts.lexicon.empty()) {
    meta["lexicon"] = nlohmann::json::array();
    for (const auto& f : opts.lexicon) meta["lexicon"].push_back(fs::absolute(f).string());
  }
  if (world > 1)
    meta["shard"] = {{"rank", rank}, {"world_size", world}, {"batch_size", opts.batch_size}};
  for (const char* state : {"trainer_state.json", "best.json"})
    if (fs::exists(ckpt / state))
      meta["checkpoint_state"] = nlohmann::json::parse(core::read_file((ckpt / state).string()));
  return meta;
}

// The lines already decoded: OUT.partial's complete lines when OUT.partial.json equals `meta`, else
// none. Afterwards OUT.partial holds exactly them (a torn last line dropped), and a fresh start
// writes `meta` to OUT.partial.json.
std::vector<std::string> resume_partial(const std::string& partial, const std::string& meta_path,
                                        const ojson& meta, int64_t n_mine, int world,
                                        int64_t batch_size) {
  std::vector<std::string> done;
  if (fs::exists(partial) && fs::exists(meta_path)) {
    bool same = false;
    try {
      same =
          nlohmann::json::parse(core::read_file(meta_path)) == nlohmann::json::parse(meta.dump());
    } catch (const nlohmann::json::exception&) {
      same = false;
    }
    if (same) {
      std::string text = core::read_file(partial);
      const size_t end = text.rfind('\n');
      text = end == std::string::npos ? std::string()
                                      : text.substr(0, end + 1);  // complete lines only
      done = core::split_lines(text, partial);
      if (static_cast<int64_t>(done.size()) > n_mine) done.clear();
      // A shard resumes at a batch boundary, so its batches stay those of one process.
      if (world > 1)
        done.resize(done.size() / static_cast<size_t>(batch_size) *
                    static_cast<size_t>(batch_size));
    }
  }
  if (done.empty()) {
    core::write_file_atomic(meta_path, meta.dump(2) + "\n");
    core::write_file_atomic(partial, "");
  } else {
    std::string text;
    for (const auto& l : done) text += l + "\n";
    core::write_file_atomic(partial, text);  // drop a torn last line
  }
  return done;
}

// Decodes batches of source lines into output lines (the best hypothesis of each, on one line).
struct BatchDecoder {
  const DecodeSetup& setup;
  UnilmModel& model;
  const Runtime& rt;
  const SearchOptions& search;  // with the ignored / not-predicted words resolved
  int64_t max_len;              // the request's --max-len
  bool use_cache;
  bool tokenized_input;
  DetokenizeOptions detok;
  std::shared_ptr<const WordLexicon> lexicon;  // null: none

  std::vector<std::string> lines(const std::vector<std::string>& src,
                                 const std::vector<int64_t>& example_ids) const {
    const WordPieceTokenizer& tok = *setup.tok;
    const SpecialIds& ids = setup.ids;
    const Seq2SeqDataOptions& data = setup.train.data;
    const int64_t positions = setup.cfg.max_position_embeddings;
    std::vector<std::vector<int64_t>> sources;
    for (const int64_t i : example_ids)
      sources.push_back(decode_source(tok, src[i], data, positions, max_len, tokenized_input));
    if (static_cast<int64_t>(sources.front().size()) + 2 + (data.target_bos ? 1 : 0) + max_len >
        positions)
      throw InputError("--max-len " + std::to_string(max_len) + " does not fit the model's " +
                       std::to_string(positions) + " positions");
    std::vector<std::vector<Hypothesis>> nbest;
    {
      AutocastScope amp(rt);
      UnilmStepScorer scorer(model, sources, ids, data, use_cache, setup.query_token);
      // config vocab_size may pad; --not-predict ids never come out either
      const VocabMask vocab{static_cast<int64_t>(tok.vocab().size()), search.not_predict, lexicon};
      nbest = generate(scorer, example_ids, ids.sep, search, ids.pad, vocab);
    }
    std::vector<std::string> out;
    for (const auto& hyps : nbest) {
      std::string line;
      if (!hyps.empty()) {
        std::vector<int32_t> t(hyps[0].tokens.begin(), hyps[0].tokens.end());
        if (official_trace_postprocess(search)) t = simple_postprocess_pieces(tok.vocab(), t);
        line = tok.decode(t, detok);
      }
      for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
      out.push_back(std::move(line));
    }
    return out;
  }
};

void report_progress(int64_t end, int64_t n_mine, int64_t decoded_now,
                     std::chrono::steady_clock::time_point t0) {
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "%sdecode %lld/%lld  %.1f sent/s", isatty(2) ? "\r" : "",
               static_cast<long long>(end), static_cast<long long>(n_mine),
               el > 0 ? decoded_now / el : 0.0);
  std::fprintf(stderr, isatty(2) ? (end == n_mine ? "\x1b[K\n" : "\x1b[K") : "\n");
}

// Rank 0, once every shard is on disk: the shards' lines in input order (n of them).
std::vector<std::string> merge_shards(const DecodeOptions& opts, int64_t n, int world,
                                      std::vector<std::string>& shard_paths) {
  std::vector<std::vector<std::string>> shards(world);
  for (int r = 0; r < world; ++r) {
    shard_paths.push_back(opts.out + ".shard-" + std::to_string(r) + "-of-" +
                          std::to_string(world));
    shards[r] = core::split_lines(core::read_file(shard_paths.back()), shard_paths.back());
  }
  std::vector<size_t> next(world, 0);
  std::vector<std::string> lines;
  for (int64_t b = 0; b * opts.batch_size < n; ++b) {
    const int r = static_cast<int>(b % world);
    const int64_t count = std::min(n, (b + 1) * opts.batch_size) - b * opts.batch_size;
    for (int64_t k = 0; k < count; ++k) {
      if (next[r] >= shards[r].size())
        throw InputError(shard_paths[r], 0, "has fewer lines than its batches");
      lines.push_back(shards[r][next[r]++]);
    }
  }
  return lines;
}

// The examples to decode: every one, or with `dedupe` the first of each distinct source line.
// slot[i] is example i's position among them.
struct DistinctSources {
  std::vector<int64_t> first;
  std::vector<int64_t> slot;
};

DistinctSources distinct_sources(const std::vector<std::string>& src, bool dedupe) {
  DistinctSources d;
  const int64_t n = static_cast<int64_t>(src.size());
  d.slot.resize(src.size());
  std::unordered_map<std::string_view, int64_t> seen;
  for (int64_t i = 0; i < n; ++i) {
    if (dedupe) {
      const auto [it, fresh] = seen.emplace(src[i], static_cast<int64_t>(d.first.size()));
      d.slot[i] = it->second;
      if (!fresh) continue;
    } else {
      d.slot[i] = i;
    }
    d.first.push_back(i);
  }
  return d;
}

// The words of the lexicon files and of the source lines, as the tokenizer splits them.
std::shared_ptr<const WordLexicon> build_lexicon(const WordPieceTokenizer& tok,
                                                 const std::vector<std::string>& files,
                                                 const std::vector<std::string>& src,
                                                 bool tokenized_input) {
  std::vector<std::string> tokens;
  for (size_t i = 0; i < tok.vocab().size(); ++i)
    tokens.push_back(tok.vocab().token(static_cast<int32_t>(i)));
  auto lexicon = std::make_shared<WordLexicon>(WordLexicon::wordpiece_kinds(tokens));
  std::unordered_set<std::string_view> seen;  // a line repeated is added once
  const auto add = [&](const std::vector<std::string>& lines) {
    for (const std::string& line : lines)
      if (seen.insert(line).second) lexicon->add(encode_ids64(tok, line, tokenized_input));
  };
  add(src);
  std::vector<std::vector<std::string>> texts;  // kept alive: `seen` views their lines
  texts.reserve(files.size());
  for (const std::string& f : files) {
    if (!fs::exists(f)) throw InputError(f, 0, "lexicon file not found");
    texts.push_back(core::read_lines(f));
    add(texts.back());
  }
  return lexicon;
}

}  // namespace

DecodeResult decode(const DecodeOptions& opts) {
  if (opts.out.empty()) throw InputError("--out is required");
  validate(opts.search);
  if (opts.batch_size < 1) throw InputError("--batch-size must be at least 1");
  Runtime rt = configure_runtime(opts.device);
  dist::ProcessGroup* group = dist::init_from_env(opts.backend, rt.device);  // null in one process
  const int rank = dist::rank(), world = dist::world_size();
  if (!opts.model.empty() && !opts.run_dir.empty())
    throw InputError("give one of --run and --model");
  if (!opts.model.empty() && opts.data_dir.empty())
    throw InputError("--model: --data DIR (with DIR/<split>.src) is required");
  const DecodeSetup setup =
      opts.model.empty()
          ? decode_setup(opts.run_dir, opts.checkpoint, opts.arch, opts.segment_ids)
          : decode_setup_model(opts.model, opts.arch, opts.segment_ids, opts.lowercase, opts.train);
  const bool tokenized_input = opts.tokenized_input.value_or(setup.tokenized_input);
  SearchOptions search = opts.search;
  resolve_decode_words(setup.tok->vocab(), setup.vocab_path, setup.ids.sep, search);
  warn_official_greedy(search);

  const std::string data_dir = !opts.data_dir.empty() ? opts.data_dir : setup.data_dir;
  std::vector<std::string> src, tgt;
  read_split(data_dir, opts.split, false, src, tgt);
  if (opts.limit > 0 && static_cast<int64_t>(src.size()) > opts.limit) src.resize(opts.limit);
  const int64_t n = static_cast<int64_t>(src.size());
  const DistinctSources distinct = distinct_sources(src, opts.dedupe && !opts.search.sample);
  const int64_t n_distinct = static_cast<int64_t>(distinct.first.size());
  std::vector<int64_t> mine = shard_examples(n_distinct, opts.batch_size, rank, world);
  for (int64_t& i : mine) i = distinct.first[i];  // positions among the distinct -> examples
  const int64_t n_mine = static_cast<int64_t>(mine.size());
  const std::string stem =
      world > 1 ? opts.out + ".shard-" + std::to_string(rank) + "-of-" + std::to_string(world)
                : opts.out;

  // The model before any output file: weights that do not fit the config are an InputError
  // that must leave no OUT.partial behind.
  UnilmModel model = load_decode_model(setup, rt.device);
  // So is a missing lexicon file.
  const std::shared_ptr<const WordLexicon> lexicon =
      opts.lexicon.empty() ? nullptr
                           : build_lexicon(*setup.tok, opts.lexicon, src, tokenized_input);

  // Partial output from an interrupted call with the same options: one line per distinct source.
  const std::string partial = stem + ".partial";
  const std::string meta_path = stem + ".partial.json";
  DecodeResult result;
  result.distinct = n_distinct;
  std::vector<std::string> lines = resume_partial(
      partial, meta_path,
      partial_meta(opts, setup, data_dir, n, n_distinct, tokenized_input, rank, world), n_mine,
      world, opts.batch_size);

  BatchDecoder decoder{setup,          model,           rt, search, opts.search.max_len,
                       opts.use_cache, tokenized_input, {}, lexicon};
  decoder.detok.skip_special = true;
  decoder.detok.clean_up_spaces = opts.clean_up;
  auto t0 = std::chrono::steady_clock::now();
  std::ofstream out(partial, std::ios::app | std::ios::binary);
  if (!out) throw InputError(partial, 0, "cannot write");
  int64_t batches = 0;
  for (int64_t begin = static_cast<int64_t>(lines.size()); begin < n_mine;
       begin += opts.batch_size) {
    if (opts.stop_after > 0 && batches++ >= opts.stop_after) {
      result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      result.examples = static_cast<int64_t>(lines.size());
      result.hyps = std::move(lines);
      return result;  // OUT.partial and OUT.partial.json stay for the next call
    }
    const int64_t end = std::min<int64_t>(n_mine, begin + opts.batch_size);
    std::string text;
    for (std::string& line :
         decoder.lines(src, std::vector<int64_t>(mine.begin() + begin, mine.begin() + end))) {
      text += line + "\n";
      lines.push_back(std::move(line));
    }
    out << text << std::flush;
    result.decoded_now += end - begin;
    if (opts.progress) report_progress(end, n_mine, result.decoded_now, t0);
  }
  out.close();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.complete = true;
  const auto expand = [&](const std::vector<std::string>& decoded) {
    std::string all;
    result.hyps.clear();
    for (int64_t i = 0; i < n; ++i) {
      result.hyps.push_back(decoded[distinct.slot[i]]);
      all += result.hyps.back() + "\n";
    }
    result.examples = n;
    return all;
  };
  std::error_code ec;
  if (!group) {
    core::write_file_atomic(opts.out, expand(lines));
    fs::remove(partial, ec);
    fs::remove(meta_path, ec);
    return result;
  }
  std::string shard_text;
  for (const auto& l : lines) shard_text += l + "\n";
  core::write_file_atomic(stem, shard_text);
  fs::remove(partial, ec);
  fs::remove(meta_path, ec);
  result.examples = n_mine;
  result.hyps = std::move(lines);
  // Every shard is on disk once the sum is through; rank 0 merges them in input order.
  std::vector<double> decoded{static_cast<double>(result.decoded_now)};
  dist::all_reduce_sum(*group, decoded);
  if (rank != 0) return result;
  result.decoded_now = static_cast<int64_t>(decoded[0]);
  std::vector<std::string> shard_paths;
  const std::vector<std::string> merged = merge_shards(opts, n_distinct, world, shard_paths);
  core::write_file_atomic(opts.out, expand(merged));
  for (const auto& p : shard_paths) fs::remove(p, ec);
  return result;
}

// ---- demo ------------------------------------------------------------------------------------

BertConfig DemoOptions::demo_config() {
  BertConfig c;
  c.vocab_size = 0;  // set from the generated vocabulary
  c.hidden_size = 64;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.intermediate_size = 128;
  c.max_position_embeddings = 32;
  c.type_vocab_size = 2;
  c.hidden_dropout_prob = 0.0;
  c.attention_probs_dropout_prob = 0.0;
  return c;
}

TrainOptions DemoOptions::demo_train() {
  TrainOptions t;
  t.optim.lr = 1e-3;
  t.optim.eps = 1e-8;
  t.optim.weight_decay = 0.01;
  t.epochs = 40;
  t.warmup_ratio = 0.05;
  t.batch_tokens = 64 * 16;
  t.batch_size = 64;
  t.label_smoothing = 0.1;
  t.data.mask_prob = 0.7;
  t.data.max_src_len = 16;
  t.data.max_tgt_len = 16;
  t.seed = 1;
  t.log_every = 10;
  return t;
}

SearchOptions DemoOptions::demo_search() {
  SearchOptions s;
  s.beam = 4;
  s.max_len = 12;
  return s;
}

ojson DemoResult::to_json() const {
  ojson j;
  j["task"] = "synthetic";
  j["examples"] = examples;
  j["exact_match"] = exact_match;
  j["bleu"] = bleu;
  j["bleu_signature"] = bleu_signature;
  j["first_loss"] = first_loss;
  j["last_loss"] = last_loss;
  j["steps"] = steps;
  j["train_seconds"] = train_seconds;
  j["decode_seconds"] = decode_seconds;
  j["tokens_per_second"] = tokens_per_second;
  return j;
}

DemoResult run_demo(const DemoOptions& opts) {
  // Working directory: the given one, or a temporary one removed at the end.
  std::string dir = opts.out_dir;
  bool temporary = false;
  if (dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "unieval_demo_XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    dir = buf.data();
    temporary = true;
  }
  struct Cleanup {
    std::string dir;
    bool on;
    ~Cleanup() {
      std::error_code ec;
      if (on) core::remove_tree(dir, ec);
    }
  } cleanup{dir, temporary};

  const fs::path root(dir);
  SyntheticTask task = make_synthetic_task(opts.task);
  write_synthetic_task(task, (root / "data").string());

  FinetuneOptions f;
  f.task = "synthetic-" + opts.task.kind;
  f.config = opts.config;
  f.config->vocab_size = static_cast<int64_t>(task.words.size()) + 5;
  f.data_dir = (root / "data").string();
  f.out_dir = (root / "run").string();
  f.train = opts.train;
  f.train.progress = opts.progress;
  f.decode = opts.search;
  f.device.threads = opts.threads;
  if (fs::exists(fs::path(f.out_dir) / "checkpoint")) {
    std::error_code ec;
    core::remove_tree(f.out_dir, ec);
    if (ec) throw InputError(f.out_dir, 0, "cannot remove the previous run: " + ec.message());
  }
  auto t0 = std::chrono::steady_clock::now();
  FinetuneResult fr = finetune(f);
  auto t1 = std::chrono::steady_clock::now();

  DecodeOptions d;
  d.run_dir = f.out_dir;
  d.split = "test";
  d.out = (root / "test.hyp").string();
  d.search = opts.search;
  d.batch_size = 64;
  d.device.threads = opts.threads;
  d.progress = opts.progress;
  DecodeResult dr = decode(d);
  auto t2 = std::chrono::steady_clock::now();

  DemoResult r;
  r.examples = dr.examples;
  int64_t correct = 0;
  for (size_t i = 0; i < dr.hyps.size(); ++i)
    correct += metrics::squad_v1_exact_match(dr.hyps[i], task.test_tgt[i]) ? 1 : 0;
  r.exact_match = dr.hyps.empty() ? 0.0 : double(correct) / double(dr.hyps.size());
  metrics::BleuOptions bo;
  auto bleu = metrics::corpus_bleu(dr.hyps, {task.test_tgt}, bo);
  r.bleu = bleu.score;
  r.bleu_signature = bleu.signature;
  r.first_loss = fr.train.first_loss;
  r.last_loss = fr.train.last_loss;
  r.steps = fr.train.steps_done;
  r.tokens_per_second = fr.train.tokens_per_second;
  r.train_seconds = std::chrono::duration<double>(t1 - t0).count();
  r.decode_seconds = std::chrono::duration<double>(t2 - t1).count();
  r.run_dir = temporary ? std::string() : f.out_dir;
  return r;
}

}  // namespace unieval::pipelines
