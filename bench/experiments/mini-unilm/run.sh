#!/usr/bin/env bash
# The mini-UniLM experiment (issue 17): one small model shape pre-trained three ways with the same
# budget — none, bidirectional only (BERT MLM + NSP), unified (UniLM §2.3-2.4) — then each
# fine-tuned with one recipe on SQuAD question generation (Du et al. split: train on dev, evaluate
# on test) through `unieval run --task squad-qg`, and on SST-2 (its dev split in two halves: train
# on dev[:436], evaluate on dev[436:]) through `unieval run --task glue-sst2`; a constant-question
# baseline; `unieval eval` bootstrap CIs and paired tests between the arms (collect.py).
#
#   bench/experiments/mini-unilm/run.sh            # every stage; re-run it to continue
#   STAGES="corpus pretrain" bench/experiments/mini-unilm/run.sh
#
# Every stage resumes: the corpus is built once (stats.json marks it done), a pre-training run
# continues from its checkpoint (--resume), a fine-tuning run is skipped once its result exists and
# otherwise re-run with the same command, which `unieval run` continues from its checkpoint.
# Interrupt it at any time.
#
# | variable    | default                      | meaning                                           |
# |-------------|------------------------------|---------------------------------------------------|
# | WORK        | /work/mini-unilm             | corpus, runs, results (never committed)           |
# | UNIEVAL     | build/unieval                | the binary                                        |
# | SHARED      | <repo>/../shared/data        | squad_qg, vocab                                   |
# | THREADS     | 2                            | CPU threads of every command                      |
# | DEVICE      | cpu                          | --device of every model command (cuda on a GPU)   |
# | TOKENS      | 4000000                      | pre-training budget in input positions, per arm   |
# | BATCH       | 48                           | examples per step (a multiple of 6)               |
# | MAXLEN      | 128                          | pre-training sequence length                      |
# | LR          | 5e-4                         | pre-training peak learning rate                   |
# | SEED        | 42                           | seed of the initial weights and of every run      |
# | ARMS        | none bidirectional unified   | arms to run                                       |
# | STAGES      | corpus config pretrain finetune sst2 baseline collect | stages to run            |
# | QG_ARGS     | see below                    | the QG fine-tuning + decoding recipe (every arm)  |
# | SST_ARGS    | see below                    | the SST-2 recipe (every arm)                      |
# | RESAMPLES   | 1000                         | bootstrap resamples of the CIs and paired tests   |
# | RESULTS     | results/experiments/mini-unilm | where collect writes (the GPU run: ...-gpu)     |
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
WORK="${WORK:-/work/mini-unilm}"
UNIEVAL="${UNIEVAL:-$repo/build/unieval}"
SHARED="${SHARED:-$repo/../shared/data}"
THREADS="${THREADS:-2}"
DEVICE="${DEVICE:-cpu}"
TOKENS="${TOKENS:-4000000}"
BATCH="${BATCH:-48}"
MAXLEN="${MAXLEN:-128}"
LR="${LR:-5e-4}"
SEED="${SEED:-42}"
ARMS="${ARMS:-none bidirectional unified}"
STAGES="${STAGES:-corpus config pretrain finetune sst2 baseline collect}"
# One recipe for every arm (no arm is tuned on its own): UniLM §3.3's QG settings where they fit a
# small model fine-tuned on 10.5k pairs (label smoothing 0.1, target mask prob 0.7, beam search
# with trigram blocking), a learning rate for a small model, lengths that fit the Du sentences.
QG_ARGS="${QG_ARGS:---epochs 1 --lr 2e-4 --warmup 0.1 --batch-size 32 --max-src-len 96 --max-tgt-len 32 --beam 5 --max-len 32 --decode-batch 64 --eval-limit 1500 --option meteor_modules=exact,stem,synonym}"
SST_ARGS="${SST_ARGS:---epochs 4 --lr 1e-4 --max-seq-len 64}"
RESAMPLES="${RESAMPLES:-1000}"
RESULTS="${RESULTS:-$repo/results/experiments/mini-unilm}"
VOCAB="$SHARED/vocab/bert-uncased-vocab.txt"
mkdir -p "$WORK"
if [[ -z "${UNIEVAL_METEOR_DATA:-}" && -d "$SHARED/meteor" ]]; then export UNIEVAL_METEOR_DATA="$SHARED/meteor"; fi
# The exact command of every stage, for the results (collect.py copies them).
record() { python3 "$here/record.py" "$WORK/commands.json" "$@"; }
log() { echo "[mini-unilm $(date -u +%H:%M:%S)] $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }

# ---- corpus ---------------------------------------------------------------------------------
if has_stage corpus; then
  if [[ -f "$WORK/corpus/stats.json" ]]; then
    log "corpus: done ($WORK/corpus)"
  else
    log "corpus: building from Debian packages and $SHARED"
    python3 "$here/build_corpus.py" --out "$WORK/corpus"
  fi
fi

# ---- model shape ------------------------------------------------------------------------------
if has_stage config; then
  cat > "$WORK/config.json.tmp" <<'EOF'
{
  "vocab_size": 30522,
  "hidden_size": 256,
  "num_hidden_layers": 4,
  "num_attention_heads": 4,
  "intermediate_size": 1024,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "attention_probs_dropout_prob": 0.1,
  "max_position_embeddings": 512,
  "type_vocab_size": 6,
  "initializer_range": 0.02,
  "layer_norm_eps": 1e-12,
  "pad_token_id": 0
}
EOF
  mv "$WORK/config.json.tmp" "$WORK/config.json"
fi

# ---- pre-training -------------------------------------------------------------------------------
pretrain_arm() {
  local arm="$1" out="$WORK/pt-$1"
  local -a common=(--threads "$THREADS" --device "$DEVICE" --json)
  if [[ -f "$out/checkpoint/trainer_state.json" ]]; then
    log "pretrain $arm: resuming $out"
    "$UNIEVAL" pretrain --out "$out" --resume "${common[@]}" | tail -1 > "$out/summary.json.tmp"
  else
    local -a budget=(--tokens "$TOKENS" --objectives "$arm")
    # The 'none' arm: the same seeded initial weights, saved without a training step.
    [[ "$arm" == none ]] && budget=(--steps 0 --objectives unified)
    log "pretrain $arm: $out"
    record "pretrain $arm" unieval pretrain --corpus "$WORK/corpus/train.txt" --shard "$WORK/corpus.shard" \
      --model-config "$WORK/config.json" --vocab "$VOCAB" --out "$out" "${budget[@]}" \
      --batch-size "$BATCH" --max-len "$MAXLEN" --lr "$LR" --seed "$SEED" --save-every 100 "${common[@]}"
    "$UNIEVAL" pretrain --corpus "$WORK/corpus/train.txt" --shard "$WORK/corpus.shard" \
      --model-config "$WORK/config.json" --vocab "$VOCAB" --out "$out" "${budget[@]}" \
      --batch-size "$BATCH" --max-len "$MAXLEN" --lr "$LR" --seed "$SEED" --save-every 100 \
      "${common[@]}" | tail -1 > "$out.summary.json.tmp"
    mv "$out.summary.json.tmp" "$out/summary.json.tmp"
  fi
  mv "$out/summary.json.tmp" "$out/summary.json"
}
if has_stage pretrain; then
  for arm in $ARMS; do
    if [[ -f "$WORK/pt-$arm/summary.json" ]] && grep -q '"finished":true' "$WORK/pt-$arm/summary.json"; then
      log "pretrain $arm: done"
    else
      pretrain_arm "$arm"
    fi
  done
fi

# ---- fine-tuning: SQuAD question generation, SST-2 (its dev split in two halves) ------------------
# `unieval run` resumes a run directory left unfinished and returns a finished one's result as is.
# fine_tune NAME TASK FLAGS...: every arm's `unieval run` into $WORK/NAME-ARM.
fine_tune() {
  local name="$1" task="$2"
  shift 2
  for arm in $ARMS; do
    local out="$WORK/$name-$arm"
    log "$task $arm: $out"
    local -a cmd=(run --task "$task" --out "$out" --model "$WORK/pt-$arm/checkpoint" --seed "$SEED"
      --threads "$THREADS" --device "$DEVICE" --json "$@")
    record "$task $arm" unieval "${cmd[@]}"
    "$UNIEVAL" "${cmd[@]}" | tail -1 > "$out.summary.json"
  done
}
if has_stage finetune; then
  # shellcheck disable=SC2086
  fine_tune qg squad-qg --data "$SHARED/squad_qg" --train-split dev --dev-split none --eval-split test $QG_ARGS
fi
if has_stage sst2; then
  # shellcheck disable=SC2086
  fine_tune sst2 glue-sst2 --data "$SHARED/glue/SST-2" --train-split 'dev[:436]' --eval-split 'dev[436:]' $SST_ARGS
fi

# ---- the constant-question baseline -------------------------------------------------------------
# The most frequent question of the fine-tuning targets (Du dev; ties: the first seen), predicted
# for every test sentence the arms were evaluated on.
if has_stage baseline; then
  first_qg=""
  for arm in $ARMS; do
    if [[ -z "$first_qg" && -f "$WORK/qg-$arm/eval/src-eval.txt" ]]; then first_qg="$WORK/qg-$arm"; fi
  done
  if [[ -n "$first_qg" ]]; then
    python3 "$here/constant_baseline.py" "$SHARED/squad_qg/tgt-dev.txt.gz" "$first_qg/eval/src-eval.txt" \
      "$WORK/baseline-constant"
  else
    log "baseline: no QG run yet to take the evaluated sentences from"
  fi
fi

# ---- collect: CIs, paired tests, curves -> results/experiments/mini-unilm ---------------------------
if has_stage collect; then
  # shellcheck disable=SC2086
  python3 "$here/collect.py" --work "$WORK" --unieval "$UNIEVAL" --dest "$RESULTS" \
    --arms $ARMS --resamples "$RESAMPLES"
fi
