#!/usr/bin/env python3
"""Golden paired-significance results for python/tests/test_significance.py, produced by sacreBLEU
itself: significance.PairedTest (paired bootstrap `bs`, approximate randomization `ar`) and
Metric.corpus_score(n_bootstrap=N), for BLEU, chrF and TER.

Ran with: sacreBLEU 2.6.0 source, github.com/mjpost/sacrebleu commit
f615c7286d4d813370efb824d94fc2bfcd3a6b94 (tag v2.6.0 plus a README fix), under Debian's
/usr/bin/python3 (3.11) with numpy 1.24.2 and python3-portalocker, -tabulate, -colorama, -lxml,
-regex from apt; a version.py with __version__ = "2.6.0" beside the package's __init__.py (as for
tests/metrics/ter/make_golden.py).

    /usr/bin/python3 tests/metrics/significance/make_golden.py --sacrebleu-src /tmp/sb \
        > tests/metrics/significance/golden_significance.jsonl

The same script run with --sacrebleu-src pointing at a folder whose `sacrebleu` package
re-exports unieval.sacrebleu gives unieval's output in the same form (a diff of the two files is a
second check).

One JSON object per line, kind "paired" or "corpus_bootstrap":
  paired: name, seed (SACREBLEU_SEED), test_type, n_samples, n_ar_confidence, refs_via ("argument"
    or "cache": the metrics were built with references=refs and PairedTest got None), metrics
    [{metric: BLEU|CHRF|TER, options}], systems [[name, hyps]] (baseline first), refs
    [stream][segment]; expected: signatures {score name: str}, system_names, results {score
    name: [{score, p_value, mean, ci, repr}]} (floats exact: json writes repr).
  corpus_bootstrap: name, seed, metric, options, hyps, refs, n_bootstrap; expected: score, mean,
    ci (Score._mean, _ci), str, signature, json (format(signature=..., is_json=True)).
The corpora come from random.Random(seed): rerunning gives the same file.
"""
import argparse
import json
import os
import random
import sys


def words(rng, n, vocab, lo, hi):
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(lo, hi))) for _ in range(n)]


def noisy(rng, sent, vocab, level):
    """A system output from a reference: each word dropped, replaced or followed by an insertion
    with probability `level`, and now and then a block moved."""
    out = []
    for w in sent.split():
        r = rng.random()
        if r < level / 3:
            continue
        if r < 2 * level / 3:
            out.append(rng.choice(vocab))
            continue
        out.append(w)
        if r > 1 - level / 3:
            out.append(rng.choice(vocab))
    if len(out) > 4 and rng.random() < level:
        i = rng.randrange(len(out) - 2)
        blk = out[i:i + 2]
        del out[i:i + 2]
        j = rng.randint(0, len(out))
        out[j:j] = blk
    return " ".join(out)


VOCAB = ("the a of to and in is that it for on with as was at by an be this from or have not are "
         "but they his her which one all we there been has more if will would who Cat DOG , . ! ? "
         "; : \" ( ) - 3.5 1,000 it's John's Straße İstanbul 東京").split()


def corpus(seed, n, levels, nrefs=1, ref_noise=0.2):
    rng = random.Random(seed)
    refs = [words(rng, n, VOCAB, 1, 28)]
    for _ in range(nrefs - 1):
        refs.append([noisy(rng, r, VOCAB, ref_noise) for r in refs[0]])
    systems = [[f"sys{k}", [noisy(rng, r, VOCAB, lv) for r in refs[0]]] for k, lv in enumerate(levels)]
    systems[0][0] = "baseline"
    return systems, refs


