// `unieval decode`: decode a split with a fine-tuned run (beam search, greedy, sampling).
// Logic: pipelines/seq2seq.h (decode), models/search.h, models/search_unilm.h.
#include <iostream>
#include <string>

#include "apps/unieval/commands.h"
#include "results/run_summary.h"
#include "apps/unieval/torch/model_flags.h"
#include "core/error.h"
#include "pipelines/seq2seq.h"

namespace unieval::cli {

namespace {

const char* kUsage =
    "usage: unieval decode --run RUN --split S --out FILE [--beam K] [--length-penalty A]\n"
    "                      [--min-len N] [--max-len N] [--no-repeat-ngram N]\n"
    "                      [--sample [--top-k K] [--top-p P] [--temperature T]] [--seed S]\n"
    "                      [--batch-size N] [--device cpu|cuda] [--threads N]\n"
    "\n"
    "Decodes DATA/<split>.src (DATA = the run's data directory unless --data) with the run's latest\n"
    "checkpoint, UniLM-style incremental decoding with cached keys/values: feed the previous token\n"
    "and [MASK], cache the previous token only. Beam search keeps the K best live hypotheses,\n"
    "score = log p / len^A (len counts the [SEP] that ends it), EOS forbidden before --min-len,\n"
    "a hypothesis ends at --max-len tokens, --no-repeat-ngram 3 removes duplicated trigrams.\n"
    "--beam 1 is greedy; --sample draws tokens (top-k / top-p / temperature), seeded per example.\n"
    "Defaults come from the run's preset (run.json \"decode\"); flags override them.\n"
    "Writes FILE atomically, one detokenised hypothesis per line. Resumable: an interrupted call\n"
    "leaves FILE.partial, and the same command continues after its last complete line.\n"
    "\n"
    "example: unieval decode --run run1 --split test --beam 5 --no-repeat-ngram 3 --out run1/test.hyp";

}  // namespace

int cmd_decode(const Args& args) {
  po::options_description desc("decode options");
  desc.add_options()
      ("run", po::value<std::string>()->required(), "run directory (unieval finetune --out)")
      ("split", po::value<std::string>()->default_value("test"), "split: DATA/<split>.src")
      ("data", po::value<std::string>(), "data directory (default: the run's)")
      ("out", po::value<std::string>()->required(), "output file")
      ("batch-size", po::value<int64_t>()->default_value(32), "examples decoded together")
      ("no-clean-up", po::bool_switch(), "no HF clean_up_tokenization (pieces glued only: the references' format for QG)")
      ("no-cache", po::bool_switch(), "re-encode the whole sequence each step (reference path)")
      ("limit", po::value<int64_t>()->default_value(0), "decode only the first N examples")
      ("stop-after", po::value<int64_t>()->default_value(0), "stop after N batches, leaving FILE.partial (the same command continues it)")
      ("device", po::value<std::string>()->default_value("cpu"), "cpu | cuda | cuda:N")
      ("precision", po::value<std::string>()->default_value("auto"), "auto | fp32 | bf16 | fp16 (reduced: CUDA only)")
      ("threads", po::value<int>()->default_value(0), "CPU threads (0 = LibTorch default)")
      ("no-progress", po::bool_switch(), "no progress on stderr")
      ("json", po::bool_switch(), "print a JSON summary");
  add_search_flags(desc, "seed");
  add_segment_ids_flag(desc);
  auto vm = parse(args, desc, kUsage);

  pipelines::DecodeOptions d;
  d.run_dir = vm["run"].as<std::string>();
  d.split = vm["split"].as<std::string>();
  if (vm.count("data")) d.data_dir = vm["data"].as<std::string>();
  d.out = vm["out"].as<std::string>();
  d.search = pipelines::run_search_defaults(d.run_dir);
  apply_search_flags(vm, d.search, "seed");
  d.segment_ids = segment_ids_flag(vm);
  d.batch_size = vm["batch-size"].as<int64_t>();
  d.use_cache = !vm["no-cache"].as<bool>();
  d.clean_up = !vm["no-clean-up"].as<bool>();
  d.limit = vm["limit"].as<int64_t>();
  d.stop_after = vm["stop-after"].as<int64_t>();
  d.device.device = vm["device"].as<std::string>();
  d.device.precision = vm["precision"].as<std::string>();
  d.device.threads = vm["threads"].as<int>();
  d.progress = !vm["no-progress"].as<bool>();

  pipelines::DecodeResult r = pipelines::decode(d);
  nlohmann::ordered_json j;
  j["out"] = d.out;
  j["examples"] = r.examples;
  j["decoded_now"] = r.decoded_now;
  j["complete"] = r.complete;
  j["seconds"] = r.seconds;
  j["sentences_per_second"] = r.seconds > 0 ? r.decoded_now / r.seconds : 0.0;
  // For dashboards: OUT.summary.json under results/schema/run_summary.v1.schema.json.
  results::write_run_summary(d.out + ".summary.json", results::make_run_summary("decode", d.run_dir, r.complete, j));
  if (vm["json"].as<bool>()) {
    print_json(j);
  } else {
    std::cerr << "decoded " << r.examples << " examples (" << r.decoded_now << " now) into " << d.out << "\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
