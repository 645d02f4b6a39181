// `unieval pretrain`: unified language-model pre-training (UniLM §2.3–2.4) into a resumable run
// directory. Logic: pipelines/pretrain.h, models/training/pretrainer.h, models/training/pretrain_data.h.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "apps/unieval/commands.h"
#include "apps/unieval/torch/model_flags.h"
#include "core/error.h"
#include "pipelines/pretrain.h"
#include "results/run_summary.h"

namespace unieval::cli {

namespace {

std::string pretrain_usage() {
  return "usage: unieval pretrain --corpus FILE... --model-config config.json --vocab vocab.txt "
         "--out RUN\n"
         "                        [--objectives "
         "unified|bidirectional|left-to-right|right-to-left|seq2seq|ernie-gen]\n"
         "                        [--steps N | --tokens N] [--threads N] [options] [--resume] "
         "[--json]\n"
         "\n"
         "Pre-trains a UniLM/BERT model from scratch (UniLM §2.3-2.4). Every batch mixes the "
         "objectives\n"
         "through self-attention masks: unified = 1/3 bidirectional (segment pair + next-sentence\n"
         "prediction), 1/3 sequence-to-sequence (pair), 1/6 left-to-right, 1/6 right-to-left "
         "(single\n"
         "segments); 'bidirectional' alone is BERT's MLM + NSP. 15% of the text tokens are masked\n"
         "(80% [MASK], 10% random, 10% kept), 80% as single tokens and 20% as bigram/trigram "
         "spans.\n"
         "Segment ids follow UniLM v1 (0/1 bidirectional, 2 left-to-right, 3 right-to-left, 4/5\n"
         "seq2seq: the config needs type_vocab_size 6), or 0/1 with --segments bert.\n"
         "--objectives ernie-gen pre-trains ERNIE-GEN's way (Xiao et al. 2020 §3.1-3.3): "
         "multi-granularity\n"
         "fragments (25% of each text; lengths U(1,4) w.p. 0.4, else U(4,32)) become the target, "
         "noised\n"
         "at --noise-prob 0.05, predicted by the word-by-word and span-by-span [ATTN] flows, loss\n"
         "0.5 * word + 0.5 * span (--span-lambda), spans from a t-statistic vocabulary over the "
         "corpus;\n"
         "its checkpoints' config.json says unieval_arch ernie-gen, so finetune/run use "
         "multi-flow\n"
         "fine-tuning and infilling decoding with them.\n"
         "\n"
         "Corpus: UTF-8 text, one sentence per line, a blank line between documents (BERT's "
         "format).\n"
         "It is tokenised once into a memory-mapped shard (RUN/corpus.shard or --shard FILE, "
         "reused\n"
         "while the corpus files, vocabulary and casing are unchanged).\n"
         "RUN gets run.json, config.json, vocab.txt, log.jsonl (per step: loss, per-objective "
         "loss, NSP\n"
         "accuracy, lr, tokens) and checkpoint/ (weights, optimizer, step); RUN/checkpoint is a "
         "--model\n"
         "directory for `unieval finetune`. --resume continues a stopped run exactly.\n"
         "--tokens N sets steps = ceil(N / (batch-size * accum * max-len)).\n"
         "--resume with --steps N or --tokens N raises the run's budget (never lowers it): from "
         "its\n"
         "checkpoint's step on, also after it had finished, the run follows the learning-rate "
         "schedule of\n"
         "the raised budget (its --warmup resolved against the new total), and run.json records "
         "the\n"
         "change under \"budget_changes\". Its other training flags stay run.json's.\n"
         "--nproc N pre-trains data parallel in N local processes (Gloo on CPU, NCCL on CUDA; a "
         "step's\n"
         "--accum micro-batches are split across the ranks, so give --accum >= N; N ranks "
         "reproduce one\n"
         "process up to summation order and --resume works with any N). RANK, WORLD_SIZE, "
         "LOCAL_RANK,\n"
         "MASTER_ADDR and MASTER_PORT in the environment make this process one worker of a larger "
         "launch.\n"
         "\n"
         "example: unieval pretrain --corpus corpus.txt --model-config small.json --vocab "
         "vocab.txt --out pt1 --steps 2000";
}

}  // namespace

int cmd_pretrain(const Args& args) {
  po::options_description desc("pretrain options");
  desc.add_options()("corpus", po::value<std::vector<std::string>>()->multitoken(),
                     "corpus text files")("model-config", po::value<std::string>(),
                                          "config.json of the model to pre-train")(
      "vocab", po::value<std::string>(), "vocab.txt (WordPiece)")(
      "out", po::value<std::string>()->required(), "run directory")(
      "shard", po::value<std::string>(), "token shard file (default RUN/corpus.shard)")(
      "dropout", po::value<double>(), "hidden and attention dropout of the model")(
      "stop-after", po::value<int64_t>()->default_value(0),
      "checkpoint and stop after N steps of this call")(
      "resume", po::bool_switch(),
      "continue RUN from its checkpoint (other training flags are ignored, except --steps / "
      "--tokens, which raise the budget)")(
      "lowercase", po::bool_switch(),
      "uncased tokenizer (default: as the vocabulary: upper-case pieces mean cased)")(
      "no-lowercase", po::bool_switch(), "cased tokenizer (default: as the vocabulary)")(
      "no-progress", po::bool_switch(), "no progress on stderr")(
      "json", po::bool_switch(), "print a JSON summary (last line)");
  add_option_flags<models::PretrainOptions>(desc);  // the options' fields
  add_warmup_flag(desc, "warm-up: steps if >= 1, else a fraction of the total (default 0.05)");
  add_device_flags(desc);
  add_dist_flags(desc);
  auto vm = parse(args, desc, pretrain_usage());
  if (auto code = launch_workers_if_asked(vm, "pretrain", args)) return *code;
  const bool main_rank = is_main_rank();

  pipelines::PretrainPipelineOptions p;
  p.out_dir = vm["out"].as<std::string>();
  p.resume = vm["resume"].as<bool>();
  if (vm.count("corpus")) p.corpus = vm["corpus"].as<std::vector<std::string>>();
  if (vm.count("model-config")) {
    p.config_path = vm["model-config"].as<std::string>();
    p.config = models::BertConfig::from_json_file(p.config_path);
  }
  if (vm.count("vocab")) p.vocab = vm["vocab"].as<std::string>();
  if (vm.count("shard")) p.shard = vm["shard"].as<std::string>();
  if (vm.count("steps") && vm.count("tokens"))
    throw InputError("give at most one of --steps and --tokens");
  auto& t = p.train;
  apply_option_flags(vm, t);
  apply_warmup_flag(vm, t.warmup_steps, t.warmup_ratio);
  if (vm.count("dropout")) p.dropout = vm["dropout"].as<double>();
  if (p.resume && vm.count("tokens"))
    p.resume_tokens = t.tokens;  // a raised budget; other training flags keep run.json's
  else if (p.resume && vm.count("steps"))
    p.resume_steps = t.max_steps;
  t.stop_after = vm["stop-after"].as<int64_t>();
  t.progress = !vm["no-progress"].as<bool>() && main_rank;
  // A resumed run keeps run.json's casing; a new one follows --vocab unless a flag says.
  p.lowercase = lowercase_from_flags(vm, "", p.resume ? std::string() : p.vocab);
  p.device = device_flags(vm);

  p.backend = vm["backend"].as<std::string>();

  pipelines::PretrainPipelineResult r = pipelines::run_pretrain(p);
  if (!main_rank) return kExitOk;  // rank 0 reports
  nlohmann::ordered_json j;
  j["run"] = r.run_dir;
  j["checkpoint"] = r.run_dir + "/checkpoint";
  j["objectives"] = r.objectives;
  j["steps"] = r.train.steps_done;
  j["total_steps"] = r.train.total_steps;
  j["finished"] = r.train.finished;
  j["loss"] = r.train.last_loss;
  j["first_loss"] = r.train.first_loss;
  nlohmann::ordered_json per;
  for (const auto& [k, v] : r.train.last_objective_loss) per[k] = v;
  j["objective_loss"] = per;
  j["tokens_per_second"] = r.train.tokens_per_second;
  j["tokens_seen"] = r.train.tokens_seen;
  j["shard"] = r.shard;
  j["shard_built"] = r.shard_built;
  j["shard_seconds"] = r.shard_seconds;
  j["corpus_tokens"] = r.corpus_tokens;
  j["corpus_documents"] = r.corpus_documents;
  // For dashboards: RUN/summary.json under results/schema/run_summary.v1.schema.json.
  results::write_run_summary((std::filesystem::path(r.run_dir) / "summary.json").string(),
                             results::make_run_summary("pretrain", r.run_dir, r.train.finished, j));
  if (vm["json"].as<bool>()) {
    print_json(j);
  } else {
    std::cout << "run " << r.run_dir << ": step " << r.train.steps_done << "/"
              << r.train.total_steps
              << (r.train.finished ? " (finished)" : " (stopped; continue with --resume)")
              << ", loss " << r.train.last_loss << ", "
              << static_cast<int64_t>(r.train.tokens_per_second) << " tokens/s\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
