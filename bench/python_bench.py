#!/usr/bin/env python3
"""Speed of the Python package (python/unieval) in one run, written as JSON under bench/results/.

1. The in-process binding against the CLI's scoring time without start-up, on cli_bench.py's
   corpus (20,000 segments of ~25 tokens, 2 references, seeded): for each metric the best of
   --repeat in-process calls (inputs already Python lists; list conversion included) and the
   CLI's best wall time on the corpus minus its best wall time on a one-line corpus (start-up,
   option parsing and output); the issue's bar is binding <= 1.10 x CLI scoring.
2. unieval.sacrebleu.corpus_bleu against sacreBLEU's corpus_bleu and unieval.rouge_scorer
   against rouge-score on the same inputs, where those packages are installed for this
   interpreter (Debian packages neither: the script says so and skips them).

usage: bench/python_bench.py [--binary build/unieval] [--pythonpath build/python]
                             [--repeat 7] [--out bench/results/DATE-python-HOST.json]
Run it with the interpreter the package was built for (/usr/bin/python3 by default).
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_cli_bench():
    spec = importlib.util.spec_from_file_location("cli_bench", os.path.join(REPO, "bench", "cli_bench.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def best_of(fn, repeat):
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def cli_best(binary, args, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise SystemExit(f"python_bench: {' '.join([binary] + args)} failed:\n{r.stderr.decode()}")
    return min(times), r.stdout.decode()


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--pythonpath", default=os.path.join(REPO, "build", "python"),
                    help="where the built package is (default build/python; '' = installed one)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if args.pythonpath:
        sys.path.insert(0, args.pythonpath)
    import unieval
    import unieval.sacrebleu as usb
    from unieval import rouge_scorer as urs

    cli = load_cli_bench()
    out = {"tool": "bench/python_bench.py", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "python": sys.version.split()[0], "interpreter": sys.executable, "unieval": unieval.__version__,
           "commit": unieval._core.git_commit, "machine": {"platform": platform.platform(),
                                                            "cpus": os.cpu_count()},
           "repeat": args.repeat, "binding_vs_cli": [], "vs_python_packages": [], "skipped": []}

    with tempfile.TemporaryDirectory() as tmp:
        paths = cli.generate_corpus(tmp)
        tiny = {k: os.path.join(tmp, f"tiny_{k}.txt") for k in paths}
        for k, p in paths.items():
            with open(p) as f, open(tiny[k], "w") as t:
                t.write(f.readline())
        hyps, ref0, ref1 = (read_lines(paths[k]) for k in ("hyp", "ref0", "ref1"))
        print(f"corpus: {len(hyps)} segments, 2 references; best of {args.repeat}")

        scorer = urs.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"])
        jobs = [
            ("bleu", ["--metric", "bleu"], lambda: usb.corpus_bleu(hyps, [ref0, ref1]).score,
             lambda j: j["score"]),
            ("chrf", ["--metric", "chrf"], lambda: usb.corpus_chrf(hyps, [ref0, ref1]).score,
             lambda j: j["score"]),
            ("rouge-score", ["--metric", "rouge", "--mode", "rouge-score"],
             lambda: scorer.score_batch(list(zip(ref0, ref1)), hyps)[0]["rouge1"].fmeasure, None),
            ("nist", ["--metric", "nist"], lambda: unieval.nist(hyps, [ref0, ref1])["nist_cum"][3], None),
            ("distinct", ["--metric", "distinct"], lambda: unieval.distinct(hyps)["div_1"], None),
        ]
        if not os.path.exists(args.binary):
            out["skipped"].append(f"binding vs CLI: {args.binary} not built")
            print(out["skipped"][-1])
            jobs = []
        for name, metric_args, call, from_json in jobs:
            refs = ["--ref", paths["ref0"], "--ref", paths["ref1"]] if name != "distinct" else []
            tiny_refs = ["--ref", tiny["ref0"], "--ref", tiny["ref1"]] if name != "distinct" else []
            full_s, stdout = cli_best(args.binary, ["score"] + metric_args + ["--hyp", paths["hyp"]] + refs + ["--json"],
                                      args.repeat)
            start_s, _ = cli_best(args.binary, ["score"] + metric_args + ["--hyp", tiny["hyp"]] + tiny_refs + ["--json"],
                                  args.repeat)
            bind_s, value = best_of(call, args.repeat)
            scoring_s = max(full_s - start_s, 1e-9)
            row = {"metric": name, "binding_s": round(bind_s, 5), "cli_wall_s": round(full_s, 5),
                   "cli_startup_s": round(start_s, 5), "cli_scoring_s": round(scoring_s, 5),
                   "ratio": round(bind_s / scoring_s, 3), "within_10pct": bind_s <= 1.10 * scoring_s}
            if from_json:
                row["same_number"] = from_json(json.loads(stdout.strip().splitlines()[-1])) == value
            out["binding_vs_cli"].append(row)
            print(f"{name:12s} binding {bind_s * 1000:8.1f} ms   CLI {full_s * 1000:8.1f} ms - start-up "
                  f"{start_s * 1000:6.1f} ms = {scoring_s * 1000:8.1f} ms   ratio {row['ratio']:.3f}"
                  + ("" if row["within_10pct"] else "   (> 1.10)"))

        # Against the Python packages people use today.
        try:
            import sacrebleu
        except ImportError:
            sacrebleu = None
            out["skipped"].append("sacreBLEU is not installed for this interpreter (Debian does not package "
                                  "it): corpus_bleu comparison skipped")
            print(out["skipped"][-1])
        if sacrebleu is not None:
            theirs_s, theirs = best_of(lambda: sacrebleu.corpus_bleu(hyps, [ref0, ref1]).score, min(args.repeat, 3))
            ours_s, ours = best_of(lambda: usb.corpus_bleu(hyps, [ref0, ref1]).score, args.repeat)
            out["vs_python_packages"].append({"call": "corpus_bleu", "package": f"sacrebleu {sacrebleu.__version__}",
                                              "package_s": theirs_s, "unieval_s": ours_s,
                                              "speedup": theirs_s / ours_s, "same_score": theirs == ours})
            print(f"corpus_bleu: sacreBLEU {theirs_s:.3f} s, unieval {ours_s:.4f} s ({theirs_s / ours_s:.0f}x), "
                  f"same score: {theirs == ours}")
        try:
            from rouge_score import rouge_scorer as grs
        except ImportError:
            grs = None
            out["skipped"].append("rouge-score is not installed for this interpreter (Debian does not package "
                                  "it): RougeScorer comparison skipped")
            print(out["skipped"][-1])
        if grs is not None:
            types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
            theirs_scorer = grs.RougeScorer(types)
            pairs = list(zip(ref0, hyps))
            theirs_s, theirs = best_of(lambda: [theirs_scorer.score(t, p) for t, p in pairs], 1)
            ours_s, ours = best_of(lambda: [scorer.score(t, p) for t, p in pairs], args.repeat)
            same = all(abs(a[t].fmeasure - b[t].fmeasure) <= 1e-12 for a, b in zip(theirs, ours) for t in types)
            out["vs_python_packages"].append({"call": "RougeScorer.score per pair", "package": "rouge-score",
                                              "package_s": theirs_s, "unieval_s": ours_s,
                                              "speedup": theirs_s / ours_s, "same_scores": same})
            print(f"RougeScorer.score x{len(pairs)}: rouge-score {theirs_s:.2f} s, unieval {ours_s:.3f} s "
                  f"({theirs_s / ours_s:.0f}x), same: {same}")
        # The per-pair loop rouge-score users write, against the one-call batch.
        loop_s, _ = best_of(lambda: [scorer.score(t, p) for t, p in zip(ref0, hyps)], min(args.repeat, 3))
        batch_s, _ = best_of(lambda: scorer.score_batch(ref0, hyps), min(args.repeat, 3))
        out["rouge_score_loop_vs_batch"] = {"per_pair_loop_s": loop_s, "score_batch_s": batch_s}
        print(f"RougeScorer: per-pair loop {loop_s * 1000:.1f} ms, score_batch {batch_s * 1000:.1f} ms")

    path = args.out or os.path.join(REPO, "bench", "results",
                                    f"{datetime.date.today().isoformat()}-python-{platform.node() or 'host'}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp_path = path + ".tmp"
    with open(tmp_path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp_path, path)
    print(f"wrote {path}")
    return 0 if all(r["within_10pct"] for r in out["binding_vs_cli"]) else 1


if __name__ == "__main__":
    sys.exit(main())
