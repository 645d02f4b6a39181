#!/usr/bin/env bash
# SST-2's nine-member vote on the CPU (issue #36), the plan fixed before its runs in
# results/experiments/from-scratch/glue-sst2/sweep.md ("Next (written in session 41 ...)"):
# the 6,000-step self-pre-training of session 27 (pt256's command) with pre-training seeds
# PT_SEEDS, each fine-tuned with the preset glue-sst2-selfpt and seeds FT_SEEDS, all with
# --gemm GEMM; then the majority vote of all the members' dev predictions, scored by
# `unieval eval` with paired bootstraps against the best member and the majority class.
#
#   WORK=/work/sst2-vote UNIEVAL=build/unieval bench/experiments/sst2-self-pretrain/vote.sh
#
# Every stage resumes: a pre-training continues from its checkpoint (--resume), a fine-tuning run
# from its last finished stage (`unieval run` does), a finished one is skipped. Two chains can share
# the cores: PT_SEEDS=42 ... and PT_SEEDS="43 44" ... side by side, STAGES=vote when all are done.
# Each unieval call's wall time goes to WORK/walls.jsonl (the plan's budget: all twelve runs within
# 3 hours of the 2 cores, i.e. 6 hours of one-thread runs); the vote's summary to WORK/vote/vote.json.
#
# | variable | default                        | meaning                                          |
# |----------|--------------------------------|--------------------------------------------------|
# | WORK     | /work/sst2-vote                | run folder (inputs, runs, walls.jsonl, vote/)    |
# | UNIEVAL  | build/unieval                  | the CLI                                          |
# | SHARED   | ../shared/data                 | SST-2 train/dev and bert-uncased-vocab.txt       |
# | STAGES   | prepare pretrain finetune vote | stages to run                                    |
# | PT_SEEDS | 42 43 44                       | pre-training seeds                               |
# | FT_SEEDS | 42 43 44                       | fine-tuning seeds                                |
# | THREADS  | 1                              | threads per unieval call                         |
# | GEMM     | onednn                         | --gemm of every call                             |
# | STEPS    | 6000                           | pre-training steps (the plan's; smaller: dry run) |
# | FT_EXTRA | (none)                         | more `unieval run` flags (dry run: --train-limit 256) |
#
# A dry run (minutes):
#   WORK=/tmp/vote-dry STEPS=20 FT_EXTRA="--train-limit 256" bench/experiments/sst2-self-pretrain/vote.sh
set -euo pipefail
if [[ $# -gt 0 ]]; then
  # Settings are environment variables; any argument gets this header (-h, --help) or an error.
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  [[ "$1" == -h || "$1" == --help ]] && exit 0
  echo "vote.sh: no arguments (settings are environment variables): $*" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
WORK="${WORK:-/work/sst2-vote}"
UNIEVAL="${UNIEVAL:-$repo/build/unieval}"
SHARED="${SHARED:-$repo/../shared/data}"
STAGES="${STAGES:-prepare pretrain finetune vote}"
PT_SEEDS="${PT_SEEDS:-42 43 44}"
FT_SEEDS="${FT_SEEDS:-42 43 44}"
THREADS="${THREADS:-1}"
GEMM="${GEMM:-onednn}"
STEPS="${STEPS:-6000}"
FT_EXTRA="${FT_EXTRA:-}"
sweep="$repo/results/experiments/from-scratch/glue-sst2"
log() { echo "[sst2-vote $(date -u +%H:%M:%S)] $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
[[ -x "$UNIEVAL" ]] || { echo "vote.sh: no unieval binary at $UNIEVAL (set UNIEVAL)" >&2; exit 2; }
UNIEVAL="$(cd "$(dirname "$UNIEVAL")" && pwd)/$(basename "$UNIEVAL")"
mkdir -p "$WORK"
cd "$WORK"

# timed NAME CMD...: runs CMD, appends its wall time (and exit status) to walls.jsonl.
timed() {
  local name="$1" t0 t1 rc=0
  shift
  t0=$(date +%s.%N)
  "$@" || rc=$?
  t1=$(date +%s.%N)
  python3 -c 'import json, sys
n, a, b, rc, cmd = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
print(json.dumps({"name": n, "start": a, "end": b, "seconds": round(b - a, 3), "rc": rc, "argv": cmd}))' \
    "$name" "$t0" "$t1" "$rc" "$@" >> walls.jsonl
  return "$rc"
}

# ---- prepare: corpus (the training sentences), vocabulary, model config, GLUE layout -------------
if has_stage prepare; then
  for f in "$SHARED/glue/SST-2.train.tsv.gz" "$SHARED/glue/SST-2.dev.tsv.gz" "$SHARED/vocab/bert-uncased-vocab.txt"; do
    [[ -f "$f" ]] || { echo "vote.sh: $f missing (set SHARED)" >&2; exit 2; }
  done
  if [[ ! -f sst2-train.txt ]]; then
    # The sentence column of the training file, header dropped: session 27's corpus.
    gzip -dc "$SHARED/glue/SST-2.train.tsv.gz" | tail -n +2 | cut -f1 > sst2-train.txt.tmp
    mv sst2-train.txt.tmp sst2-train.txt
  fi
  if [[ ! -f sst2-8k.txt ]]; then
    "$UNIEVAL" vocab --base "$SHARED/vocab/bert-uncased-vocab.txt" --corpus sst2-train.txt --size 8000 \
      --out sst2-8k.txt >&2
  fi
  cp "$repo/tasks/scratch/glue-sst2-selfpt.config.json" c2x256-max.json
  mkdir -p glue-sst2
  ln -sfn "$(cd "$SHARED/glue" && pwd)/SST-2.train.tsv.gz" glue-sst2/train.tsv.gz
  ln -sfn "$(cd "$SHARED/glue" && pwd)/SST-2.dev.tsv.gz" glue-sst2/dev.tsv.gz
  log "prepare: $(wc -l < sst2-train.txt) sentences, $(wc -l < sst2-8k.txt) vocabulary entries"
fi

# ---- pretrain seed, then its fine-tuning runs -------------------------------------------------------
pretrain() {
  local seed="$1" out="pt-s$1"
  if [[ -f "$out/summary.json" ]] && grep -q '"finished":true' "$out/summary.json"; then
    log "pretrain seed $seed: done"
    return 0
  fi
  local -a cmd
  if [[ -f "$out/checkpoint/trainer_state.json" ]]; then
    cmd=(pretrain --out "$out" --resume --threads "$THREADS" --gemm "$GEMM" --json)
    log "pretrain seed $seed: resuming $out"
  else
    # pt256's command (sweep.md, sessions 27 and 32) with --seed and --gemm.
    cmd=(pretrain --corpus sst2-train.txt --model-config c2x256-max.json --vocab sst2-8k.txt --out "$out"
      --objectives bidirectional --segments bert --steps "$STEPS" --batch-size 64 --max-len 64 --lr 5e-4
      --warmup 0.05 --seed "$seed" --save-every 200 --threads "$THREADS" --gemm "$GEMM" --json)
    log "pretrain seed $seed: $out"
  fi
  timed "pretrain p$seed" "$UNIEVAL" "${cmd[@]}" > "$out.summary.json.tmp" ||
    { rc=$?; rm -f "$out.summary.json.tmp"; exit "$rc"; }
  tail -1 "$out.summary.json.tmp" > "$out/summary.json.tmp" && rm -f "$out.summary.json.tmp"
  mv "$out/summary.json.tmp" "$out/summary.json"
}
finetune() {
  local pseed="$1" fseed="$2" out="ft-p$1-f$2"
  if [[ -f "$out/result.json" ]]; then
    log "finetune p$pseed f$fseed: done"
    return 0
  fi
  log "finetune p$pseed f$fseed: $out"
  # shellcheck disable=SC2086
  timed "finetune p$pseed f$fseed" "$UNIEVAL" run --task glue-sst2 --data glue-sst2 --preset glue-sst2-selfpt \
    --train-split train --eval-split dev --model "pt-s$pseed/checkpoint" --seed "$fseed" \
    --threads "$THREADS" --gemm "$GEMM" --out "$out" --json $FT_EXTRA > "$out.summary.json.tmp" ||
    { rc=$?; rm -f "$out.summary.json.tmp"; exit "$rc"; }
  mv "$out.summary.json.tmp" "$out.summary.json"
}
for pseed in $PT_SEEDS; do
  if has_stage pretrain; then pretrain "$pseed"; fi
  if has_stage finetune; then
    for fseed in $FT_SEEDS; do finetune "$pseed" "$fseed"; done
  fi
done

# ---- vote: nine members, each pre-training seed's three, paired bootstraps, wall time --------------
if has_stage vote; then
  members=()
  for pseed in $PT_SEEDS; do
    for fseed in $FT_SEEDS; do
      [[ -f "ft-p$pseed-f$fseed/result.json" ]] || { echo "vote.sh: ft-p$pseed-f$fseed has no result.json (run its stages first)" >&2; exit 3; }
      members+=("ft-p$pseed-f$fseed")
    done
  done
  mkdir -p vote
  first="${members[0]}"
  gold="$first/eval/gold.tsv"
  preds=()
  for m in "${members[@]}"; do preds+=("$m/eval/pred.tsv"); done
  python3 "$sweep/vote.py" --out vote/pred.tsv "$gold" "${preds[@]}" > /dev/null
  for pseed in $PT_SEEDS; do
    sub=()
    for fseed in $FT_SEEDS; do sub+=("ft-p$pseed-f$fseed/eval/pred.tsv"); done
    python3 "$sweep/vote.py" --out "vote/pred-p$pseed.tsv" "$gold" "${sub[@]}" > /dev/null
  done
  # The best member by dev accuracy (the first in PT_SEEDS x FT_SEEDS order on a tie).
  best=$(python3 -c 'import json, sys
acc = [(json.load(open(m + "/result.json"))["summary"]["accuracy"], -i, m) for i, m in enumerate(sys.argv[1:])]
print(max(acc)[2])' "${members[@]}")
  "$UNIEVAL" eval --task glue-sst2 --data "$gold" --pred vote/pred.tsv --bootstrap 1000 --seed 42 \
    --paired-pred "$best/eval/pred.tsv" --paired-system "$best" --json > vote/against-best.json.tmp
  mv vote/against-best.json.tmp vote/against-best.json
  "$UNIEVAL" eval --task glue-sst2 --data "$gold" --pred vote/pred.tsv --bootstrap 1000 --seed 42 \
    --paired-pred "$first/baselines/majority/pred.tsv" --paired-system majority --json > vote/against-majority.json.tmp
  mv vote/against-majority.json.tmp vote/against-majority.json
  for pseed in $PT_SEEDS; do
    "$UNIEVAL" eval --task glue-sst2 --data "$gold" --pred "vote/pred-p$pseed.tsv" --json > "vote/p$pseed.json.tmp"
    mv "vote/p$pseed.json.tmp" "vote/p$pseed.json"
  done
  # shellcheck disable=SC2086
  python3 "$here/vote_summary.py" --work . --members "${members[@]}" --pt-seeds $PT_SEEDS \
    --best "$best" --out vote/vote.json
  cat vote/vote.json
fi
