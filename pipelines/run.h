#pragma once
// `unieval run`: from a task's distributed data and a checkpoint (or a config, from scratch) to a
// scored result, in one resumable run directory.
//
//   RunOptions o;  o.task = "squad-qg";  o.data = "squad_qg/";  o.out = "runs/qg";
//   o.model = "unilm1-base-cased";                 // or o.model_config + o.vocab
//   o.preset = "squad-qg";                         // "" = the task's paper preset
//   RunOutcome r = run_task(o);                    // r.result is RUN/result.json
//
// Stages, each resumable (a killed run continues from the last finished stage / step):
//   1. data    the task's reader (tasks/seq2seq_tasks.h) → RUN/data/{train,dev,eval}.{src,tgt},
//              the resources of the task's metric set checked first
//              (pipelines::check_eval_resources: METEOR data, paraphrase table; `--skip-metric` is
//              the opt-out), so that a long run never fails at scoring; the eval split's references
//              in the adapter's format → RUN/eval/, RUN/data/ manifest.json (files read + sha256,
//              reader description). Everything is read and checked (splits present, files aligned,
//              vocabulary vs model) before RUN is written.
//   2. train   pipelines::finetune into RUN (run.json, checkpoint/, log.jsonl); with a dev split,
//              the dev loss every dev_every steps, RUN/best = the best-dev-loss weights, optional
//              early stopping (models/training/trainer.h); a checkpoint that is not finished is resumed.
//   3. decode  pipelines::decode of RUN/data/eval.src with RUN/best (else RUN/checkpoint), the
//              preset's decoding, WordPiece pieces glued without HF clean-up → RUN/eval/hyp.txt
//              (resumable through hyp.txt.partial).
//   4. score   tasks::postprocess_hypothesis + the task's prediction format → RUN/eval/pred.*,
//              pipelines::evaluate (the adapters of `unieval eval`) → RUN/result.json (atomic),
//              the results schema plus "run": model, preset, every option, data files and
//              checkpoint sha256, training summary, empty hypotheses (a count; the diagnostics'
//              warning states them); and
//              RUN/curves.svg, the training curves of log.jsonl (results/curves.h).
//              The result's "diagnostics" (tasks/diagnostics.h, from pipelines::evaluate) say
//              what the hypotheses look like; their warnings are notes.
//              Baselines (unless --no-baselines), written under RUN/baselines/NAME/ in the
//              task's prediction format and scored by the same adapter and metric set:
//                constant     the most frequent target of the training split (ties: the first
//                             to occur), for every example
//                copy-source  the first N whitespace words of each eval source, N = the median
//                             word count of the training targets (rounded; [X_SEP] not counted)
//              each with a paired bootstrap of the model against it (kBaselineResamples, the
//              run's seed; pipelines::evaluate_baselines) → the result's "baselines"; a baseline
//              the model does not beat at p < 0.05 is a note (pipelines::baseline_warnings).
//              Understanding tasks (run_nlu.h): "majority" (GLUE; STS-B the mean training
//              score) and "first-window" (SQuAD, CoQA).
// RUN/request.json holds the options that define the run; a later call with other options is
// an InputError naming the first differing key (device, threads and progress may change). A
// finished run re-run returns its result.json unchanged.
//
// | RunOptions field | default | meaning                                                       |
// |------------------|---------|---------------------------------------------------------------|
// | task, data, out  |         | task key, its data (distributed format), the run directory    |
// | model            | ""      | checkpoint directory (HF layout)                               |
// | model_config     | ""      | config.json: train from scratch (needs vocab)                  |
// | vocab            | ""      | vocab.txt (default: the checkpoint's)                          |
// | preset           | ""      | paper recipe; "" = default_preset(task)                        |
// | train_split      | train   | split fine-tuned on                                            |
// | dev_split        | "auto"  | dev loss split; auto = "dev" when present and not the train or |
// |                  |         | eval split; "" / "none" = no dev loss                          |
// | eval_split       | test    | split decoded and scored                                       |
// | train_limit, dev_limit, eval_limit | 0 | > 0: first N examples of the split           |
// | max_src_words    | 0       | reader source budget in words (0 = task default)               |
// | finetune         |         | training options after the preset and the overrides            |
// | search           |         | decoding options after the preset and the overrides            |
// | decode_batch     | 32      | examples decoded together                                      |
// | backend          | ""      | data parallel (WORLD_SIZE > 1): gloo / nccl ("" = auto)        |
// | system           | ""      | row label ("" = "unieval-run:" + preset)                        |
// | eval_options     | {}      | extra `--option` values of the task adapter (meteor_data, ...) |
// | skip_metrics     | {}      | metrics of the task's set left out (`--skip-metric meteor`)    |
// | stop_after       | 0       | > 0: stop training after N steps of this call (resume later)   |
// | segment_ids      | unset   | --segment-ids S,T (unset: the checkpoint family's, 4,5 for      |
// |                  |         | UniLM v1); request.json "segment_ids" when set                  |
// | nlu              |         | understanding tasks: featurisation, answers (nlu_options.h)    |
// | arch             | ""      | "gpt": GPT fine-tuning / zero-shot (pipelines/run_gpt.h);       |
// |                  |         | "ernie-gen": ERNIE-GEN multi-flow fine-tuning + infilling       |
// |                  |         | decoding (models/training/ernie_gen.h); "" / "unilm" / "bert": UniLM     |
// | lm_coef          | 0.5     | GPT: λ of the auxiliary LM loss (0 = off)                       |
// | zero_shot        | false   | GPT: the §5 heuristics instead of fine-tuning                   |
// | baselines        | true    | score the suite's baselines after the model (below); false =    |
// |                  |         | --no-baselines, request.json "baselines": false (absent = on)   |
//
// Data parallel (`--nproc N` or WORLD_SIZE; pipelines/run_common.h RunRanks): every rank reads and
// checks the data, rank 0 writes RUN; training is split across the ranks (a step's --accum
// micro-batches, --accum >= N), the generation tasks decode sharded and rank 0 merges; rank 0
// predicts and scores. The result equals the one-process run's up to floating-point summation
// order in training.
//
// Understanding tasks (glue-*, squad-v1.1, squad-v2, coqa) are another family
// (pipelines/run_nlu.h): heads instead of decoding, split slicing such as dev[:436]; --arch gpt a
// third (pipelines/run_gpt.h). tasks/task_spec.h says which family runs a task; every family goes
// through the same stages, in pipelines/run_driver.h, and writes the same provenance.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/decoding/search.h"
#include "models/nn/device.h"
#include "models/training/trainer.h"
#include "pipelines/nlu_options.h"
#include "results/run_result.h"

