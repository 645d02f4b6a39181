#!/usr/bin/env python3
"""Runs every command that README.md and docs/*.md show as a line beginning `$ unieval `.

Each such line (with its `\\` continuation lines) must exit 0 with the built binary, unless it is
marked as needing something a fresh build does not have:

    $ unieval score ... --rouge-data DIR                    # needs: data
    $ unieval run --device cuda ...                         # needs: gpu
    $ unieval compare base.json worse.json                  # exit: 1

`# needs: WHAT` skips the command and prints why (`data`: ../shared or your own files, `gpu`: a
CUDA device); `# needs: torch` skips it only in a build without `unieval-model` (e.g. a command
that reads what an earlier model command wrote). A command that names `../shared` is skipped as
needing data without a marker; model commands (demo, run, finetune, pretrain, decode, encode)
are skipped when the build has no `unieval-model` beside `unieval`. `# exit: N` expects exit
status N instead of 0.

The commands of one file run in order in one fresh temporary folder (so a tour can write
`a.json` and read it back), which holds a link to every top-level entry of the source tree: a
path like `tests/tasks/fixtures/...` resolves there. `unieval` is the binary given with
--binary (its folder goes first on PATH). Nothing is written into the source tree.

usage: check_doc_commands.py --binary BUILD/unieval --source-dir SRC [--timeout S] [FILE.md ...]
The README read is $UNIEVAL_DOCS_README when set, else README.md.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MODEL_COMMANDS = {"demo", "run", "finetune", "pretrain", "decode", "encode"}
NEEDS = re.compile(r"#\s*needs:\s*([^#]*)")
EXIT = re.compile(r"#\s*exit:\s*(\d+)")


def commands_in(path):
    """(line number, command text) of every `$ unieval ` line, continuations joined."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ unieval "):
            start = i + 1
            text = line[2:]
            while text.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text.rstrip()[:-1].rstrip() + " " + lines[i].strip()
            out.append((start, text.strip()))
        i += 1
    return out


def skip_reason(cmd, has_model_binary):
    m = NEEDS.search(cmd)
    if m:
        what = m.group(1).strip()
        if what == "torch":
            return None if has_model_binary else "needs: torch (this build has no unieval-model)"
        return "needs: " + what
    if "../shared" in cmd:
        return "needs: data (names ../shared)"
    sub = cmd.split()[1] if len(cmd.split()) > 1 else ""
    if sub in MODEL_COMMANDS and not has_model_binary:
        return "needs: torch (this build has no unieval-model)"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    src = os.path.abspath(args.source_dir)
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        print(f"no executable {binary}", file=sys.stderr)
        return 2
    bindir = os.path.dirname(binary)
    has_model = os.access(os.path.join(bindir, "unieval-model"), os.X_OK) or bool(
        os.environ.get("UNIEVAL_MODEL_BINARY"))
    files = args.files
    if not files:
        readme = os.environ.get("UNIEVAL_DOCS_README") or "README.md"
        files = [os.path.join(src, readme)] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))

    # `unieval` on PATH is the given binary whatever its file name (it finds unieval-model
    # through /proc/self/exe, so a link is enough).
    linkdir = tempfile.mkdtemp(prefix="unieval-docs-bin-")
    os.symlink(binary, os.path.join(linkdir, "unieval"))
    env = dict(os.environ)
    env["PATH"] = linkdir + os.pathsep + env.get("PATH", "")

    ran = skipped = 0
    failures = []
    t0 = time.monotonic()
    for path in files:
        rel = os.path.relpath(path, src)
        cmds = commands_in(path)
        if not cmds:
            continue
        work = tempfile.mkdtemp(prefix="unieval-docs-")
        try:
            for entry in os.listdir(src):
                if entry in (".git",) or entry.startswith("build"):
                    continue
                os.symlink(os.path.join(src, entry), os.path.join(work, entry))
            for lineno, cmd in cmds:
                where = f"{rel}:{lineno}"
                reason = skip_reason(cmd, has_model)
                if reason:
                    skipped += 1
                    print(f"SKIP {where}: {reason}: {cmd}")
                    continue
                m = EXIT.search(cmd)
                want = int(m.group(1)) if m else 0
                started = time.monotonic()
                try:
                    p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], cwd=work, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       timeout=args.timeout)
                    code, output = p.returncode, p.stdout.decode("utf-8", "replace")
                except subprocess.TimeoutExpired as e:
                    code = "timeout"
                    output = (e.stdout or b"").decode("utf-8", "replace")
                took = time.monotonic() - started
                ran += 1
                if code == want:
                    print(f"ok   {where} ({took:.1f} s): {cmd}")
                else:
                    failures.append(where)
                    print(f"FAIL {where}: exit {code}, expected {want} ({took:.1f} s): {cmd}")
                    tail = output.strip().split("\n")[-15:]
                    for t in tail:
                        print("     | " + t)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(linkdir, ignore_errors=True)
    print(f"{ran} run, {skipped} skipped, {len(failures)} failed in {time.monotonic() - t0:.1f} s")
    if failures:
        print("failed: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
