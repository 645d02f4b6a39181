#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, no LibTorch) into ./build-harden and runs each
# for SECONDS (default 60), one after the other, with its corpus in $UNIEVAL_FUZZ_CORPUS/<target>
# (default ./build-harden/fuzz-corpus; seeded on first use from the small hand-written seeds in
# fuzz/seeds/ and, read in place, from ../shared's golden files and data). Any crash, sanitizer
# report or broken invariant stops that target and fails the script (libFuzzer writes the input
# as $UNIEVAL_FUZZ_CORPUS/<target>-crash-*).
#
#   fuzz/run.sh [SECONDS] [TARGET...]      targets: json readers normalize tokenizer safetensors
#                                          (default all)
#   UNIEVAL_FUZZ_JOBS=2 fuzz/run.sh 600 json readers   two targets at once
#
# Each run prints one summary line: target, seconds, executions, corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json readers normalize tokenizer safetensors)
build=${UNIEVAL_FUZZ_BUILD:-build-harden}
shared=${UNIEVAL_SHARED:-$(cd .. && pwd)/shared}
corpus_root=${UNIEVAL_FUZZ_CORPUS:-$build/fuzz-corpus}

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER=clang -DUNIEVAL_FUZZ=ON -DUNIEVAL_SANITIZE=address,undefined \
    -DUNIEVAL_WITH_TORCH=OFF -DUNIEVAL_PYTHON=OFF -DUNIEVAL_BUILD_BENCH=OFF -DUNIEVAL_STATIC_DEPS=OFF \
    "${launcher[@]}" >/dev/null
fi
nice cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

# Seeds: the tiny hand-written fuzz/seeds/<target>/ (a second, read-only corpus directory) and, for
# the JSON targets, the golden .jsonl files and published SQuAD predictions, read in place.
export UNIEVAL_FUZZ_VOCAB=${UNIEVAL_FUZZ_VOCAB:-$shared/data/vocab/bert-uncased-vocab.txt}
[ -f "$UNIEVAL_FUZZ_VOCAB" ] || unset UNIEVAL_FUZZ_VOCAB
export UNIEVAL_FUZZ_GPT_DIR=${UNIEVAL_FUZZ_GPT_DIR:-$shared/data/vocab/gpt}
[ -d "$UNIEVAL_FUZZ_GPT_DIR" ] || unset UNIEVAL_FUZZ_GPT_DIR
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 dir="$corpus_root/$1" log="$corpus_root/$1.log"
  mkdir -p "$dir"
  local extra=()
  [ -d "fuzz/seeds/$t" ] && extra+=("fuzz/seeds/$t")
  # Golden .jsonl lines make good JSON seeds; they are passed as files, read in place.
  local seeds=()
  if [ "$t" = json ] || [ "$t" = readers ]; then
    for f in "$shared"/golden/*.jsonl "$shared"/golden/hf_bert/*/*.json; do [ -f "$f" ] && seeds+=("$f"); done
  fi
  local seed_arg=()
  [ ${#seeds[@]} -gt 0 ] && seed_arg=(-seed_inputs="$(IFS=,; echo "${seeds[*]}")")
  # safetensors: the small golden checkpoints, copied once behind the target's mode byte 0 (a whole
  # file image); its dictionary holds the header's keys and dtypes.
  if [ "$t" = safetensors ]; then
    for f in "$shared"/golden/hf_*/*/*.safetensors; do
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] || continue
      local g="$dir/golden-$(basename "$(dirname "$f")")-$(basename "$f")"
      [ -f "$g" ] || { printf '\0' >"$g"; cat "$f" >>"$g"; }
    done
  fi
  [ -f "fuzz/seeds/$t.dict" ] && seed_arg+=(-dict="fuzz/seeds/$t.dict")
  nice -n 19 "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -report_slow_units=60 \
    -artifact_prefix="$corpus_root/$t-" -max_len=65536 -print_final_stats=1 "${seed_arg[@]}" "$dir" "${extra[@]}" >"$log" 2>&1 || {
    echo "fuzz_$t: FINDING (see $log)"; tail -40 "$log"; return 1; }
  local execs
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  echo "fuzz_$t: ${secs}s, ${execs:-?} executions, corpus $(ls "$dir" | wc -l) files ($(du -sk "$dir" | cut -f1) KiB), no finding"
}

status=0
jobs_max=${UNIEVAL_FUZZ_JOBS:-1}
pids=()
for t in "${targets[@]}"; do
  run_one "$t" & pids+=($!)
  if [ ${#pids[@]} -ge "$jobs_max" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
