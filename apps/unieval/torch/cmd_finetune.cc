// `unieval finetune`: UniLM sequence-to-sequence fine-tuning into a resumable run directory.
// Logic: pipelines/seq2seq.h (finetune), models/training/trainer.h, pipelines/presets.h (tasks/presets.h).
#include <filesystem>
#include <iostream>
#include <string>

#include "apps/unieval/commands.h"
#include "apps/unieval/torch/model_flags.h"
#include "core/error.h"
#include "core/io.h"
#include "models/io/checkpoint.h"
#include "models/nn/device.h"
#include "models/training/parity_step.h"
#include "pipelines/presets.h"
#include "pipelines/seq2seq.h"
#include "results/run_summary.h"
#include "tasks/presets.h"

namespace unieval::cli {

namespace {

std::string finetune_usage() {
  return "usage: unieval finetune --task T (--model DIR | --model-config config.json) --data DIR "
         "--out RUN\n"
         "                        [--preset NAME] [--device cpu|cuda] [--threads N] [overrides] "
         "[--resume]\n"
         "\n"
         "Fine-tunes a UniLM/BERT checkpoint as a sequence-to-sequence model (UniLM §2.5): \"[CLS] "
         "S1\n"
         "[SEP] S2 [SEP]\" under the seq2seq mask, target tokens (final [SEP] included) masked "
         "with\n"
         "--mask-prob, label-smoothed cross-entropy on the masked positions, AdamW with linear "
         "warm-up\n"
         "and decay. DATA holds UniLM's line files train.src / train.tgt (dev.*, test.* for "
         "decode).\n"
         "--model DIR: config.json + model.safetensors + vocab.txt (HF layout). --model-config: "
         "train\n"
         "from scratch (vocab from --vocab or DATA/vocab.txt).\n"
         "RUN gets run.json, config.json, vocab.txt, log.jsonl and checkpoint/ (weights, "
         "optimizer,\n"
         "RNG, step); --resume continues a stopped run exactly where its last checkpoint was.\n"
         "A preset sets the paper's recipe; any flag given overrides it.\n"
         "--arch ernie-gen trains ERNIE-GEN's way (Xiao et al. 2020 §3): the target noised at "
         "--noise-prob\n"
         "feeds the contextual flow, [ATTN] symbols in a word-by-word flow (and with --span-lambda "
         "< 1 a\n"
         "span-by-span flow over a t-statistic span vocabulary) predict every target word; decode "
         "then\n"
         "uses infilling decoding. Without --arch or a preset naming one, the checkpoint's "
         "config.json\n"
         "\"unieval_arch\" decides (else unilm).\n"
         "--nproc N trains data parallel in N local processes (Gloo; the global batch is --accum\n"
         "micro-batches, split across ranks: give --accum >= N); RANK/WORLD_SIZE/MASTER_ADDR/\n"
         "MASTER_PORT in the environment make this process one worker of a larger launch.\n"
         "\n"
         "presets (UniLM §3, ERNIE-GEN Table 1):\n" +
         tasks::presets_help() +
         "\n"
         "--parity-dump BATCH.json --model CKPT --out DIR: one step on a given batch, for parity "
         "checks\n"
         "(unieval finetune --parity-dump --help).\n"
         "\n"
         "example: unieval finetune --task gigaword --preset gigaword --model unilm-base --data "
         "gigaword --out run1";
}

std::string parity_usage() {
  return "usage: unieval finetune --parity-dump BATCH.json --model CKPT --out DIR [--device "
         "cpu|cuda] [--threads N]\n"
         "\n"
         "One training step of the masked-LM objective on a batch given in full (input ids, "
         "segments, the\n"
         "attention mask, masked positions and labels, and the step's options: loss unilm|ours, "
         "label\n"
         "smoothing, lr and schedule, BertAdam-style per-parameter or global clipping, steps), "
         "for\n"
         "comparing with the official code (models/training/parity_step.h has the file format). "
         "Writes\n"
         "DIR/parity.json (per step: lr, loss, loss_unilm, loss_ours, gradient norm per parameter "
         "before\n"
         "clipping) and DIR/model.safetensors (the updated weights).";
}

// `finetune --parity-dump`: its own flags (no task, data or run directory).
int finetune_parity_dump(const Args& args) {
  po::options_description desc("finetune --parity-dump options");
  desc.add_options()("parity-dump", po::value<std::string>()->required(),
                     "batch JSON (models/training/parity_step.h)")(
      "model", po::value<std::string>()->required(),
      "checkpoint: directory, .safetensors or .bin (with config.json)")(
      "out", po::value<std::string>()->required(),
      "directory for parity.json and model.safetensors");
  add_device_flags(desc);
  auto vm = parse(args, desc, parity_usage());
  const std::string batch_path = vm["parity-dump"].as<std::string>();
  models::ParityStepOptions o;
  nlohmann::json batch_json;
  try {
    batch_json = nlohmann::json::parse(core::read_file(batch_path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(batch_path, 0, std::string("not JSON: ") + e.what());
  }
  const models::ParityBatch batch = models::parity_batch_from_json(batch_json, batch_path, &o);
  models::DeviceOptions dev = device_flags(vm);
  dev.precision = "fp32";
  const models::Runtime rt = models::configure_runtime(dev);
  models::UnilmModel model = models::load_checkpoint(vm["model"].as<std::string>());
  model->to(rt.device);
  const auto steps = models::parity_step(model, batch, o);
  const std::filesystem::path out = vm["out"].as<std::string>();
  std::filesystem::create_directories(out);
  core::write_file_atomic((out / "parity.json").string(),
                          models::parity_report_json(o, steps).dump(2) + "\n");
  models::save_weights(*model, (out / "model.safetensors").string());
  for (const auto& s : steps)
    std::cout << "parity: step " << s.step << " lr " << s.lr << " loss " << s.loss << " (unilm "
              << s.loss_unilm << ", ours " << s.loss_ours << ") grad_norm " << s.grad_norm << "\n";
  std::cout << "wrote " << (out / "parity.json").string() << " and "
            << (out / "model.safetensors").string() << "\n";
  return 0;
}

}  // namespace

int cmd_finetune(const Args& args) {
  for (const auto& a : args)
    if (a == "--parity-dump" || a.rfind("--parity-dump=", 0) == 0)
      return finetune_parity_dump(args);
  po::options_description desc("finetune options");
  desc.add_options()("task", po::value<std::string>()->default_value(""),
                     "task name (recorded; e.g. gigaword)")(
      "model", po::value<std::string>(),
      "checkpoint directory (config.json, model.safetensors, vocab.txt)")(
      "model-config", po::value<std::string>(), "config.json: train from scratch instead")(
      "vocab", po::value<std::string>(), "vocab.txt (default: MODEL/vocab.txt or DATA/vocab.txt)")(
      "data", po::value<std::string>(), "data directory with train.src / train.tgt")(
      "out", po::value<std::string>()->required(), "run directory")(
      "preset", po::value<std::string>(), "paper recipe by name (see above)")(
      "resume", po::bool_switch(),
      "continue RUN from its checkpoint (other training flags are ignored)")(
      "arch", po::value<std::string>(),
      "unilm (target masking) | ernie-gen (multi-flow: [ATTN] infilling flows, noised target, loss "
      "at every "
      "target word; decoding then infills). Default: the preset's, else the checkpoint's, else "
      "unilm")("stop-after", po::value<int64_t>()->default_value(0),
               "checkpoint and stop after N steps of this call")(
      "limit", po::value<int64_t>()->default_value(0), "use only the first N training examples")(
      "no-progress", po::bool_switch(), "no progress bar")("json", po::bool_switch(),
                                                           "print a JSON summary");
  add_train_flags(desc);
  add_text_flags(desc);
  add_segment_ids_flag(desc);
  add_device_flags(desc);
  add_precision_flag(desc);
  add_dist_flags(desc);
  auto vm = parse(args, desc, finetune_usage());
  if (auto code = launch_workers_if_asked(vm, "finetune", args)) return *code;
  const bool main_rank = is_main_rank();

  pipelines::FinetuneOptions f;
  f.task = vm["task"].as<std::string>();
  f.out_dir = vm["out"].as<std::string>();
  f.resume = vm["resume"].as<bool>();
  if (!f.resume) {
    if (vm.count("preset")) {
      const tasks::Preset* data = tasks::find_preset(vm["preset"].as<std::string>());
      if (!data)
        throw InputError("unknown --preset '" + vm["preset"].as<std::string>() + "' (see --help)");
      if (!data->seq2seq)
        throw InputError("--preset " + data->name +
                         " is an NLU recipe; finetune trains seq2seq tasks");
      const pipelines::ModelPreset p = pipelines::resolve_preset(*data);
      f.preset = data->name;
      f.train = p.train;
      f.decode = p.decode;
      f.dropout = p.dropout;
      f.arch_given = data->train.contains("arch");
      if (f.task.empty()) f.task = data->task;
    }
    if (vm.count("model") == vm.count("model-config"))
      throw InputError("give exactly one of --model DIR and --model-config FILE");
    if (!vm.count("data")) throw InputError("--data is required");
  }
  if (vm.count("model")) f.model_dir = vm["model"].as<std::string>();
  if (vm.count("model-config")) {
    f.config_path = vm["model-config"].as<std::string>();
    f.config = models::BertConfig::from_json_file(f.config_path);
  }
  if (vm.count("vocab")) f.vocab = vm["vocab"].as<std::string>();
  if (vm.count("data")) f.data_dir = vm["data"].as<std::string>();
  f.tokenized_input = vm["tokenized-input"].as<bool>();
  if (!f.resume)
    f.lowercase = lowercase_from_flags(vm, f.model_dir, f.vocab);  // (a resumed run: run.json's)
  auto& t = f.train;
  apply_train_flags(vm, t, f.dropout);
  if (vm.count("arch")) {
    apply_arch_flag(vm["arch"].as<std::string>(), t);
    f.arch_given = true;
  }
  f.segment_ids = segment_ids_flag(vm);
  t.stop_after = vm["stop-after"].as<int64_t>();
  t.progress = !vm["no-progress"].as<bool>() && main_rank;
  f.limit = vm["limit"].as<int64_t>();
  f.device = device_flags(vm);
  f.backend = vm["backend"].as<std::string>();

  pipelines::FinetuneResult r = pipelines::finetune(f);
  if (!main_rank) return kExitOk;  // rank 0 reports and writes
  nlohmann::ordered_json j;
  j["run"] = r.run_dir;
  j["examples"] = r.examples;
  j["steps"] = r.train.steps_done;
  j["total_steps"] = r.train.total_steps;
  j["finished"] = r.train.finished;
  j["first_loss"] = r.train.first_loss;
  j["last_loss"] = r.train.last_loss;
  j["tokens_per_second"] = r.train.tokens_per_second;
  // For dashboards: RUN/summary.json under results/schema/run_summary.v1.schema.json.
  results::write_run_summary((std::filesystem::path(r.run_dir) / "summary.json").string(),
                             results::make_run_summary("finetune", r.run_dir, r.train.finished, j));
  if (vm["json"].as<bool>()) {
    print_json(j);
  } else {
    std::cout << "run " << r.run_dir << ": step " << r.train.steps_done << "/"
              << r.train.total_steps
              << (r.train.finished ? " (finished)" : " (stopped; continue with --resume)")
              << ", loss " << r.train.last_loss << "\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
