# shellcheck shell=bash
# What every one-call experiment script on the lent GPU machine (the `device` tool) shares: the
# build, the deadline, and the record of the call. Sourced, not run:
#
#   source "$repo/ci/gpu/call-lib.sh"
#   GPU_TAG=sst2-gpu gpu_build "$OUT" unieval unieval-model   # sets UNIEVAL unless it is set
#   timeout "$(gpu_left 15)" ...                              # seconds to DEADLINE, less 15
#   gpu_stamp "$WORK" "$rc"                                   # gpu.txt and gpu-call.json
#
# Each script keeps its own `pack` (what comes back differs), installed as its EXIT trap. The
# machine keeps nothing between calls, and what a call writes under $OUT comes back only within
# the device tool's limits (16 MiB per file, 64 MiB and 8 files in all): gpu_split_within packs
# one large file into parts that fit. Needs T0 (the call's start, epoch seconds) and DEADLINE.

gpu_log() { echo "[${GPU_TAG:-gpu} $(date -u +%H:%M:%S)] $*" >&2; }

# gpu_build OUT TARGET...: builds the targets against the machine's LibTorch (ci/gpu/build) unless
# UNIEVAL names a binary already (the CPU dry run), then exports UNIEVAL. The build log goes to
# OUT/build.log; a failed build prints its tail and exits.
gpu_build() {
  local out=$1
  shift
  if [[ -z "${UNIEVAL:-}" ]]; then
    gpu_log "building (ci/gpu/build $*)"
    ci/gpu/build "$@" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
    UNIEVAL="$PWD/build-gpu/unieval"
    gpu_log "built in $(($(date +%s) - T0)) s"
  fi
  [[ -x "$UNIEVAL" ]] || { echo "no unieval at $UNIEVAL" >&2; exit 2; }
  export UNIEVAL
}

# gpu_left MARGIN: the seconds until MARGIN s before DEADLINE, at least 1 (a timeout of 0 would
# mean no limit).
gpu_left() {
  local s=$((DEADLINE - $(date +%s) - $1))
  echo $((s > 1 ? s : 1))
}

# gpu_stamp WORK RC: the GPU's name and driver, and the call's start, end, deadline and exit
# status, into WORK (packed with the rest).
gpu_stamp() {
  nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv > "$1/gpu.txt" 2>/dev/null
  echo "{\"started\": $T0, \"packed\": $(date +%s), \"deadline\": $DEADLINE, \"rc\": $2}" \
    > "$1/gpu-call.json"
}

# gpu_split_within FILE OUT/NAME: FILE into OUT/NAME.partNN (16,000,000 bytes each) if OUT still
# has room for them under the device tool's limits; returns 1 (and writes nothing) if not.
gpu_split_within() {
  local file=$1 dest=$2 dir used=0 files=0 f size parts
  dir=$(dirname "$dest")
  for f in "$dir"/*; do
    [[ -f "$f" ]] || continue
    used=$((used + $(stat -c %s "$f")))
    files=$((files + 1))
  done
  size=$(stat -c %s "$file")
  parts=$(((size + 16000000 - 1) / 16000000))
  if ((used + size > 66000000 || files + parts > 8)); then return 1; fi
  split -b 16000000 -d "$file" "$dest.part"
}
