#!/usr/bin/env python3
"""bench/experiments/mini-unilm-v2/two_cores.sh: issue #37's two-chain schedule, end to end on a
2-layer, 32-wide model with budgets of 3 and 6 steps (T1, T2): both chains pre-train the three
trained arms, chain a records the decision at T1 and runs the gate at T2, the chains fine-tune their
shares (QG on 64 Du pairs, SST-2 on 64 sentences) and the last one collects. Then: a re-run of both
chains does nothing again, a chain that fails stops the other instead of leaving it waiting, and a
run kept with keep.py save-resume continues on a new machine bit for bit.

    python3 tests/bench/two_cores_test.py --binary build/unieval   # ctest: bench_two_cores

Needs ../shared/data (squad_qg, glue/SST-2, vocab): exit 77 (skipped) without it.
"""
import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(REPO, "bench", "experiments", "mini-unilm-v2", "two_cores.sh")
RUN_SH = os.path.join(REPO, "bench", "experiments", "mini-unilm-v2", "run.sh")
SHARED = os.environ.get("SHARED", os.path.join(REPO, "..", "shared", "data"))
NEEDS = ("squad_qg", "glue/SST-2.train.tsv.gz", "glue/SST-2.dev.tsv.gz", "vocab/bert-uncased-vocab.txt")
TRAINED = ("bidirectional", "unified", "seq2seq")
BINARY = None  # --binary

