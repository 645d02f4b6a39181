#!/usr/bin/env python3
"""Issue #36's SST-2 vote: results/experiments/from-scratch/glue-sst2/vote.py (the majority vote and
its prediction file) and bench/experiments/sst2-self-pretrain/vote_summary.py (members, votes,
paired tests and the wall time summed over resumed calls), on small made-up runs.

    python3 tests/bench/vote_test.py      # ctest: bench_vote
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
VOTE_PY = os.path.join(ROOT, "results", "experiments", "from-scratch", "glue-sst2", "vote.py")
SUMMARY_PY = os.path.join(ROOT, "bench", "experiments", "sst2-self-pretrain", "vote_summary.py")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tsv(header, labels):
    return header + "\n" + "".join("%d\t%s\n" % (i, label) for i, label in enumerate(labels))


def run(script, *args):
    return subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True)


class VoteTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.gold = os.path.join(self.d, "gold.tsv")
        write(self.gold, tsv("sentence\tlabel", ["1", "0", "1", "0", "1"]))
        # Three members; per column the majority is 1 0 0 0 1 (4 of 5 right).
        self.preds = []
        for i, labels in enumerate([["1", "1", "0", "0", "0"], ["1", "0", "0", "1", "1"], ["0", "0", "1", "0", "1"]]):
            p = os.path.join(self.d, "m%d.tsv" % i)
            write(p, tsv("index\tprediction", labels))
            self.preds.append(p)

    def tearDown(self):
        self.tmp.cleanup()

    def test_vote_is_the_majority_of_each_row_and_is_written_in_the_members_layout(self):
        out = os.path.join(self.d, "vote.tsv")
        r = run(VOTE_PY, "--out", out, self.gold, *self.preds)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "80.00")
        with open(out) as f:
            self.assertEqual(f.read(), tsv("index\tprediction", ["1", "0", "0", "0", "1"]))
        self.assertFalse(os.path.exists(out + ".tmp"))
        # Without --out it prints the same and writes nothing.
        r = run(VOTE_PY, self.gold, *self.preds)
        self.assertEqual(r.stdout.strip(), "80.00")

    def test_bad_input_names_the_file(self):
        write(os.path.join(self.d, "short.tsv"), tsv("index\tprediction", ["1", "0"]))
        r = run(VOTE_PY, self.gold, self.preds[0], self.preds[1], os.path.join(self.d, "short.tsv"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("short.tsv: 2 predictions for 5 gold rows", r.stderr)
        write(os.path.join(self.d, "ragged.tsv"), "index\tprediction\n0\t1\nbroken\n")
        r = run(VOTE_PY, self.gold, self.preds[0], self.preds[1], os.path.join(self.d, "ragged.tsv"))
        self.assertIn("ragged.tsv:3: expected 'index<TAB>label'", r.stderr)
        r = run(VOTE_PY, self.gold, self.preds[0], self.preds[1])  # an even number: ties possible
        self.assertNotEqual(r.returncode, 0)


class VoteSummaryTest(unittest.TestCase):
    def eval_json(self, acc, baseline=None, b_acc=None, p=None, ci=None):
        doc = {"scores": [{"name": "accuracy", "value": acc}], "summary": {"accuracy": acc}}
        if ci:
            doc["scores"][0]["ci"] = {"low": ci[0], "high": ci[1]}
        if baseline:
            doc["paired_bootstrap"] = {"baseline": baseline, "resamples": 1000, "seed": 42, "scores": [
                {"score": "accuracy", "system": acc, "baseline": b_acc, "delta": acc - b_acc, "p_value": p}]}
        return json.dumps(doc)

    def test_members_votes_and_wall_time_over_resumed_calls(self):
        with tempfile.TemporaryDirectory() as w:
            members = ["ft-p42-f42", "ft-p42-f43", "ft-p42-f44"]
            for m, acc in zip(members, [0.80, 0.82, 0.84]):
                write(os.path.join(w, m, "result.json"), json.dumps({"summary": {"accuracy": acc}, "baselines": [
                    {"name": "majority", "paired_bootstrap": {"scores": [{"p_value": 0.001}]}}]}))
            # The pre-training was killed once: elapsed_s restarts at the resumed call.
            log = [{"step": 1, "mlm": 7.0, "elapsed_s": 10.0}, {"step": 2, "mlm": 6.0, "elapsed_s": 100.0},
                   {"step": 2, "mlm": 6.0, "elapsed_s": 5.0}, {"step": 3, "mlm": 5.0, "elapsed_s": 50.0}]
            write(os.path.join(w, "pt-s42", "log.jsonl"), "".join(json.dumps(r) + "\n" for r in log))
            walls = [{"name": "finetune p42 f42", "seconds": 20.0}, {"name": "finetune p42 f43", "seconds": 30.0},
                     {"name": "finetune p42 f43", "seconds": 5.0}, {"name": "finetune p42 f44", "seconds": 40.0}]
            write(os.path.join(w, "walls.jsonl"), "".join(json.dumps(r) + "\n" for r in walls))
            write(os.path.join(w, "vote", "against-best.json"),
                  self.eval_json(0.85, "ft-p42-f44", 0.84, 0.4, ci=(0.83, 0.87)))
            write(os.path.join(w, "vote", "against-majority.json"), self.eval_json(0.85, "majority", 0.5, 0.001))
            write(os.path.join(w, "vote", "p42.json"), self.eval_json(0.85))
            out = os.path.join(w, "vote", "vote.json")
            r = run(SUMMARY_PY, "--work", w, "--members", *members, "--pt-seeds", "42", "--best", "ft-p42-f44",
                    "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                s = json.load(f)
            self.assertEqual([m["accuracy"] for m in s["members"]], [80.0, 82.0, 84.0])
            self.assertEqual((s["members_mean"], s["members_sd"]), (82.0, 2.0))
            self.assertEqual(s["vote"]["accuracy"], 85.0)
            self.assertEqual(s["vote"]["ci95"], [83.0, 87.0])
            self.assertEqual(s["vote"]["against_best_member"]["delta"], 1.0)
            self.assertEqual(s["vote"]["against_majority"]["p_value"], 0.001)
            self.assertEqual(s["vote_per_pretraining_seed"], {"p42": 85.0})
            runs = {x["run"]: x for x in s["wall"]["runs"]}
            self.assertEqual((runs["pt-s42"]["seconds"], runs["pt-s42"]["calls"]), (150.0, 2))
            self.assertEqual((runs["ft-p42-f43"]["seconds"], runs["ft-p42-f43"]["calls"]), (35.0, 2))
            self.assertEqual(s["wall"]["one_thread_seconds"], 245.0)
            self.assertTrue(s["target"]["met"])  # 85 >= 83 and 245 s << 3 h of 2 cores

    def test_a_vote_below_83_is_not_met(self):
        with tempfile.TemporaryDirectory() as w:
            write(os.path.join(w, "ft-p1-f1", "result.json"), json.dumps({"summary": {"accuracy": 0.8299}}))
            write(os.path.join(w, "pt-s1", "log.jsonl"), json.dumps({"step": 1, "mlm": 7.0, "elapsed_s": 1.0}) + "\n")
            write(os.path.join(w, "vote", "against-best.json"), self.eval_json(0.8299, "ft-p1-f1", 0.8299, 1.0))
            write(os.path.join(w, "vote", "against-majority.json"), self.eval_json(0.8299, "majority", 0.5, 0.001))
            write(os.path.join(w, "vote", "p1.json"), self.eval_json(0.8299))
            out = os.path.join(w, "vote.json")
            r = run(SUMMARY_PY, "--work", w, "--members", "ft-p1-f1", "--pt-seeds", "1", "--best", "ft-p1-f1",
                    "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                self.assertFalse(json.load(f)["target"]["met"])

    def test_a_missing_file_is_named(self):
        with tempfile.TemporaryDirectory() as w:
            r = run(SUMMARY_PY, "--work", w, "--members", "ft-p1-f1", "--pt-seeds", "1", "--best", "ft-p1-f1",
                    "--out", os.path.join(w, "vote.json"))
            self.assertEqual(r.returncode, 2)
            self.assertIn(os.path.join("ft-p1-f1", "result.json"), r.stderr)
            self.assertFalse(os.path.exists(os.path.join(w, "vote.json")))


if __name__ == "__main__":
    unittest.main()
