// `unieval decode`: decode a split with a fine-tuned run (beam search, greedy, sampling), or
// continue prompts with a GPT checkpoint (--model).
// Logic: pipelines/seq2seq.h (decode), models/decoding/search.h, models/decoding/search_unilm.h, models/training/gpt_finetune.h,
// models/decoding/vocab_limit.h (no id past the tokenizer's vocabulary is emitted).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/unieval/commands.h"
#include "apps/unieval/torch/model_flags.h"
#include "core/error.h"
#include "core/io.h"
#include "models/decoding/search_gpt.h"
#include "models/decoding/vocab_limit.h"
#include "models/dist/distributed.h"
#include "models/nn/device.h"
#include "models/nn/gpt.h"
#include "models/tokenizer/bpe.h"
#include "models/training/gpt_finetune.h"
#include "pipelines/presets.h"
#include "pipelines/seq2seq.h"
#include "results/run_summary.h"
#include "tasks/presets.h"

namespace unieval::cli {

namespace {

const char* kDecodeUsage =
    "usage: unieval decode --run RUN --split S --out FILE [--beam K] [--length-penalty A]\n"
    "                      [--min-len N] [--max-len N] [--no-repeat-ngram N]\n"
    "                      [--sample [--top-k K] [--top-p P] [--temperature T]] [--seed S]\n"
    "                      [--batch-size N] [--device cpu|cuda] [--threads N] [--lexicon FILE...]\n"
    "\n"
    "Decodes DATA/<split>.src (DATA = the run's data directory unless --data) with the run's "
    "latest\n"
    "checkpoint, UniLM-style incremental decoding with cached keys/values: feed the previous "
    "token\n"
    "and [MASK], cache the previous token only (a run trained with --arch ernie-gen: ERNIE-GEN's\n"
    "infilling decoding, [ATTN] inserted at the next position and dropped after it). Beam search "
    "keeps the K best live hypotheses,\n"
    "score = log p / len^A (len counts the [SEP] that ends it), EOS forbidden before --min-len,\n"
    "a hypothesis ends at --max-len tokens, --no-repeat-ngram 3 removes duplicated trigrams.\n"
    "--beam 1 is greedy; --sample draws tokens (top-k / top-p / temperature), seeded per example.\n"
    "Defaults come from the run's preset (run.json \"decode\"); flags override them.\n"
    "Writes FILE atomically, one detokenised hypothesis per line. Resumable: an interrupted call\n"
    "leaves FILE.partial, and the same command continues after its last complete line.\n"
    "Search decodes each distinct source line once and writes its output for every repeat (Du's\n"
    "QG test set holds 11,877 questions on 6,652 sentences); --no-dedupe decodes every line.\n"
    "--lexicon FILE...: every word written (a start piece and its ## pieces) is a word of FILE or\n"
    "of the sources decoded; pieces of different words are never glued into a non-word.\n"
    "\n"
    "UniLM / ERNIE-GEN checkpoint: --model CKPT --data DIR (DIR/<split>.src) decodes without a "
    "run:\n"
    "CKPT is a directory (config.json, model.safetensors or pytorch_model.bin, vocab.txt), or a "
    ".bin\n"
    "(run_seq2seq.py's model.N.bin, legacy pickle or zip) or .safetensors file with config.json "
    "and\n"
    "vocab.txt beside it. The same decoding flags; --preset NAME takes a paper preset's decoding\n"
    "options and source length first (flags override them); --max-src-len N keeps N source tokens\n"
    "(default 192); --arch / config.json unieval_arch choose ERNIE-GEN's infilling decoding.\n"
    "Lower-casing follows the checkpoint (tokenizer_config.json do_lower_case, else its "
    "vocabulary)\n"
    "unless --lowercase / --no-lowercase; --tokenized-input reads WordPiece pieces as they are.\n"
    "\n"
    "GPT: --model DIR (an openai-gpt checkpoint) --input PROMPTS.txt continues each line's BPE "
    "tokens\n"
    "(BPE files: --bpe DIR, default the checkpoint folder's vocab.json + merges.txt) with the "
    "same\n"
    "search flags (default greedy, --max-len 32), re-running the sequence each step; generation "
    "ends\n"
    "at --eos-token (default the release's newline piece \"\\n</w>\") or --max-len. FILE gets one\n"
    "detokenised continuation per line (pieces joined, </w> -> space).\n"
    "\n"
    "example: unieval decode --run run1 --split test --beam 5 --no-repeat-ngram 3 --out "
    "run1/test.hyp\n"
    "         unieval decode --model cnndm_model.bin --data cnndm --preset cnndm --out test.hyp\n"
    "         unieval decode --model openai-gpt --input prompts.txt --sample --top-k 40 --out "
    "cont.txt";

// The GPT path: prompts -> continuations.
int decode_gpt(const po::variables_map& vm) {
  const std::string model_path = vm["model"].as<std::string>();
  if (!models::is_gpt_checkpoint(model_path))
    throw InputError(
        model_path, 0,
        "decode --model takes a GPT (openai-gpt) checkpoint; UniLM runs are decoded with --run");
  if (!vm.count("input")) throw InputError("decode --model needs --input PROMPTS.txt");
  const models::DeviceOptions dev = device_flags(vm);
  const models::Runtime rt = models::configure_runtime(dev);
  const std::string bpe_dir =
      vm.count("bpe") ? vm["bpe"].as<std::string>()
                      : (std::filesystem::is_directory(model_path)
                             ? model_path
                             : std::filesystem::path(model_path).parent_path().string());
  const models::BpeTokenizer tok = models::BpeTokenizer::from_dir(bpe_dir);
  // Before the weights load: a BPE encoder larger than the token rows is refused (models/decoding/vocab_limit.h);
  // a smaller one is masked below.
  const std::string config_path = models::locate_checkpoint(model_path).config;
  models::check_vocab_fits(tok.encoder_size(), models::BpeTokenizer::files_in(bpe_dir).at(0),
                           models::GptConfig::from_json_file(config_path).vocab_size, config_path);
  models::LoadReport report;
  models::GptModel model = models::load_gpt_checkpoint(model_path, {}, &report);
  if (!report.summary().empty()) warn(report.summary());
  model->to(rt.device);
  models::SearchOptions s;
  apply_search_flags(vm, s, "seed");
  models::validate(s);
  const std::string eos_piece =
      vm["eos-token"].as<std::string>() == "\\n</w>" ? "\n</w>" : vm["eos-token"].as<std::string>();
  const int32_t eos = tok.id(eos_piece);
  if (eos < 0 || eos >= model->config().vocab_size)
    throw InputError("--eos-token '" + eos_piece + "' is no token of the model");
  const std::vector<std::string> lines = core::read_lines(vm["input"].as<std::string>());
  const int64_t batch = std::max<int64_t>(1, vm["batch-size"].as<int64_t>());
  std::string out;
  for (size_t b = 0; b < lines.size(); b += static_cast<size_t>(batch)) {
    std::vector<std::vector<int32_t>> prompts;
    std::vector<int64_t> ids;
    for (size_t i = b; i < std::min(lines.size(), b + static_cast<size_t>(batch)); ++i) {
      std::vector<int32_t> p;
      tok.encode_ids(lines[i], &p);
      if (p.empty())
        throw InputError(vm["input"].as<std::string>(), static_cast<long>(i + 1),
                         "a prompt without tokens");
      prompts.push_back(std::move(p));
      ids.push_back(static_cast<int64_t>(i));
    }
    models::GptScorer scorer(model, prompts, s.max_len);
    // A vocab_size padded past the tokenizer (encoder + the 3 specials) has rows no token names.
    const models::VocabMask vocab{static_cast<int64_t>(tok.size()), {}, nullptr};
    models::AutocastScope amp(rt);
    const auto hyps = models::generate(scorer, ids, eos, s, /*pad=*/-1, vocab);
    for (const auto& h : hyps) {
      std::vector<int32_t> t(h.at(0).tokens.begin(), h.at(0).tokens.end());
      out += tok.decode(t) + "\n";
    }
  }
  const std::string path = vm["out"].as<std::string>();
  core::write_file_atomic(path, out);
  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json j;
    j["out"] = path;
    j["examples"] = lines.size();
    j["model"] = model_path;
    print_json(j);
  } else {
    std::cerr << "decoded " << lines.size() << " prompts into " << path << "\n";
  }
  return kExitOk;
}

}  // namespace

