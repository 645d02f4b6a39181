#!/usr/bin/env python3
"""Keeps the mini-UniLM v2 experiment's runs in the repository, so that they outlive the machine
(run.sh; results/experiments/mini-unilm-v2/README.md, sessions 39, 44 and 46).

A replaced machine keeps only the repository: four times (sessions 31, 39, 44 and 46) it took the
work folder with every checkpoint and every finished run. A finished run's result, log, predictions
and provenance are small, and they are all the collect stage reads. The weights a fine-tune starts
from are kept too, once the design's gate has chosen them (21.6 MB per arm, fp32 as trained): they
cost 5 hours of a core each. So is, on request, an unfinished pre-training run (save-resume, below).

    keep.py save WORK NAME KEEP       # WORK/NAME finished -> KEEP/NAME (replaced as a whole; kept
                                      # weights stay)
    keep.py save-weights WORK NAME KEEP
                                      # finished pre-training run WORK/NAME's checkpoint weights ->
                                      # KEEP/NAME/weights (config, vocabulary, weights, state, sha256)
    keep.py restore WORK NAME KEEP    # KEEP/NAME -> WORK/NAME when WORK has no finished NAME; a
                                      # pre-training run only when its weights are kept
    keep.py pretrained-from WORK NAME KEEP
                                      # the budget and step a fine-tune of pre-training run NAME
                                      # starts from, as JSON: WORK's checkpoint, else KEEP's copy
    keep.py save-resume WORK NAME KEEP
                                      # pre-training run WORK/NAME's latest checkpoint, finished
                                      # or not -> KEEP/NAME/resume: all it resumes from (weights,
                                      # optimizer state, RNG state, run files, log to its step)
    keep.py restore-resume WORK NAME KEEP
                                      # KEEP/NAME/resume -> WORK/NAME when WORK's checkpoint is
                                      # missing or at an earlier step; else nothing

NAME is a fine-tuning run (qg-ARM-pP-fF, sst2-ARM-pP-fF: result.json, run.json, request.json,
log.jsonl, eval/pred.*, and run.sh's NAME.pretrain.json and NAME.summary.json beside it) or a
finished pre-training run (pt-ARM-pP: run.json, summary.json, checkpoint/trainer_state.json,
log.jsonl; weights/ when save-weights kept them). Logs and predictions are kept gzipped; nothing of
../shared (the evaluated sources and references) is kept: collect scores restored predictions
against the shared data (collect.py --shared). A restored run says so in WORK/NAME/KEPT; restored
weights are checked against their kept sha256 first. Exit status 2 on bad input, with the path and
the problem.

A pre-training run takes longer than a session, and a fourth replaced machine (session 46) took
two runs 1.1 h short of the gate with it. `save-resume` keeps an unfinished run's whole
checkpoint (21.6 MB of weights and 43.1 MB of Adam moments an arm, fp32 as trained: a resumed run
continues bit for bit) so that a session can commit it before it ends; `restore-resume` brings it
back on a new machine (sha256 checked; the run's log cut at the checkpoint's step, as `unieval
pretrain --resume` cuts it; its summary only when it finished at that step). A checkpoint kept
before a raise (checkpoint-TOKENS) keeps its trainer_state.json only: the gate reads its step,
nothing its weights. The copy is taken from hard
links of the checkpoint's files, checked to be one checkpoint (the trainer replaces the folder as a
whole), so a running run can be kept. Once the gate keeps an arm's weights, its resume state goes.
"""
import gzip
import hashlib
import json
import os
import shutil
import sys
import time

# (path in the run folder, name in the kept folder); .gz names are gzipped copies.
FINETUNE = [("result.json", "result.json"), ("run.json", "run.json"), ("request.json", "request.json"),
            ("log.jsonl", "log.jsonl.gz"), ("eval/pred.txt", "pred.txt.gz"), ("eval/pred.tsv", "pred.tsv.gz"),
            ("../{name}.pretrain.json", "pretrained_from.json"), ("../{name}.summary.json", "summary.json")]
PRETRAIN = [("run.json", "run.json"), ("summary.json", "summary.json"),
            ("checkpoint/trainer_state.json", "trainer_state.json"), ("log.jsonl", "log.jsonl.gz")]
# What a fine-tune reads of a pre-training checkpoint (unieval run --model DIR), and its step.
WEIGHTS = ["config.json", "vocab.txt", "model.safetensors", "trainer_state.json"]
SUMS = "SHA256SUMS"
MARK = "KEPT"
RESUME = "resume"
RESTORED = "RESUMED_FROM_KEPT"  # in WORK/NAME after restore-resume (not MARK: the run goes on)


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


