#!/usr/bin/env bash
# The CPU schedule of issue #37's three trained arms on two cores (results/experiments/
# mini-unilm-v2/README.md, sessions 44-45): two one-thread chains that each run about half of the
# 3 x 15,625 pre-training steps, then the gate at the cap and half of the fine-tunes, so both cores
# stay busy until the results are collected. Two one-thread runs side by side go faster here than
# three (1.59 against 1.44 steps a second in all).
#
#   bench/experiments/mini-unilm-v2/two_cores.sh a   # bidirectional T1 -> T2, seq2seq's rest; gate; 5 QG
#   bench/experiments/mini-unilm-v2/two_cores.sh b   # seq2seq to step SWITCH, unified T1 -> T2; 4 QG, 3 SST-2
#
# Pre-training. Chain a raises bidirectional to T2 only when its masked-token loss at T1 (mean of its
# last 50 steps) is above the design's bar, which makes the rule's raise certain for every arm; chain
# b raises unified only after chain a did. Otherwise chain a stops with exit 5 (and so does b) and
# gate.py decides (run.sh STAGES=gate). seq2seq runs on one chain at a time: chain a waits for
# WORK/seq2seq-released, which chain b writes when seq2seq's checkpoint reaches SWITCH (default
# 7,900: the two chains' balance point). A leg whose arm was already raised past its budget is done.
# Fine-tuning. When both chains have pre-trained, chain a records the decision at T1 again from
# this machine's runs (KEEP/gate-p42-72m.json) and runs the gate at T2 (run.sh STAGES=gate, which
# keeps the weights it judged); both chains then fine-tune their share with BAR_GATE=off (the gate
# has passed): a: QG seeds 42 (every trained arm) and 43 (bidirectional, unified); b: QG seeds 44
# (every trained arm) and 43 (seq2seq), then SST-2 (seed 42, every trained arm); chain b also runs
# the `none` arm (restored from KEEP when kept). The chain that finishes last collects every arm
# (run.sh STAGES=collect).
# Every run resumes from its checkpoint: re-run both chains after an interruption. On a new machine
# the runs kept with `keep.py save-resume` before the last session ended come back first. A chain that
# fails writes WORK/chain-X.failed, and the other chain stops instead of waiting for it.
# WORK, UNIEVAL, GEMM (default onednn), THREADS (default 1), KEEP and RESULTS go to run.sh; T1, T2
# (default 72000000 and 96000000 positions, the design's budget and cap), SWITCH and WAIT_S (the
# seconds between two looks at what a chain waits for, default 60) are for tests/bench/two_cores_test.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
export WORK="${WORK:-/work/mini-unilm-v2}" GEMM="${GEMM:-onednn}" THREADS="${THREADS:-1}"
export RESULTS="${RESULTS:-$repo/results/experiments/mini-unilm-v2}"
export KEEP="${KEEP:-$RESULTS/kept}"
[[ -n "${UNIEVAL:-}" ]] && export UNIEVAL
SWITCH="${SWITCH:-7900}"
T1="${T1:-72000000}"
T2="${T2:-96000000}"
TRAINED="bidirectional unified seq2seq"
chain="${1:-}"
other=""
case "$chain" in
  a) other=b ;;
  b) other=a ;;
  *)
    echo "usage: two_cores.sh a|b (see the comment at its top)" >&2
    exit 2
    ;;
esac

log() { echo "[two_cores $(date -u +%H:%M:%S)] $*" >&2; }
mkdir -p "$WORK"
rm -f "$WORK/chain-$chain.failed"
trap 'rc=$?; if ((rc != 0)); then echo "exit $rc at $(date -u +%H:%M:%S)" > "$WORK/chain-$chain.failed"; fi' EXIT
# wait_for PATH: until it exists, unless the other chain failed (a chain removes its own marker
# when it starts, so start both chains within WAIT_S seconds of each other).
wait_for() {
  until [[ -e "$1" ]]; do
    sleep "${WAIT_S:-60}"
    if [[ ! -e "$1" && -e "$WORK/chain-$other.failed" ]]; then
      log "chain $other failed ($(cat "$WORK/chain-$other.failed")): not waiting for $1; re-run both chains"
      exit 5
    fi
  done
}
step() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["step"])' "$WORK/pt-$1-p42/checkpoint/trainer_state.json" 2>/dev/null ||
    echo 0
}
budget() {  # the arm's pre-training budget in positions (0 before its first checkpoint)
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("train", {}).get("tokens") or 0)' \
    "$WORK/pt-$1-p42/run.json" 2>/dev/null || echo 0
}
pretrain() {  # pretrain TOKENS ARM
  if (($(budget "$2") > $1)); then
    log "$2: its budget was raised to $(budget "$2") after it finished $1"
    return 0
  fi
  STAGES=pretrain TOKENS="$1" ARMS="$2" "$here/run.sh"
}
above_bar_at_t1() {
  python3 - "$WORK" "$1" "$T1" "$here" <<'PY'
import json, os, sys
work, arm, t1, here = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, here)
from gate import last_mlm  # the gate's own measure: mean mlm of the last 50 logged steps
run = "%s/pt-%s-p42" % (work, arm)
kept = os.path.join(run, "checkpoint-%d" % t1, "trainer_state.json")
cut = json.load(open(kept))["step"] if os.path.exists(kept) else json.load(open(run + "/run.json"))["total_steps"]
mlm, n, last = last_mlm(run + "/log.jsonl", upto=cut)
bar = json.load(open(work + "/entropy.json"))["unigram_entropy_nats"] - 1.0
print("two_cores: %s at step %d: mlm %.3f over its last %d steps, bar %.3f" % (arm, last, mlm, n, bar),
      file=sys.stderr)
