#!/usr/bin/env bash
# The ERNIE-GEN ablation at the mini scale (issue 18): ERNIE-GEN Table 7 in miniature. One small
# model shape (the mini-UniLM experiment's: 4 layers, hidden 256) pre-trained four ways with
# `unieval pretrain --objectives ernie-gen` and the same budget —
#   full        lambda 0.5 (word + span flows), rho_p 0.05       (Table 7 row 1)
#   no-noise    lambda 0.5, rho_p 0                              (row 2, "- noise-aware")
#   no-span     lambda 1.0 (word flow only), rho_p 0.2           (row 3, "- span-by-span"; the 0.2 of
#                                                                  the table's caption)
#   no-both     lambda 1.0, rho_p 0                              (row 4, "- 2 and 3")
# — then each fine-tuned on SQuAD question generation (Du et al. split: train on dev, evaluate on
# test) through `unieval run --task squad-qg`, twice: noising fine-tuning (--arch ernie-gen,
# rho_f 0.7, Table 7 column 1) and masking fine-tuning (--arch unilm, mask prob 0.7, no noise,
# column 2). Scores with 95% bootstrap intervals by `unieval eval` (collect.py).
#
#   bench/experiments/ernie-gen/run.sh            # every stage; re-run it to continue
#   STAGES="pretrain" ARMS="full" bench/experiments/ernie-gen/run.sh
#
# Every stage resumes (pre-training from its checkpoint, `unieval run` from its run folder).
#
# | variable    | default                          | meaning                                       |
# |-------------|----------------------------------|-----------------------------------------------|
# | WORK        | /work/ernie-gen-ablation         | runs (never committed)                        |
# | CORPUS      | /work/mini-unilm/corpus          | bench/experiments/mini-unilm/build_corpus.py   |
# | UNIEVAL     | build/unieval                    | the binary                                    |
# | SHARED      | <repo>/../shared/data            | squad_qg, vocab                               |
# | THREADS     | 2                                | CPU threads of every command                  |
# | DEVICE      | cpu                              | --device (cuda on a GPU)                      |
# | TOKENS      | 300000                           | pre-training budget in input positions, per arm |
# | BATCH, MAXLEN, LR, SEED | 48, 128, 5e-4, 42      | pre-training batch, length, peak lr, seed     |
# | ARMS        | full no-noise no-span no-both    | arms to run                                   |
# | MODES       | noising masking                  | fine-tuning columns                           |
# | STAGES      | config pretrain finetune collect | stages to run                                 |
# | QG_ARGS     | see below                        | the QG recipe (every arm and column)          |
# | RESULTS     | results/experiments/ernie-gen-ablation | where collect writes                    |
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
WORK="${WORK:-/work/ernie-gen-ablation}"
CORPUS="${CORPUS:-/work/mini-unilm/corpus}"
UNIEVAL="${UNIEVAL:-$repo/build/unieval}"
SHARED="${SHARED:-$repo/../shared/data}"
THREADS="${THREADS:-2}"
DEVICE="${DEVICE:-cpu}"
TOKENS="${TOKENS:-300000}"
BATCH="${BATCH:-48}"
MAXLEN="${MAXLEN:-128}"
LR="${LR:-5e-4}"
SEED="${SEED:-42}"
ARMS="${ARMS:-full no-noise no-span no-both}"
MODES="${MODES:-noising masking}"
STAGES="${STAGES:-config pretrain finetune collect}"
# One recipe for every arm and column: ERNIE-GEN Table 1's SQuAD QG row where it fits a small model
# fine-tuned on the first 2,000 of the 10.5k pairs (preset ernie-gen-base-squad-qg: label smoothing 0.1, greedy decoding),
# one epoch at a learning rate for a small model, lengths that fit the Du sentences, and a minimum
# of 4 generated tokens (our choice, the same for every run: an undertrained model otherwise ends
# at once).
QG_ARGS="${QG_ARGS:---preset ernie-gen-base-squad-qg --train-limit 2000 --epochs 1 --lr 2e-4 --warmup 0.1 --batch-size 32 --max-src-len 96 --max-tgt-len 32 --beam 1 --min-len 4 --max-len 32 --decode-batch 64 --eval-limit 1500 --option meteor_modules=exact,stem,synonym}"
RESULTS="${RESULTS:-$repo/results/experiments/ernie-gen-ablation}"
VOCAB="$SHARED/vocab/bert-uncased-vocab.txt"
mkdir -p "$WORK"
if [[ -z "${UNIEVAL_METEOR_DATA:-}" && -d "$SHARED/meteor" ]]; then export UNIEVAL_METEOR_DATA="$SHARED/meteor"; fi
record() { python3 "$repo/bench/experiments/mini-unilm/record.py" "$WORK/commands.json" "$@"; }
log() { echo "[ernie-gen $(date -u +%H:%M:%S)] $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }

arm_flags() {
  case "$1" in
    full) echo "--span-lambda 0.5 --noise-prob 0.05" ;;
    no-noise) echo "--span-lambda 0.5 --noise-prob 0" ;;
    no-span) echo "--span-lambda 1 --noise-prob 0.2" ;;
    no-both) echo "--span-lambda 1 --noise-prob 0" ;;
    *) echo "unknown arm $1" >&2; exit 2 ;;
  esac
}
mode_flags() {
  case "$1" in
    noising) echo "--arch ernie-gen --noise-prob 0.7" ;;
    masking) echo "--arch unilm --mask-prob 0.7 --noise-prob 0" ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
  esac
}