def replace_dir(tmp, final):
    old = final + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(final):
        os.rename(final, old)
    os.rename(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


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
    for sub in ("weights", RESUME):
        if os.path.isdir(os.path.join(final, sub)):
            # Kept weights and resume states stay: hard links, so that no moment leaves them only in
            # a folder about to go.
            shutil.copytree(os.path.join(final, sub), os.path.join(tmp, sub), copy_function=os.link)
    replace_dir(tmp, final)
    print("keep.py: kept %s in %s" % (run, final), file=sys.stderr)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_sums(path):
    sums = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 2 or len(parts[0]) != 64:
                fail("%s:%d: not a 'SHA256  FILE' line" % (path, n))
            sums[parts[1]] = parts[0]
    return sums


def save_weights(work, name, keep):
    """Keeps the checkpoint weights of a finished pre-training run, with their sha256; weights kept
    with the same sums are left alone (no 21 MB rewrite), others are replaced as a whole."""
    run = os.path.join(work, name)
    if not name.startswith("pt-"):
        fail("%s: save-weights keeps a pre-training run's weights (pt-ARM-pP), not a fine-tune's" % run)
    if not finished(work, name):
        fail("%s: not a finished pre-training run (summary.json without \"finished\": true)" % run)
    ckpt = os.path.join(run, "checkpoint")
    for f in WEIGHTS:
        if not os.path.exists(os.path.join(ckpt, f)):
            fail("%s: missing (the checkpoint's weights are gone; only a run on this machine can be "
                 "kept)" % os.path.join(ckpt, f))
    sums = {f: sha256(os.path.join(ckpt, f)) for f in WEIGHTS}
    kept = os.path.join(keep, name)
    final = os.path.join(kept, "weights")
    text = "".join("%s  %s\n" % (sums[f], f) for f in WEIGHTS)
    if (os.path.exists(os.path.join(final, SUMS)) and open(os.path.join(final, SUMS)).read() == text and
            all(os.path.exists(os.path.join(final, f)) and sha256(os.path.join(final, f)) == sums[f] for f in WEIGHTS)):
        print("keep.py: %s: weights already kept in %s" % (run, final), file=sys.stderr)
        return
    save(work, name, keep)  # the run's small files at the same step as its weights
    tmp = final + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for f in WEIGHTS:
        copy(os.path.join(ckpt, f), os.path.join(tmp, f))
    with open(os.path.join(tmp, SUMS), "w") as out:
        out.write(text)
    if read_sums(os.path.join(tmp, SUMS)) != {f: sha256(os.path.join(tmp, f)) for f in WEIGHTS}:
        fail("%s: the copy differs from %s (disk full?)" % (tmp, ckpt))
    replace_dir(tmp, final)
    with open(os.path.join(ckpt, "trainer_state.json")) as f:
        step = json.load(f).get("step")
    print("keep.py: kept the weights of %s (step %s) in %s" % (run, step, final), file=sys.stderr)
    resume = os.path.join(kept, RESUME)
    if os.path.isdir(resume):
        had = resume_step(resume)
        if had <= step:  # the gate chose these weights: this arm's pre-training is over
            shutil.rmtree(resume)
            print("keep.py: removed %s (step %d, not after the kept weights')" % (resume, had), file=sys.stderr)


def restore_pretrain(work, name, keep):
    """A pre-training run back from its kept files and weights, ready for fine-tuning (no
    optimizer state: it cannot be resumed or raised)."""
    kept = os.path.join(keep, name)
    weights = os.path.join(kept, "weights")
    run = os.path.join(work, name)
    if os.path.exists(os.path.join(run, "checkpoint", "model.safetensors")):
        return
    if not os.path.exists(os.path.join(weights, SUMS)):
        fail("%s: no kept weights (keep.py save-weights keeps them once the design's gate chose "
             "them); pre-train %s again" % (weights, run))
    if os.path.exists(run):
        fail("%s: a run without weights, and %s holds kept weights of the same name: move it aside"
             % (run, weights))
    sums = read_sums(os.path.join(weights, SUMS))
    for f in WEIGHTS:
        if f not in sums:
            fail("%s: names no sha256 of %s" % (os.path.join(weights, SUMS), f))
        if not os.path.exists(os.path.join(weights, f)) or sha256(os.path.join(weights, f)) != sums[f]:
            fail("%s: missing, or not the file its sha256 in %s names (a Git LFS pointer?)"
                 % (os.path.join(weights, f), SUMS))
    if not os.path.exists(os.path.join(kept, "trainer_state.json")):
        fail("%s: missing beside the kept weights (keep.py save-weights keeps both)"
             % os.path.join(kept, "trainer_state.json"))
    with open(os.path.join(kept, "trainer_state.json")) as a, open(os.path.join(weights, "trainer_state.json")) as b:
        if json.load(a) != json.load(b):
            fail("%s: its weights' trainer_state.json is not the kept run's (kept at another step)" % kept)
    tmp = run + ".restore.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "checkpoint"))
    for src, dst in PRETRAIN:
        if os.path.exists(os.path.join(kept, dst)):
            copy(os.path.join(kept, dst), os.path.join(tmp, src))
    for f in WEIGHTS:
        copy(os.path.join(weights, f), os.path.join(tmp, "checkpoint", f))
    with open(os.path.join(tmp, MARK), "w") as f:
        f.write("restored from %s by keep.py: weights (sha256 checked), run files and log; no optimizer "
                "state, so it is not resumed or raised\n" % kept)
    os.rename(tmp, run)
    print("keep.py: restored %s from %s" % (run, kept), file=sys.stderr)


def restore(work, name, keep):
    kept = os.path.join(keep, name)
    if name.startswith("pt-"):
        restore_pretrain(work, name, keep)
        return
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


def checkpoint_step(run):
    """The step WORK/NAME resumes from (its checkpoint, else checkpoint.old, as the trainer reads
    them), -1 when it has none."""
    for sub in ("checkpoint", "checkpoint.old"):
        path = os.path.join(run, sub, "trainer_state.json")
        if os.path.exists(path):
            with open(path) as f:
                try:
                    return int(json.load(f)["step"])
                except (ValueError, KeyError, TypeError) as e:
                    fail("%s: no step (%s)" % (path, e))
    return -1


def resume_step(resume):
    path = os.path.join(resume, "checkpoint", "trainer_state.json")
    try:
        with open(path) as f:
            return int(json.load(f)["step"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail("%s: no step (%s)" % (path, e))


def log_upto(path, step):
    """The log's lines up to STEP (what `unieval pretrain --resume` keeps of it), and the last step
    they reach."""
    lines, last = [], 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                s = json.loads(line).get("step")
            except ValueError as e:
                fail("%s:%d: not JSON (%s)" % (path, n, e))
            if s is not None and s > step:
                continue
            if s is not None:
                last = max(last, s)
            lines.append(line if line.endswith("\n") else line + "\n")
    return "".join(lines), last


def summary_at(run, step):
    """Whether RUN/summary.json is the summary of a run finished at STEP (not one of the budget
    before a raise)."""
    try:
        with open(os.path.join(run, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(s, dict) and s.get("finished") is True and s.get("steps") == step


def link_checkpoint(src, dst):
    """Hard links of src's files in dst, or False when the trainer replaced src meanwhile (it swaps
    the folder as a whole and never rewrites a file in place, so same inodes = one checkpoint)."""
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    try:
        names = sorted(os.listdir(src))
        inodes = {}
        for n in names:
            os.link(os.path.join(src, n), os.path.join(dst, n))
            inodes[n] = os.stat(os.path.join(dst, n)).st_ino
        return (sorted(os.listdir(src)) == names and "trainer_state.json" in names and
                all(os.stat(os.path.join(src, n)).st_ino == inodes[n] for n in names))
    except FileNotFoundError:
        return False


def save_resume(work, name, keep):
    run = os.path.join(work, name)
    if not name.startswith("pt-"):
        fail("%s: save-resume keeps a pre-training run (pt-ARM-pP), not a fine-tune" % run)
    if not os.path.exists(os.path.join(run, "checkpoint", "trainer_state.json")):
        fail("%s: no checkpoint (checkpoint/trainer_state.json) to keep" % run)
    if os.path.exists(os.path.join(run, MARK)):
        fail("%s: restored from kept weights without an optimizer state: it cannot be resumed" % run)
    kept = os.path.join(keep, name)
    final = os.path.join(kept, RESUME)
    if os.path.isdir(final) and checkpoint_step(run) <= resume_step(final):
        print("keep.py: %s: a resume state at step %d is already kept in %s"
              % (run, resume_step(final), final), file=sys.stderr)
        return
    stage = os.path.join(run, ".keep-resume.tmp")  # on the checkpoint's file system: links work
    for attempt in range(60):
        if link_checkpoint(os.path.join(run, "checkpoint"), os.path.join(stage, "checkpoint")):
            with open(os.path.join(stage, "checkpoint", "trainer_state.json")) as f:
                step = int(json.load(f)["step"])
            log, last = log_upto(os.path.join(run, "log.jsonl"), step)
            if last == step:
                break
        time.sleep(1)  # a checkpoint being swapped, or its log not yet written: look again
    else:
        shutil.rmtree(stage, ignore_errors=True)
        fail("%s: no checkpoint and log at the same step within 60 s (is the run writing?)" % run)
    try:
        tmp = final + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        for n in sorted(os.listdir(run)):  # run.json, config.json and the tokenizer files
            p = os.path.join(run, n)
            if os.path.isfile(p) and n not in ("log.jsonl", "summary.json", RESTORED) and not n.endswith(".tmp"):
                copy(p, os.path.join(tmp, n))
        if summary_at(run, step):  # finished there: run.sh reads it as done, and resumes nothing
            copy(os.path.join(run, "summary.json"), os.path.join(tmp, "summary.json"))
        with gzip.GzipFile(os.path.join(tmp, "log.jsonl.gz"), "wb", mtime=0) as o:
            o.write(log.encode())
        shutil.copytree(os.path.join(stage, "checkpoint"), os.path.join(tmp, "checkpoint"))
        for n in sorted(os.listdir(run)):  # kept before a raise: the gate reads its step
            state = os.path.join(run, n, "trainer_state.json")
            if n.startswith("checkpoint-") and not n.endswith(".tmp") and os.path.exists(state):
                os.makedirs(os.path.join(tmp, n))
                copy(state, os.path.join(tmp, n, "trainer_state.json"))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    files = sorted(os.path.relpath(os.path.join(d, n), tmp) for d, _, ns in os.walk(tmp) for n in ns)
    with open(os.path.join(tmp, SUMS), "w") as out:
        out.write("".join("%s  %s\n" % (sha256(os.path.join(tmp, f)), f) for f in files))
    os.makedirs(kept, exist_ok=True)
    replace_dir(tmp, final)
    size = sum(os.path.getsize(os.path.join(final, f)) for f in files)
    print("keep.py: kept the resume state of %s at step %d in %s (%.1f MB)" % (run, step, final, size / 1e6),
          file=sys.stderr)


def restore_resume(work, name, keep):
    resume = os.path.join(keep, name, RESUME)
    run = os.path.join(work, name)
    if not name.startswith("pt-"):
        fail("%s: restore-resume restores a pre-training run (pt-ARM-pP), not a fine-tune" % run)
    if not os.path.isdir(resume):
        return
    step, have = resume_step(resume), checkpoint_step(run)
    if have >= step:
        return
    if os.path.exists(os.path.join(run, MARK)):
        fail("%s: restored from kept weights, and %s holds a resume state at step %d: move one aside"
             % (run, resume, step))
    if not os.path.exists(os.path.join(resume, SUMS)):
        fail("%s: missing (keep.py save-resume writes it)" % os.path.join(resume, SUMS))
    sums = read_sums(os.path.join(resume, SUMS))
    for f, want in sorted(sums.items()):
        path = os.path.join(resume, f)
        if not os.path.exists(path) or sha256(path) != want:
            fail("%s: missing, or not the file its sha256 in %s names (a Git LFS pointer?)" % (path, SUMS))
    for f in ("run.json", "log.jsonl.gz", "checkpoint/model.safetensors", "checkpoint/optimizer.safetensors"):
        if f not in sums:
            fail("%s: names no sha256 of %s" % (os.path.join(resume, SUMS), f))
    tmp = run + ".restore.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    for f in sums:
        dst = os.path.join(tmp, f[:-3] if f == "log.jsonl.gz" else f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        copy(os.path.join(resume, f), dst)
    with open(os.path.join(tmp, RESTORED), "a") as f:
        f.write("step %d restored from %s by keep.py (sha256 checked)%s\n"
                % (step, resume, "" if have < 0 else ", over this folder's checkpoint at step %d" % have))
    old = run + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(run):
        if os.path.exists(os.path.join(run, RESTORED)):
            with open(os.path.join(run, RESTORED)) as a, open(os.path.join(tmp, RESTORED), "a") as b:
                b.write(a.read())
        os.rename(run, old)
    os.rename(tmp, run)
    shutil.rmtree(old, ignore_errors=True)
    print("keep.py: restored %s at step %d from %s" % (run, step, resume), file=sys.stderr)


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


COMMANDS = ("save", "save-weights", "restore", "pretrained-from", "save-resume", "restore-resume")


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return
    if len(argv) != 5 or argv[1] not in COMMANDS:
        fail("usage: keep.py %s WORK NAME KEEP" % "|".join(COMMANDS))
    _, cmd, work, name, keep = argv
    if "/" in name or name in ("", ".", ".."):
        fail("%r: NAME is a run folder's name, not a path" % name)
    if cmd == "save":
        save(work, name, keep)
    elif cmd == "save-weights":
        save_weights(work, name, keep)
    elif cmd == "restore":
        restore(work, name, keep)
    elif cmd == "save-resume":
        save_resume(work, name, keep)
    elif cmd == "restore-resume":
        restore_resume(work, name, keep)
    else:
        pretrained_from(work, name, keep)


if __name__ == "__main__":
    main(sys.argv)
