#pragma once
// `unieval pretrain`: corpus files → token shard (tokenised once, memory-mapped) → unified LM
// pre-training (models/training/pretrainer.h) in a resumable run directory whose RUN/checkpoint is a
// `--model` directory for `unieval finetune` / `unieval run`.
//
//   PretrainPipelineOptions p;
//   p.corpus = {"corpus.txt"};  p.config = BertConfig::from_json_file("config.json");
//   p.vocab = "vocab.txt";  p.out_dir = "run";  p.train.objectives = "unified";
//   PretrainPipelineResult r = run_pretrain(p);
//
// The shard: `shard` ("" = RUN/corpus.shard) is reused when its header records the same corpus
// files (path, size, mtime), vocabulary and lower-casing, and rebuilt otherwise (so several runs
// may share one shard). Corpus format: models/training/pretrain_shard.h (one sentence per line, blank line
// between documents).
//
// Checks (InputError → exit 2): no corpus file, an empty corpus, a corpus line that is not UTF-8
// (file:line), a vocabulary without [PAD], [UNK], [CLS], [SEP] or [MASK], a vocabulary larger than
// the model's vocab_size, segment ids beyond type_vocab_size, max_len beyond the position table,
// an existing checkpoint without --resume, --resume without one.
//
// | PretrainPipelineOptions | default | meaning                                               |
// |-------------------------|---------|-------------------------------------------------------|
// | corpus                  |         | corpus files (format above)                           |
// | config                  |         | the model shape (config.json); required unless resume  |
// | config_path             | ""      | the file config came from, named in errors about it    |
// | vocab                   |         | vocab.txt; required unless resume                      |
// | out_dir                 |         | the run directory                                     |
// | shard                   | ""      | shard path ("" = RUN/corpus.shard)                     |
// | lowercase               | true    | uncased tokeniser (`unieval pretrain`: --lowercase /   |
// |                         |         | --no-lowercase, else as the vocabulary: upper-case     |
// |                         |         | pieces mean cased; a resumed run keeps run.json's)     |
// | train                   |         | models/training/pretrainer.h options                           |
// | dropout                 | unset   | overrides hidden/attention dropout of the config       |
// | device                  | cpu     | device, threads (models/nn/device.h)                      |
// | resume                  | false   | continue RUN from its checkpoint (its run.json options) |
// | resume_steps,           | unset   | with resume: a new budget in steps, or in input        |
// | resume_tokens           |         | positions (at most one). It may only raise the budget  |
// |                         |         | (InputError otherwise): from the checkpoint's step on, |
// |                         |         | the run follows the schedule of the raised budget      |
// |                         |         | (warm-up resolved against the new total as --warmup    |
// |                         |         | says), also after it had finished; run.json gets the   |
// |                         |         | new train options and total_steps, and one             |
// |                         |         | "budget_changes" entry {at_step, total_steps_before,   |
// |                         |         | total_steps_after, steps | tokens}, written only once  |
// |                         |         | the resumed run's input checks pass. The same budget is|
// |                         |         | a plain resume                                         |
// | backend                 | ""      | process group with WORLD_SIZE > 1 (models/dist/distributed.h):|
// |                         |         | gloo / nccl; "" = nccl on CUDA, else gloo                |
//
// Data parallel (`--nproc N`, or WORLD_SIZE from a launcher): every rank checks the inputs, rank 0
// builds the shard while the others wait, every rank reads it; rank r computes the micro-batches
// j ≡ r (mod N) of each step (--accum >= N), so N ranks reproduce one process up to summation
// order and a run resumes with any N; only rank 0 writes the run directory.
#include <optional>
#include <string>
#include <vector>

#include "models/nn/config.h"
#include "models/nn/device.h"
#include "models/training/pretrainer.h"

namespace unieval::pipelines {

struct PretrainPipelineOptions {
  std::vector<std::string> corpus;           // corpus files
  std::optional<models::BertConfig> config;  // model shape
  std::string config_path;                   // the file config was read from (errors name it)
  std::string vocab;                         // vocab.txt
  std::string out_dir;                       // run directory
  std::string shard;                         // "" = RUN/corpus.shard
  bool lowercase = true;                     // uncased tokeniser
  models::PretrainOptions train;             // pre-training options
  std::optional<double> dropout;             // overrides the config's dropout
  models::DeviceOptions device;              // device, threads
  bool resume = false;                       // continue RUN
  std::optional<int64_t> resume_steps;       // with resume: raise the budget to N steps
  std::optional<int64_t> resume_tokens;      // with resume: raise it to N input positions
  std::string backend;                       // process group backend ("" = auto)
};

struct PretrainPipelineResult {
  models::PretrainResult train;
  std::string run_dir;
  std::string objectives;     // the run's (on --resume: run.json's, not the flag's default)
  std::string shard;          // the shard used
  int64_t corpus_tokens = 0;  // tokens in the shard
  int64_t corpus_documents = 0;
  bool shard_built = false;  // tokenised in this call
  double shard_seconds = 0;  // time spent building it
};

PretrainPipelineResult run_pretrain(const PretrainPipelineOptions& opts);

}  // namespace unieval::pipelines