if has_stage config; then
  [[ -f "$CORPUS/train.txt" ]] || { log "no corpus at $CORPUS: run bench/experiments/mini-unilm/build_corpus.py --out $CORPUS"; exit 2; }
  # The mini-UniLM experiment's model shape (its config stage writes WORK/config.json).
  WORK="$WORK" STAGES=config "$repo/bench/experiments/mini-unilm/run.sh"
fi

if has_stage pretrain; then
  for arm in $ARMS; do
    out="$WORK/pt-$arm"
    if [[ -f "$out/summary.json" ]] && grep -q '"status": *"finished"' "$out/summary.json"; then
      log "pretrain $arm: done"
      continue
    fi
    if [[ -f "$out/checkpoint/trainer_state.json" ]]; then
      log "pretrain $arm: resuming $out"
      "$UNIEVAL" pretrain --out "$out" --resume --threads "$THREADS" --device "$DEVICE" --json | tail -1 > "$out.json"
      continue
    fi
    # shellcheck disable=SC2046
    cmd=(pretrain --corpus "$CORPUS/train.txt" --shard "$WORK/corpus.shard" --model-config "$WORK/config.json"
      --vocab "$VOCAB" --out "$out" --objectives ernie-gen $(arm_flags "$arm") --tokens "$TOKENS"
      --batch-size "$BATCH" --max-len "$MAXLEN" --lr "$LR" --seed "$SEED" --save-every 50
      --threads "$THREADS" --device "$DEVICE" --json)
    log "pretrain $arm: $out"
    record "pretrain $arm" unieval "${cmd[@]}"
    "$UNIEVAL" "${cmd[@]}" | tail -1 > "$out.json"
  done
fi

if has_stage finetune; then
  for mode in $MODES; do
    for arm in $ARMS; do
      out="$WORK/qg-$mode-$arm"
      # shellcheck disable=SC2046,SC2086
      cmd=(run --task squad-qg --data "$SHARED/squad_qg" --train-split dev --dev-split none --eval-split test
        --model "$WORK/pt-$arm/checkpoint" --out "$out" $(mode_flags "$mode") $QG_ARGS --seed "$SEED"
        --threads "$THREADS" --device "$DEVICE" --json)
      log "squad-qg $mode $arm: $out"
      record "squad-qg $mode $arm" unieval "${cmd[@]}"
      "$UNIEVAL" "${cmd[@]}" | tail -1 > "$out.json"
    done
  done
fi

if has_stage collect; then
  # shellcheck disable=SC2086
  python3 "$here/collect.py" --work "$WORK" --unieval "$UNIEVAL" --dest "$RESULTS" --arms $ARMS --modes $MODES
fi
