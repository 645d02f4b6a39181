// `unieval run`: task + checkpoint → fine-tuned, decoded, scored result in one resumable RUN.
// Logic: pipelines/run.h (stages), tasks/seq2seq_tasks.h (readers), tasks/presets.h.
#include <iostream>
#include <string>

#include "apps/unieval/commands.h"
#include "apps/unieval/torch/model_flags.h"
#include "core/error.h"
#include "pipelines/evaluate.h"
#include "pipelines/run.h"
#include "pipelines/run_gpt.h"
#include "results/report.h"
#include "tasks/diagnostics.h"
#include "tasks/presets.h"

namespace unieval::cli {

namespace {

std::string run_usage() {
  return "usage: unieval run --task T --data DIR --out RUN (--model CKPT | --model-config "
         "CONFIG.json --vocab VOCAB)\n"
         "                   [--preset NAME] [--train-split S] [--eval-split S] [--dev-split "
         "S|auto|none]\n"
         "                   [--train-limit N] [--eval-limit N] [--dev-limit N] [finetune/decode "
         "overrides] [--json]\n"
         "\n"
         "From a generation task's distributed data to a scored row, in one resumable run "
         "directory:\n"
         "  1. data    the task's reader (cnndm, gigaword, squad-qg, squad-qg-reversed, coqa-gen, "
         "dstc7,\n"
         "             personachat; see README) -> RUN/data/, the eval references -> RUN/eval/\n"
         "  2. train   fine-tune with the preset (default: the task's paper preset) -> "
         "RUN/checkpoint;\n"
         "             dev loss every --dev-every steps (default: the preset's, else once per "
         "epoch), the best\n"
         "             weights in RUN/best and optional --early-stop; everything logged in "
         "RUN/log.jsonl\n"
         "  3. decode  the eval split with RUN/best (else the last checkpoint) and the preset's "
         "decoding\n"
         "  4. score   the task's post-processing and official metric set (the adapters of "
         "`unieval eval`)\n"
         "             -> RUN/result.json (results schema; model, preset, options, data and "
         "checkpoint\n"
         "             sha256 under \"run\"), and a leaderboard row on stdout; \"diagnostics\" of "
         "the\n"
         "             hypotheses (empty, repeated words, one string everywhere, length ratio; "
         "warnings\n"
         "             on stderr and in the notes) and the baselines constant and copy-source "
         "under the\n"
         "             model's row with paired-bootstrap p-values (--no-baselines: none)\n"
         "A killed run continues from its last finished stage or step when the same command is run "
         "again;\n"
         "a finished run prints its result again. Other options for an existing RUN are refused.\n"
         "Bad input (missing split, ragged files, vocabulary vs checkpoint) exits 2 before RUN is "
         "written.\n"
         "\n"
         "Understanding tasks (glue-cola, glue-sst2, glue-mrpc, glue-stsb, glue-qqp, glue-mnli, "
         "glue-mnli-mm,\n"
         "glue-qnli, glue-rte, glue-wnli, squad-v1.1, squad-v2, coqa; pipelines/run_nlu.h): the "
         "encoder with a\n"
         "classification / regression / span head is fine-tuned, the eval split (default dev) is "
         "predicted in\n"
         "length-sorted batches, predictions are written in the official formats "
         "(RUN/eval/pred.tsv,\n"
         "predictions.json, na_prob.json) and scored by the `unieval eval` adapter; squad-v2's "
         "no-answer\n"
         "threshold is chosen on --dev-split when given, else on the eval split (official "
         "best_f1_thresh).\n"
         "Splits may be sliced for every task: --train-split dev[:436] --eval-split dev[436:].\n"
         "\n"
         "GPT (--arch gpt; pipelines/run_gpt.h): an openai-gpt checkpoint (--model DIR with "
         "vocab.json +\n"
         "merges.txt, or --vocab BPE_DIR) fine-tuned on glue-*, snli, scitail, race(-m/-h) or "
         "story-cloze\n"
         "(GPT Tables 2-4; splits below --data as in pipelines/run_gpt.h) with the input "
         "transformations of GPT\n"
         "Figure 1 (start/delimiter/extract tokens; similarity tasks both orders, summed), a "
         "linear head on\n"
         "the extract state and the auxiliary LM loss (--lm-coef, default 0.5; 0 = off), preset "
         "`gpt` (§4.1);\n"
         "--zero-shot: GPT §5's heuristics without training (glue-sst2: append \"very\", positive "
         "vs\n"
         "negative; glue-cola: average token log-probability, threshold chosen on --train-split; "
         "race*,\n"
         "story-cloze: the answer with the highest average token log-probability given the "
         "document).\n"
         "\n"
         "Data parallel: --nproc N runs N local worker processes (Gloo on CPU, NCCL on CUDA): a "
         "training step's\n"
         "--accum micro-batches are split across the ranks (give --accum >= N; the result equals "
         "one process's\n"
         "up to floating-point summation order), generation tasks decode sharded, rank 0 writes "
         "RUN, predicts\n"
         "and scores. RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT in the environment "
         "make this\n"
         "process one worker of a larger launch (torchrun, srun).\n"
         "\n"
         "presets:\n" +
         tasks::presets_help() +
         "\n"
         "example: unieval run --task squad-qg --data ../shared/data/squad_qg --train-split dev "
         "--eval-split test\n"
         "           --model-config tiny.json --vocab bert-uncased-vocab.txt --out runs/qg --json";
}

}  // namespace

namespace {

// run's flags: its own, then the derived training, understanding, text, search, device and
// process-group flags.
void add_run_flags(po::options_description& desc) {
  desc.add_options()("task", po::value<std::string>()->required(),
                     "generation or understanding task")(
      "data", po::value<std::string>()->required(), "the task's data in its distributed format")(
      "out", po::value<std::string>()->required(), "run directory")(
      "model", po::value<std::string>(), "checkpoint directory (config.json, weights, vocab.txt)")(
      "model-config", po::value<std::string>(), "config.json: train from scratch (needs --vocab)")(
      "vocab", po::value<std::string>(), "vocab.txt (default: the checkpoint's)")(
      "preset", po::value<std::string>(), "paper recipe (default: the task's)")(
      "train-split", po::value<std::string>()->default_value("train"), "split fine-tuned on")(
      "dev-split", po::value<std::string>()->default_value("auto"),
      "dev-loss split: auto (dev when present and not the train/eval split), none, or a name")(
      "eval-split", po::value<std::string>()->default_value(""),
      "split decoded and scored (default test; coqa-gen, glue-*, squad-*, coqa dev; personachat "
      "valid)")("train-limit", po::value<int64_t>()->default_value(0),
                "first N training examples (0 = all)")(
      "dev-limit", po::value<int64_t>()->default_value(0), "first N dev examples (0 = all)")(
      "eval-limit", po::value<int64_t>()->default_value(0), "first N eval examples (0 = all)")(
      "max-src-words", po::value<int>()->default_value(0),
      "reader source budget in words (coqa-gen, dstc7, personachat)")(
      "dev-every", po::value<int64_t>(),
      "dev loss every N steps (-1 = once per epoch, 0 = never; default: the "
      "preset's, else once per epoch)")(
      "early-stop", po::value<int64_t>()->default_value(0),
      "stop after N dev evaluations without a better loss (0 = off)")(
      "decode-batch", po::value<int64_t>()->default_value(32), "examples decoded together")(
      "option", po::value<std::vector<std::string>>()->composing(),
      "KEY=VALUE option of the task's eval adapter")(
      "skip-metric", po::value<std::vector<std::string>>()->composing(),
      "leave a metric of the task's set out (e.g. meteor without its resources); recorded in the "
      "notes. "
      "Resources are checked before training: a missing one is an error naming what to set")(
      "system", po::value<std::string>(), "row label (default unieval-run:PRESET)")(
      "stop-after", po::value<int64_t>()->default_value(0),
      "stop training after N steps of this call (run again to continue)")(
      "no-progress", po::bool_switch(), "no progress on stderr")(
      "json", po::bool_switch(), "print the result JSON as the last stdout line")(
      "lexicon-train", po::bool_switch(),
      "generation: every word decoded is a word of the training pairs or of its source (unieval "
      "decode --lexicon RUN/data/train.src RUN/data/train.tgt; recorded in the request)")(
      "no-baselines", po::bool_switch(),
      "score no baselines (default: generation tasks constant + copy-source, GLUE majority, "
      "SQuAD/CoQA "
      "first-window, each with a paired bootstrap of the model against it; recorded in the "
      "request)")("predict-batch", po::value<int64_t>(),
                  "understanding tasks: examples per inference batch (default 64)")(
      "arch", po::value<std::string>()->default_value(""),
      "generation: unilm | ernie-gen (multi-flow fine-tuning + infilling decoding; default preset "
      "ernie-gen-base-TASK when it exists); gpt: GPT fine-tuning / zero-shot. Default: the "
      "preset's, else the "
      "checkpoint's config.json unieval_arch, else unilm")(
      "lm-coef", po::value<double>(),
      "GPT: weight of the auxiliary LM loss (preset gpt: 0.5; 0 = off)")(
      "zero-shot", po::bool_switch(),
      "GPT: the §5 zero-shot heuristics instead of fine-tuning (glue-sst2, glue-cola)");
  add_train_flags(desc);
  add_option_flags<pipelines::NluRunOptions>(desc);  // understanding tasks
  add_text_flags(desc);
  add_search_flags(desc, "decode-seed");
  add_segment_ids_flag(desc);
  add_device_flags(desc);
  add_precision_flag(desc);
  add_dist_flags(desc);
}

}  // namespace

int cmd_run(const Args& args) {
  po::options_description desc("run options");
  add_run_flags(desc);
  auto vm = parse(args, desc, run_usage());
  if (auto code = launch_workers_if_asked(vm, "run", args)) return *code;
  const bool main_rank = is_main_rank();

  pipelines::RunOptions o;
  o.task = vm["task"].as<std::string>();
  o.data = vm["data"].as<std::string>();
  o.out = vm["out"].as<std::string>();
  o.arch = vm["arch"].as<std::string>();
  const bool gpt = o.arch == "gpt";
  std::string preset = vm.count("preset") ? vm["preset"].as<std::string>()
                       : gpt              ? std::string("gpt")
                                          : pipelines::default_preset(o.task);
  if (o.arch == "ernie-gen" && !vm.count("preset"))
    for (const char* size : {"base", "large"})
      if (tasks::find_preset(std::string("ernie-gen-") + size + "-" + o.task)) {
        preset = std::string("ernie-gen-") + size + "-" + o.task;
        break;
      }
  if (gpt) {
    const tasks::Preset* p = tasks::find_preset(preset);
    if (!p || p->task != "gpt")
      throw InputError("--arch gpt takes a GPT preset (gpt), not '" + preset + "'");
    pipelines::apply_gpt_preset(o, *p);
  } else if (!preset.empty()) {
    pipelines::apply_preset(o, preset);
  }
  if (vm.count("lm-coef")) o.lm_coef = vm["lm-coef"].as<double>();
  o.zero_shot = vm["zero-shot"].as<bool>();
  o.baselines = !vm["no-baselines"].as<bool>();
  o.lexicon_train = vm["lexicon-train"].as<bool>();
  if (vm.count("model")) o.model = vm["model"].as<std::string>();
  if (vm.count("model-config")) o.model_config = vm["model-config"].as<std::string>();
  if (vm.count("vocab")) o.vocab = vm["vocab"].as<std::string>();
  o.train_split = vm["train-split"].as<std::string>();
  o.dev_split = vm["dev-split"].as<std::string>();
  o.eval_split = vm["eval-split"].as<std::string>();
  o.train_limit = vm["train-limit"].as<int64_t>();
  o.dev_limit = vm["dev-limit"].as<int64_t>();
  o.eval_limit = vm["eval-limit"].as<int64_t>();
  o.max_src_words = vm["max-src-words"].as<int>();
  o.lowercase = lowercase_from_flags(vm, o.model, o.vocab);
  o.tokenized_input = vm["tokenized-input"].as<bool>();
  apply_train_flags(vm, o.finetune, o.dropout);
  // --dev-every, else the preset's (the from-scratch ones), else once per epoch.
  const tasks::Preset* chosen = preset.empty() ? nullptr : tasks::find_preset(preset);
  if (vm.count("dev-every"))
    o.finetune.dev_every = vm["dev-every"].as<int64_t>();
  else if (!chosen || !chosen->train.contains("dev_every"))
    o.finetune.dev_every = -1;
  o.finetune.early_stop = vm["early-stop"].as<int64_t>();
  apply_search_flags(vm, o.search, "decode-seed");
  o.segment_ids = segment_ids_flag(vm);
  o.decode_batch = vm["decode-batch"].as<int64_t>();
  if (vm.count("option"))
    for (const auto& kv : vm["option"].as<std::vector<std::string>>()) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError("--option " + kv + ": expected KEY=VALUE");
      o.eval_options[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  if (vm.count("skip-metric")) o.skip_metrics = vm["skip-metric"].as<std::vector<std::string>>();
  if (vm.count("system")) o.system = vm["system"].as<std::string>();
  o.stop_after = vm["stop-after"].as<int64_t>();
  o.device = device_flags(vm);
  o.progress = !vm["no-progress"].as<bool>() && main_rank;
  o.backend = vm["backend"].as<std::string>();
  apply_option_flags(vm, o.nlu);
  if (vm.count("predict-batch")) o.nlu.predict_batch = vm["predict-batch"].as<int64_t>();

  pipelines::RunOutcome r = pipelines::run_task(o);
  if (!main_rank) return kExitOk;  // rank 0 reports
  if (!r.finished) {
    std::cerr << "run " << o.out << ": stopped after the " << r.stage
              << " stage (--stop-after); run the same command again to continue\n";
    if (vm["json"].as<bool>()) {
      nlohmann::ordered_json j;
      j["run"] = o.out;
      j["finished"] = false;
      j["stage"] = r.stage;
      print_json(j);
    }
    return kExitOk;
  }
  results::TableOptions topt;
  topt.format = results::TableFormat::kMarkdown;
  std::cout << results::render_run_table(r.result,
                                         topt);  // the model's row, the baselines under it
  if (r.result.extra.contains("diagnostics"))
    std::cout << tasks::render_diagnostics(
        tasks::diagnostics_from_json(nlohmann::json::parse(r.result.extra["diagnostics"].dump())));
  for (const auto& w : pipelines::result_warnings(r.result)) std::cerr << "warning: " << w << "\n";
  if (r.reused)
    std::cerr << "run " << o.out << ": already finished; its result.json is printed again\n";
  if (vm["json"].as<bool>()) print_json(results::to_json(r.result));
  return kExitOk;
}

}  // namespace unieval::cli
