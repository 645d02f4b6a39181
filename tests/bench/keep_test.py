#!/usr/bin/env python3
"""bench/experiments/mini-unilm-v2/keep.py: what a finished run leaves in the repository, and how a
new machine gets it back (save, save-weights, restore, pretrained-from; exit 2 with the path on bad
input).

    python3 tests/bench/keep_test.py      # ctest: bench_keep
"""
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP_PY = os.path.join(HERE, "..", "..", "bench", "experiments", "mini-unilm-v2", "keep.py")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def keep(*args):
    return subprocess.run([sys.executable, KEEP_PY] + list(args), capture_output=True, text=True)


class KeepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = os.path.join(self.tmp.name, "work")
        self.kept = os.path.join(self.tmp.name, "kept")
        # A finished pre-training run (budget 4800 positions, step 100) and a fine-tune of it.
        pt = os.path.join(self.work, "pt-unified-p42")
        write(os.path.join(pt, "run.json"), json.dumps({"train": {"tokens": 4800}, "total_steps": 100}))
        write(os.path.join(pt, "summary.json"), json.dumps({"finished": True}))
        write(os.path.join(pt, "checkpoint", "trainer_state.json"), json.dumps({"step": 100}))
        write(os.path.join(pt, "checkpoint", "model.safetensors"), "weights")
        write(os.path.join(pt, "checkpoint", "config.json"), '{"hidden_size": 256}')
        write(os.path.join(pt, "checkpoint", "vocab.txt"), "[PAD]\n[UNK]\n")
        write(os.path.join(pt, "checkpoint", "optimizer.safetensors"), "moments")
        write(os.path.join(pt, "log.jsonl"), "".join(json.dumps({"step": i, "loss": 9.0 - i / 100}) + "\n"
                                                     for i in range(1, 101)))
        ft = os.path.join(self.work, "qg-unified-p42-f42")
        write(os.path.join(ft, "result.json"), json.dumps({"split": "test", "summary": {"bleu4": 0.05}}))
        for name in ("run.json", "request.json"):
            write(os.path.join(ft, name), "{}")
        write(os.path.join(ft, "log.jsonl"), '{"step": 1, "loss": 8.5}\n')
        write(os.path.join(ft, "eval", "pred.txt"), "what is it ?\nwho was he ?\n")
        write(os.path.join(ft, "eval", "src-eval.txt"), "shared data: never kept\n")
        write(os.path.join(ft, "checkpoint", "model.safetensors"), "weights")
        write(ft + ".pretrain.json", '{"pretrain": "pt-unified-p42", "tokens": 4800, "step": 100}\n')
        write(ft + ".summary.json", '{"finished": true}\n')

    def tearDown(self):
        self.tmp.cleanup()

    def test_save_keeps_the_small_files_only(self):
        for name in ("pt-unified-p42", "qg-unified-p42-f42"):
            r = keep("save", self.work, name, self.kept)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.kept, "qg-unified-p42-f42"))),
                         ["log.jsonl.gz", "pred.txt.gz", "pretrained_from.json", "request.json", "result.json",
                          "run.json", "summary.json"])
        self.assertEqual(sorted(os.listdir(os.path.join(self.kept, "pt-unified-p42"))),
                         ["log.jsonl.gz", "run.json", "summary.json", "trainer_state.json"])
        with gzip.open(os.path.join(self.kept, "qg-unified-p42-f42", "pred.txt.gz"), "rt") as f:
            self.assertEqual(f.read(), "what is it ?\nwho was he ?\n")
        # The same run saved twice gives the same bytes (gzip without a time stamp).
        first = open(os.path.join(self.kept, "pt-unified-p42", "log.jsonl.gz"), "rb").read()
        self.assertEqual(keep("save", self.work, "pt-unified-p42", self.kept).returncode, 0)
        self.assertEqual(open(os.path.join(self.kept, "pt-unified-p42", "log.jsonl.gz"), "rb").read(), first)

    def test_help_and_usage(self):
        r = keep("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("keep.py save WORK NAME KEEP", r.stdout)
        r = keep("save", self.work)
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: keep.py save|save-weights|restore|pretrained-from|save-resume|restore-resume "
                      "WORK NAME KEEP", r.stderr)

    def test_an_unfinished_run_is_refused(self):
        os.remove(os.path.join(self.work, "qg-unified-p42-f42", "result.json"))
        r = keep("save", self.work, "qg-unified-p42-f42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("qg-unified-p42-f42: not a finished run", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.kept, "qg-unified-p42-f42")))
        write(os.path.join(self.work, "pt-unified-p42", "summary.json"), json.dumps({"finished": False}))
        self.assertEqual(keep("save", self.work, "pt-unified-p42", self.kept).returncode, 2)
        self.assertEqual(keep("save", self.work, "../x", self.kept).returncode, 2)

    def test_a_new_machine_gets_the_fine_tune_back(self):
        for name in ("pt-unified-p42", "qg-unified-p42-f42"):
            self.assertEqual(keep("save", self.work, name, self.kept).returncode, 0)
        new = os.path.join(self.tmp.name, "new-work")
        os.makedirs(new)
        # The pre-training run is gone: pretrained-from reads its kept copy, and names the run.
        r = keep("pretrained-from", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), {"pretrain": "pt-unified-p42", "tokens": 4800, "step": 100})
        self.assertEqual(r.stdout.strip(), read(os.path.join(self.work, "qg-unified-p42-f42.pretrain.json")).strip())
        r = keep("restore", new, "qg-unified-p42-f42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        run = os.path.join(new, "qg-unified-p42-f42")
        self.assertEqual(read(os.path.join(run, "eval", "pred.txt")), "what is it ?\nwho was he ?\n")
        self.assertEqual(read(os.path.join(run, "result.json")),
                         read(os.path.join(self.work, "qg-unified-p42-f42", "result.json")))
        self.assertEqual(read(os.path.join(run, "log.jsonl")), '{"step": 1, "loss": 8.5}\n')
        self.assertEqual(read(run + ".pretrain.json"), read(os.path.join(self.work, "qg-unified-p42-f42.pretrain.json")))
        self.assertTrue(os.path.exists(os.path.join(run, "KEPT")))
        self.assertFalse(os.path.exists(os.path.join(run, "eval", "src-eval.txt")))  # ../shared's, not kept
        self.assertFalse(os.path.exists(os.path.join(run, "checkpoint")))
        # Restoring again, or saving the restored run, changes nothing.
        self.assertEqual(keep("restore", new, "qg-unified-p42-f42", self.kept).returncode, 0)
        self.assertEqual(keep("save", new, "qg-unified-p42-f42", self.kept).returncode, 0)
        self.assertEqual(read(os.path.join(self.kept, "qg-unified-p42-f42", "result.json")),
                         read(os.path.join(run, "result.json")))
        # A kept run with nothing kept of that name is a no-op; pre-training runs are not restored.
        self.assertEqual(keep("restore", new, "qg-unified-p42-f43", self.kept).returncode, 0)
        self.assertFalse(os.path.exists(os.path.join(new, "qg-unified-p42-f43")))
        r = keep("restore", new, "pt-unified-p42", self.kept)  # its weights are not kept
        self.assertEqual(r.returncode, 2)
        self.assertIn("pt-unified-p42/weights: no kept weights", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(new, "pt-unified-p42")))

    def test_the_gates_weights_are_kept_with_their_sums(self):
        r = keep("save-weights", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(step 100)", r.stderr)
        weights = os.path.join(self.kept, "pt-unified-p42", "weights")
        # The run's small files are kept with them; never the optimizer state.
        self.assertEqual(sorted(os.listdir(os.path.join(self.kept, "pt-unified-p42"))),
                         ["log.jsonl.gz", "run.json", "summary.json", "trainer_state.json", "weights"])
        self.assertEqual(sorted(os.listdir(weights)),
                         ["SHA256SUMS", "config.json", "model.safetensors", "trainer_state.json", "vocab.txt"])
        sums = read(os.path.join(weights, "SHA256SUMS")).splitlines()
        self.assertEqual(len(sums), 4)
        self.assertIn(hashlib.sha256(b"weights").hexdigest() + "  model.safetensors", sums)
        # The same weights again: nothing is rewritten. Saving the run again keeps its weights.
        before = os.stat(os.path.join(weights, "model.safetensors")).st_mtime_ns
        r = keep("save-weights", self.work, "pt-unified-p42", self.kept)
        self.assertIn("already kept", r.stderr)
        self.assertEqual(os.stat(os.path.join(weights, "model.safetensors")).st_mtime_ns, before)
        self.assertEqual(keep("save", self.work, "pt-unified-p42", self.kept).returncode, 0)
        self.assertEqual(read(os.path.join(weights, "model.safetensors")), "weights")
        # Other weights (a run trained again) replace them.
        write(os.path.join(self.work, "pt-unified-p42", "checkpoint", "model.safetensors"), "weights 2")
        self.assertEqual(keep("save-weights", self.work, "pt-unified-p42", self.kept).returncode, 0)
        self.assertEqual(read(os.path.join(weights, "model.safetensors")), "weights 2")
        self.assertFalse(os.path.exists(weights + ".tmp") or os.path.exists(weights + ".old"))

    def test_save_weights_refuses_what_is_not_a_finished_pretraining_checkpoint(self):
        r = keep("save-weights", self.work, "qg-unified-p42-f42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a fine-tune's", r.stderr)
        os.remove(os.path.join(self.work, "pt-unified-p42", "checkpoint", "vocab.txt"))
        r = keep("save-weights", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("checkpoint/vocab.txt: missing", r.stderr)
        write(os.path.join(self.work, "pt-unified-p42", "summary.json"), json.dumps({"finished": False}))
        r = keep("save-weights", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a finished pre-training run", r.stderr)
        self.assertFalse(os.path.exists(self.kept))

    def test_a_new_machine_gets_the_pretrained_weights_back(self):
        self.assertEqual(keep("save-weights", self.work, "pt-unified-p42", self.kept).returncode, 0)
        new = os.path.join(self.tmp.name, "new-work")
        os.makedirs(new)
        r = keep("restore", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        run, old = os.path.join(new, "pt-unified-p42"), os.path.join(self.work, "pt-unified-p42")
        for f in ("config.json", "vocab.txt", "model.safetensors", "trainer_state.json"):
            self.assertEqual(read(os.path.join(run, "checkpoint", f)), read(os.path.join(old, "checkpoint", f)))
        self.assertFalse(os.path.exists(os.path.join(run, "checkpoint", "optimizer.safetensors")))
        for f in ("run.json", "summary.json", "log.jsonl"):
            self.assertEqual(read(os.path.join(run, f)), read(os.path.join(old, f)))
        self.assertIn("no optimizer state", read(os.path.join(run, "KEPT")))
        # A fine-tune records the same start as on the machine that trained it.
        self.assertEqual(keep("pretrained-from", new, "pt-unified-p42", self.kept).stdout,
                         keep("pretrained-from", self.work, "pt-unified-p42", self.kept).stdout)
        # Restoring again changes nothing; saving the restored run keeps the same files.
        self.assertEqual(keep("restore", new, "pt-unified-p42", self.kept).returncode, 0)
        self.assertEqual(keep("save-weights", new, "pt-unified-p42", self.kept).returncode, 0)

    def test_damaged_kept_weights_are_refused(self):
        self.assertEqual(keep("save-weights", self.work, "pt-unified-p42", self.kept).returncode, 0)
        weights = os.path.join(self.kept, "pt-unified-p42", "weights")
        new = os.path.join(self.tmp.name, "new-work")
        write(os.path.join(weights, "model.safetensors"), "version https://git-lfs.github.com/spec/v1\n")
        r = keep("restore", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("weights/model.safetensors: missing, or not the file its sha256", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(new, "pt-unified-p42")))
        write(os.path.join(weights, "SHA256SUMS"), "abc model.safetensors\n")
        r = keep("restore", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("SHA256SUMS:1: not a 'SHA256  FILE' line", r.stderr)
        # A run of the same name without weights on the new machine is not overwritten.
        self.assertEqual(keep("save-weights", self.work, "pt-unified-p42", self.kept).returncode, 0)
        write(os.path.join(new, "pt-unified-p42", "log.jsonl"), '{"step": 1}\n')
        r = keep("restore", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("a run without weights", r.stderr)
        # Weights kept at another step than the kept run's files are refused.
        self.assertEqual(keep("restore", os.path.join(self.tmp.name, "third"), "pt-unified-p42", self.kept).returncode, 0)
        write(os.path.join(self.kept, "pt-unified-p42", "trainer_state.json"), json.dumps({"step": 50}))
        r = keep("restore", os.path.join(self.tmp.name, "fourth"), "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("kept at another step", r.stderr)
        os.remove(os.path.join(self.kept, "pt-unified-p42", "trainer_state.json"))
        r = keep("restore", os.path.join(self.tmp.name, "fifth"), "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("pt-unified-p42/trainer_state.json: missing beside the kept weights", r.stderr)

    def test_an_unfinished_run_of_the_same_name_is_not_overwritten(self):
        self.assertEqual(keep("save", self.work, "qg-unified-p42-f42", self.kept).returncode, 0)
        new = os.path.join(self.tmp.name, "new-work")
        write(os.path.join(new, "qg-unified-p42-f42", "log.jsonl"), '{"step": 1}\n')
        r = keep("restore", new, "qg-unified-p42-f42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("an unfinished run", r.stderr)
        self.assertEqual(read(os.path.join(new, "qg-unified-p42-f42", "log.jsonl")), '{"step": 1}\n')

    def unfinished(self):
        """pt-unified-p42 in the middle of a raise: checkpoint at step 60 of 150, the log ahead of it
        (written between checkpoints), the checkpoint kept before the raise, a stale summary."""
        pt = os.path.join(self.work, "pt-unified-p42")
        write(os.path.join(pt, "run.json"), json.dumps({"train": {"tokens": 9600}, "total_steps": 150}))
        write(os.path.join(pt, "checkpoint-4800", "trainer_state.json"), json.dumps({"step": 40}))
        write(os.path.join(pt, "checkpoint-4800", "optimizer.safetensors"), "moments at 40")
        write(os.path.join(pt, "checkpoint", "trainer_state.json"), json.dumps({"step": 60}))
        write(os.path.join(pt, "checkpoint", "rng.pt"), "rng")
        write(os.path.join(pt, "config.json"), '{"hidden_size": 256}')
        write(os.path.join(pt, "vocab.txt"), "[PAD]\n[UNK]\n")
        write(os.path.join(pt, "log.jsonl"), "".join(json.dumps({"step": i, "loss": 9.0 - i / 100}) + "\n"
                                                     for i in range(1, 71)))
        return pt

    def test_an_unfinished_run_is_kept_whole_and_comes_back_on_a_new_machine(self):
        pt = self.unfinished()
        r = keep("save-resume", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("at step 60", r.stderr)
        resume = os.path.join(self.kept, "pt-unified-p42", "resume")
        files = sorted(os.path.relpath(os.path.join(d, n), resume) for d, _, ns in os.walk(resume) for n in ns)
        # Everything it resumes from; of the checkpoint kept before the raise, its step only; no
        # summary (the run is not finished), no staging folder left in the run.
        self.assertEqual(files, ["SHA256SUMS", "checkpoint-4800/trainer_state.json", "checkpoint/config.json",
                                 "checkpoint/model.safetensors", "checkpoint/optimizer.safetensors",
                                 "checkpoint/rng.pt", "checkpoint/trainer_state.json", "checkpoint/vocab.txt",
                                 "config.json", "log.jsonl.gz", "run.json", "vocab.txt"])
        self.assertFalse(os.path.exists(os.path.join(pt, ".keep-resume.tmp")))
        sums = read(os.path.join(resume, "SHA256SUMS")).splitlines()
        self.assertIn(hashlib.sha256(b"moments").hexdigest() + "  checkpoint/optimizer.safetensors", sums)
        self.assertEqual(len(sums), len(files) - 1)
        # The log is cut at the checkpoint's step, as a resumed run cuts it.
        with gzip.open(os.path.join(resume, "log.jsonl.gz"), "rt") as f:
            self.assertEqual([json.loads(l)["step"] for l in f], list(range(1, 61)))
        # Again at the same step: nothing rewritten.
        before = os.stat(os.path.join(resume, "checkpoint", "model.safetensors")).st_mtime_ns
        r = keep("save-resume", self.work, "pt-unified-p42", self.kept)
        self.assertIn("already kept", r.stderr)
        self.assertEqual(os.stat(os.path.join(resume, "checkpoint", "model.safetensors")).st_mtime_ns, before)

        # A new machine: the run comes back as it stood at its checkpoint.
        new = os.path.join(self.tmp.name, "new-work")
        r = keep("restore-resume", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        back = os.path.join(new, "pt-unified-p42")
        for f in ("run.json", "config.json", "vocab.txt", "checkpoint/model.safetensors",
                  "checkpoint/optimizer.safetensors", "checkpoint/rng.pt", "checkpoint/trainer_state.json",
                  "checkpoint-4800/trainer_state.json"):
            self.assertEqual(read(os.path.join(back, f)), read(os.path.join(pt, f)), f)
        self.assertEqual([json.loads(l)["step"] for l in read(os.path.join(back, "log.jsonl")).splitlines()],
                         list(range(1, 61)))
        self.assertFalse(os.path.exists(os.path.join(back, "summary.json")))
        self.assertFalse(os.path.exists(os.path.join(back, "checkpoint-4800", "optimizer.safetensors")))
        self.assertIn("step 60 restored from", read(os.path.join(back, "RESUMED_FROM_KEPT")))
        # A checkpoint here at the kept step or later stays as it is.
        write(os.path.join(back, "checkpoint", "trainer_state.json"), json.dumps({"step": 80}))
        self.assertEqual(keep("restore-resume", new, "pt-unified-p42", self.kept).returncode, 0)
        self.assertEqual(json.loads(read(os.path.join(back, "checkpoint", "trainer_state.json")))["step"], 80)
        # An older one (or one only in checkpoint.old, as the trainer leaves it mid-swap) is replaced.
        os.rename(os.path.join(back, "checkpoint"), os.path.join(back, "checkpoint.old"))
        write(os.path.join(back, "checkpoint.old", "trainer_state.json"), json.dumps({"step": 20}))
        r = keep("restore-resume", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(read(os.path.join(back, "checkpoint", "trainer_state.json")))["step"], 60)
        self.assertFalse(os.path.exists(os.path.join(back, "checkpoint.old")))
        self.assertIn("over this folder's checkpoint at step 20", read(os.path.join(back, "RESUMED_FROM_KEPT")))
        # Nothing kept: nothing to do.
        self.assertEqual(keep("restore-resume", new, "pt-seq2seq-p42", self.kept).returncode, 0)
        self.assertFalse(os.path.exists(os.path.join(new, "pt-seq2seq-p42")))

    def test_a_kept_resume_state_outlives_saves_until_the_gate_keeps_the_weights(self):
        self.unfinished()
        self.assertEqual(keep("save-resume", self.work, "pt-unified-p42", self.kept).returncode, 0)
        resume = os.path.join(self.kept, "pt-unified-p42", "resume")
        # The run finishes at step 150 and is kept (save): the resume state stays beside it.
        pt = os.path.join(self.work, "pt-unified-p42")
        write(os.path.join(pt, "summary.json"), json.dumps({"finished": True, "steps": 150}))
        write(os.path.join(pt, "checkpoint", "trainer_state.json"), json.dumps({"step": 150}))
        write(os.path.join(pt, "log.jsonl"), "".join(json.dumps({"step": i, "loss": 9.0 - i / 100}) + "\n"
                                                     for i in range(1, 151)))
        self.assertEqual(keep("save", self.work, "pt-unified-p42", self.kept).returncode, 0)
        self.assertTrue(os.path.isfile(os.path.join(resume, "checkpoint", "optimizer.safetensors")))
        self.assertFalse(os.path.exists(os.path.join(resume, "summary.json")))  # kept at step 60
        # Kept again, finished: its summary goes with it (a new machine takes it as done).
        r = keep("save-resume", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(read(os.path.join(resume, "summary.json"))), {"finished": True, "steps": 150})
        new = os.path.join(self.tmp.name, "new-work")
        self.assertEqual(keep("restore-resume", new, "pt-unified-p42", self.kept).returncode, 0)
        self.assertEqual(read(os.path.join(new, "pt-unified-p42", "summary.json")), read(os.path.join(pt, "summary.json")))
        # The gate keeps its weights: the earlier resume state goes.
        r = keep("save-weights", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("removed", r.stderr)
        self.assertFalse(os.path.exists(resume))
        self.assertTrue(os.path.isdir(os.path.join(self.kept, "pt-unified-p42", "weights")))

    def test_damaged_or_unusable_resume_states_are_refused(self):
        r = keep("save-resume", self.work, "qg-unified-p42-f42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a fine-tune", r.stderr)
        r = keep("save-resume", self.work, "pt-seq2seq-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("pt-seq2seq-p42: no checkpoint", r.stderr)
        self.unfinished()
        self.assertEqual(keep("save-resume", self.work, "pt-unified-p42", self.kept).returncode, 0)
        resume = os.path.join(self.kept, "pt-unified-p42", "resume")
        new = os.path.join(self.tmp.name, "new-work")
        write(os.path.join(resume, "checkpoint", "optimizer.safetensors"),
              "version https://git-lfs.github.com/spec/v1\n")
        r = keep("restore-resume", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("resume/checkpoint/optimizer.safetensors: missing, or not the file its sha256", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(new, "pt-unified-p42")))
        os.remove(os.path.join(resume, "SHA256SUMS"))
        r = keep("restore-resume", new, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("resume/SHA256SUMS: missing", r.stderr)
        # A run restored from kept weights has no optimizer state: it cannot be kept to resume.
        write(os.path.join(self.work, "pt-unified-p42", "KEPT"), "restored\n")
        r = keep("save-resume", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("without an optimizer state", r.stderr)

    def test_pretrained_from_prefers_the_run_on_this_machine(self):
        self.assertEqual(keep("save", self.work, "pt-unified-p42", self.kept).returncode, 0)
        # The run here was raised since it was kept: its own checkpoint is what a fine-tune starts from.
        write(os.path.join(self.work, "pt-unified-p42", "run.json"), json.dumps({"train": {"tokens": 9600}}))
        write(os.path.join(self.work, "pt-unified-p42", "checkpoint", "trainer_state.json"), json.dumps({"step": 150}))
        r = keep("pretrained-from", self.work, "pt-unified-p42", self.kept)
        self.assertEqual(json.loads(r.stdout), {"pretrain": "pt-unified-p42", "tokens": 9600, "step": 150})
        r = keep("pretrained-from", self.work, "pt-seq2seq-p42", self.kept)
        self.assertEqual(r.returncode, 2)
        self.assertIn("pt-seq2seq-p42: no pre-training run with a checkpoint", r.stderr)


if __name__ == "__main__":
    unittest.main()