# 6 x 32 positions a step: T1 = 3 steps, T2 = 6.
T1, T2 = 576, 1152
CONFIG = {"vocab_size": 8000, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 64, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
          "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 160, "type_vocab_size": 6,
          "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0}


def load(path):
    with open(path) as f:
        return json.load(f)


def make_work(work):
    """A WORK as run.sh's corpus, vocab and config stages leave it, on 3,000 SST-2 training
    sentences (documents of 25) and a tiny model shape."""
    os.makedirs(os.path.join(work, "corpus"))
    with gzip.open(os.path.join(SHARED, "glue", "SST-2.train.tsv.gz"), "rt", encoding="utf-8") as f:
        rows = f.read().split("\n")[1:]
    sents = [r.split("\t")[0] for r in rows if r.strip()][:3000]
    with open(os.path.join(work, "corpus", "train.txt"), "w") as f:
        for i in range(0, len(sents), 25):
            f.write("\n".join(sents[i:i + 25]) + "\n\n")
    with open(os.path.join(work, "corpus", "stats.json"), "w") as f:
        f.write("{}\n")
    env = dict(os.environ, WORK=work, UNIEVAL=BINARY, SHARED=SHARED, THREADS="1", STAGES="vocab")
    subprocess.run([RUN_SH], env=env, check=True, capture_output=True)
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(CONFIG, f)


class TwoCoresTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = os.path.join(self.tmp.name, "work")
        self.results = os.path.join(self.tmp.name, "results")
        self.keep = os.path.join(self.results, "kept")
        make_work(self.work)

    def tearDown(self):
        self.tmp.cleanup()

    def env(self, **extra):
        env = dict(os.environ, WORK=self.work, UNIEVAL=BINARY, SHARED=SHARED, RESULTS=self.results,
                   BATCH="6", MAXLEN="32", T1=str(T1), T2=str(T2), SWITCH="2", WAIT_S="1",
                   QG_EXTRA="--train-limit 64 --eval-limit 8", QG_DEV_LIMIT="8",
                   SST_EXTRA="--train-limit 64 --eval-limit 16", RESAMPLES="20")
        env.pop("KEEP", None)
        env.update(extra)
        return env

    def chains(self, env_a=None, env_b=None, timeout=900):
        """Both chains side by side; their exit codes and stderr."""
        procs = [subprocess.Popen([SCRIPT, c], env=e or self.env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
                 for c, e in (("a", env_a), ("b", env_b))]
        try:
            out = [p.communicate(timeout=timeout)[1] for p in procs]
        except subprocess.TimeoutExpired:
            for p in procs:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:  # that chain had already exited
                    pass
            raise
        return [p.returncode for p in procs], out

    def finetunes(self):
        names = ["qg-%s-p42-f%d" % (arm, s) for arm in ("none",) + TRAINED for s in (42, 43, 44)]
        return names + ["sst2-%s-p42-f42" % arm for arm in ("none",) + TRAINED]

    def test_schedule_end_to_end_and_rerun(self):
        (rc_a, rc_b), (err_a, err_b) = self.chains()
        self.assertEqual((rc_a, rc_b), (0, 0), err_a[-3000:] + err_b[-3000:])
        # Every trained arm pre-trained to T2, with its checkpoint at T1 kept before the raise.
        for arm in TRAINED:
            run = os.path.join(self.work, "pt-%s-p42" % arm)
            self.assertEqual(load(os.path.join(run, "run.json"))["train"]["tokens"], T2, arm)
            self.assertEqual(load(os.path.join(run, "checkpoint", "trainer_state.json"))["step"], 6, arm)
            self.assertEqual(load(os.path.join(run, "checkpoint-%d" % T1, "trainer_state.json"))["step"], 3, arm)
            self.assertTrue(os.path.isfile(os.path.join(self.keep, "pt-%s-p42" % arm, "weights", "model.safetensors")))
        self.assertIn("seq2seq released at step", err_b)
        self.assertIn("bidirectional at step 3: mlm", err_a)
        # The decision at T1, recorded again from these runs (each judged at its checkpoint-T1), and
        # the gate at T2, which let the fine-tunes start.
        at_t1 = load(os.path.join(self.keep, "gate-p42-0m.json"))
        self.assertEqual(at_t1["tokens"], T1)
        for arm in TRAINED:
            self.assertEqual(at_t1["arms"][arm]["step"], 3, arm)
            self.assertEqual(at_t1["arms"][arm]["raised_to"], T2, arm)
        self.assertEqual(load(os.path.join(self.keep, "gate-p42.json"))["tokens"], T2)
        # Every fine-tune ran once, from the run its .pretrain.json names, and is kept.
        commands = load(os.path.join(self.work, "commands.json"))
        for name in self.finetunes():
            self.assertTrue(os.path.isfile(os.path.join(self.work, name, "result.json")), name)
            self.assertTrue(os.path.isdir(os.path.join(self.keep, name)), name)
            task, arm, _, fseed = name.split("-")
            key = "%s %s p42 %s" % ("squad-qg" if task == "qg" else "glue-sst2", arm, fseed)
            self.assertIn(key, commands)  # both chains recorded; none lost the other's entries
        # Each fine-tune started exactly once, on its chain: a runs QG seed 42 of every trained arm and
        # seed 43 of bidirectional and unified; b the rest (run.sh logs "TASK ARM p42 fF: OUT").
        for name in self.finetunes():
            task, arm, _, fseed = name.split("-")
            line = "%s %s p42 %s: %s" % ("squad-qg" if task == "qg" else "glue-sst2", arm, fseed,
                                         os.path.join(self.work, name))
            on_a = task == "qg" and arm != "none" and (fseed == "f42" or (fseed == "f43" and arm != "seq2seq"))
            self.assertEqual((line in err_a, line in err_b), (on_a, not on_a), name)
        # Collected once, by the chain that finished last.
        self.assertTrue(os.path.isfile(os.path.join(self.results, "table.md")))
        self.assertTrue(os.path.isfile(os.path.join(self.results, "mini-unilm-v2.json")))
        self.assertEqual((err_a + err_b).count("collected into"), 1)
        # A verdict that calls a winner shows a non-zero difference, however small.
        with open(os.path.join(self.results, "table.md")) as f:
            rows = [r.split(" | ") for r in f.read().split("\n") if r.startswith("| qg |") or r.startswith("| sst2 |")]
        self.assertTrue(rows)
        for r in rows:
            if "better" in r[5]:
                self.assertNotIn(r[3].split(", ")[0], ("+0.00", "-0.00"), r)

        # A re-run of both chains: every leg is done, nothing is trained, fine-tuned or collected again.
        stamps = {n: os.stat(os.path.join(self.work, n, "result.json")).st_mtime_ns for n in self.finetunes()}
        steps = {a: os.stat(os.path.join(self.work, "pt-%s-p42" % a, "checkpoint", "trainer_state.json")).st_mtime_ns
                 for a in TRAINED}
        (rc_a, rc_b), (err_a, err_b) = self.chains()
        self.assertEqual((rc_a, rc_b), (0, 0), err_a[-3000:] + err_b[-3000:])
        self.assertIn("bidirectional: its budget was raised to %d after it finished %d" % (T2, T1), err_a)
        for n, t in stamps.items():
            self.assertEqual(os.stat(os.path.join(self.work, n, "result.json")).st_mtime_ns, t, n)
        for a, t in steps.items():
            self.assertEqual(os.stat(os.path.join(self.work, "pt-%s-p42" % a, "checkpoint",
                                                  "trainer_state.json")).st_mtime_ns, t, a)
        self.assertNotIn("collected into", err_a + err_b)

    def test_a_new_machine_resumes_a_kept_run_bit_for_bit(self):
        # unified finishes T1, then its raise to T2 is interrupted after one step (a session ends).
        env = self.env(STAGES="pretrain", ARMS="unified", TOKENS=str(T1), GEMM="onednn")
        subprocess.run([RUN_SH], env=env, check=True, capture_output=True)
        run = os.path.join(self.work, "pt-unified-p42")
        shutil.copytree(os.path.join(run, "checkpoint"), os.path.join(run, "checkpoint-%d" % T1))  # as run.sh
        with open(os.path.join(run, "summary.json")) as f:
            at_t1 = f.read()
        subprocess.run([BINARY, "pretrain", "--out", run, "--resume", "--tokens", str(T2), "--stop-after", "1",
                        "--threads", "1", "--gemm", "onednn", "--json"], check=True, capture_output=True)
        with open(os.path.join(run, "summary.json"), "w") as f:
            f.write(at_t1)  # as a call killed at the session's end leaves it (a call writes it when it returns)
        self.assertEqual(load(os.path.join(run, "checkpoint", "trainer_state.json"))["step"], 4)
        # The session keeps it before it ends: weights, moments, RNG state and log, at step 4.
        keep_py = os.path.join(os.path.dirname(RUN_SH), "keep.py")
        p = subprocess.run([sys.executable, keep_py, "save-resume", self.work, "pt-unified-p42", self.keep],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        # This machine finishes the raise: run.sh resumes it (the summary of T1 says finished, and
        # run.json already has T2's budget: the checkpoint's step tells it is not done).
        env = self.env(STAGES="pretrain", ARMS="unified", TOKENS=str(T2), GEMM="onednn")
        p = subprocess.run([RUN_SH], env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        self.assertEqual(load(os.path.join(run, "checkpoint", "trainer_state.json"))["step"], 6)
        self.assertTrue(load(os.path.join(run, "summary.json"))["finished"])
        here = os.path.join(self.tmp.name, "here")
        os.rename(self.work, here)
        # A new machine: the same WORK path, built again, and the kept state; run.sh restores it
        # and finishes the raise.
        make_work(self.work)
        p = subprocess.run([RUN_SH], env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        self.assertIn("restored %s at step 4" % run, p.stderr)
        with open(os.path.join(run, "RESUMED_FROM_KEPT")) as f:
            self.assertIn("step 4 restored from", f.read())

        def steps(path):  # every logged field but the clock's
            with open(path) as f:
                rows = [json.loads(l) for l in f if l.strip()]
            return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in rows]
        self.assertEqual(len(steps(os.path.join(run, "log.jsonl"))), 6)
        self.assertEqual(steps(os.path.join(run, "log.jsonl")), steps(os.path.join(here, "pt-unified-p42", "log.jsonl")))
        for f in ("model.safetensors", "optimizer.safetensors"):
            with open(os.path.join(run, "checkpoint", f), "rb") as a, \
                    open(os.path.join(here, "pt-unified-p42", "checkpoint", f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        self.assertEqual(load(os.path.join(run, "checkpoint-%d" % T1, "trainer_state.json"))["step"], 3)

    def test_a_failed_chain_stops_the_other(self):
        # Chain a cannot run (no binary); chain b does its pre-training, then would wait for chain a's
        # bidirectional checkpoint at T1: it stops with exit 5 and names the failure instead.
        (rc_a, rc_b), (err_a, err_b) = self.chains(env_a=self.env(UNIEVAL=os.path.join(self.tmp.name, "nope")),
                                                   timeout=300)
        self.assertEqual(rc_a, 2, err_a)
        self.assertEqual(rc_b, 5, err_b[-3000:])
        self.assertIn("chain a failed (exit 2", err_b)
        self.assertTrue(os.path.isfile(os.path.join(self.work, "chain-a.failed")))
        self.assertEqual(load(os.path.join(self.work, "pt-unified-p42", "run.json"))["train"]["tokens"], T1)
        self.assertFalse(os.path.exists(os.path.join(self.work, "chain-b.pretrained")))

    def test_record_keeps_every_chains_entry(self):
        # run.sh's record() from many processes at once (two chains record side by side): no entry lost.
        record = os.path.join(REPO, "bench", "experiments", "mini-unilm", "record.py")
        path = os.path.join(self.tmp.name, "commands.json")
        procs = [subprocess.Popen([sys.executable, record, path, "step %d" % i, "unieval", "run", "--seed", str(i)])
                 for i in range(40)]
        self.assertEqual([p.wait() for p in procs], [0] * 40)
        commands = load(path)
        self.assertEqual(len(commands), 40)
        self.assertEqual(commands["step 7"], "unieval run --seed 7")

    def test_collect_prints_small_deltas(self):
        sys.path.insert(0, os.path.dirname(RUN_SH))
        import collect  # noqa: E402 (bench/experiments/mini-unilm-v2/collect.py)
        self.assertEqual(collect.fmt_delta(-4.6e-07), "-4.6e-07")
        self.assertEqual(collect.fmt_delta(0.0041), "+0.0041")
        self.assertEqual(collect.fmt_delta(0.0), "+0.00")
        self.assertEqual(collect.fmt_delta(-1.234), "-1.23")
        self.assertEqual(collect.fmt_delta(12.0), "+12.00")

    def test_bad_usage(self):
        p = subprocess.run([SCRIPT, "c"], env=self.env(), capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage: two_cores.sh a|b", p.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    args, rest = ap.parse_known_args()
    BINARY = os.path.abspath(args.binary)
    missing = [n for n in NEEDS if not os.path.exists(os.path.join(SHARED, n))]
    if missing:
        print("two_cores_test: skipped: %s lacks %s" % (SHARED, ", ".join(missing)))
        sys.exit(77)
    unittest.main(argv=[sys.argv[0]] + rest)
