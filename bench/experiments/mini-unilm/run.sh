#!/usr/bin/env bash
# The mini-UniLM experiment (issue 17): one small model shape pre-trained three ways with the same
# budget — none, bidirectional only (BERT MLM + NSP), unified (UniLM §2.3-2.4) — then each
# fine-tuned with one recipe on SQuAD question generation (Du et al. split: train on dev, evaluate
# on test) through `unieval run --task squad-qg`.
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
# | TOKENS      | 10000000                     | pre-training budget in input positions, per arm   |
# | BATCH       | 48                           | examples per step (a multiple of 6)               |
# | MAXLEN      | 128                          | pre-training sequence length                      |
# | LR          | 5e-4                         | pre-training peak learning rate                   |
# | SEED        | 42                           | seed of the initial weights and of every run      |
# | ARMS        | none bidirectional unified   | arms to run                                       |
# | STAGES      | corpus config pretrain finetune collect | stages to run                          |
# | FT_ARGS     | (empty)                      | extra flags for `unieval run` (the shared recipe,  |
# |             |                              | e.g. "--eval-limit 2000 --steps 3000")            |
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
WORK="${WORK:-/work/mini-unilm}"
UNIEVAL="${UNIEVAL:-$repo/build/unieval}"
SHARED="${SHARED:-$repo/../shared/data}"
THREADS="${THREADS:-2}"
TOKENS="${TOKENS:-10000000}"
BATCH="${BATCH:-48}"
MAXLEN="${MAXLEN:-128}"
LR="${LR:-5e-4}"
SEED="${SEED:-42}"
ARMS="${ARMS:-none bidirectional unified}"
STAGES="${STAGES:-corpus config pretrain finetune collect}"
FT_ARGS="${FT_ARGS:-}"
VOCAB="$SHARED/vocab/bert-uncased-vocab.txt"
mkdir -p "$WORK"
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
  local -a common=(--threads "$THREADS" --json)
  if [[ -f "$out/checkpoint/trainer_state.json" ]]; then
    log "pretrain $arm: resuming $out"
    "$UNIEVAL" pretrain --out "$out" --resume "${common[@]}" | tail -1 > "$out/summary.json.tmp"
  else
    local -a budget=(--tokens "$TOKENS" --objectives "$arm")
    # The 'none' arm: the same seeded initial weights, saved without a training step.
    [[ "$arm" == none ]] && budget=(--steps 0 --objectives unified)
    log "pretrain $arm: $out"
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

# ---- fine-tuning: SQuAD question generation ------------------------------------------------------
if has_stage finetune; then
  for arm in $ARMS; do
    out="$WORK/qg-$arm"
    if [[ -f "$out.done" ]]; then
      log "finetune $arm: done"
      continue
    fi
    log "finetune $arm: $out"
    # shellcheck disable=SC2086
    "$UNIEVAL" run --task squad-qg --data "$SHARED/squad_qg" --out "$out" --model "$WORK/pt-$arm/checkpoint" \
      --train-split dev --eval-split test --seed "$SEED" --threads "$THREADS" --json $FT_ARGS \
      | tail -1 > "$out.result.json.tmp"
    mv "$out.result.json.tmp" "$out.result.json"
    touch "$out.done"
  done
fi

# ---- collect: pre-training curves and results ----------------------------------------------------
if has_stage collect; then
  dest="$repo/results/experiments/mini-unilm"
  mkdir -p "$dest"
  python3 - "$WORK" "$dest" $ARMS <<'EOF'
import json, os, sys
work, dest, arms = sys.argv[1], sys.argv[2], sys.argv[3:]
out = {"work": work, "arms": {}}
for arm in arms:
    a = {}
    pt = os.path.join(work, "pt-" + arm)
    for name in ("summary.json", "run.json"):
        p = os.path.join(pt, name)
        if os.path.exists(p):
            a["pretrain_" + name.split(".")[0]] = json.load(open(p))
    log = os.path.join(pt, "log.jsonl")
    if os.path.exists(log):
        rows = [json.loads(l) for l in open(log) if l.strip()]
        keep = max(1, len(rows) // 200)  # about 200 points of the curve
        a["pretrain_curve"] = [r for i, r in enumerate(rows) if i % keep == 0 or i == len(rows) - 1]
    r = os.path.join(work, "qg-" + arm + ".result.json")
    if os.path.exists(r):
        a["squad_qg"] = json.load(open(r))
    out["arms"][arm] = a
with open(os.path.join(dest, "mini-unilm.json.tmp"), "w") as f:
    json.dump(out, f, indent=1)
os.replace(os.path.join(dest, "mini-unilm.json.tmp"), os.path.join(dest, "mini-unilm.json"))
print(os.path.join(dest, "mini-unilm.json"))
EOF
fi
