// Follows UniLM (MIT) and ERNIE-GEN (Apache-2.0) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "tasks/presets.h"

#include <cstdio>

namespace unieval::tasks {

namespace {

// One UniLM sequence-to-sequence recipe (§3): the paper's values by name.
struct UnilmRecipe {
  std::string name;                   // --preset value
  std::string task;                   // task adapter
  std::string source;                 // paper section
  int64_t epochs = 0;                 // training epochs
  int64_t batch = 0;                  // examples per optimizer step
  int max_len = 0;                    // "maximum length" L (source + target + 3)
  int max_src = 0;                    // source limit S
  double mask_prob = 0.7;             // target masking rate
  double label_smoothing = 0.1;       // label smoothing eps
  double lr = 3e-5;                   // learning rate
  int beam = 1;                       // beam size
  int decode_max_len = 32;            // generated tokens
  std::vector<std::string> unstated;  // values the paper does not give
  std::string note;                   // remarks
};

// UniLM fine-tuning "reuses most hyper-parameters from pre-training" (§3.1): Adam β (0.9, 0.999),
// lr 3e-5, dropout 0.1, weight decay 0.01 (§2.4). Warm-up for fine-tuning is not given.
Preset unilm(UnilmRecipe r) {
  Preset p;
  p.name = r.name;
  p.task = r.task;
  p.source = r.source;
  p.train["optimizer"] = "adamw";
  p.train["lr"] = r.lr;
  p.train["beta1"] = 0.9;
  p.train["beta2"] = 0.999;
  p.train["weight_decay"] = 0.01;
  p.train["epochs"] = r.epochs;
  p.train["batch_size"] = r.batch;
  p.train["batch_tokens"] = r.batch * r.max_len;
  p.train["warmup_ratio"] = 0.1;
  p.train["label_smoothing"] = r.label_smoothing;
  // Not in the paper; what produced its numbers (microsoft/unilm unilm-v1 run_seq2seq.py): the
  // KL form of label smoothing (LabelSmoothingLoss) and BertAdam's per-parameter clipping.
  p.train["smoothing"] = "unilm";
  p.train["clip"] = "per_parameter";
  p.train["max_src_len"] = r.max_src;
  p.train["max_tgt_len"] = r.max_len - r.max_src - 3;
  p.train["mask_prob"] = r.mask_prob;
  p.decode["beam"] = r.beam;
  p.decode["no_repeat_ngram"] = r.task == "cnndm" || r.task == "gigaword" ? 3 : 0;
  p.decode["max_len"] = r.decode_max_len;
  p.decode_source = r.source + " (beam size, maximum length; no official decode command)";
  p.dropout = 0.1;
  r.unstated.push_back("warmup_ratio");
  r.unstated.push_back("max_grad_norm");
  p.unstated = std::move(r.unstated);
  p.note = std::move(r.note);
  return p;
}

// One ERNIE-GEN fine-tuning recipe: a row of Table 1 (BASE or LARGE).
struct ErnieRecipe {
  std::string name;              // --preset value
  std::string task;              // task adapter
  std::string size;              // "BASE" | "LARGE"
  int64_t epochs = 0;            // training epochs
  double lr = 0;                 // learning rate
  double noise = 0;              // noising rate rho_f
  double dropout = 0.1;          // hidden/attention dropout
  int64_t batch = 0;             // examples per optimizer step
  double label_smoothing = 0.1;  // label smoothing eps
  int beam = 1;                  // beam size
  int max_src = 0;               // source tokens kept
  int max_tgt = 0;               // target tokens kept
  int decode_max_len = 32;       // generated tokens
};

// ERNIE-GEN Table 1 (fine-tuning) + §4.1 (Adam β 0.9/0.999, ε 1e-9, linear decay).
Preset ernie(const ErnieRecipe& r) {
  Preset p;
  p.name = r.name;
  p.task = r.task;
  p.source = "ERNIE-GEN Table 1 (" + r.size + ")";
  p.train["optimizer"] = "adamw";
  p.train["lr"] = r.lr;
  p.train["eps"] = 1e-9;
  p.train["weight_decay"] = 0.01;
  p.train["epochs"] = r.epochs;
  p.train["batch_size"] = r.batch;
  p.train["batch_tokens"] = r.batch * (r.max_src + r.max_tgt + 3);
  p.train["warmup_ratio"] = 0.1;
  p.train["label_smoothing"] = r.label_smoothing;
  p.train["max_src_len"] = r.max_src;
  p.train["max_tgt_len"] = r.max_tgt;
  p.train["arch"] = "ernie-gen";
  p.train["noise_prob"] = r.noise;
  // Not in the paper; what produced its numbers (PaddlePaddle/ERNIE `repro`, the released configs'
  // random_noise): each target position, [SEP] included, noised with probability rho.
  p.train["noise_rule"] = "per_position";
  p.train["span_lambda"] = 1.0;
  p.decode["beam"] = r.beam;
  p.decode["max_len"] = r.decode_max_len;
  p.decode_source = "ERNIE-GEN Table 1 (beam size)";
  p.dropout = r.dropout;
  p.unstated = {"warmup_ratio", "weight_decay",   "max_src_len",
                "max_tgt_len",  "decode.max_len", "max_grad_norm"};
  p.note =
      "multi-flow fine-tuning (arch ernie-gen): the target noised at rho_f feeds the contextual "
      "flow, the "
      "word-by-word [ATTN] flow predicts every target word (lambda 1.0 in fine-tuning, §3.3: no "
      "span flow); "
      "decoded by infilling decoding";
  return p;
}

// UniLM §3.1-3.4: the generation recipes.
void add_unilm_generation(std::vector<Preset>& v) {
  {
    Preset p = unilm(
        {.name = "cnndm",
         .task = "cnndm",
         .source = "UniLM §3.1",
         .epochs = 30,
         .batch = 32,
         .max_len = 768,
         .max_src = 640,
         .mask_prob = 0.7,
         .label_smoothing = 0.1,
         .lr = 3e-5,
         .beam = 5,
         .decode_max_len = 128,
         .unstated = {"lr"},
         .note = "source truncated to the first 640 tokens; duplicated trigrams removed (except "
                 "around '.' and [X_SEP]); UniLM's beam search, the hypothesis picked by "
                 "re-ranking its traces with alpha 1.0 as gen_seq_from_trace.py"});
    // microsoft/unilm unilm-v1/README.md CNN/DM decode: --max_tgt_length 128 --beam_size 5
    // --forbid_duplicate_ngrams --forbid_ignore_word ".|[X_SEP]"; gen_seq_from_trace.py --alpha 1.0;
    // cnndm/eval.py --trunc_len 70.
    p.decode["length_penalty"] = 0.0;
    p.decode["algorithm"] = "unilm";
    p.decode["trace_alpha"] = 1.0;
    // The published numbers came from the script as it runs ([SEP]/[PAD] swapped, simple_postprocess).
    p.decode["trace_selection"] = "official";
    p.decode["ngram_ignore_words"] = {".", "[X_SEP]"};
    p.eval_options = {{"trunc_len", "70"}};
    p.decode_source = "microsoft/unilm unilm-v1/README.md (CNN/DM decode command)";
    v.push_back(p);
  }
  {
    Preset p = unilm(
        {.name = "gigaword",
         .task = "gigaword",
         .source = "UniLM §3.1",
         .epochs = 30,
         .batch = 64,
         .max_len = 256,
         .max_src = 192,
         .mask_prob = 0.7,
         .label_smoothing = 0.1,
         .lr = 3e-5,
         .beam = 5,
         .decode_max_len = 32,
         .unstated = {"lr"},
         .note = "source truncated to the first 192 tokens; duplicated trigrams removed (except "
                 "around '.'); UniLM's beam search, the hypothesis picked by re-ranking its "
                 "traces with alpha 0.6 as gen_seq_from_trace.py"});
    // microsoft/unilm unilm-v1/README.md Gigaword decode: --max_tgt_length 32 --beam_size 5
    // --length_penalty 0 --forbid_duplicate_ngrams --forbid_ignore_word "."; gen_seq_from_trace.py
    // --alpha 0.6 (the script as it runs: trace_selection official).
    p.decode["length_penalty"] = 0.0;
    p.decode["algorithm"] = "unilm";
    p.decode["trace_alpha"] = 0.6;
    p.decode["trace_selection"] = "official";
    p.decode["ngram_ignore_words"] = {"."};
    p.decode_source = "microsoft/unilm unilm-v1/README.md (Gigaword decode command)";
    v.push_back(p);
  }
  v.push_back(unilm(
      {.name = "coqa-gen",
       .task = "coqa-gen",
       .source = "UniLM §3.2",
       .epochs = 10,
       .batch = 32,
       .max_len = 512,
       .max_src = 470,
       .mask_prob = 0.5,
       .label_smoothing = 0.1,
       .lr = 3e-5,
       .beam = 3,
       .decode_max_len = 39,
       .unstated = {"lr", "decode.max_len"},
       .note = "question + passage limited to 470 tokens (the paper selects the passage chunk "
               "with the highest word overlap; chunk selection is the task adapter's job)"}));
  {
    Preset p =
        unilm({.name = "squad-qg",
               .task = "squad-qg",
               .source = "UniLM §3.3",
               .epochs = 10,
               .batch = 32,
               .max_len = 512,
               .max_src = 464,
               .mask_prob = 0.7,
               .label_smoothing = 0.1,
               .lr = 2e-5,
               .beam = 1,
               .decode_max_len = 48,
               .unstated = {},
               .note = "input truncated to 464 tokens (a passage chunk containing the answer)"});
    // microsoft/unilm unilm-v1/README.md QG decode: --max_tgt_length 48 --beam_size 1 --length_penalty 0.
    p.decode["length_penalty"] = 0.0;
    p.decode_source = "microsoft/unilm unilm-v1/README.md (question generation decode command)";
    v.push_back(p);
  }
  v.push_back(unilm({.name = "dstc7",
                     .task = "dstc7",
                     .source = "UniLM §3.4",
                     .epochs = 20,
                     .batch = 64,
                     .max_len = 512,
                     .max_src = 469,
                     .mask_prob = 0.5,
                     .label_smoothing = 0.0,
                     .lr = 3e-5,
                     .beam = 10,
                     .decode_max_len = 40,
                     .unstated = {"lr", "label_smoothing"},
                     .note = "maximum generated response length 40"}));
}

// UniLM §3.5 (GLUE, Table 11): "fine-tuned as a bidirectional LM. Adamax, learning rate 5e-5,
// batch size 32, maximum number of epochs 5, linear decay with warmup 0.1, dropout of the last
// linear projection 0.1 (0.3 MNLI, 0.05 CoLA/SST-2), gradient norm clipped within 1, tokens
// truncated to 512". `glue` is the generic recipe; glue-<task> the per-task ones (default preset
// of `unieval run --task glue-<task>`).
Preset glue(const std::string& name, const std::string& task, double task_dropout) {
  Preset g;
  g.name = name;
  g.task = task;
  g.source = "UniLM §3.5";
  g.seq2seq = false;
  g.train["optimizer"] = "adamax";
  g.train["lr"] = 5e-5;
  g.train["weight_decay"] = 0.0;
  g.train["epochs"] = 5;
  g.train["batch_size"] = 32;
  g.train["batch_tokens"] = 32 * 512;
  g.train["warmup_ratio"] = 0.1;
  g.train["max_grad_norm"] = 1.0;
  g.train["label_smoothing"] = 0.0;
  g.train["max_seq_len"] = 512;
  g.train["classifier_dropout"] = task_dropout;
  g.dropout = 0.1;
  g.unstated = {
      "weight_decay", "eps", "dropout (encoder; 0.1 as in pre-training, §2.4)", "seed",
      "epochs (5 is the stated maximum; the paper does not say how the epoch was chosen)"};
  g.note =
      "bidirectional encoder + classifier on the pooled [CLS] (MSE regression for STS-B); "
      "task-layer dropout " +
      std::to_string(task_dropout).substr(0, 4) + " (paper: 0.1, 0.3 MNLI, 0.05 CoLA/SST-2)";
  return g;
}

void add_glue(std::vector<Preset>& v) {
  v.push_back(glue("glue", "glue", 0.1));
  for (const char* t : {"glue-cola", "glue-sst2", "glue-mrpc", "glue-stsb", "glue-qqp", "glue-mnli",
                        "glue-mnli-mm", "glue-qnli", "glue-rte", "glue-wnli"}) {
    const std::string n = t;
    const double d = n == "glue-mnli" || n == "glue-mnli-mm" ? 0.3
                     : n == "glue-cola" || n == "glue-sst2"  ? 0.05
                                                             : 0.1;
    v.push_back(glue(n, n, d));
  }
  {
    // UniLM's GLUE recipe with what a from-scratch model needs instead: AdamW at 5e-4, batch 64,
    // 3 epochs, 64 tokens.
    Preset g = glue("glue-sst2-scratch", "glue-sst2", 0.1);
    g.source = "unieval from-scratch recipe (issue #36; not a paper's)";
    g.train.update(nlohmann::ordered_json{{"optimizer", "adamw"},
                                          {"lr", 5e-4},
                                          {"weight_decay", 0.01},
                                          {"epochs", 3},
                                          {"batch_size", 64},
                                          {"batch_tokens", 64 * 64},
                                          {"max_seq_len", 64}});
    g.unstated = {"every value (a from-scratch recipe of this suite, not a paper's)"};
    g.note =
        "model tasks/scratch/glue-sst2-scratch.config.json (4 layers x 256, 8,000 WordPiece "
        "entries: unieval "
        "vocab --base bert-uncased-vocab.txt --corpus <the train.tsv sentences> --size 8000)";
    v.push_back(std::move(g));
  }
  {
    // Issue #36's self-pre-training recipe for SST-2: the 2 x 256 model of the config is first
    // pre-trained (masked LM + NSP) on the training sentences alone, then fine-tuned from that
    // checkpoint with these values. On the CPU, 6,000 pre-training steps give 81.68 +- 0.69 over
    // three pre-training seeds (82.17 +- 0.71 over nine runs with --gemm onednn) and 18,000 give
    // 81.61 +- 0.18 (one); one of the nine single models is above 83, their majority vote is
    // 83.72 (bench/experiments/sst2-self-pretrain/vote.sh; results/experiments/from-scratch/
    // glue-sst2/sweep.md).
    Preset g = glue("glue-sst2-selfpt", "glue-sst2", 0.3);
    g.source = "unieval from-scratch recipe (issue #36; not a paper's)";
    g.train.update(nlohmann::ordered_json{{"optimizer", "adamw"},
                                          {"lr", 3e-4},
                                          {"weight_decay", 0.01},
                                          {"epochs", 1},
                                          {"batch_size", 64},
                                          {"batch_tokens", 64 * 64},
                                          {"max_seq_len", 64}});
    g.dropout = 0.3;
    g.unstated = {"every value (a from-scratch recipe of this suite, not a paper's)"};
    g.note =
        "fine-tunes a --model pre-trained on the train.tsv sentences alone: unieval vocab --base "
        "bert-uncased-vocab.txt --corpus S --size 8000 --out V; unieval pretrain --corpus S "
        "--vocab V --model-config tasks/scratch/glue-sst2-selfpt.config.json (2 layers x 256, max "
        "pooling) --objectives bidirectional --segments bert --steps 6000 --batch-size 64 "
        "--max-len 64 --lr 5e-4 --warmup 0.05 --out PT; then --model PT/checkpoint";
    v.push_back(std::move(g));
  }
}

// One extractive QA recipe (UniLM §3.2 / BERT run_squad.py).
struct QaRecipe {
  std::string name;                   // --preset value
  std::string task;                   // task adapter
  std::string source;                 // paper and table
  int64_t epochs = 0;                 // training epochs
  int64_t batch = 0;                  // examples per optimizer step
  int max_len = 0;                    // tokens per window
  std::vector<std::string> unstated;  // values the paper does not give (beyond BERT's defaults)
  std::string note;                   // remarks
};

// UniLM §3.2 extractive QA: SQuAD 2.0 "fine-tuned in the same way as BERT_LARGE ... 3 epochs,
// batch size 24, maximum length 384"; CoQA "2 epochs, batch size 16, maximum length 512". The
// other values are google-research/bert run_squad.py's README command and defaults (lr 3e-5,
// doc_stride 128, max_query_length 64, max_answer_length 30, n_best 20, warm-up 0.1,
// AdamWeightDecay 0.01, eps 1e-6), flagged unstated.
Preset qa(QaRecipe r) {
  Preset p;
  p.name = r.name;
  p.task = r.task;
  p.source = r.source;
  p.seq2seq = false;
  p.train["optimizer"] = "adamw";
  p.train["lr"] = 3e-5;
  p.train["eps"] = 1e-6;
  p.train["weight_decay"] = 0.01;
  p.train["epochs"] = r.epochs;
  p.train["batch_size"] = r.batch;
  p.train["batch_tokens"] = r.batch * r.max_len;
  p.train["warmup_ratio"] = 0.1;
  p.train["max_grad_norm"] = 1.0;
  p.train["label_smoothing"] = 0.0;
  p.train["max_seq_len"] = r.max_len;
  p.train["doc_stride"] = 128;
  p.train["max_query_len"] = r.task == "coqa" ? 128 : 64;
  p.train["max_answer_len"] = 30;
  p.train["n_best"] = 20;
  p.dropout = 0.1;
  for (const char* u : {"lr", "eps", "weight_decay", "warmup_ratio", "max_grad_norm", "doc_stride",
                        "max_query_len", "max_answer_len", "n_best", "dropout"})
    r.unstated.push_back(u);
  p.unstated = std::move(r.unstated);
  p.note = std::move(r.note);
  return p;
}

void add_qa(std::vector<Preset>& v) {
  v.push_back(
      qa({.name = "squad-v2",
          .task = "squad-v2",
          .source = "UniLM §3.2 (Table 5)",
          .epochs = 3,
          .batch = 24,
          .max_len = 384,
          .unstated = {},
          .note =
              "BERT-style span extraction; no-answer = the [CLS] span, null-score threshold chosen "
              "on dev (official best_f1_thresh)"}));
  v.push_back(qa({.name = "squad-v1.1",
                  .task = "squad-v1.1",
                  .source = "BERT run_squad README (UniLM reports no v1.1 row)",
                  .epochs = 3,
                  .batch = 24,
                  .max_len = 384,
                  .unstated = {"epochs", "batch_size", "max_seq_len"},
                  .note = "BERT-style span extraction"}));
  v.push_back(qa(
      {.name = "coqa",
       .task = "coqa",
       .source = "UniLM §3.2 (Table 6)",
       .epochs = 2,
       .batch = 16,
       .max_len = 512,
       .unstated = {"history_turns"},
       .note =
           "extractive CoQA: span head + yes/no/unknown head on [CLS]; free-form answers mapped "
           "to the best-F1 span of the rationale; history = the 2 previous turns (our choice)"}));
}

// GPT §4.1 "Fine-tuning details": "Unless specified, we reuse the hyperparameter settings from
// unsupervised pre-training. We add dropout to the classifier with a rate of 0.1. For most tasks,
// we use a learning rate of 6.25e-5 and a batchsize of 32. ... 3 epochs of training was
// sufficient for most cases. We use a linear learning rate decay schedule with warmup over 0.2%
// of training. λ was set to 0.5." Reused from pre-training (§4.1 "Model specifications"): Adam,
// dropout 0.1 (residual, embedding, attention), "modified L2 regularization ... w = 0.01 on all
// non bias or gain weights" (decoupled weight decay). Unstated: Adam's betas/eps and gradient
// clipping (openai/finetune-transformer-lm train.py defaults b1 0.9, b2 0.999, e 1e-8,
// max_grad_norm 1, read as values, no code), the input length (the release's n_ctx is computed
// from the data up to 512; ours: 256 tokens per sequence, truncated longest-first), seed.
// `unieval run --arch gpt` uses it for every task (GLUE, SNLI, SciTail, RACE, Story Cloze).
void add_gpt(std::vector<Preset>& v) {
  Preset g;
  g.name = "gpt";
  g.task = "gpt";
  g.source = "GPT §4.1";
  g.seq2seq = false;
  g.train["optimizer"] = "adamw";
  g.train["lr"] = 6.25e-5;
  g.train["beta1"] = 0.9;
  g.train["beta2"] = 0.999;
  g.train["eps"] = 1e-8;
  g.train["weight_decay"] = 0.01;
  g.train["epochs"] = 3;
  g.train["batch_size"] = 32;
  g.train["batch_tokens"] = 32 * 4 * 256;
  g.train["warmup_ratio"] = 0.002;
  g.train["max_grad_norm"] = 1.0;
  g.train["label_smoothing"] = 0.0;
  g.train["max_seq_len"] = 256;
  g.train["classifier_dropout"] = 0.1;
  g.train["lm_coef"] = 0.5;
  g.dropout = 0.1;
  g.unstated = {
      "beta1",
      "beta2",
      "eps",
      "max_grad_norm",
      "max_seq_len",
      "seed",
      "batch_tokens (a cap of 32 examples x 4 sequences x 256 tokens, so batch_size decides)"};
  g.note =
      "input transformations of Figure 1 (start/delimiter/extract tokens), linear head on the "
      "extract "
      "state, auxiliary LM loss with lambda 0.5; paper values: lr, batch 32, 3 epochs, warm-up "
      "0.2% + "
      "linear decay, dropout 0.1 (model and classifier), weight decay 0.01, lambda";
  v.push_back(std::move(g));
}

// ERNIE-GEN Table 1: task, epochs, lr, rho_f, dropout, batch, label smoothing, beam (BASE/LARGE).
void add_ernie_gen(std::vector<Preset>& v) {
  const ErnieRecipe rows[] = {
      {.name = "ernie-gen-base-squad-qg",
       .task = "squad-qg",
       .size = "BASE",
       .epochs = 10,
       .lr = 2.5e-5,
       .noise = 0.7,
       .dropout = 0.1,
       .batch = 32,
       .label_smoothing = 0.1,
       .beam = 1,
       .max_src = 464,
       .max_tgt = 45,
       .decode_max_len = 45},
      {.name = "ernie-gen-large-squad-qg",
       .task = "squad-qg",
       .size = "LARGE",
       .epochs = 10,
       .lr = 1.5e-5,
       .noise = 0.7,
       .dropout = 0.2,
       .batch = 32,
       .label_smoothing = 0.1,
       .beam = 1,
       .max_src = 464,
       .max_tgt = 45,
       .decode_max_len = 45},
      {.name = "ernie-gen-base-cnndm",
       .task = "cnndm",
       .size = "BASE",
       .epochs = 30,
       .lr = 5e-5,
       .noise = 0.7,
       .dropout = 0.1,
       .batch = 64,
       .label_smoothing = 0.1,
       .beam = 5,
       .max_src = 640,
       .max_tgt = 125,
       .decode_max_len = 160},
      {.name = "ernie-gen-large-cnndm",
       .task = "cnndm",
       .size = "LARGE",
       .epochs = 20,
       .lr = 4e-5,
       .noise = 0.7,
       .dropout = 0.1,
       .batch = 64,
       .label_smoothing = 0.1,
       .beam = 5,
       .max_src = 640,
       .max_tgt = 125,
       .decode_max_len = 160},
      {.name = "ernie-gen-base-gigaword",
       .task = "gigaword",
       .size = "BASE",
       .epochs = 10,
       .lr = 3e-5,
       .noise = 0.5,
       .dropout = 0.1,
       .batch = 128,
       .label_smoothing = 0.1,
       .beam = 5,
       .max_src = 192,
       .max_tgt = 61,
       .decode_max_len = 32},
      {.name = "ernie-gen-large-gigaword",
       .task = "gigaword",
       .size = "LARGE",
       .epochs = 5,
       .lr = 3e-5,
       .noise = 0.6,
       .dropout = 0.2,
       .batch = 128,
       .label_smoothing = 0.1,
       .beam = 5,
       .max_src = 192,
       .max_tgt = 61,
       .decode_max_len = 32},
      {.name = "ernie-gen-large-personachat",
       .task = "personachat",
       .size = "LARGE",
       .epochs = 30,
       .lr = 1e-4,
       .noise = 0.0,
       .dropout = 0.1,
       .batch = 64,
       .label_smoothing = 0.1,
       .beam = 10,
       .max_src = 469,
       .max_tgt = 40,
       .decode_max_len = 40},
      {.name = "ernie-gen-large-coqa-gen",
       .task = "coqa-gen",
       .size = "LARGE",
       .epochs = 10,
       .lr = 1e-5,
       .noise = 0.5,
       .dropout = 0.1,
       .batch = 32,
       .label_smoothing = 0.1,
       .beam = 3,
       .max_src = 470,
       .max_tgt = 39,
       .decode_max_len = 39},
  };
  for (const ErnieRecipe& r : rows) v.push_back(ernie(r));
}

// From-scratch recipes (issue #36): no paper's, ours, for a small model trained on 2 CPU cores with
// no pre-trained weights. Model configs beside this file (tasks/scratch/NAME.config.json), the
// vocabulary an 8,000-entry subset of BERT's uncased one chosen from the training text (`unieval
// vocab`). QG trains with ERNIE-GEN's word-by-word flow (arch ernie-gen, noise 0): every target
// word is predicted from the source and the true words before it, which is exactly what decoding
// asks; UniLM's masking predicts 70% of the words from a mostly masked prefix. Every value is
// our choice, none was tuned on a test set.
void add_scratch(std::vector<Preset>& v) {
  Preset p;
  p.name = "squad-qg-scratch";
  p.task = "squad-qg";
  p.source = "unieval from-scratch recipe (issue #36; not a paper's)";
  p.train = nlohmann::ordered_json{{"optimizer", "adamw"},   {"lr", 1e-3},
                                   {"beta1", 0.9},           {"beta2", 0.999},
                                   {"weight_decay", 0.01},   {"epochs", 10},
                                   {"batch_size", 64},       {"batch_tokens", 64 * (96 + 32 + 3)},
                                   {"warmup_steps", 400},    {"max_grad_norm", 1.0},
                                   {"label_smoothing", 0.1}, {"max_src_len", 96},
                                   {"max_tgt_len", 32},      {"arch", "ernie-gen"},
                                   {"noise_prob", 0.0},      {"span_lambda", 1.0},
                                   {"dev_every", 500}};
  p.decode = nlohmann::ordered_json{
      {"beam", 5},     {"length_penalty", 1.0}, {"min_len", 3},
      {"max_len", 32}, {"no_repeat_ngram", 3},  {"not_predict_words", {"@special"}}};
  p.decode_source =
      "ours: beam 5, length-normalised, at least 3 words, no repeated trigram, no special token";
  p.dropout = 0.1;
  p.unstated = {"every value (a from-scratch recipe of this suite, not a paper's)"};
  p.note =
      "model tasks/scratch/squad-qg-scratch.config.json (4 layers x 256, 8,000 WordPiece entries: "
      "unieval "
      "vocab --base bert-uncased-vocab.txt --corpus src-train.txt.gz tgt-train.txt.gz --size "
      "8000); "
      "ERNIE-GEN word-by-word training without noise; dev loss every 500 steps keeps RUN/best";
  v.push_back(std::move(p));
}

// In --help order: UniLM generation, GLUE, extractive QA, GPT, ERNIE-GEN, from-scratch.
std::vector<Preset> build() {
  std::vector<Preset> v;
  add_unilm_generation(v);
  add_glue(v);
  add_qa(v);
  add_gpt(v);
  add_ernie_gen(v);
  add_scratch(v);
  return v;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> kPresets = build();
  return kPresets;
}

const Preset* find_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string presets_help() {
  std::string s;
  for (const auto& p : presets()) {
    std::string line = "  " + p.name;
    if (line.size() < 32) line += std::string(32 - line.size(), ' ');
    char buf[200];
    auto num = [](const nlohmann::ordered_json& j, const char* key, double def) {
      return j.contains(key) ? j.at(key).get<double>() : def;
    };
    std::snprintf(buf, sizeof buf, "%-12s %-26s lr %.1e, %lld ep, batch %lld, mask %.1f, beam %d%s",
                  p.task.c_str(), p.source.c_str(), num(p.train, "lr", 0),
                  static_cast<long long>(num(p.train, "epochs", 1)),
                  static_cast<long long>(num(p.train, "batch_size", 0)),
                  num(p.train, "mask_prob", 0.7), static_cast<int>(num(p.decode, "beam", 1)),
                  p.seq2seq ? "" : " (NLU)");
    s += line + buf + "\n";
  }
  return s;
}

}  // namespace unieval::tasks
