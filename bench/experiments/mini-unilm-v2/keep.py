#!/usr/bin/env python3
"""Keeps the small files of the mini-UniLM v2 experiment's finished runs in the repository, so that
they outlive the machine (run.sh; results/experiments/mini-unilm-v2/README.md, session 39).

A replaced machine keeps only the repository: twice (sessions 31 and 39) it took the work folder
with every checkpoint and every finished run. The weights are too large to keep, but a finished
run's result, log, predictions and provenance are small, and they are all the collect stage reads.

    keep.py save WORK NAME KEEP       # WORK/NAME finished -> KEEP/NAME (replaced as a whole)
    keep.py restore WORK NAME KEEP    # KEEP/NAME -> WORK/NAME when WORK has no finished NAME
    keep.py pretrained-from WORK NAME KEEP
                                      # the budget and step a fine-tune of pre-training run NAME
                                      # starts from, as JSON: WORK's checkpoint, else KEEP's copy

NAME is a fine-tuning run (qg-ARM-pP-fF, sst2-ARM-pP-fF: result.json, run.json, request.json,
log.jsonl, eval/pred.*, and run.sh's NAME.pretrain.json and NAME.summary.json beside it) or a
finished pre-training run (pt-ARM-pP: run.json, summary.json, checkpoint/trainer_state.json,
log.jsonl). Logs and predictions are kept gzipped; nothing of ../shared (the evaluated sources and
references) is kept: collect scores restored predictions against the shared data
(collect.py --shared). A restored run says so in WORK/NAME/KEPT. Exit status 2 on bad input, with
the path and the problem.
"""
import gzip
import json
import os
import shutil
import sys

# (path in the run folder, name in the kept folder); .gz names are gzipped copies.
FINETUNE = [("result.json", "result.json"), ("run.json", "run.json"), ("request.json", "request.json"),
            ("log.jsonl", "log.jsonl.gz"), ("eval/pred.txt", "pred.txt.gz"), ("eval/pred.tsv", "pred.tsv.gz"),
            ("../{name}.pretrain.json", "pretrained_from.json"), ("../{name}.summary.json", "summary.json")]
PRETRAIN = [("run.json", "run.json"), ("summary.json", "summary.json"),
            ("checkpoint/trainer_state.json", "trainer_state.json"), ("log.jsonl", "log.jsonl.gz")]
MARK = "KEPT"


def fail(msg):
    print("keep.py: " + msg, file=sys.stderr)
    sys.exit(2)


def files_of(name):
    return PRETRAIN if name.startswith("pt-") else FINETUNE


def finished(work, name):
    run = os.path.join(work, name)
    if name.startswith("pt-"):
        path = os.path.join(run, "summary.json")
        if not os.path.exists(path):
            return False
        with open(path) as f:
            try:
                return json.load(f).get("finished") is True
            except ValueError as e:
                fail("%s: not JSON (%s)" % (path, e))
    return os.path.exists(os.path.join(run, "result.json"))


def copy(src, dst):
    if dst.endswith(".gz") and not src.endswith(".gz"):
        with open(src, "rb") as i, gzip.GzipFile(dst, "wb", mtime=0) as o:  # mtime 0: same bytes each time
            shutil.copyfileobj(i, o)
    elif src.endswith(".gz") and not dst.endswith(".gz"):
        with gzip.open(src, "rb") as i, open(dst, "wb") as o:
            shutil.copyfileobj(i, o)
    else:
        shutil.copyfile(src, dst)


def save(work, name, keep):
    if not finished(work, name):
        fail("%s: not a finished run (no result.json, or a pre-training summary.json without "
             "\"finished\": true)" % os.path.join(work, name))
    if os.path.exists(os.path.join(work, name, MARK)):
        return  # restored from KEEP: already kept
    run = os.path.join(work, name)
    tmp = os.path.join(keep, name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for src, dst in files_of(name):
        path = os.path.normpath(os.path.join(run, src.format(name=name)))
        if os.path.exists(path):
            copy(path, os.path.join(tmp, dst))
    final = os.path.join(keep, name)
    old = final + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(final):
        os.rename(final, old)
    os.rename(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
    print("keep.py: kept %s in %s" % (run, final), file=sys.stderr)


def restore(work, name, keep):
    kept = os.path.join(keep, name)
    if name.startswith("pt-"):
        fail("%s: a pre-training run is not restored (its weights are not kept); "
             "pretrained-from and collect read its kept files in place" % kept)
    if finished(work, name) or not os.path.isdir(kept):
        return
    run = os.path.join(work, name)
    if os.path.exists(run):
        fail("%s: an unfinished run, and %s holds a finished one of the same name: move one aside"
             % (run, kept))
    tmp = run + ".restore.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "eval"))
    beside = []
    for src, dst in files_of(name):
        path = os.path.join(kept, dst)
        if not os.path.exists(path):
            continue
        if src.startswith("../"):
            beside.append((path, os.path.join(work, src[3:].format(name=name))))
        else:
            copy(path, os.path.join(tmp, src))
    with open(os.path.join(tmp, MARK), "w") as f:
        f.write("restored from %s by keep.py: result, log and predictions only; the weights and the "
                "evaluated data are not kept\n" % kept)
    for src, dst in beside:
        copy(src, dst + ".tmp")
        os.replace(dst + ".tmp", dst)
    os.rename(tmp, run)
    print("keep.py: restored %s from %s" % (run, kept), file=sys.stderr)


def pretrained_from(work, name, keep):
    """What run.sh records as a fine-tune's start: {"pretrain": NAME, "tokens", "step"} (the
    name, not the path: a kept run counts in another work folder)."""
    run = os.path.join(work, name)
    state = os.path.join(run, "checkpoint", "trainer_state.json")
    if os.path.exists(state) and os.path.exists(os.path.join(run, "run.json")):
        rj, st = os.path.join(run, "run.json"), state
    elif os.path.exists(os.path.join(keep, name, "trainer_state.json")):
        rj, st = os.path.join(keep, name, "run.json"), os.path.join(keep, name, "trainer_state.json")
    else:
        fail("%s: no pre-training run with a checkpoint, and none kept in %s (run the pretrain stage "
             "for it first)" % (run, os.path.join(keep, name)))
    with open(rj) as f:
        tokens = json.load(f).get("train", {}).get("tokens")
    with open(st) as f:
        step = json.load(f).get("step")
    print(json.dumps({"pretrain": name, "tokens": tokens, "step": int(step)}))


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return
    if len(argv) != 5 or argv[1] not in ("save", "restore", "pretrained-from"):
        fail("usage: keep.py save|restore|pretrained-from WORK NAME KEEP")
    _, cmd, work, name, keep = argv
    if "/" in name or name in ("", ".", ".."):
        fail("%r: NAME is a run folder's name, not a path" % name)
    if cmd == "save":
        save(work, name, keep)
    elif cmd == "restore":
        restore(work, name, keep)
    else:
        pretrained_from(work, name, keep)


if __name__ == "__main__":
    main(sys.argv)