int cmd_decode(const Args& args) {
  po::options_description desc("decode options");
  desc.add_options()("run", po::value<std::string>(), "run directory (unieval finetune --out)")(
      "model", po::value<std::string>(),
      "instead of --run: a UniLM/BERT-layout or ERNIE-GEN checkpoint (directory, .bin, "
      ".safetensors; with --data), "
      "or an openai-gpt checkpoint (with --input)")(
      "preset", po::value<std::string>(),
      "--model: a seq2seq paper preset's decoding options and source length")(
      "max-src-len", po::value<int>(),
      "--model: source tokens kept (default: the preset's, else 192)")(
      "input", po::value<std::string>(), "GPT: prompts, one per line")(
      "bpe", po::value<std::string>(), "GPT: BPE directory (default: the checkpoint folder)")(
      "eos-token", po::value<std::string>()->default_value("\\n</w>"),
      "GPT: the piece that ends a continuation")(
      "split", po::value<std::string>()->default_value("test"), "split: DATA/<split>.src")(
      "data", po::value<std::string>(), "data directory (default: the run's)")(
      "out", po::value<std::string>()->required(), "output file")(
      "batch-size", po::value<int64_t>()->default_value(32), "examples decoded together")(
      "no-clean-up", po::bool_switch(),
      "no HF clean_up_tokenization (pieces glued only: the references' format for QG)")(
      "no-cache", po::bool_switch(), "re-encode the whole sequence each step (reference path)")(
      "arch", po::value<std::string>(),
      "unilm ([MASK] query) | ernie-gen (infilling decoding with [ATTN]); default: the run's "
      "(run.json)")("limit", po::value<int64_t>()->default_value(0),
                    "decode only the first N examples")(
      "lexicon", po::value<std::vector<std::string>>()->multitoken(),
      "text files (.gz ok): every word written is a word of these files or of the sources "
      "decoded (no glued pieces of different words; e.g. the run's data/train.src and "
      "train.tgt)")(
      "no-dedupe", po::bool_switch(),
      "decode repeated source lines again (default: once each; sampling always decodes all)")(
      "stop-after", po::value<int64_t>()->default_value(0),
      "stop after N batches, leaving FILE.partial (the same command continues it)")(
      "no-progress", po::bool_switch(), "no progress on stderr")("json", po::bool_switch(),
                                                                 "print a JSON summary");
  add_search_flags(desc, "seed");
  add_segment_ids_flag(desc);
  add_text_flags(desc);
  add_device_flags(desc);
  add_precision_flag(desc);
  add_dist_flags(desc);
  auto vm = parse(args, desc, kDecodeUsage);
  const bool gpt = vm.count("model") && models::is_gpt_checkpoint(vm["model"].as<std::string>());
  if (gpt && (vm["nproc"].as<int>() > 1 || models::dist::launched_as_worker()))
    throw InputError(
        "--nproc / WORLD_SIZE: sharded decoding is for UniLM runs (--run), not GPT (--model)");
  if (auto code = launch_workers_if_asked(vm, "decode", args)) return *code;
  const bool main_rank = is_main_rank();
  if (vm.count("model") && vm.count("run")) throw InputError("give one of --run and --model");
  if (gpt) return decode_gpt(vm);
  if (!vm.count("run") && !vm.count("model"))
    throw InputError(
        "--run RUN or --model CHECKPOINT is required (GPT: --model GPT_CHECKPOINT --input "
        "PROMPTS)");

  pipelines::DecodeOptions d;
  d.split = vm["split"].as<std::string>();
  if (vm.count("data")) d.data_dir = vm["data"].as<std::string>();
  d.out = vm["out"].as<std::string>();
  if (vm.count("run")) {
    d.run_dir = vm["run"].as<std::string>();
    d.search = pipelines::run_search_defaults(d.run_dir);
    if (vm.count("preset") || vm.count("max-src-len") || lowercase_flag(vm))
      throw InputError(
          "--preset, --max-src-len, --lowercase and --no-lowercase are for --model: a run decodes "
          "with what it was trained with");
  } else {
    d.model = vm["model"].as<std::string>();
    if (vm.count("preset")) {
      const tasks::Preset* data = tasks::find_preset(vm["preset"].as<std::string>());
      if (!data) throw InputError("unknown --preset '" + vm["preset"].as<std::string>() + "'");
      if (!data->seq2seq)
        throw InputError("--preset " + data->name + " is an NLU recipe; decode is seq2seq");
      const pipelines::ModelPreset p = pipelines::resolve_preset(*data);
      d.search = p.decode;
      d.train = p.train;
      if (!data->train.contains("arch"))
        d.train.arch = "";  // config.json's unieval_arch may choose
    } else {
      d.train.arch = "";
    }
    if (vm.count("max-src-len")) d.train.data.max_src_len = vm["max-src-len"].as<int>();
    d.lowercase = lowercase_flag(vm);
  }
  if (vm["tokenized-input"].as<bool>()) d.tokenized_input = true;
  apply_search_flags(vm, d.search, "seed");
  d.segment_ids = segment_ids_flag(vm);
  d.batch_size = vm["batch-size"].as<int64_t>();
  d.use_cache = !vm["no-cache"].as<bool>();
  d.clean_up = !vm["no-clean-up"].as<bool>();
  d.limit = vm["limit"].as<int64_t>();
  d.dedupe = !vm["no-dedupe"].as<bool>();
  if (vm.count("lexicon")) d.lexicon = vm["lexicon"].as<std::vector<std::string>>();
  d.stop_after = vm["stop-after"].as<int64_t>();
  d.device = device_flags(vm);
  d.progress = !vm["no-progress"].as<bool>() && main_rank;
  d.backend = vm["backend"].as<std::string>();
  if (vm.count("arch")) d.arch = vm["arch"].as<std::string>();

  pipelines::DecodeResult r = pipelines::decode(d);
  if (!main_rank) return kExitOk;  // rank 0 merged the shards and reports
  nlohmann::ordered_json j;
  j["out"] = d.out;
  j["examples"] = r.examples;
  j["distinct"] = r.distinct;
  j["decoded_now"] = r.decoded_now;
  j["complete"] = r.complete;
  j["seconds"] = r.seconds;
  j["sentences_per_second"] = r.seconds > 0 ? r.decoded_now / r.seconds : 0.0;
  // For dashboards: OUT.summary.json under results/schema/run_summary.v1.schema.json.
  results::write_run_summary(
      d.out + ".summary.json",
      results::make_run_summary("decode", d.model.empty() ? d.run_dir : d.model, r.complete, j));
  if (vm["json"].as<bool>()) {
    print_json(j);
  } else {
    std::cerr << "decoded " << r.examples << " examples (" << r.decoded_now << " now) into "
              << d.out << "\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
