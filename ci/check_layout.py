#!/usr/bin/env python3
"""Checks the layout rule of docs/layout.md: each folder includes only the parts it may use.

  core/      nothing of ours but core/
  metrics/   core/, metrics/
  results/   core/, results/
  tasks/     core/, metrics/ (public headers: never *_internal.h), results/, tasks/
  models/    core/, models/        (a model knows no metric and no task)
  pipelines/ everything but apps/
and, stricter, the sub-libraries that other parts link alone (a harden or fuzz build of a reader
links its sub-library without the rest of its folder):
  metrics/text/      core/, metrics/text/, metrics/token_interner.h (header-only)
  tasks/files/       core/, tasks/files/
  models/tokenizer/  core/, models/tokenizer/
and, inside unieval::models, the sub-folders' layers (what each may NOT include):
  models/dist/      models/nn/, models/io/, models/training/, models/decoding/
  models/nn/        models/training/, models/decoding/
  models/io/        models/decoding/
  models/training/  models/decoding/
and that only apps/ uses Boost (the CLI maps the metric protocol's option specs onto
Boost.Program_options; the libraries parse nothing with it).
Prints every offending include as FILE:LINE: ... and exits 1 if there is one.
usage: ci/check_layout.py [REPO_ROOT]
"""
import pathlib
import re
import sys

ALLOWED = {
    "core": ("core/",),
    "metrics": ("core/", "metrics/"),
    "results": ("core/", "results/", "generated/"),
    "tasks": ("core/", "metrics/", "results/", "tasks/"),
    "models": ("core/", "models/"),
    "pipelines": ("core/", "metrics/", "results/", "tasks/", "models/", "pipelines/"),
}
SUBLIBRARIES = {
    "metrics/text": ("core/", "metrics/text/", "metrics/token_interner.h"),
    "tasks/files": ("core/", "tasks/files/"),
    "models/tokenizer": ("core/", "models/tokenizer/"),
}
MODEL_LAYERS = {
    "models/dist": ("models/nn/", "models/io/", "models/training/", "models/decoding/"),
    "models/nn": ("models/training/", "models/decoding/"),
    "models/io": ("models/decoding/",),
    "models/training": ("models/decoding/",),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
BOOST = re.compile(r'^\s*#\s*include\s+<boost/')


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    bad = []
    checked = 0
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            checked += 1
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if BOOST.match(line):
                    bad.append(f"{path.relative_to(root)}:{n}: {folder}/ may not use Boost (only apps/ does)")
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                rel = path.relative_to(root)
                if "/" not in inc:  # generated headers (unieval_version.h, paper_data.h)
                    continue
                sub = next((k for k in SUBLIBRARIES if rel.as_posix().startswith(k + "/")), None)
                layer = next((k for k in MODEL_LAYERS if rel.as_posix().startswith(k + "/")), None)
                if not inc.startswith(allowed):
                    bad.append(f"{rel}:{n}: {folder}/ may not include \"{inc}\"")
                elif sub and not inc.startswith(SUBLIBRARIES[sub]):
                    bad.append(f"{rel}:{n}: {sub}/ (a library of its own) may not include \"{inc}\"")
                elif layer and inc.startswith(MODEL_LAYERS[layer]):
                    bad.append(f"{rel}:{n}: {layer}/ may not include \"{inc}\" (the models/ layers of docs/layout.md)")
                elif folder != "metrics" and inc.startswith("metrics/") and inc.endswith("_internal.h"):
                    bad.append(f"{rel}:{n}: \"{inc}\" is internal to metrics/")
    for b in bad:
        print(b)
    print(f"check_layout: {checked} files, {len(bad)} offending includes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
