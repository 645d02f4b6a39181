#!/usr/bin/env bash
# The CPU schedule of issue #37's three trained arms on two cores (results/experiments/
# mini-unilm-v2/README.md, session 44): two one-thread chains that each run about half of the
# 3 x 15,625 pre-training steps, so both cores stay busy until the gate at 96 M. Two one-thread
# runs side by side go faster here than three (1.59 against 1.44 steps a second in all).
#
#   bench/experiments/mini-unilm-v2/two_cores.sh a   # bidirectional 72 M -> 96 M, then seq2seq's rest
#   bench/experiments/mini-unilm-v2/two_cores.sh b   # seq2seq to step SWITCH, then unified 72 M -> 96 M
#
# Every run resumes from its checkpoint: re-run both after an interruption. Chain a raises
# bidirectional to 96 M only when its masked-token loss at 72 M (mean of its last 50 steps) is above
# the design's bar, which makes the rule's raise certain for every arm; chain b raises unified only
# after chain a did. Otherwise a chain stops with exit 5 and gate.py decides (run.sh STAGES=qg).
# seq2seq runs on one chain at a time: chain a waits for WORK/seq2seq-released, which chain b
# writes when seq2seq's checkpoint reaches SWITCH (default 7,900: the two chains' balance point).
# WORK, UNIEVAL, GEMM (default onednn) and THREADS (default 1) go to run.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export WORK="${WORK:-/work/mini-unilm-v2}" GEMM="${GEMM:-onednn}" THREADS="${THREADS:-1}" STAGES=pretrain
[[ -n "${UNIEVAL:-}" ]] && export UNIEVAL
SWITCH="${SWITCH:-7900}"
run() { TOKENS="$1" ARMS="$2" "$here/run.sh"; }
log() { echo "[two_cores $(date -u +%H:%M:%S)] $*" >&2; }
step() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["step"])' "$WORK/pt-$1-p42/checkpoint/trainer_state.json" 2>/dev/null ||
    echo 0
}
above_bar_at_72m() {
  python3 - "$WORK" "$1" <<'PY'
import json, sys
work, arm = sys.argv[1:]
steps = [json.loads(l) for l in open("%s/pt-%s-p42/log.jsonl" % (work, arm)) if '"step"' in l]
last = [d for d in steps if d["step"] <= 11719][-50:]
bar = json.load(open(work + "/entropy.json"))["unigram_entropy_nats"] - 1.0
mlm = sum(d["mlm"] for d in last) / len(last)
print("two_cores: %s at step %d: mlm %.3f over its last 50 steps, bar %.3f" % (arm, last[-1]["step"], mlm, bar),
      file=sys.stderr)
sys.exit(0 if mlm > bar and last[-1]["step"] == 11719 else 1)
PY
}
case "${1:-}" in
  a)
    run 72000000 bidirectional
    above_bar_at_72m bidirectional || { log "bidirectional is past the bar at 72 M: the raise is not certain; run the gate"; exit 5; }
    run 96000000 bidirectional
    until [[ -e "$WORK/seq2seq-released" ]]; do sleep 60; done
    run 72000000 seq2seq
    run 96000000 seq2seq
    ;;
  b)
    if [[ ! -e "$WORK/seq2seq-released" ]]; then
      if (($(step seq2seq) < SWITCH)); then
        TOKENS=72000000 ARMS=seq2seq setsid "$here/run.sh" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null && (($(step seq2seq) < SWITCH)); do sleep 5; done
        kill -- -"$pid" 2>/dev/null || true
        wait "$pid" || true
      fi
      log "seq2seq released at step $(step seq2seq)"
      touch "$WORK/seq2seq-released"
    fi
    run 72000000 unified
    until [[ -e "$WORK/pt-bidirectional-p42/checkpoint-72000000" ]]; do sleep 60; done
    run 96000000 unified
    ;;
  *)
    echo "usage: two_cores.sh a|b (see the comment at its top)" >&2
    exit 2
    ;;
esac
log "chain $1: done"