namespace unieval::pipelines {

struct RunOptions {
  std::string task;                   // task key
  std::string data;                   // dataset folder/file in its distributed format
  std::string out;                    // the run directory
  std::string model;                  // checkpoint directory ("" with model_config)
  std::string model_config;           // config.json to train from scratch
  std::string vocab;                  // vocab.txt ("" = the checkpoint's)
  std::string preset;                 // "" = default_preset(task)
  std::string train_split = "train";  // fine-tuning split
  std::string dev_split = "auto";     // dev-loss split (auto / none / a name)
  std::string eval_split;             // decoded and scored split ("" = the task's)
  int64_t train_limit = 0;            // > 0: first N training examples
  int64_t dev_limit = 0;              // > 0: first N dev examples
  int64_t eval_limit = 0;             // > 0: first N eval examples
  int max_src_words = 0;              // reader source budget (0 = task default)
  bool lowercase = true;              // uncased tokenizer
  bool tokenized_input = false;       // seq2seq: lines are WordPiece pieces joined by spaces
                                      // (UniLM --tokenized_input); in request.json when set
  models::TrainOptions finetune;      // preset + overrides
  models::SearchOptions search;       // preset + overrides
  std::optional<double> dropout;      // model dropout (preset / override)
  models::DeviceOptions device;       // device, threads (not part of the request)
  std::string backend;                // process group with WORLD_SIZE > 1 ("" = auto; not
                                      // part of the request: a run resumes with any N)
  int64_t decode_batch = 32;          // decode batch size
  std::string system;                 // row label ("" = derived)
  std::map<std::string, std::string> eval_options;  // adapter options
  std::vector<std::string> skip_metrics;            // metrics of the task's set left out on request
  int64_t stop_after = 0;                           // stop training after N steps of this call
  std::optional<std::pair<int64_t, int64_t>> segment_ids;  // source/target segment ids (unset: the
      // checkpoint family's); in request.json when set
  bool progress = true;        // progress on stderr
  NluRunOptions nlu;           // understanding tasks (pipelines/run_nlu.h)
  std::string arch;            // "" (the preset's / checkpoint's), "unilm", "ernie-gen"
                               // or "gpt" (run_gpt.h)
  double lm_coef = 0.5;        // GPT: auxiliary LM weight λ (GPT §3.2 eq. 3)
  bool zero_shot = false;      // GPT: §5 zero-shot heuristics, no training
  bool baselines = true;       // score the suite's baselines after the model
                               // (--no-baselines; request.json "baselines": false)
  bool lexicon_train = false;  // seq2seq: decode with the training pairs' words as the lexicon
                               // (DecodeOptions::lexicon = RUN/data/train.src, train.tgt;
                               // --lexicon-train; request.json "lexicon": "train")
};

struct RunOutcome {
  results::RunResult result;  // RUN/result.json
  bool finished = false;      // false: stopped by stop_after (re-run to continue)
  bool reused = false;        // the run was already finished: result.json read back
  std::string stage;          // the last stage run: data, train, decode, score
};

// The paper preset a task uses by default: its name, or "" when none.
std::string default_preset(const std::string& task);
// Fills o.finetune / o.search / o.dropout from a preset (InputError when unknown or not seq2seq).
void apply_preset(RunOptions& o, const std::string& name);

RunOutcome run_task(const RunOptions& opts);

// The JSON of the options that define a run (what RUN/request.json holds).
nlohmann::ordered_json run_request(const RunOptions& o);

}  // namespace unieval::pipelines
