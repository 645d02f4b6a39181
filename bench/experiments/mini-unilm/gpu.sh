#!/usr/bin/env bash
# The mini-UniLM experiment on a lent GPU machine (the `device` tool), where one call may run ten
# minutes and the machine keeps nothing between calls. Prepare here, then run there:
#
#   here:   ci/gpu/fetch-debs                                  # .gpu/debs (build dependencies)
#           bench/experiments/mini-unilm/gpu.sh pack           # .gpu/corpus, .gpu/data
#   there:  bench/experiments/mini-unilm/gpu.sh build          # ci/gpu/build; $OUT/bin.tar.gz
#           bench/experiments/mini-unilm/gpu.sh probe          # pre-training tokens/s per arm
#           TOKENS=N bench/experiments/mini-unilm/gpu.sh run   # run.sh with DEVICE=cuda
#   here:   tar xzf <files_at>/mini-unilm-gpu.tar.gz -C WORK && STAGES=collect WORK=... run.sh
#
# `build` leaves build-gpu/; later calls carry bin.tar.gz's binaries back (.gpu/bin) instead of
# building again. `run` pre-trains the two trained arms side by side on the one GPU, fine-tunes
# the three arms side by side, and packs every log, summary, prediction and result (no
# checkpoints) into $OUT/mini-unilm-gpu.tar.gz; the scoring with CIs and paired tests (`collect`)
# runs on the CPU afterwards, as for the CPU run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cd "$repo"
mode="${1:?usage: gpu.sh pack|build|probe|run}"
OUT="${OUT:-/tmp/out}"
WORK="${WORK:-/tmp/mini-unilm}"
SHARED_HERE="${SHARED_HERE:-$repo/../shared/data}"
log() { echo "[gpu.sh $(date -u +%H:%M:%S)] $*" >&2; }

# The binaries: carried (.gpu/bin) or built (build-gpu).
unieval_bin() {
  if [[ -x build-gpu/unieval-model ]]; then echo "$repo/build-gpu/unieval"; return; fi
  if [[ -f .gpu/bin/bin.tar.gz && ! -x /tmp/unieval-bin/unieval ]]; then
    mkdir -p /tmp/unieval-bin && tar xzf .gpu/bin/bin.tar.gz -C /tmp/unieval-bin
  fi
  echo /tmp/unieval-bin/unieval
}

case "$mode" in
  pack)
    # The corpus (built here by build_corpus.py: its sources are Debian packages) and the task
    # data the experiment reads, into .gpu/ (git-ignored, carried).
    corpus="${CORPUS:-/work/mini-unilm/corpus}"
    mkdir -p .gpu/corpus .gpu/data/vocab
    gzip -c "$corpus/train.txt" > .gpu/corpus/train.txt.gz
    cp "$corpus/stats.json" .gpu/corpus/
    cp -r "$SHARED_HERE/squad_qg" "$SHARED_HERE/glue" "$SHARED_HERE/meteor" .gpu/data/
    cp "$SHARED_HERE/vocab/bert-uncased-vocab.txt" .gpu/data/vocab/
    du -sh .gpu/*
    ;;
  build)
    mkdir -p "$OUT"
    set -o pipefail
    # shellcheck disable=SC2086
    ci/gpu/build ${BUILD_TARGETS:-} 2>&1 | tee "$OUT/build.log" | grep -E "error|FAILED|ci/gpu/build|unieval:|^\[[0-9]+/[0-9]+\] Linking" | tail -60
    mkdir -p /tmp/bin && cp build-gpu/unieval build-gpu/unieval-model /tmp/bin/ && strip /tmp/bin/*
    tar czf "$OUT/bin.tar.gz" -C /tmp/bin unieval unieval-model
    ls -la "$OUT"
    ;;
  probe)
    # Tokens/s of each pre-training objective set on this GPU, 30 steps each after the shard.
    ub="$(unieval_bin)"
    mkdir -p "$WORK/corpus" && gzip -dc .gpu/corpus/train.txt.gz > "$WORK/corpus/train.txt"
    WORK="$WORK" UNIEVAL="$ub" SHARED="$repo/.gpu/data" STAGES=config "$here/run.sh"
    for arm in bidirectional unified; do
      "$ub" pretrain --corpus "$WORK/corpus/train.txt" --shard "$WORK/corpus.shard" \
        --model-config "$WORK/config.json" --vocab .gpu/data/vocab/bert-uncased-vocab.txt \
        --out "$WORK/probe-$arm" --objectives "$arm" --steps "${PROBE_STEPS:-30}" \
        --batch-size "${BATCH:-192}" --max-len 128 --lr 5e-4 --threads "${THREADS:-8}" --device cuda \
        --no-progress --json | tail -1
    done
    ;;
  run)
    # FT_LIMIT (or DEADLINE): seconds the fine-tuning stage may take (the device call's limit minus the rest);
    # whatever has finished by then is packed, so a call that runs short still brings back the
    # pre-training logs.
    ub="$(unieval_bin)"
    mkdir -p "$WORK/corpus" "$OUT"
    [[ -f "$WORK/corpus/train.txt" ]] || gzip -dc .gpu/corpus/train.txt.gz > "$WORK/corpus/train.txt"
    cp .gpu/corpus/stats.json "$WORK/corpus/"
    export WORK UNIEVAL="$ub" SHARED="$repo/.gpu/data" DEVICE=cuda THREADS="${THREADS:-4}"
    export TOKENS="${TOKENS:?TOKENS: the pre-training budget per arm}" BATCH="${BATCH:-192}"
    pack() {
      tar czf "$OUT/mini-unilm-gpu.tar.gz" -C "$WORK" --exclude='checkpoint*' --exclude='corpus*' \
        --exclude='*.bin' --exclude='*.safetensors' --exclude='*.pt' . || true
      ls -la "$OUT"
    }
    trap pack EXIT
    # The shard and the untrained arm first, then the two trained arms side by side (the
    # record() of the second starts after the first's).
    ARMS=none STAGES="corpus config pretrain" "$here/run.sh"
    pids=()
    for arm in bidirectional unified; do
      ARMS=$arm STAGES=pretrain "$here/run.sh" > "$WORK/pretrain-$arm.out" 2>&1 & pids+=($!)
      sleep 3
    done
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    log "pre-training done (rc $rc)"
    tail -n 2 "$WORK"/pretrain-*.out
    # DEADLINE (epoch seconds): the fine-tuning stage ends 30 s before it.
    if [[ -n "${DEADLINE:-}" ]]; then FT_LIMIT=$((DEADLINE - $(date +%s) - 30)); fi
    log "fine-tuning (limit ${FT_LIMIT:-none} s)"
    pids=()
    for arm in none bidirectional unified; do
      ARMS=$arm STAGES="finetune sst2" timeout "${FT_LIMIT:-100000}" "$here/run.sh" > "$WORK/finetune-$arm.out" 2>&1 &
      pids+=($!)
      sleep 3
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    STAGES=baseline "$here/run.sh" || rc=1
    tail -n 3 "$WORK"/finetune-*.out
    exit $rc
    ;;
  *) echo "gpu.sh: unknown mode '$mode' (pack|build|probe|run)" >&2; exit 2 ;;
esac
