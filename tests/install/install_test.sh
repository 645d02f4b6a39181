#!/usr/bin/env bash
# The installed tree as a user gets it (CTest install_consumer; docs/install.md):
#   cmake --install BUILD --prefix TMP   -> the files of docs/install.md are there;
#   TMP/bin/unieval runs (and finds TMP/bin/unieval-model when the build has it);
#   the consumer program of tests/install/consumer, configured with find_package(unieval) against
#   TMP and built, prints the BLEU of the fixture, equal to the installed CLI's and to sacreBLEU's
#   (golden 71.23839097942954); the same program built with `pkg-config --cflags --libs unieval`
#   prints the same; the bash completion loads and completes; the man page renders.
# usage: tests/install/install_test.sh BUILD_DIR [SOURCE_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
fixture=$src/tests/install/fixture
golden=71.23839097942954  # sacreBLEU 2.6.0 corpus_bleu (tests/install/golden_bleu_chrf.jsonl, case 1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/unieval-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
# same(A, B): equal to 1e-9 (the CLI prints the shortest repr, the consumer 17 digits).
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-9) }'; }

# A sanitizer or fuzzing build (ci/harden) installs instrumented archives that only a program
# linked with the same -fsanitize flags can use: not what users install.
if grep -Eq '^UNIEVAL_(SANITIZE:STRING=.+|FUZZ:BOOL=ON)$' "$build/CMakeCache.txt"; then
  echo "install_test: SKIP: $build is a sanitizer/fuzzing build"
  exit 77
fi

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
p=$tmp/prefix
for f in bin/unieval include/unieval/metrics/bleu.h include/unieval/core/error.h \
         include/unieval/tasks/task.h include/unieval/results/run_result.h include/unieval/unieval_version.h \
         lib/libunieval_metrics.a lib/cmake/unieval/unievalConfig.cmake \
         lib/cmake/unieval/unievalConfigVersion.cmake lib/cmake/unieval/unievalTargets.cmake \
         lib/pkgconfig/unieval.pc share/unieval/paper/tables.json share/unieval/paper/unilm.jsonl \
         share/unieval/schema/run_result.v1.schema.json share/unieval/scratch/squad-qg-scratch.config.json \
         share/bash-completion/completions/unieval share/man/man1/unieval.1; do
  [ -e "$p/$f" ] || [ -e "$p/${f/libunieval_metrics.a/libunieval_metrics.so}" ] || fail "not installed: $f"
done
[ ! -e "$p/include/unieval/metrics/bleu_internal.h" ] || fail "an internal header was installed"
echo "install_test: $(find "$p" -type f | wc -l) files installed under PREFIX"

# The installed CLI, run from elsewhere.
version=$(sed -n 's/^project(unieval VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
out=$(cd "$tmp" && "$p/bin/unieval" --version)
[[ "$out" == "unieval $version "* ]] || fail "unieval --version: '$out' (project version $version)"
cli=$(cd "$tmp" && "$p/bin/unieval" score --metric bleu --hyp "$fixture/hyp.txt" --ref "$fixture/ref.0.txt" \
      --ref "$fixture/ref.1.txt" --json | sed -n 's/^{"score":\([^,]*\),.*/\1/p')
[ -n "$cli" ] || fail "no score from the installed unieval"
same "$cli" "$golden" || fail "installed unieval: BLEU $cli, sacreBLEU $golden"
if [ -x "$p/bin/unieval-model" ]; then
  (cd "$tmp" && "$p/bin/unieval" demo --help >/dev/null) || fail "installed unieval does not run its unieval-model"
  echo "install_test: PREFIX/bin/unieval runs PREFIX/bin/unieval-model (demo --help)"
fi

# find_package(unieval) from a program outside the project.
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$p" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "consumer: configure"; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "consumer: build"; }
read -r -d '' consumer_out < <("$tmp/consumer/bleu_consumer" "$fixture/hyp.txt" "$fixture/ref.0.txt" "$fixture/ref.1.txt"; printf '\0') || true
score=$(printf '%s\n' "$consumer_out" | sed -n 1p)
signature=$(printf '%s\n' "$consumer_out" | sed -n 2p)
echo "install_test: find_package consumer: BLEU $score ($signature); installed CLI: $cli; sacreBLEU: $golden"
same "$score" "$cli" || fail "consumer BLEU $score != CLI BLEU $cli"
[ "$signature" = "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" ] || fail "signature '$signature'"

# pkg-config: the same program, compiled by hand.
if command -v pkg-config >/dev/null 2>&1; then
  flags=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs unieval) || fail "pkg-config unieval"
  pc_version=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --modversion unieval)
  [ "$pc_version" = "$version" ] || fail "unieval.pc version $pc_version != $version"
  # shellcheck disable=SC2086
  ${CXX:-c++} -std=c++17 -O1 "$src/tests/install/consumer/main.cc" -o "$tmp/bleu_pc" $flags || fail "pkg-config build"
  # (A shared build's libraries: pkg-config gives no RPATH, the loader is told where they are.)
  pc_score=$(LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/bleu_pc" "$fixture/hyp.txt" "$fixture/ref.0.txt" "$fixture/ref.1.txt" | sed -n 1p)
  same "$pc_score" "$cli" || fail "pkg-config consumer BLEU $pc_score != $cli"
  echo "install_test: pkg-config consumer: BLEU $pc_score"
else
  echo "install_test: pkg-config not found: unieval.pc not checked"
fi

# Bash completion and man page.
words=$(bash -c 'source "$1"; COMP_WORDS=(unieval score --metric chr); COMP_CWORD=3; _unieval; echo "${COMPREPLY[*]}"' \
        _ "$p/share/bash-completion/completions/unieval")
[ "$words" = "chrf chrf++" ] || fail "completion of 'unieval score --metric chr': '$words'"
grep -q '^\.TH UNIEVAL 1' "$p/share/man/man1/unieval.1" || fail "unieval.1 has no .TH"
grep -q '^\.SH "UNIEVAL SCORE"' "$p/share/man/man1/unieval.1" || fail "unieval.1 has no score section"
if command -v groff >/dev/null 2>&1; then
  groff -man -Tutf8 -K utf8 "$p/share/man/man1/unieval.1" 2>/dev/null | grep -c -- "--metric" >/dev/null ||
    fail "unieval.1 does not render"
fi
echo "install_test: completion and man page ok"
echo "install_test: OK"