sys.exit(0 if mlm > bar and last == cut else 1)
PY
}
ft() {  # ft STAGE FT_SEEDS ARMS
  STAGES="$1" FT_SEEDS="$2" ARMS="$3" TOKENS="$T2" BAR_GATE=off "$here/run.sh"
}

# ---- pre-training ----------------------------------------------------------------------------------
# Runs kept with keep.py save-resume on a machine since replaced come back before any step is read
# (run.sh restores them too; a checkpoint on this machine at the same step or later stays).
for arm in $TRAINED; do
  (
    flock 8
    python3 "$here/keep.py" restore-resume "$WORK" "pt-$arm-p42" "$KEEP"
  ) 8> "$WORK/.restore.lock"
done
case "$chain" in
  a)
    pretrain "$T1" bidirectional
    above_bar_at_t1 bidirectional || { log "bidirectional is past the bar at $T1: the raise is not certain; run the gate"; exit 5; }
    pretrain "$T2" bidirectional
    wait_for "$WORK/seq2seq-released"
    pretrain "$T1" seq2seq
    pretrain "$T2" seq2seq
    ;;
  b)
    if [[ ! -e "$WORK/seq2seq-released" ]]; then
      if (($(step seq2seq) < SWITCH)); then
        TOKENS="$T1" ARMS=seq2seq STAGES=pretrain setsid "$here/run.sh" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null && (($(step seq2seq) < SWITCH)); do sleep 5; done
        kill -- -"$pid" 2>/dev/null || true
        wait "$pid" || true
      fi
      log "seq2seq released at step $(step seq2seq)"
      touch "$WORK/seq2seq-released"
    fi
    pretrain "$T1" unified
    wait_for "$WORK/pt-bidirectional-p42/checkpoint-$T1"
    pretrain "$T2" unified
    ;;
esac
touch "$WORK/chain-$chain.pretrained"
log "chain $chain: pre-training done"

# ---- the gate at T2, then this chain's fine-tunes --------------------------------------------------
passed="$WORK/gate-p42-$T2.passed"
if [[ "$chain" == a ]]; then
  wait_for "$WORK/chain-b.pretrained"
  rm -f "$passed"
  # The decision at T1, from this machine's runs (each judged at its checkpoint-T1): exit 4 (raise)
  # or 0 (at the cap) both record it.
  rc=0
  mkdir -p "$KEEP"
  python3 "$here/gate.py" --work "$WORK" --tokens "$T1" --cap "$T2" --pt-seed 42 \
    --out "$KEEP/gate-p42-$((T1 / 1000000))m.json" || rc=$?
  ((rc == 0 || rc == 4)) || { log "gate.py at $T1: exit $rc"; exit "$rc"; }
  STAGES=gate TOKENS="$T2" BUDGET_CAP="$T2" ARMS="$TRAINED" "$here/run.sh"
  touch "$passed"
  ft qg 42 "$TRAINED"
  ft qg 43 "bidirectional unified"
else
  wait_for "$passed"
  # The `none` arm first: its fine-tunes come back from KEEP when they were kept (they were, in
  # sessions 35-40); on a new WORK its seeded initial weights are saved (no step) and fine-tuned.
  pretrain "$T1" none
  ft qg "42 43 44" none
  ft qg 44 "$TRAINED"
  ft qg 43 seq2seq
  ft sst2 42 "none $TRAINED"
fi
touch "$WORK/chain-$chain.finetuned"
log "chain $chain: fine-tuning done"

# ---- collect, once, by the chain that finishes last ------------------------------------------------
exec 9> "$WORK/.collect.lock"
flock 9
if [[ -e "$WORK/chain-$other.finetuned" && ! -e "$WORK/collected-$T2" ]]; then
  STAGES=collect ARMS="none $TRAINED" FT_SEEDS="42 43 44" "$here/run.sh"
  touch "$WORK/collected-$T2"
  log "chain $chain: collected into $RESULTS"
fi
log "chain $chain: done"
