#!/usr/bin/env python3
"""bench/experiments/mini-unilm-v2/gate.py: issue #37's pre-training gate on made-up runs (finished,
unfinished, raised past TOKENS, at the cap; exit 2 with the path on bad input).

    python3 tests/bench/gate_test.py      # ctest: bench_gate
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GATE_PY = os.path.join(HERE, "..", "..", "bench", "experiments", "mini-unilm-v2", "gate.py")
ARMS = ("bidirectional", "unified", "seq2seq")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class GateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = self.tmp.name
        # Unigram entropy 7.0 nats: the bar is 6.0.
        write(os.path.join(self.work, "entropy.json"), json.dumps({"unigram_entropy_nats": 7.0}))

    def tearDown(self):
        self.tmp.cleanup()

    def arm(self, arm, mlm, tokens=1000, steps=100, step=None, after=None):
        """A pre-training run of `arm` with budget `tokens` = `steps` steps, at `step`; every logged
        step's mlm is `mlm`, or `after` past a raise (steps beyond the first budget)."""
        run = os.path.join(self.work, "pt-%s-p42" % arm)
        step = steps if step is None else step
        write(os.path.join(run, "run.json"), json.dumps({"train": {"tokens": tokens}, "total_steps": steps}))
        write(os.path.join(run, "checkpoint", "trainer_state.json"), json.dumps({"step": step}))
        write(os.path.join(run, "log.jsonl"), "".join(
            json.dumps({"step": i, "mlm": mlm if after is None or i <= 100 else after}) + "\n"
            for i in range(1, step + 1)))
        return run

    def gate(self, tokens=1000, cap=24001000):
        out = os.path.join(self.work, "gate.json")
        p = subprocess.run([sys.executable, GATE_PY, "--work", self.work, "--tokens", str(tokens), "--cap",
                            str(cap), "--out", out], capture_output=True, text=True)
        doc = None
        if os.path.exists(out):
            with open(out) as f:
                doc = json.load(f)
            os.remove(out)
        return p.returncode, p.stderr, doc

    def test_all_past_the_bar_fine_tunes(self):
        for arm in ARMS:
            self.arm(arm, 5.5)
        rc, err, doc = self.gate()
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["above_bar"], [])
        self.assertAlmostEqual(doc["bar"], 6.0)
        self.assertIn("every trained arm is past the bar", doc["decision"])

    def test_one_arm_above_the_bar_raises_every_arm(self):
        self.arm("bidirectional", 6.2)
        self.arm("unified", 5.5)
        self.arm("seq2seq", 5.0)
        rc, err, doc = self.gate()
        self.assertEqual(rc, 4, err)
        self.assertEqual(doc["above_bar"], ["bidirectional"])
        self.assertIn("raise: TOKENS=24001000", doc["decision"])
        self.assertIn("bidirectional: finished, mlm 6.200 over its last 50 steps (above the bar)", err)

    def test_at_the_cap_fine_tunes_and_names_the_arm(self):
        for arm in ARMS:
            self.arm(arm, 6.5 if arm == "unified" else 5.0)
        rc, err, doc = self.gate(cap=1000)
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["decision"], "fine-tune at the cap: unified above the bar, reported as such")

    def test_an_unfinished_arm_waits_and_writes_nothing(self):
        self.arm("bidirectional", 5.0)
        self.arm("unified", 5.0, step=60)
        rc, err, doc = self.gate()
        self.assertEqual(rc, 3, err)
        self.assertIsNone(doc)
        self.assertIn("not yet: unified, seq2seq", err)
        self.assertIn("seq2seq: not started", err)

    def test_the_loss_is_the_last_50_steps(self):
        run = self.arm("bidirectional", 6.1)
        # Steps 51-100 at 5.9, 1-50 at 7.0: the mean of the last 50 is 5.9, past the bar.
        write(os.path.join(run, "log.jsonl"), "".join(
            json.dumps({"step": i, "mlm": 7.0 if i <= 50 else 5.9}) + "\n" for i in range(1, 101)))
        self.arm("unified", 5.0)
        self.arm("seq2seq", 5.0)
        rc, err, doc = self.gate()
        self.assertEqual(rc, 0, err)
        self.assertAlmostEqual(doc["arms"]["bidirectional"]["mlm_mean_last50"], 5.9)

    def test_a_raised_arm_is_judged_at_its_kept_checkpoint(self):
        # bidirectional finished 1000 positions above the bar, then was raised to 2000 and has
        # since gone below it: the decision at 1000 still sees 6.2 and raises.
        run = self.arm("bidirectional", 6.2, tokens=2000, steps=200, step=150, after=5.0)
        write(os.path.join(run, "checkpoint-1000", "trainer_state.json"), json.dumps({"step": 100}))
        self.arm("unified", 5.5)
        self.arm("seq2seq", 5.0)
        rc, err, doc = self.gate()
        self.assertEqual(rc, 4, err)
        e = doc["arms"]["bidirectional"]
        self.assertEqual((e["tokens"], e["raised_to"], e["step"], e["mlm_steps"]), (1000, 2000, 100, 50))
        self.assertAlmostEqual(e["mlm_mean_last50"], 6.2)
        self.assertIn("bidirectional: finished at 1000 (checkpoint-1000; since raised to 2000)", err)

    def test_a_raised_arm_without_its_checkpoint_waits(self):
        self.arm("bidirectional", 5.0, tokens=2000, steps=200, step=150)
        self.arm("unified", 5.0)
        self.arm("seq2seq", 5.0)
        rc, err, _ = self.gate()
        self.assertEqual(rc, 3, err)
        self.assertIn("bidirectional: at step 150 of 200, budget 2000", err)

    def test_a_log_short_of_the_kept_checkpoint_is_refused(self):
        run = self.arm("bidirectional", 6.2, tokens=2000, steps=200, step=90)
        write(os.path.join(run, "checkpoint-1000", "trainer_state.json"), json.dumps({"step": 100}))
        self.arm("unified", 5.0)
        self.arm("seq2seq", 5.0)
        rc, err, doc = self.gate()
        self.assertEqual(rc, 2, err)
        self.assertIn("log.jsonl: no logged step 100", err)
        self.assertIsNone(doc)

    def test_bad_input_names_the_file(self):
        for arm in ARMS:
            self.arm(arm, 5.0)
        write(os.path.join(self.work, "pt-unified-p42", "log.jsonl"), '{"step": 1, "mlm": 5.0}\nnot json\n{}\n')
        rc, err, _ = self.gate()
        self.assertEqual(rc, 2)
        self.assertIn("pt-unified-p42/log.jsonl:2: not JSON", err)
        write(os.path.join(self.work, "entropy.json"), "{}")
        rc, err, _ = self.gate()
        self.assertEqual(rc, 2)
        self.assertIn("entropy.json: no unigram_entropy_nats", err)


if __name__ == "__main__":
    unittest.main()