def paired_cases():
    bleu, chrf, ter = ("BLEU", {}), ("CHRF", {}), ("TER", {})
    out = []
    s3, r1 = corpus(1, 40, [0.25, 0.22, 0.35])
    out.append(("bs_default_3sys_bleu_chrf_ter", "12345", "bs", 0, -1, "argument", [bleu, chrf, ter], s3, r1))
    out.append(("ar_default_3sys_bleu_chrf_ter", "12345", "ar", 0, -1, "argument", [bleu, chrf, ter], s3, r1))
    out.append(("ar_with_confidence_default", "12345", "ar", 2000, 0, "argument", [bleu, chrf, ter], s3, r1))
    out.append(("bs_seed_7_cached_refs", "7", "bs", 500, -1, "cache", [bleu, chrf, ter], s3, r1))
    s2, r2 = corpus(2, 25, [0.3, 0.28], nrefs=2)
    out.append(("bs_2refs_options", "12345", "bs", 300, -1, "argument",
                [("BLEU", {"tokenize": "intl", "lowercase": True, "smooth_method": "floor"}),
                 ("CHRF", {"word_order": 2}), ("TER", {"normalized": True, "case_sensitive": True})], s2, r2))
    out.append(("ar_2refs_options_confidence", "2024", "ar", 1000, 300, "argument",
                [("BLEU", {"smooth_method": "add-k", "smooth_value": 0.5}),
                 ("CHRF", {"eps_smoothing": True, "lowercase": True}), ("TER", {"no_punct": True})], s2, r2))
    s3b, r3 = corpus(3, 30, [0.2, 0.2, 0.45], nrefs=3)  # TER's 3-reference averages: thirds
    out.append(("bs_3refs_addk_float", "12345", "bs", 400, -1, "argument",
                [("BLEU", {"smooth_method": "add-k", "smooth_value": 0.3}), ("CHRF", {"beta": 3}), ter],
                s3b, r3))
    out.append(("ar_3refs_bleu_chrf", "12345", "ar", 800, -1, "argument",
                [("BLEU", {"smooth_method": "add-k", "smooth_value": 0.3}), ("CHRF", {"beta": 3})], s3b, r3))
    s4, r4 = corpus(4, 120, [0.3, 0.31, 0.29, 0.5])
    out.append(("bs_4sys_120seg", "12345", "bs", 1000, -1, "argument",
                [("BLEU", {"effective_order": True}), ("CHRF", {"word_order": 1, "char_order": 4})], s4, r4))
    out.append(("ar_4sys_120seg", "99", "ar", 3000, 500, "argument", [bleu, ter], s4, r4))
    s5, r5 = corpus(5, 6, [0.5, 0.1])
    out.append(("bs_tiny_6seg", "12345", "bs", 0, -1, "argument", [bleu, chrf, ter], s5, r5))
    out.append(("ar_tiny_6seg", "12345", "ar", 0, 0, "argument", [bleu, chrf, ter], s5, r5))
    return out


def corpus_bootstrap_cases():
    s, r1 = corpus(6, 50, [0.3])
    _, r2 = corpus(7, 50, [0.3], nrefs=2)
    h = s[0][1]
    h2 = corpus(7, 50, [0.3], nrefs=2)[0][0][1]
    return [
        ("bleu_1000", "12345", "BLEU", {}, h, r1, 1000),
        ("bleu_200_seed_5_lowercase", "5", "BLEU", {"lowercase": True, "smooth_method": "none"}, h, r1, 200),
        ("chrf_1000", "12345", "CHRF", {}, h, r1, 1000),
        ("chrfpp_2refs_300", "12345", "CHRF", {"word_order": 2}, h2, r2, 300),
        ("ter_1000", "12345", "TER", {}, h, r1, 1000),
        ("ter_2refs_500", "31", "TER", {"normalized": True}, h2, r2, 500),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sacrebleu-src", required=True, help="directory holding the sacrebleu package")
    args = ap.parse_args()
    sys.path.insert(0, args.sacrebleu_src)
    import sacrebleu
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest
    assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__
    classes = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}

    def num(x):
        return None if x is None else float(x)

    for name, seed, test_type, n_samples, n_conf, refs_via, metrics, systems, refs in paired_cases():
        os.environ["SACREBLEU_SEED"] = seed
        objs = {}
        for cls, opts in metrics:
            objs[cls] = classes[cls](**opts, references=refs) if refs_via == "cache" else classes[cls](**opts)
        test = PairedTest([tuple(s) for s in systems], objs, None if refs_via == "cache" else refs,
                          test_type=test_type, n_samples=n_samples, n_ar_confidence=n_conf)
        sigs, scores = test()
        results = {k: [{"score": num(r.score), "p_value": num(r.p_value), "mean": num(r.mean), "ci": num(r.ci),
                        "repr": repr(r)} for r in v] for k, v in scores.items() if k != "System"}
        print(json.dumps({"kind": "paired", "name": name, "seed": seed, "test_type": test_type,
                          "n_samples": n_samples, "n_ar_confidence": n_conf, "refs_via": refs_via,
                          "metrics": [{"metric": c, "options": o} for c, o in metrics],
                          "systems": systems, "refs": refs,
                          "expected": {"signatures": {k: str(v) for k, v in sigs.items()},
                                       "system_names": scores["System"], "results": results}},
                         ensure_ascii=False))
    for name, seed, cls, opts, hyps, refs, n in corpus_bootstrap_cases():
        os.environ["SACREBLEU_SEED"] = seed
        metric = classes[cls](**opts)
        s = metric.corpus_score(hyps, refs, n_bootstrap=n)
        sig = str(metric.get_signature())
        print(json.dumps({"kind": "corpus_bootstrap", "name": name, "seed": seed, "metric": cls, "options": opts,
                          "hyps": hyps, "refs": refs, "n_bootstrap": n,
                          "expected": {"score": float(s.score), "mean": float(s._mean), "ci": float(s._ci),
                                       "str": str(s), "signature": sig,
                                       "json": s.format(signature=sig, is_json=True)}},
                         ensure_ascii=False))
    os.environ.pop("SACREBLEU_SEED", None)


if __name__ == "__main__":
    main()
