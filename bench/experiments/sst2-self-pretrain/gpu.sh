#!/usr/bin/env bash
# SST-2 self-pre-training (issue #36) on a lent GPU machine (the `device` tool), one call: the
# 2 x 256 model is pre-trained (masked LM + NSP) on the SST-2 training sentences alone, then
# fine-tuned on SST-2 with three seeds; the same commands as the CPU runs of
# results/experiments/from-scratch/glue-sst2/sweep.md (pt256, p29-p31) with --device cuda (bf16
# autocast) and more pre-training steps. Prepare here, run there, read the results here:
#
#   here:   ci/gpu/fetch-debs                                     # .gpu/debs (build dependencies)
#           SRC=/work/runs/sst2 bench/experiments/sst2-self-pretrain/gpu.sh pack   # .gpu/sst
#   there:  bench/experiments/sst2-self-pretrain/gpu.sh run       # (device run --carry .gpu)
#   here:   tar xzf FILES_AT/sst2-gpu.tar.gz -C DEST
#
# `pack` needs, in SRC: sst2-train.txt (the sentence column of SST-2.train.tsv.gz, one per line),
# sst2-8k.txt (`unieval vocab` on it) and c2x256-max.json (the model config). `run` pre-trains
# STEPS (default 18000) and, side by side, SHORT_STEPS (default 6000, the CPU run's length; 0:
# none), then fine-tunes each with seeds 42, 43, 44 as soon as its pre-training ends. DEADLINE
# (epoch seconds; default start + 300 s) ends what still runs 15 s before it; the logs,
# summaries and dev predictions are packed into $OUT/sst2-gpu.tar.gz, the long run's last
# checkpoint (weights and trainer_state.json) beside it.
#
# Session 28 (2026-11-30, H200): build 84 s; the 18,000-step pre-training was stopped at its
# deadline at step 17,000 (150 s); three fine-tunes 21 s each, side by side. Results:
# results/experiments/from-scratch/glue-sst2/sweep.md (p34-p36).
#
# A dry run on the CPU:
#   DEVICE=cpu UNIEVAL=build/unieval OUT=/tmp/sstout WORK=/tmp/sstdry STEPS=20 SHORT_STEPS=10 \
#     FT_EXTRA="--train-limit 256" bench/experiments/sst2-self-pretrain/gpu.sh run
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cd "$repo"
mode="${1:?usage: gpu.sh pack|run}"
source "$repo/ci/gpu/call-lib.sh"
GPU_TAG=sst2-gpu
log() { gpu_log "$@"; }

case "$mode" in
  pack)
    src="${SRC:?SRC: the folder with sst2-train.txt, sst2-8k.txt, c2x256-max.json}"
    shared="${SHARED:-$repo/../shared/data}"
    dest=.gpu/sst
    for f in sst2-train.txt sst2-8k.txt c2x256-max.json; do
      [[ -f "$src/$f" ]] || { echo "gpu.sh pack: $src/$f missing" >&2; exit 2; }
    done
    rm -rf "$dest" && mkdir -p "$dest"
    for f in sst2-train.txt sst2-8k.txt c2x256-max.json; do cp "$src/$f" "$dest/"; done
    cp "$shared/glue/SST-2.train.tsv.gz" "$shared/glue/SST-2.dev.tsv.gz" "$dest/"
    du -sh "$dest" .gpu
    ;;
  run)
    T0=$(date +%s)
    DEADLINE="${DEADLINE:-$((T0 + 300))}"
    OUT="${OUT:-/tmp/out}"
    WORK="${WORK:-/tmp/sst2-gpu}"
    DEVICE="${DEVICE:-cuda}"
    STEPS="${STEPS:-18000}"
    SHORT_STEPS="${SHORT_STEPS:-6000}"
    src=.gpu/sst
    mkdir -p "$OUT" "$WORK"
    gpu_build "$OUT" unieval
    pack() {
      local rc=$?
      set +e
      log "packing (rc $rc, $(($(date +%s) - T0)) s in)"
      gpu_stamp "$WORK" "$rc"
      tar czf "$OUT/sst2-gpu.tar.gz" -C "$WORK" --exclude='checkpoint' --exclude='corpus.shard' \
        --exclude='*.safetensors' --exclude='*.pt' --exclude='data' --exclude='*.partial*' .
      # The long run's last checkpoint: its weights, and trainer_state.json (which step it holds).
      local c="$WORK/pt-$STEPS/checkpoint"
      [[ -f "$c/model.safetensors" ]] && cp "$c/model.safetensors" "$OUT/pt-$STEPS.safetensors"
      [[ -f "$c/trainer_state.json" ]] &&
        cp "$c/trainer_state.json" "$OUT/pt-$STEPS.trainer_state.json"
      ls -la "$OUT"
    }
    trap pack EXIT
    left() { gpu_left 15; }
    # pretrain STEPS SEED...: the pre-training, then the fine-tuning runs side by side.
    arm() {
      local steps=$1 pt="$WORK/pt-$1"
      shift
      # The pre-training stops FT_RESERVE s (default 50) before the fine-tuning must end; a run
      # cut there is fine-tuned from its last checkpoint (every SAVE_EVERY steps, default 1,000).
      local cut=$(($(left) - ${FT_RESERVE:-50}))
      timeout "$((cut > 1 ? cut : 1))" "$UNIEVAL" pretrain --corpus "$src/sst2-train.txt" \
        --model-config "$src/c2x256-max.json" --vocab "$src/sst2-8k.txt" --out "$pt" \
        --objectives bidirectional --segments bert --steps "$steps" \
        --batch-size 64 --max-len 64 --lr 5e-4 --warmup 0.05 --threads 4 --device "$DEVICE" \
        --save-every "${SAVE_EVERY:-1000}" --json > "$pt.out" 2> "$pt.err" || {
        local prc=$?
        if [[ $prc != 124 || ! -f "$pt/checkpoint/model.safetensors" ]]; then
          log "pre-training $steps failed (rc $prc)"
          return 1
        fi
        log "pre-training $steps cut at its deadline; fine-tuning its last checkpoint"
      }
      log "pre-training $steps done ($(($(date +%s) - T0)) s in)"
      local pids=() seed
      for seed in "$@"; do
        timeout "$(left)" "$UNIEVAL" run --task glue-sst2 --data "$src/SST-2" --train-split train \
          --eval-split dev --model "$pt/checkpoint" --out "$WORK/ft-$steps-s$seed" \
          --optimizer adamw --weight-decay 0.01 --warmup 0.1 --batch-size 64 --max-seq-len 64 \
          --threads 1 --json --lr 3e-4 --seed "$seed" --epochs 1 --dropout 0.3 \
          --classifier-dropout 0.3 --device "$DEVICE" --no-progress ${FT_EXTRA:-} \
          > "$WORK/ft-$steps-s$seed.out" 2> "$WORK/ft-$steps-s$seed.err" &
        pids+=($!)
      done
      local rc=0 p
      for p in "${pids[@]}"; do wait "$p" || rc=1; done
      log "fine-tuning after $steps done (rc $rc, $(($(date +%s) - T0)) s in)"
      return $rc
    }
    pids=()
    arm "$STEPS" 42 43 44 &
    pids+=($!)
    if ((SHORT_STEPS > 0)); then arm "$SHORT_STEPS" 42 43 44 & pids+=($!); fi
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    exit $rc
    ;;
  *) echo "gpu.sh: unknown mode '$mode' (pack|run)" >&2; exit 2 ;;
esac
