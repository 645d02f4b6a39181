#!/usr/bin/env bash
# The mini-UniLM v2 experiment (issue #37; design in results/experiments/mini-unilm-v2/README.md,
# written before the runs): one model shape pre-trained four ways on the same corpus with the same
# number of input positions (none, bidirectional = MLM + NSP, unified = UniLM's 1/3 bidirectional,
# 1/3 seq2seq, 1/6 left-to-right, 1/6 right-to-left, seq2seq only), then every arm fine-tuned with
# the from-scratch recipe of issue #36 (presets squad-qg-scratch, glue-sst2-scratch) on the full
# training sets: SQuAD question generation (75,722 Du train pairs; dev loss on Du dev; BLEU-4 and
# ROUGE-L on the full Du test set, 11,877) with 3 fine-tuning seeds, and SST-2 (67,349 train, 872
# dev). collect.py scores everything with `unieval eval` (CIs, paired bootstrap per seed).
#
#   bench/experiments/mini-unilm-v2/run.sh                 # every stage; re-run it to continue
#   STAGES="corpus vocab config pretrain" bench/experiments/mini-unilm-v2/run.sh
#
# Every stage resumes: corpus/vocab/entropy are built once, a pre-training run continues from its
# checkpoint (--resume), a fine-tuning run whose result.json exists is skipped, an unfinished one
# is continued by `unieval run` from its checkpoint with the same command. Interrupt it at any time.
#
# | variable    | default                          | meaning                                       |
# |-------------|----------------------------------|-----------------------------------------------|
# | WORK        | /work/mini-unilm-v2              | corpus, runs (never committed)                |
# | UNIEVAL     | build/unieval                    | the binary                                    |
# | SHARED      | <repo>/../shared/data            | squad, squad_qg, glue, vocab                  |
# | THREADS     | 2                                | CPU threads of every command                  |
# | DEVICE      | cpu                              | --device of every model command               |
# | GEMM        | libtorch                         | --gemm of every model command (onednn: CPU)   |
# | TOKENS      | 24000000                         | pre-training budget per arm, input positions  |
# | BATCH       | 48                               | pre-training examples per step (multiple of 6)|
# | MAXLEN      | 128                              | pre-training sequence length                  |
# | LR          | 1e-3                             | pre-training peak learning rate               |
# | PT_SEEDS    | 42                               | pre-training seeds (initial weights + data)   |
# | FT_SEEDS    | 42 43 44                         | fine-tuning seeds of every pre-trained model  |
# | QG_EPOCHS   | 1                                | QG fine-tuning epochs (the preset says 10)    |
# | SST_EPOCHS  | 3                                | SST-2 fine-tuning epochs (the preset's)       |
# | ARMS        | none bidirectional unified seq2seq | arms to run                                 |
# | STAGES      | corpus vocab config pretrain qg sst2 collect | stages to run; `gate` runs    |
# |             |                                  | only the gate (qg and sst2 run it first)      |
# | RESAMPLES   | 1000                             | bootstrap resamples of CIs and paired tests   |
# | RESULTS     | results/experiments/mini-unilm-v2 | where collect writes                         |
# | LENGTH_GROUPS | 4                              | --length-groups of every fine-tuning run      |
# | QG_EXTRA    | (none)                           | more `unieval run` flags for QG (smoke tests) |
# | QG_DEV_LIMIT, QG_EVAL, SST_EVAL | 2000, test, dev      | dev pairs, QG and SST-2 eval splits           |
# | SST_EXTRA   | (none)                           | more `unieval run` flags for SST-2            |
# | BUDGET_CAP  | 96000000                         | the design's budget rule raises no further    |
# | BAR_GATE    | on                               | off: fine-tune without gate.py (GPU calls)    |
# | KEEP        | RESULTS/kept                     | finished runs' small files and the gate's     |
# |             |                                  | weights, kept (keep.py)                       |
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
WORK="${WORK:-/work/mini-unilm-v2}"
UNIEVAL="${UNIEVAL:-$repo/build/unieval}"
SHARED="${SHARED:-$repo/../shared/data}"
THREADS="${THREADS:-2}"
DEVICE="${DEVICE:-cpu}"
GEMM="${GEMM:-libtorch}"
TOKENS="${TOKENS:-24000000}"
BATCH="${BATCH:-48}"
MAXLEN="${MAXLEN:-128}"
LR="${LR:-1e-3}"
PT_SEEDS="${PT_SEEDS:-42}"
FT_SEEDS="${FT_SEEDS:-42 43 44}"
QG_EPOCHS="${QG_EPOCHS:-1}"
SST_EPOCHS="${SST_EPOCHS:-3}"
ARMS="${ARMS:-none bidirectional unified seq2seq}"
STAGES="${STAGES:-corpus vocab config pretrain qg sst2 collect}"
RESAMPLES="${RESAMPLES:-1000}"
RESULTS="${RESULTS:-$repo/results/experiments/mini-unilm-v2}"
LENGTH_GROUPS="${LENGTH_GROUPS:-4}"
QG_EXTRA="${QG_EXTRA:-}"
SST_EXTRA="${SST_EXTRA:-}"
BUDGET_CAP="${BUDGET_CAP:-96000000}"
BAR_GATE="${BAR_GATE:-on}"
KEEP="${KEEP:-$RESULTS/kept}"
export SHARED
mkdir -p "$WORK"
record() { python3 "$repo/bench/experiments/mini-unilm/record.py" "$WORK/commands.json" "$@"; }
# A pre-training run's state, on one line: its budget (run.json train.tokens, input positions;
# "null" when it has none), its checkpoint's step and its total steps.
run_state() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1] + "/run.json")); s = json.load(open(sys.argv[1] + "/checkpoint/trainer_state.json"))
print(json.dumps(r.get("train", {}).get("tokens")), s.get("step"), r.get("total_steps"))' "$1"
}
run_tokens() { local tokens _; read -r tokens _ < <(run_state "$1"); echo "$tokens"; }
# What a fine-tuning run of pre-training run NAME starts from: its budget and checkpoint step, as
# JSON; from KEEP's copy when the run is gone with a replaced machine (keep.py).
pretrained_from() { python3 "$here/keep.py" pretrained-from "$WORK" "$1" "$KEEP"; }
# A finished run's small files go to KEEP (committed with the results), so that they outlive the
# machine; `keep_run NAME` keeps WORK/NAME again, `keep_run NAME once` only when KEEP lacks it.
keep_run() { [[ "${2:-}" == once && -d "$KEEP/$1" ]] || python3 "$here/keep.py" save "$WORK" "$1" "$KEEP"; }
log() { echo "[mini-unilm-v2 $(date -u +%H:%M:%S)] $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
[[ -x "$UNIEVAL" ]] || { echo "run.sh: no unieval binary at $UNIEVAL (set UNIEVAL)" >&2; exit 2; }

# ---- corpus, vocabulary, unigram plateau -----------------------------------------------------------
if has_stage corpus; then
  if [[ -f "$WORK/corpus/stats.json" ]]; then
    log "corpus: done ($WORK/corpus)"
  else
    log "corpus: building from Debian packages and $SHARED"
    record "corpus" python3 bench/experiments/mini-unilm-v2/build_corpus.py --out "$WORK/corpus"
    python3 "$here/build_corpus.py" --out "$WORK/corpus"
  fi
fi
if has_stage vocab; then
  if [[ ! -f "$WORK/vocab.json" ]]; then
    # 8,000 entries of BERT's uncased vocabulary chosen by frequency on the corpus (issue #36's size).
    record "vocab" unieval vocab --base "$SHARED/vocab/bert-uncased-vocab.txt" --corpus "$WORK/corpus/train.txt" \
      --size 8000 --out "$WORK/vocab.txt" --json
    "$UNIEVAL" vocab --base "$SHARED/vocab/bert-uncased-vocab.txt" --corpus "$WORK/corpus/train.txt" \
      --size 8000 --out "$WORK/vocab.txt" --threads "$THREADS" --json | tail -1 > "$WORK/vocab.json.tmp"
    mv "$WORK/vocab.json.tmp" "$WORK/vocab.json"
  fi
  if [[ ! -f "$WORK/entropy.json" ]]; then
    record "unigram entropy" python3 bench/experiments/mini-unilm-v2/unigram_entropy.py --unieval unieval \
      --vocab "$WORK/vocab.txt" --corpus "$WORK/corpus/train.txt" --out "$WORK/entropy.json"
    python3 "$here/unigram_entropy.py" --unieval "$UNIEVAL" --vocab "$WORK/vocab.txt" \
      --corpus "$WORK/corpus/train.txt" --out "$WORK/entropy.json"
  fi
  log "unigram plateau: $(python3 -c "import json;print('%.3f nats' % json.load(open('$WORK/entropy.json'))['unigram_entropy_nats'])")"
fi

# ---- model shape: issue #36's 4 x 256 with UniLM's six segment ids -----------------------------------
if has_stage config; then
  cat > "$WORK/config.json.tmp" <<'EOF'
{
  "vocab_size": 8000,
  "hidden_size": 256,
  "num_hidden_layers": 4,
  "num_attention_heads": 4,
  "intermediate_size": 1024,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "attention_probs_dropout_prob": 0.1,
  "max_position_embeddings": 160,
  "type_vocab_size": 6,
  "initializer_range": 0.02,
  "layer_norm_eps": 1e-12,
  "pad_token_id": 0
}
EOF
  mv "$WORK/config.json.tmp" "$WORK/config.json"
fi

# ---- pre-training ----------------------------------------------------------------------------------
# A run's resume state kept from another machine (keep.py save-resume, committed before a session
# ends) comes back first when this machine's checkpoint of it is older or gone; one call at a time.
restore_resume() {
  [[ "$1" == none ]] && return 0
  (
    flock 8
    python3 "$here/keep.py" restore-resume "$WORK" "pt-$1-p$2" "$KEEP"
  ) 8> "$WORK/.restore.lock"
}
# Finished at its budget: a summary that says so, and its checkpoint at its last step (a raise
# interrupted before its first checkpoint has the raised budget in run.json, the finished summary
# of the budget before, and its checkpoint at that budget's end).
finished_at() {  # finished_at RUN TOKENS ('none': any budget)
  local tokens step total
  [[ -f "$1/summary.json" ]] && grep -q '"finished":true' "$1/summary.json" || return 1
  [[ "$2" == none ]] && return 0
  read -r tokens step total < <(run_state "$1") || return 1
  [[ "$tokens" == "$2" && -n "$step" ]] && ((step == total))
}
# pt-ARM-pSEED; the 'none' arm is the same seeded initial weights saved without a step.
pretrain_arm() {
  local arm="$1" seed="$2" out="$WORK/pt-$1-p$2"
  local -a common=(--threads "$THREADS" --device "$DEVICE" --gemm "$GEMM" --json)
  restore_resume "$arm" "$seed"
  if [[ -f "$out/checkpoint/trainer_state.json" ]]; then
    # A trained arm resumes with --tokens TOKENS: the same budget continues it; a raised one (the
    # design's "another 24 M positions") raises it, also after it finished; a lower one is refused.
    local -a raise=()
    [[ "$arm" != none ]] && raise=(--tokens "$TOKENS")
    local had step total
    if [[ "$arm" != none && "$(run_tokens "$out")" != "$TOKENS" ]]; then
      # The design raises the budget of finished arms only, so that every arm follows the same
      # schedule: a run still short of its own budget finishes it first. The finished run's
      # checkpoint is kept as checkpoint-BUDGET before the raise continues it.
      read -r had step total < <(run_state "$out")
      if ((TOKENS < had)); then
        :  # a lower budget: unieval pretrain refuses it and says why
      elif ((step < total)); then
        log "pretrain $arm seed $seed: $out is at step $step of $total of its budget $had; finish it with TOKENS=$had before raising it to $TOKENS"
        exit 2
      elif [[ ! -e "$out/checkpoint-$had" ]]; then
        cp -r "$out/checkpoint" "$out/checkpoint-$had.tmp" && mv "$out/checkpoint-$had.tmp" "$out/checkpoint-$had"
      fi
    fi
    log "pretrain $arm seed $seed: resuming $out ${raise[*]}"
    record "pretrain $arm p$seed resume" unieval pretrain --out "$out" --resume "${raise[@]}" "${common[@]}"
    "$UNIEVAL" pretrain --out "$out" --resume "${raise[@]}" "${common[@]}" | tail -1 > "$out/summary.json.tmp" ||
      { rc=$?; rm -f "$out/summary.json.tmp"; exit "$rc"; }  # a refused or failed call leaves no temp file
  else
    local -a budget=(--tokens "$TOKENS" --objectives "$arm")
    [[ "$arm" == none ]] && budget=(--steps 0 --objectives unified)
    local -a cmd=(pretrain --corpus "$WORK/corpus/train.txt" --shard "$WORK/corpus.shard"
      --model-config "$WORK/config.json" --vocab "$WORK/vocab.txt" --out "$out" "${budget[@]}"
      --batch-size "$BATCH" --max-len "$MAXLEN" --lr "$LR" --warmup 0.05 --seed "$seed" --save-every 100
      "${common[@]}")
    log "pretrain $arm seed $seed: $out"
    record "pretrain $arm p$seed" unieval "${cmd[@]}"
    "$UNIEVAL" "${cmd[@]}" | tail -1 > "$out.summary.json.tmp" || { rc=$?; rm -f "$out.summary.json.tmp"; exit "$rc"; }
    mv "$out.summary.json.tmp" "$out/summary.json.tmp"
  fi
  mv "$out/summary.json.tmp" "$out/summary.json"
  if grep -q '"finished":true' "$out/summary.json"; then keep_run "pt-$arm-p$seed"; fi
}
if has_stage pretrain; then
  for seed in $PT_SEEDS; do
    for arm in $ARMS; do
      if finished_at "$WORK/pt-$arm-p$seed" "$([[ "$arm" == none ]] && echo none || echo "$TOKENS")"; then
        log "pretrain $arm seed $seed: done"
        keep_run "pt-$arm-p$seed" once
      else
        pretrain_arm "$arm" "$seed"
      fi
    done
  done
fi

# ---- fine-tuning -----------------------------------------------------------------------------------
# Every run computes each batch as LENGTH_GROUPS micro-batches of its examples sorted by length
# (--length-groups): the recipe's examples, loss and updates with ~40% fewer padded positions on
# the QG pairs (bench/length_groups_bench.py); only dropout draws and summation order differ.
# Segment ids of the fine-tuning pair: those the arm's pre-training gave a segment pair (UniLM v1:
# 0/1 for bidirectional pairs, 4/5 for seq2seq pairs); 'none' takes the checkpoint family's
# default (4/5), whose embeddings are as untrained as every other weight of that arm.
# Weights kept at the gate come back to a machine that lost them (keep.py restore checks their sha256).
restore_weights() {
  [[ -f "$WORK/pt-$1-p$2/checkpoint/model.safetensors" || ! -d "$KEEP/pt-$1-p$2/weights" ]] ||
    python3 "$here/keep.py" restore "$WORK" "pt-$1-p$2" "$KEEP"
}
segments_of() { case "$1" in bidirectional) echo 0,1 ;; *) echo 4,5 ;; esac; }
fine_tune() {  # fine_tune NAME TASK FLAGS... -> WORK/NAME-ARM-pP-fF for every arm and seed pair
  local name="$1" task="$2"
  shift 2
  for pseed in $PT_SEEDS; do
    for fseed in $FT_SEEDS; do
      for arm in $ARMS; do
        local out="$WORK/$name-$arm-p$pseed-f$fseed" from
        # A run kept from an earlier machine comes back first (result, log, predictions).
        python3 "$here/keep.py" restore "$WORK" "$(basename "$out")" "$KEEP"
        from="$(pretrained_from "pt-$arm-p$pseed")"
        # A run started from another pre-training budget is stale (the design's rule raised it):
        # refuse it rather than count it or continue it.
        if [[ -e "$out" && -f "$out.pretrain.json" && "$(cat "$out.pretrain.json")" != "$from" ]]; then
          log "$task $arm p$pseed f$fseed: $out was fine-tuned from $(cat "$out.pretrain.json"), not from $from: move it aside"
          exit 2
        fi
        if [[ -f "$out/result.json" ]]; then
          log "$task $arm p$pseed f$fseed: done"
          keep_run "$(basename "$out")" once
          continue
        fi
        restore_weights "$arm" "$pseed"
        [[ -f "$WORK/pt-$arm-p$pseed/checkpoint/model.safetensors" ]] ||
          { log "$task $arm p$pseed f$fseed: the weights of $WORK/pt-$arm-p$pseed are gone (only its kept files are in $KEEP): pre-train it again first"; exit 2; }
        [[ -f "$out.pretrain.json" ]] || echo "$from" > "$out.pretrain.json"
        log "$task $arm p$pseed f$fseed: $out"
        local -a cmd=(run --task "$task" --out "$out" --model "$WORK/pt-$arm-p$pseed/checkpoint" --seed "$fseed"
          --threads "$THREADS" --device "$DEVICE" --gemm "$GEMM" --length-groups "$LENGTH_GROUPS" --json "$@")
        [[ "$task" == squad-qg ]] && cmd+=(--segment-ids "$(segments_of "$arm")")
        record "$task $arm p$pseed f$fseed" unieval "${cmd[@]}"
        "$UNIEVAL" "${cmd[@]}" | tail -1 > "$out.summary.json"
        keep_run "$(basename "$out")"
      done
    done
  done
}
# The design's gate, before any trained arm is fine-tuned: every trained arm finished at TOKENS and
# past the bar, or the budget cap reached (gate.py; exit 3 = pre-training unfinished, 4 = raise TOKENS).
gate() {
  [[ "$BAR_GATE" == on ]] || return 0
  local arm seed trained=0
  for arm in $ARMS; do if [[ "$arm" != none ]]; then trained=1; fi; done
  [[ $trained == 1 ]] || return 0
  for seed in $PT_SEEDS; do
    for arm in bidirectional unified seq2seq; do restore_weights "$arm" "$seed"; done
    python3 "$here/gate.py" --work "$WORK" --tokens "$TOKENS" --cap "$BUDGET_CAP" --pt-seed "$seed" ||
      { rc=$?; log "fine-tuning not started (gate.py exit $rc)"; exit "$rc"; }
    # The decision goes with the kept runs (collect reads it from KEEP when WORK is gone).
    mkdir -p "$KEEP" && cp "$WORK/gate-p$seed.json" "$KEEP/gate-p$seed.json.tmp" &&
      mv "$KEEP/gate-p$seed.json.tmp" "$KEEP/gate-p$seed.json"
    # So are the weights it chose, of every trained arm it judged: the fine-tunes can start from
    # them on a replaced machine.
    for arm in bidirectional unified seq2seq; do
      python3 "$here/keep.py" save-weights "$WORK" "pt-$arm-p$seed" "$KEEP"
    done
  done
}
if has_stage gate || has_stage qg || has_stage sst2; then gate; fi
if has_stage qg; then
  # shellcheck disable=SC2086
  fine_tune qg squad-qg --preset squad-qg-scratch --data "$SHARED/squad_qg" --train-split train \
    --dev-split dev --dev-limit "${QG_DEV_LIMIT:-2000}" --eval-split "${QG_EVAL:-test}" --epochs "$QG_EPOCHS" --save-every 200 --skip-metric meteor $QG_EXTRA
fi
if has_stage sst2; then
  # One fine-tuning seed (the first) for SST-2: the thesis is about generation; SST-2 checks that
  # understanding is kept.
  # shellcheck disable=SC2086
  FT_SEEDS="${FT_SEEDS%% *}" fine_tune sst2 glue-sst2 --preset glue-sst2-scratch --data "$SHARED/glue/SST-2" \
    --train-split train --eval-split "${SST_EVAL:-dev}" --epochs "$SST_EPOCHS" $SST_EXTRA
fi

# ---- collect: CIs, paired tests per seed, curves -> results/experiments/mini-unilm-v2 ---------------
if has_stage collect; then
  # shellcheck disable=SC2086
  python3 "$here/collect.py" --work "$WORK" --unieval "$UNIEVAL" --dest "$RESULTS" --keep "$KEEP" --shared "$SHARED" \
    --arms $ARMS --pt-seeds $PT_SEEDS --ft-seeds $FT_SEEDS --resamples "$RESAMPLES"
fi
