#!/usr/bin/env bash
# The wheel as a Python user gets it (CTest install_wheel; docs/install.md):
#   python3 -m pip wheel ./python --no-build-isolation -w dist/  -> dist/unieval-VERSION-*.whl;
#   installed into a fresh venv (no --system-site-packages, no index), imported from outside the
#   source and build trees: unieval.__version__ == the project version == `unieval --version` ==
#   the wheel's; 5 golden cases of sacreBLEU 2.6.0 (tests/install/golden_bleu_chrf.jsonl: 3 BLEU,
#   2 chrF) give the same score through unieval.sacrebleu as through the CLI, and sacreBLEU's.
#
# By default the wheel packs the extension the build already made (UNIEVAL_PY_PREBUILT=
# BUILD/python/unieval/_core*.so; packing, venv and checks take seconds). With
# UNIEVAL_WHEEL_FROM_SOURCE=1 it runs the documented command as is, which compiles the scoring
# libraries again, position independent, in a build folder of its own (minutes; ctest -L wheel-source).
# usage: tests/install/wheel_test.sh BUILD_DIR [SOURCE_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
python=${UNIEVAL_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=$(command -v python3)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/unieval-wheel-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "wheel_test: FAIL: $*" >&2; exit 1; }
skip() { echo "wheel_test: SKIP: $*"; exit 77; }

for mod in pip setuptools wheel venv; do
  "$python" -c "import $mod" 2>/dev/null || skip "$python has no $mod (Debian python3-$mod)"
done
version=$(sed -n 's/^project(unieval VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")

if [ "${UNIEVAL_WHEEL_FROM_SOURCE:-0}" = 1 ]; then
  # The documented command, in the source tree, with its own CMake build folder under $tmp.
  export UNIEVAL_PY_BUILD_DIR=$tmp/cmake UNIEVAL_PY_JOBS=${UNIEVAL_PY_JOBS:-2}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$src}
  start=$(date +%s)
  (cd "$src" && "$python" -m pip wheel ./python --no-build-isolation --no-deps --no-index -w "$tmp/dist") \
    >"$tmp/wheel.log" 2>&1 || { tail -50 "$tmp/wheel.log"; fail "pip wheel (from source)"; }
  echo "wheel_test: wheel built from source in $(( $(date +%s) - start )) s"
  rm -rf "$src/python/build/lib."* "$src/python/build/bdist."* "$src/python/build/temp."* "$src/python/unieval.egg-info"
  rmdir "$src/python/build" 2>/dev/null || true
else
  shopt -s nullglob
  modules=("$build"/python/unieval/_core*.so)
  [ ${#modules[@]} -gt 0 ] || skip "no $build/python/unieval/_core*.so (the build has no Python module)"
  # A copy of what setup.py reads (python/, CMakeLists.txt for the version, README.md), so that
  # nothing is written into the source tree.
  mkdir -p "$tmp/src"
  cp -r "$src/python" "$tmp/src/python"
  rm -rf "$tmp/src/python/build" "$tmp/src/python/"*.egg-info
  cp "$src/CMakeLists.txt" "$src/README.md" "$tmp/src/"
  (cd "$tmp/src" && UNIEVAL_PY_PREBUILT="${modules[0]}" \
     "$python" -m pip wheel ./python --no-build-isolation --no-deps --no-index -w "$tmp/dist") \
    >"$tmp/wheel.log" 2>&1 || { tail -50 "$tmp/wheel.log"; fail "pip wheel"; }
fi
wheels=("$tmp"/dist/unieval-*.whl)
[ ${#wheels[@]} -eq 1 ] || fail "expected one wheel in dist/, found: $(ls "$tmp/dist")"
wheel=${wheels[0]}
echo "wheel_test: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) kB)"
[[ "$(basename "$wheel")" == unieval-"$version"-* ]] || fail "wheel version is not $version"

"$python" -m venv "$tmp/venv" >/dev/null || fail "python3 -m venv"
"$tmp/venv/bin/python" -m pip install --no-index --no-deps --disable-pip-version-check -q "$wheel" ||
  fail "pip install the wheel into the venv"

cli_version=$("$build/unieval" --version | awk '{print $2}')
cd "$tmp"
env -u PYTHONPATH -u UNIEVAL_SOURCE_DIR PYTHONDONTWRITEBYTECODE=1 "$tmp/venv/bin/python" - \
    "$src/tests/install/golden_bleu_chrf.jsonl" "$build/unieval" "$version" "$cli_version" "$tmp/venv" <<'EOF'
import json, os, subprocess, sys, tempfile
golden, cli, version, cli_version, venv = sys.argv[1:]
import unieval
import unieval.sacrebleu as sacrebleu

where = os.path.realpath(unieval.__file__)
assert where.startswith(os.path.realpath(venv)), f"unieval imported from {where}, not the venv"
assert unieval.__version__ == version == cli_version, (unieval.__version__, version, cli_version)
print(f"wheel_test: unieval {unieval.__version__} from {os.path.dirname(where)}; CLI {cli_version}")

def cli_score(case, tmp):
    paths = []
    for name, lines in [("hyp", case["hyps"])] + [(f"ref{k}", r) for k, r in enumerate(case["refs"])]:
        path = os.path.join(tmp, name + ".txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in lines))
        paths.append(path)
    args = [cli, "score", "--metric", case["metric"], "--hyp", paths[0], "--json"]
    for p in paths[1:]:
        args += ["--ref", p]
    o = case["options"]
    if case["metric"] == "bleu":
        args += ["--tokenize", o["tokenize"], "--smooth", o["smooth_method"]]
        if o.get("smooth_value") is not None:
            args += ["--smooth-value", str(o["smooth_value"])]
        if o.get("lowercase"):
            args.append("--lowercase")
    out = subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["score"]

n = 0
with open(golden, encoding="utf-8") as f, tempfile.TemporaryDirectory() as tmp:
    for line in f:
        case = json.loads(line)
        o = case["options"]
        if case["metric"] == "bleu":
            py = sacrebleu.corpus_bleu(case["hyps"], case["refs"], smooth_method=o["smooth_method"],
                                       smooth_value=o.get("smooth_value"), lowercase=o["lowercase"],
                                       tokenize=o["tokenize"]).score
        else:
            py = sacrebleu.corpus_chrf(case["hyps"], case["refs"], char_order=o["char_order"],
                                       word_order=o["word_order"], beta=o["beta"]).score
        cl = cli_score(case, tmp)
        want = case["expected"]["score"]
        ok = abs(py - cl) < 1e-9 and abs(py - want) < 1e-9
        print(f"wheel_test: {case['id'][:72]:72s} wheel {py:.10f} CLI {cl:.10f} sacreBLEU {want:.10f} "
              f"{'ok' if ok else 'MISMATCH'}")
        assert ok, case["id"]
        n += 1
assert n == 5, n
print("wheel_test: OK (5 golden cases)")
EOF
