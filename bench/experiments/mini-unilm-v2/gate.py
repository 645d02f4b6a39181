#!/usr/bin/env python3
"""The pre-training gate of issue #37's design, checked before any trained arm is fine-tuned.

The design (results/experiments/mini-unilm-v2/README.md, Design and its session-37 amendment):
every trained arm pre-trains on the same number of input positions (TOKENS), and its masked-token
loss (the mean of the `mlm` column over its last 50 logged steps) must be at least 1 nat below the
corpus's unigram entropy. If one arm is not, every trained arm gets another 24 M positions
(`--resume` with a raised `--tokens`), up to the budget cap; at the cap, fine-tuning goes ahead and
the arms above the bar are reported as such.

    gate.py --work WORK --tokens TOKENS --cap CAP [--pt-seed 42] [--out WORK/gate-p42.json]

An arm already raised past TOKENS (run.sh keeps the checkpoint it finished TOKENS with as
checkpoint-TOKENS) is judged as it stood there: its step is that checkpoint's, its loss the mean of
the last 50 logged steps up to it. So the decision at TOKENS can be recorded after one arm has
moved on, which lets a free core raise it while another arm is still short of TOKENS.

Exit status: 0 fine-tuning may start; 3 a trained arm has not finished its pre-training at
TOKENS (run the pretrain stage for it); 4 an arm is above the bar below the cap (raise TOKENS for
every trained arm); 2 bad input. Every case prints one line per arm on stderr; 0 and 4 write the
decision to --out (temp file, then rename).
"""
import argparse
import json
import os
import sys

TRAINED = ("bidirectional", "unified", "seq2seq")
STEP = 24000000  # the design's raise: another 24 M positions for every trained arm


def fail(msg):
    print("gate.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    except ValueError as e:
        fail("%s: not JSON (%s)" % (path, e))


def last_mlm(log_path, n=50, upto=None):
    """The mean `mlm` of the last n logged steps (up to step `upto` when given), the number of steps
    it covers, and the last step."""
    try:
        with open(log_path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail("%s: %s" % (log_path, e.strerror))
    rows = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except ValueError:
            if i == len(lines):  # the last line, still being written by a running arm
                continue
            fail("%s:%d: not JSON" % (log_path, i))
        rows.append(r)
    return mean_mlm_tail(rows, n, upto)


def mean_mlm_tail(rows, n=50, upto=None):
    """Over the log rows of a pre-training run: the mean masked-token loss (`mlm`, no NSP) of the
    last n steps (of those up to step `upto` when given), the number of steps it covers, and the
    last step (None, 0, 0 without any). collect.py reports the same quantity."""
    rows = [r for r in rows if "step" in r and "mlm" in r and (upto is None or r["step"] <= upto)]
    if not rows:
        return None, 0, 0
    tail = rows[-n:]
    return sum(r["mlm"] for r in tail) / len(tail), len(tail), rows[-1]["step"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    ap.add_argument("--tokens", type=int, required=True, help="the budget every trained arm must have")
    ap.add_argument("--cap", type=int, required=True, help="no raise beyond this budget")
    ap.add_argument("--pt-seed", default="42")
    ap.add_argument("--margin", type=float, default=1.0, help="nats below the unigram entropy")
    ap.add_argument("--out", help="decision JSON (default WORK/gate-pSEED.json)")
    a = ap.parse_args()
    if a.tokens <= 0 or a.cap <= 0:
        fail("--tokens and --cap must be positive")
    entropy = load_json(os.path.join(a.work, "entropy.json")).get("unigram_entropy_nats")
    if not isinstance(entropy, (int, float)):
        fail("%s: no unigram_entropy_nats" % os.path.join(a.work, "entropy.json"))
    bar = entropy - a.margin

    arms, waiting = {}, []
    for arm in TRAINED:
        run = os.path.join(a.work, "pt-%s-p%s" % (arm, a.pt_seed))
        e = {"run": run}
        if not os.path.exists(os.path.join(run, "run.json")):
            e["state"] = "not started"
            waiting.append(arm)
            arms[arm] = e
            continue
        rj = load_json(os.path.join(run, "run.json"))
        budget = rj.get("train", {}).get("tokens")
        total = rj.get("total_steps")
        state = load_json(os.path.join(run, "checkpoint", "trainer_state.json")) \
            if os.path.exists(os.path.join(run, "checkpoint", "trainer_state.json")) else {}
        step = state.get("step", 0)
        at = os.path.join(run, "checkpoint-%d" % a.tokens, "trainer_state.json")
        if isinstance(budget, int) and budget > a.tokens and os.path.exists(at):
            # Raised past TOKENS after finishing it: judged as it stood at checkpoint-TOKENS.
            cut = load_json(at).get("step")
            if not isinstance(cut, int) or cut <= 0:
                fail("%s: no step" % at)
            log_path = os.path.join(run, "log.jsonl")
            mlm, n, last = last_mlm(log_path, upto=cut)
            if last != cut:
                fail("%s: no logged step %d, the step of %s" % (log_path, cut, at))
            e.update({"tokens": a.tokens, "raised_to": budget, "step": cut, "total_steps": cut,
                      "mlm_mean_last50": mlm, "mlm_steps": n, "state": "finished at %d (checkpoint-%d; "
                      "since raised to %d)" % (a.tokens, a.tokens, budget), "past_bar": mlm is not None and mlm <= bar})
            arms[arm] = e
            continue
        mlm, n, _ = last_mlm(os.path.join(run, "log.jsonl"))
        e.update({"tokens": budget, "step": step, "total_steps": total, "mlm_mean_last50": mlm,
                  "mlm_steps": n})
        if budget != a.tokens or total is None or step < total:
            e["state"] = "at step %s of %s, budget %s" % (step, total, budget)
            waiting.append(arm)
        else:
            e["state"] = "finished"
            e["past_bar"] = mlm is not None and mlm <= bar
        arms[arm] = e

    for arm in TRAINED:
        e = arms[arm]
        loss = "" if e.get("mlm_mean_last50") is None else ", mlm %.3f over its last %d steps" % (
            e["mlm_mean_last50"], e["mlm_steps"])
        verdict = "" if "past_bar" not in e else (" (past the bar)" if e["past_bar"] else " (above the bar)")
        print("gate: %s: %s%s%s" % (arm, e["state"], loss, verdict), file=sys.stderr)
    if waiting:
        print("gate: fine-tuning waits until every trained arm has finished at TOKENS=%d (not yet: %s)"
              % (a.tokens, ", ".join(waiting)), file=sys.stderr)
        sys.exit(3)

    above = [arm for arm in TRAINED if not arms[arm]["past_bar"]]
    if not above:
        decision = "fine-tune: every trained arm is past the bar"
        code = 0
    elif a.tokens + STEP <= a.cap:
        decision = "raise: TOKENS=%d for every trained arm (%s above the bar)" % (a.tokens + STEP, ", ".join(above))
        code = 4
    else:
        decision = "fine-tune at the cap: %s above the bar, reported as such" % ", ".join(above)
        code = 0
    print("gate: bar %.3f nats (unigram entropy %.3f - %.1f); %s" % (bar, entropy, a.margin, decision),
          file=sys.stderr)
    out = a.out or os.path.join(a.work, "gate-p%s.json" % a.pt_seed)
    doc = {"tokens": a.tokens, "cap": a.cap, "bar": bar, "unigram_entropy": entropy, "margin": a.margin,
           "arms": arms, "above_bar": above, "decision": decision}
    with open(out + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(out + ".tmp", out)
    sys.exit(code)


if __name__ == "__main__":
    main()
