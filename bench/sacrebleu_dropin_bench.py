#!/usr/bin/env python3
"""unieval.sacrebleu against sacreBLEU 2.6.0 itself on the 11,490-summary bench (#42), in one
process, written as JSON under bench/results/:

1. paired: significance.PairedTest, paired bootstrap (test_type='bs'), 1,000 resamples, BLEU
   (13a, exp), 3 systems: the bench's hypotheses (the baseline), the same with every 7th word
   dropped, and the same with one seeded swap of neighbouring words per line (random.Random(42)).
   Both sides' results (scores, p-values, means, intervals, signatures) must be identical. Two
   ways of passing the references: to PairedTest ("refs_argument"), and cached in the metric,
   BLEU(references=refs) with PairedTest(..., references=None), as sacreBLEU's CLI and its
   test_significance.py do ("refs_cached").
2. ter: TER().corpus_score(hyps, [refs]) on all 11,490 segments (sacreBLEU's pure-Python shift
   search takes over 10 minutes here: it runs once, unless --skip-sacrebleu-ter).

Each unieval timing is the best of --repeat runs; sacreBLEU's is one run (paired: best of
--sacrebleu-repeat). The speedup is sacreBLEU's wall time over unieval's; the CPU times
(time.process_time, all threads) are recorded beside them (the machine may be shared).

usage: nice -n 19 /usr/bin/python3 bench/sacrebleu_dropin_bench.py --sacrebleu-src /tmp/sb \
           [--pythonpath build/python] [--data ../shared/golden/bench] [--only paired|ter]
           [--repeat 3] [--out bench/results/DATE-sacrebleu-dropin-HOST.json]
--sacrebleu-src: a folder holding sacreBLEU 2.6.0's `sacrebleu` package (with numpy for it).
"""
import argparse
import datetime
import gzip
import json
import os
import platform
import random
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_gz(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def systems_from(hyps):
    rng = random.Random(42)
    drop7 = [" ".join(w for i, w in enumerate(h.split()) if i % 7 != 6) for h in hyps]
    swapped = []
    for h in hyps:
        w = h.split()
        if len(w) > 1:
            i = rng.randrange(len(w) - 1)
            w[i], w[i + 1] = w[i + 1], w[i]
        swapped.append(" ".join(w))
    return [("hyp", hyps), ("drop7", drop7), ("swap1", swapped)]


def timed(fn, repeat):
    """(best wall seconds, CPU seconds of that run, result)."""
    best, cpu, result = None, None, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        if best is None or dt < best:
            best, cpu = dt, dc
    return best, cpu, result


def paired_view(sigs, scores):
    return {"signatures": {k: str(v) for k, v in sigs.items()},
            "results": {k: [repr(r) for r in v] for k, v in scores.items() if k != "System"},
            "systems": scores["System"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sacrebleu-src", required=True)
    ap.add_argument("--pythonpath", default=os.path.join(REPO, "build", "python"))
    ap.add_argument("--data", default=os.path.join(os.path.dirname(REPO), "shared", "golden", "bench"))
    ap.add_argument("--only", choices=["paired", "ter"], default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sacrebleu-repeat", type=int, default=1)
    ap.add_argument("--skip-sacrebleu-ter", action="store_true")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if args.pythonpath:
        sys.path.insert(0, args.pythonpath)
    sys.path.insert(1, args.sacrebleu_src)
    os.environ["SACREBLEU_SEED"] = "12345"
    import numpy
    import sacrebleu
    import sacrebleu.metrics
    import sacrebleu.significance
    import unieval
    import unieval.sacrebleu as usb
    assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__

    hyps = read_gz(os.path.join(args.data, "cnndm_like_11490.hyp.txt.gz"))
    refs = read_gz(os.path.join(args.data, "cnndm_like_11490.ref.txt.gz"))
    assert len(hyps) == len(refs) == 11490, (len(hyps), len(refs))
    out = {"tool": "bench/sacrebleu_dropin_bench.py",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "host": platform.node(), "cpus": os.cpu_count(), "load_avg_start": os.getloadavg(),
           "python": sys.version.split()[0], "numpy": numpy.__version__, "unieval": unieval.__version__,
           "unieval_git_commit": getattr(unieval._core, "git_commit", ""),  # the build stamp (core/build_info.h)
           "repo_head": subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True).stdout.strip(),
           "sacrebleu": sacrebleu.__version__, "sacrebleu_src": os.path.abspath(args.sacrebleu_src),
           "corpus": "cnndm_like_11490 (11,490 segments, 1 reference)", "repeat": args.repeat}

    if args.only in (None, "paired"):
        systems = systems_from(hyps)
        out["paired_bootstrap"] = {}
        for mode in ("refs_argument", "refs_cached"):
            cached = mode == "refs_cached"

            def run(mod, bleu_cls):
                metric = bleu_cls(references=[refs]) if cached else bleu_cls()
                return mod.PairedTest(systems, {"BLEU": metric}, None if cached else [refs], test_type="bs",
                                      n_samples=1000)()

            t_ours, c_ours, r_ours = timed(lambda: run(usb.significance, usb.BLEU), args.repeat)
            t_theirs, c_theirs, r_theirs = timed(lambda: run(sacrebleu.significance, sacrebleu.metrics.BLEU),
                                                 args.sacrebleu_repeat)
            v_ours, v_theirs = paired_view(*r_ours), paired_view(*r_theirs)
            out["paired_bootstrap"][mode] = {
                "what": "PairedTest(test_type='bs', n_samples=1000), BLEU 13a exp, systems hyp (baseline), "
                        "drop7, swap1" + (", BLEU(references=[refs]), references=None" if cached else
                                          ", references=[refs]"),
                "unieval_s": t_ours, "unieval_cpu_s": c_ours, "sacrebleu_s": t_theirs, "sacrebleu_cpu_s": c_theirs,
                "speedup": t_theirs / t_ours, "cpu_ratio": c_theirs / c_ours, "identical": v_ours == v_theirs,
                "unieval": v_ours, "sacrebleu": v_theirs}
            print(f"paired bootstrap ({mode}): unieval {t_ours:.3f} s (cpu {c_ours:.3f}), sacreBLEU {t_theirs:.2f} s "
                  f"(cpu {c_theirs:.2f}), {t_theirs / t_ours:.1f}x, identical {v_ours == v_theirs}", flush=True)

    if args.only in (None, "ter"):
        t_ours, c_ours, s = timed(lambda: usb.TER().corpus_score(hyps, [refs]), args.repeat)
        ter = {"what": "TER().corpus_score(hyps, [refs]), default options", "unieval_s": t_ours,
               "unieval_cpu_s": c_ours,
               "unieval": {"score": s.score, "num_edits": s.num_edits, "ref_length": s.ref_length, "str": str(s)}}
        print(f"TER: unieval {t_ours:.3f} s {s}", flush=True)
        if not args.skip_sacrebleu_ter:
            t_theirs, c_theirs, z = timed(lambda: sacrebleu.metrics.TER().corpus_score(hyps, [refs]), 1)
            ter.update(sacrebleu_s=t_theirs, sacrebleu_cpu_s=c_theirs, speedup=t_theirs / t_ours,
                       cpu_ratio=c_theirs / c_ours,
                       sacrebleu={"score": z.score, "num_edits": z.num_edits, "ref_length": z.ref_length,
                                  "str": str(z)})
            ter["identical"] = ter["unieval"] == ter["sacrebleu"]
            print(f"TER: sacreBLEU {t_theirs:.1f} s {z}, {t_theirs / t_ours:.1f}x, identical {ter['identical']}",
                  flush=True)
        out["ter"] = ter

    out["load_avg_end"] = os.getloadavg()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
