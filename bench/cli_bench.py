#!/usr/bin/env python3
"""Times whole `unieval` CLI runs and writes JSON (figures, machine, commit).

Jobs are JSON files in bench/jobs/*.json, a list of objects:
  {"name": "bleu-13a", "args": ["score", "--metric", "bleu", "--hyp", "{hyp}", "--ref", "{ref0}",
   "--ref", "{ref1}", "--json"], "anchor": {"tool": "sacreBLEU 2.6", "wall_s": 6.3},
   "target_wall_s": 0.15, "requires": ["shared/golden/bench/x.gz"]}
Placeholders: {hyp} {ref0} {ref1} (the generated 20,000-segment corpus: ~25 tokens, 2 refs),
{tmp} (a scratch dir), {shared} (../shared), {repo}. A job whose `requires` paths are absent is
skipped with a message. Each job runs --repeat times (default 3); the JSON has the best and median
wall time and the peak RSS of the child.

usage: bench/cli_bench.py [--binary build/unieval] [--out bench-results.json] [--only NAME,...]
       bench/cli_bench.py --table RESULTS.json   (the README's Markdown table of a results file)
"""
import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate_corpus(directory, n=20000, seed=13):
    """20,000 hypothesis lines of ~25 tokens and 2 perturbed references (seeded)."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)] + ["the", "a", "of", "to", "and", "in", ",", ".", "'s", "-"]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(vocab))]
    paths = {k: os.path.join(directory, f"{k}.txt") for k in ("hyp", "ref0", "ref1")}
    with open(paths["hyp"], "w") as h, open(paths["ref0"], "w") as r0, open(paths["ref1"], "w") as r1:
        for _ in range(n):
            length = max(1, int(rng.gauss(25, 6)))
            ref = rng.choices(vocab, weights, k=length)
            def perturb(rate):
                out = []
                for tok in ref:
                    x = rng.random()
                    if x < rate / 3:
                        continue
                    if x < 2 * rate / 3:
                        out.append(rng.choices(vocab, weights)[0])
                        continue
                    out.append(tok)
                    if x < rate:
                        out.append(rng.choices(vocab, weights)[0])
                return out or [ref[0]]
            r0.write(" ".join(ref) + "\n")
            h.write(" ".join(perturb(0.3)) + "\n")
            r1.write(" ".join(perturb(0.15)) + "\n")
    return paths


def run_once(cmd):
    """Runs cmd once; returns (exit code, wall seconds, peak RSS of that child in KiB, out, err)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (proc.returncode, wall, usage.ru_maxrss,
                out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def git_commit():
    try:
        return subprocess.check_output(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"], text=True).strip()
    except Exception:
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def markdown_table(path):
    """The README's table: one row per job of a results file written by this script."""
    with open(path) as f:
        doc = json.load(f)
    rows = ["| job | reference tool | ours (best) | median | peak RSS | speed-up | target | met |",
            "|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        anchor = r.get("anchor")
        ref = f"{anchor['tool']}: {anchor['wall_s']:g} s" if anchor else "—"
        speedup = f"{r['speedup_vs_anchor']}×" if anchor else ""
        target = f"≤ {r['target_wall_s']:g} s" if "target_wall_s" in r else ""
        met = ("yes" if r["meets_target"] else "**no**") if "meets_target" in r else ""
        rows.append(f"| `{r['name']}` | {ref} | {r['wall_s_best']:.3f} s | {r['wall_s_median']:.3f} s | "
                    f"{r['peak_rss_mb']:.1f} MB | {speedup} | {target} | {met} |")
    return "\n".join(rows)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        print(markdown_table(sys.argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "unieval"))
    ap.add_argument("--out", default="bench-results.json")
    ap.add_argument("--only", default="", help="comma-separated job names")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--save-stdout", default="",
                    help="directory: write each job's stdout to DIR/NAME.out (diff -r two runs' DIRs "
                         "to check that a change keeps every output byte)")
    args = ap.parse_args()

    jobs = []
    jobs_dir = os.path.join(REPO, "bench", "jobs")
    for name in sorted(os.listdir(jobs_dir)):
        if name.endswith(".json"):
            with open(os.path.join(jobs_dir, name)) as f:
                jobs.extend(json.load(f))
    only = set(filter(None, args.only.split(",")))
    shared = os.path.join(os.path.dirname(REPO), "shared")

    results = []
    with tempfile.TemporaryDirectory(prefix="unieval_bench_") as tmp:
        corpus = generate_corpus(tmp)
        subst = dict(corpus, tmp=tmp, shared=shared, repo=REPO)
        for job in jobs:
            if only and job["name"] not in only:
                continue
            missing = [p for p in job.get("requires", []) if not os.path.exists(p.format(**subst))]
            if missing:
                print(f"skip {job['name']}: missing {missing}", file=sys.stderr)
                continue
            cmd = [args.binary] + [a.format(**subst) for a in job["args"]]
            walls, rss, rc, out, err = [], 0, 0, "", ""
            for _ in range(args.repeat):
                rc, wall, rss_kb, out, err = run_once(cmd)
                walls.append(wall)
                rss = max(rss, rss_kb)
                if rc != 0:
                    break
            rec = {"name": job["name"], "command": " ".join(cmd[1:]), "exit_code": rc,
                   "wall_s_best": min(walls), "wall_s_median": statistics.median(walls),
                   "runs": len(walls), "peak_rss_mb": round(rss / 1024, 1)}
            if "anchor" in job:
                rec["anchor"] = job["anchor"]
                rec["speedup_vs_anchor"] = round(job["anchor"]["wall_s"] / min(walls), 1)
            if "target_wall_s" in job:
                rec["target_wall_s"] = job["target_wall_s"]
                rec["meets_target"] = min(walls) <= job["target_wall_s"]
            if rc != 0:
                rec["stderr"] = err[-2000:]
            results.append(rec)
            if args.save_stdout:
                os.makedirs(args.save_stdout, exist_ok=True)
                with open(os.path.join(args.save_stdout, job["name"] + ".out"), "w") as f:
                    f.write(out)
            print(f"{job['name']:28s} {min(walls):8.3f} s  {rss/1024:7.1f} MB  rc={rc}", file=sys.stderr)

    doc = {"schema": "unieval-bench/1", "commit": git_commit(), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform()},
           "results": results}
    tmp_out = args.out + ".tmp"
    with open(tmp_out, "w") as f:
        json.dump(doc, f, indent=2)
    os.replace(tmp_out, args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0 if all(r["exit_code"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
