// `unieval pretrain`: unified language-model pre-training (UniLM §2.3–2.4) into a resumable run
// directory. Logic: pipelines/pretrain.h, models/training/pretrainer.h, models/training/pretrain_data.h.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "apps/unieval/commands.h"
#include "apps/unieval/torch/model_flags.h"
#include "results/run_summary.h"
#include "core/error.h"
#include "pipelines/pretrain.h"

namespace unieval::cli {

namespace {

std::string pretrain_usage() {
  return "usage: unieval pretrain --corpus FILE... --model-config config.json --vocab vocab.txt --out RUN\n"
         "                        [--objectives unified|bidirectional|left-to-right|right-to-left|seq2seq|ernie-gen]\n"
         "                        [--steps N | --tokens N] [--threads N] [options] [--resume] [--json]\n"
         "\n"
         "Pre-trains a UniLM/BERT model from scratch (UniLM §2.3-2.4). Every batch mixes the objectives\n"
         "through self-attention masks: unified = 1/3 bidirectional (segment pair + next-sentence\n"
         "prediction), 1/3 sequence-to-sequence (pair), 1/6 left-to-right, 1/6 right-to-left (single\n"
         "segments); 'bidirectional' alone is BERT's MLM + NSP. 15% of the text tokens are masked\n"
         "(80% [MASK], 10% random, 10% kept), 80% as single tokens and 20% as bigram/trigram spans.\n"
         "Segment ids follow UniLM v1 (0/1 bidirectional, 2 left-to-right, 3 right-to-left, 4/5\n"
         "seq2seq: the config needs type_vocab_size 6), or 0/1 with --segments bert.\n"
         "--objectives ernie-gen pre-trains ERNIE-GEN's way (Xiao et al. 2020 §3.1-3.3): multi-granularity\n"
         "fragments (25% of each text; lengths U(1,4) w.p. 0.4, else U(4,32)) become the target, noised\n"
         "at --noise-prob 0.05, predicted by the word-by-word and span-by-span [ATTN] flows, loss\n"
         "0.5 * word + 0.5 * span (--span-lambda), spans from a t-statistic vocabulary over the corpus;\n"
         "its checkpoints' config.json says unieval_arch ernie-gen, so finetune/run use multi-flow\n"
         "fine-tuning and infilling decoding with them.\n"
         "\n"
         "Corpus: UTF-8 text, one sentence per line, a blank line between documents (BERT's format).\n"
         "It is tokenised once into a memory-mapped shard (RUN/corpus.shard or --shard FILE, reused\n"
         "while the corpus files, vocabulary and casing are unchanged).\n"
         "RUN gets run.json, config.json, vocab.txt, log.jsonl (per step: loss, per-objective loss, NSP\n"
         "accuracy, lr, tokens) and checkpoint/ (weights, optimizer, step); RUN/checkpoint is a --model\n"
         "directory for `unieval finetune`. --resume continues a stopped run exactly.\n"
         "--tokens N sets steps = ceil(N / (batch-size * accum * max-len)).\n"
         "--nproc N pre-trains data parallel in N local processes (Gloo on CPU, NCCL on CUDA; a step's\n"
         "--accum micro-batches are split across the ranks, so give --accum >= N; N ranks reproduce one\n"
         "process up to summation order and --resume works with any N). RANK, WORLD_SIZE, LOCAL_RANK,\n"
         "MASTER_ADDR and MASTER_PORT in the environment make this process one worker of a larger launch.\n"
         "\n"
         "example: unieval pretrain --corpus corpus.txt --model-config small.json --vocab vocab.txt --out pt1 --steps 2000";
}

}  // namespace

int cmd_pretrain(const Args& args) {
  po::options_description desc("pretrain options");
  desc.add_options()
      ("corpus", po::value<std::vector<std::string>>()->multitoken(), "corpus text files")
      ("model-config", po::value<std::string>(), "config.json of the model to pre-train")
      ("vocab", po::value<std::string>(), "vocab.txt (WordPiece)")
      ("out", po::value<std::string>()->required(), "run directory")
      ("shard", po::value<std::string>(), "token shard file (default RUN/corpus.shard)")
      ("objectives", po::value<std::string>(),
       "unified | bidirectional | left-to-right | right-to-left | seq2seq | ernie-gen (multi-granularity fragments, "
       "multi-flow loss)")
      ("noise-prob", po::value<double>(), "ernie-gen: noising rate rho_p of the target (default 0.05)")
      ("span-lambda", po::value<double>(), "ernie-gen: lambda of Eq. 7, weight of the word-by-word flow (default 0.5; 1 = no span flow)")
      ("span-bigrams", po::value<int64_t>(), "ernie-gen: bigrams of the t-statistic span vocabulary (default 200000)")
      ("span-trigrams", po::value<int64_t>(), "ernie-gen: trigrams of the span vocabulary (default 50000)")
      ("fragment-ratio", po::value<double>(), "ernie-gen: gamma, target fragments' share of the text (default 0.25)")
      ("steps", po::value<int64_t>(), "optimizer steps (default 1000)")
      ("tokens", po::value<int64_t>(), "budget in input positions (sets the steps)")
      ("batch-size", po::value<int64_t>(), "examples per micro-batch (default 48)")
      ("accum", po::value<int64_t>(), "micro-batches per step (default 1)")
      ("max-len", po::value<int64_t>(), "tokens per example incl. [CLS]/[SEP] (default 128)")
      ("lr", po::value<double>(), "peak learning rate (default 1e-4)")
      ("warmup", po::value<double>(), "warm-up: steps if >= 1, else a fraction of the total (default 0.05)")
      ("weight-decay", po::value<double>(), "weight decay (default 0.01)")
      ("max-grad-norm", po::value<double>(), "gradient clipping (<= 0 off; default 1)")
      ("skip-nonfinite", po::bool_switch(),
       "a step whose loss or gradient norm is NaN/inf is skipped (logged); without it training stops with "
       "an error and the last checkpoint intact")
      ("mask-prob", po::value<double>(), "fraction of text tokens masked (default 0.15)")
      ("max-pred", po::value<int64_t>(), "masked positions per example cap (default 20)")
      ("span-prob", po::value<double>(), "bigram/trigram mask spans (default 0.2)")
      ("short-seq-prob", po::value<double>(), "shorter examples (default 0.1)")
      ("nsp-random-prob", po::value<double>(), "random-next pairs of the NSP task (default 0.5)")
      ("segments", po::value<std::string>(), "unilm (ids 0-5) | bert (0/1)")
      ("dropout", po::value<double>(), "hidden and attention dropout of the model")
      ("seed", po::value<uint64_t>(), "seed (default 42)")
      ("save-every", po::value<int64_t>(), "checkpoint every N steps (default 200)")
      ("log-every", po::value<int64_t>(), "log every N steps (default 1)")
      ("stop-after", po::value<int64_t>()->default_value(0), "checkpoint and stop after N steps of this call")
      ("resume", po::bool_switch(), "continue RUN from its checkpoint (other training flags are ignored)")
      ("no-lowercase", po::bool_switch(), "cased tokenizer")
      ("device", po::value<std::string>()->default_value("cpu"), "cpu | cuda | cuda:N")
      ("threads", po::value<int>()->default_value(0), "CPU threads (0 = LibTorch default)")
      ("no-progress", po::bool_switch(), "no progress on stderr")
      ("json", po::bool_switch(), "print a JSON summary (last line)");
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
  if (vm.count("steps") && vm.count("tokens")) throw InputError("give at most one of --steps and --tokens");
  auto& t = p.train;
  if (vm.count("objectives")) t.objectives = vm["objectives"].as<std::string>();
  if (vm.count("steps")) t.max_steps = vm["steps"].as<int64_t>();
  if (vm.count("tokens")) t.tokens = vm["tokens"].as<int64_t>();
  if (vm.count("batch-size")) t.batch_size = vm["batch-size"].as<int64_t>();
  if (vm.count("accum")) t.accum = vm["accum"].as<int64_t>();
  if (vm.count("max-len")) t.data.max_len = vm["max-len"].as<int64_t>();
  if (vm.count("lr")) t.optim.lr = vm["lr"].as<double>();
  if (vm.count("warmup")) {
    const double w = vm["warmup"].as<double>();
    if (w < 0) throw InputError("--warmup must be >= 0");
    if (w >= 1) t.warmup_steps = static_cast<int64_t>(w);
    else t.warmup_steps = -1, t.warmup_ratio = w;
  }
  if (vm.count("weight-decay")) t.optim.weight_decay = vm["weight-decay"].as<double>();
  if (vm.count("max-grad-norm")) t.max_grad_norm = vm["max-grad-norm"].as<double>();
  if (vm["skip-nonfinite"].as<bool>()) t.skip_nonfinite = true;
  if (vm.count("mask-prob")) t.data.mask_prob = vm["mask-prob"].as<double>();
  if (vm.count("noise-prob")) t.ernie.noise_prob = vm["noise-prob"].as<double>();
  if (vm.count("span-lambda")) t.ernie.lambda = vm["span-lambda"].as<double>();
  if (vm.count("span-bigrams")) t.ernie.top_bigrams = vm["span-bigrams"].as<int64_t>();
  if (vm.count("span-trigrams")) t.ernie.top_trigrams = vm["span-trigrams"].as<int64_t>();
  if (vm.count("fragment-ratio")) t.ernie.fragment_ratio = vm["fragment-ratio"].as<double>();
  if (vm.count("max-pred")) t.data.max_pred = vm["max-pred"].as<int64_t>();
  if (vm.count("span-prob")) t.data.span_prob = vm["span-prob"].as<double>();
  if (vm.count("short-seq-prob")) t.data.short_seq_prob = vm["short-seq-prob"].as<double>();
  if (vm.count("nsp-random-prob")) t.data.nsp_random_prob = vm["nsp-random-prob"].as<double>();
  if (vm.count("segments")) t.data.segments = vm["segments"].as<std::string>();
  if (vm.count("dropout")) p.dropout = vm["dropout"].as<double>();
  if (vm.count("seed")) t.seed = vm["seed"].as<uint64_t>();
  if (vm.count("save-every")) t.save_every = vm["save-every"].as<int64_t>();
  if (vm.count("log-every")) t.log_every = vm["log-every"].as<int64_t>();
  t.stop_after = vm["stop-after"].as<int64_t>();
  t.progress = !vm["no-progress"].as<bool>() && main_rank;
  p.lowercase = !vm["no-lowercase"].as<bool>();
  p.device.device = vm["device"].as<std::string>();
  p.device.threads = vm["threads"].as<int>();

  p.backend = vm["backend"].as<std::string>();

  pipelines::PretrainPipelineResult r = pipelines::run_pretrain(p);
  if (!main_rank) return kExitOk;  // rank 0 reports
  nlohmann::ordered_json j;
  j["run"] = r.run_dir;
  j["checkpoint"] = r.run_dir + "/checkpoint";
  j["objectives"] = p.resume ? nlohmann::ordered_json() : nlohmann::ordered_json(t.objectives);
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
    std::cout << "run " << r.run_dir << ": step " << r.train.steps_done << "/" << r.train.total_steps
              << (r.train.finished ? " (finished)" : " (stopped; continue with --resume)") << ", loss "
              << r.train.last_loss << ", " << static_cast<int64_t>(r.train.tokens_per_second) << " tokens/s\n";
  }
  return kExitOk;
}

}  // namespace unieval::cli
