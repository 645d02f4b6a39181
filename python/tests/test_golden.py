"""Every ../shared/golden/*.jsonl case the Python API covers, through the Python API, compared as
the C++ golden tests compare them (tests/metrics/*_test.cc: same fields, same tolerances, same
case counts). Skips with a message when ../shared is absent."""
import json
import math

import pytest

import unieval
import unieval.sacrebleu as sacrebleu
from unieval import _core, rouge_scorer

from conftest import close, fmt, golden, near, require_shared, shared_dir, ulps_equal


def check_all(cases, fn):
    """Runs fn on every case, collecting failures (so one run reports every mismatch)."""
    failures = []
    for c in cases:
        try:
            fn(c)
        except AssertionError as e:
            failures.append(f"{c.get('id')}: {e}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures[:20])


def of_variant(cases, prefix):
    return [c for c in cases if c.get("variant", "").startswith(prefix)]


def of_metric(cases, metric):
    return [c for c in cases if c.get("metric") == metric]


# ---- BLEU / chrF (tests/metrics/bleu_golden_test.cc) ----------------------------------------

def sacre_kwargs(o):
    kw = {}
    if "tokenize" in o:
        kw["tokenize"] = o["tokenize"]
    if "smooth_method" in o:
        kw["smooth_method"] = o["smooth_method"]
    if o.get("smooth_value") is not None:
        kw["smooth_value"] = o["smooth_value"]
    if "lowercase" in o:
        kw["lowercase"] = o["lowercase"]
    return kw


def expect_bleu(s, e, with_precisions):
    assert close(e["score"], s.score), f"score {s.score} != {e['score']}"
    assert len(s.counts) == len(e["counts"])
    for n in range(len(s.counts)):
        assert close(e["counts"][n], s.counts[n]), f"counts[{n}]"
        assert close(e["totals"][n], s.totals[n]), f"totals[{n}]"
        if with_precisions:
            assert close(e["precisions"][n], s.precisions[n]), f"precisions[{n}]"
    assert close(e["bp"], s.bp), "bp"
    assert s.sys_len == e["sys_len"] and s.ref_len == e["ref_len"], "sys_len / ref_len"


def test_sacrebleu_corpus_bleu():
    cases = of_variant(golden("bleu.jsonl"), "sacrebleu.corpus_bleu")
    assert len(cases) == 351

    def one(c):
        kw = sacre_kwargs(c["options"])
        if "effective_order" in c["options"]:
            kw["use_effective_order"] = c["options"]["effective_order"]
        s = sacrebleu.corpus_bleu(c["hyps"], c["refs"], **kw)
        expect_bleu(s, c["expected"], True)
        assert str(s) == c["expected"]["formatted"], f"{s} != {c['expected']['formatted']}"
        # The signature of the metric object that scored (sacreBLEU: str(bleu.get_signature())).
        bleu = sacrebleu.BLEU(**{k: v for k, v in kw.items() if k != "use_effective_order"},
                              effective_order=kw.get("use_effective_order", False))
        bleu.corpus_score(c["hyps"], c["refs"])
        assert str(bleu.get_signature()) == c["expected"]["signature"], str(bleu.get_signature())

    check_all(cases, one)


def test_sacrebleu_sentence_bleu():
    cases = of_variant(golden("bleu.jsonl"), "sacrebleu.sentence_bleu")
    assert len(cases) == 27

    def one(c):
        o = c["options"]
        kw = sacre_kwargs(o)
        eff = o.get("effective_order", False)
        per = c["expected"]["per_segment"]
        assert len(per) == len(c["hyps"])
        for i, h in enumerate(c["hyps"]):
            s = sacrebleu.sentence_bleu(h, [r[i] for r in c["refs"]], use_effective_order=eff, **kw)
            expect_bleu(s, per[i], False)
        # The batch form gives the same statistics.
        batch = sacrebleu.BLEU(effective_order=eff, **kw).sentence_scores(c["hyps"], c["refs"])
        for i, s in enumerate(batch):
            expect_bleu(s, per[i], False)

    check_all(cases, one)


def test_sacrebleu_corpus_chrf():
    cases = of_variant(golden("bleu.jsonl"), "sacrebleu.corpus_chrf")
    assert len(cases) == 27

    def one(c):
        o = c["options"]
        s = sacrebleu.corpus_chrf(c["hyps"], c["refs"], char_order=o["char_order"], beta=o["beta"])
        assert close(c["expected"]["score"], s.score), f"chrF {s.score}"
        chrf = sacrebleu.CHRF(char_order=o["char_order"], beta=o["beta"])
        chrf.corpus_score(c["hyps"], c["refs"])
        assert str(chrf.get_signature()) == c["expected"]["signature"], str(chrf.get_signature())

    check_all(cases, one)


# ---- NIST (tests/metrics/nist_golden_test.cc) ------------------------------------------------

def test_nist_mteval():
    cases = of_variant(golden("nist.jsonl"), "mteval")
    assert len(cases) == 108
    errors = 0

    def one(c):
        nonlocal errors
        args = c["options"]["args"]
        version = "13a" if c["variant"].startswith("mteval-v13a") else "14c"
        s = unieval.nist(c["hyps"], c["refs"], version=version, case_sensitive="-c" in args,
                         international="--international-tokenization" in args)
        e = c["expected"]
        if e["rc"] != 0:
            errors += 1
            assert s["warnings"], "mteval aborted: a warning is expected"
            assert len(s["nist_cum"]) == 9
            return
        for key, field in (("nist_cum_1_9", "nist_cum"), ("nist_ind_1_9", "nist_ind"),
                           ("bleu_cum_1_9", "bleu_cum"), ("bleu_ind_1_9", "bleu_ind")):
            ours = [fmt(x, 4) for x in s[field]]
            want = [fmt(x, 4) for x in e[key]]
            assert ours == want, f"{field}: {ours} != {want}"
        assert fmt(s["nist_cum"][4], 4) == fmt(e["NIST_score_line"], 4)
        assert fmt(s["bleu_cum"][3], 4) == fmt(e["BLEU_score_line"], 4)

    check_all(cases, one)
    assert errors == 12


def test_nist_nltk():
    cases = of_variant(golden("nist.jsonl"), "nltk")
    assert len(cases) == 27

    def one(c):
        for order in (4, 5):
            s = unieval.nist(c["hyps"], c["refs"], flavour="nltk", n=order)
            e = c["expected"][f"nist_{order}"]
            if isinstance(e, dict):
                assert s["warning"], f"NLTK raised {e}"
                continue
            assert s["warning"] is None, s["warning"]
            assert abs(s["score"] - e) <= 1e-9 * max(1.0, abs(e)), f"nist_{order}: {s['score']} != {e}"

    check_all(cases, one)


# ---- METEOR (tests/metrics/meteor_test.cc) ---------------------------------------------------

def test_meteor():
    cases = golden("meteor.jsonl")
    require_shared("data/meteor/synonym/english.synsets.gz")
    assert len(cases) == 54
    scorer = unieval.MeteorScorer(modules=["exact", "stem", "synonym"], weights=[1.0, 0.6, 0.8],
                                  normalize="norm", meteor_data=str(shared_dir() / "data/meteor"))

    def value(e, actual, what):
        if isinstance(e, str):
            assert e == "NaN" and math.isnan(actual), f"{what}: {actual} (NaN expected)"
        else:
            assert ulps_equal(e, actual), f"{what}: {actual} != {e}"

    def one(c):
        r = scorer.score(c["hyps"], c["refs"])
        e = c["expected"]
        assert len(e["segment_scores"]) == len(r["segment_scores"])
        for i, x in enumerate(r["segment_scores"]):
            value(e["segment_scores"][i], x, f"segment {i}")
        if "stats_lines" in e:
            assert e["stats_lines"] == r["segment_stats"]
        else:
            value(e["Test_words"], r["test_length"], "Test words")
            value(e["Reference_words"], r["reference_length"], "Reference words")
            value(e["Chunks"], r["chunks"], "Chunks")
            value(e["Precision"], r["precision"], "Precision")
            value(e["Recall"], r["recall"], "Recall")
            value(e["f1"], r["f1"], "f1")
            value(e["fMean"], r["fmean"], "fMean")
            value(e["Fragmentation_penalty"], r["fragmentation_penalty"], "Fragmentation penalty")
            value(e["Final_score"], r["score"], "Final score")

    check_all(cases, one)
    # unieval.meteor() with the same options gives the same numbers (and caches the scorer).
    c = cases[1]
    r = unieval.meteor(c["hyps"], c["refs"], modules="exact stem synonym", weights="1.0 0.6 0.8",
                       normalize="norm", meteor_data=str(shared_dir() / "data/meteor"))
    assert r["segment_scores"] == scorer.score(c["hyps"], c["refs"])["segment_scores"]


# ---- Distinct / Entropy (tests/metrics/distinct_test.cc) -------------------------------------

def file_lines(text):
    """The lines of a file holding `text` (core::split_lines: no extra line after a final '\\n')."""
    parts = text.split("\n") if text else []
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def test_distinct_entropy():
    cases = golden("distinct_entropy.jsonl")
    counts = {"dstc7": 0, "plato": 0, "ernie-gen": 0}

    def one(c):
        hyps, e, variant = c["hyps"], c["expected"], c["variant"]
        if variant.startswith("DSTC7"):
            counts["dstc7"] += 1
            lines = file_lines("\n".join(hyps))  # the lines of the file DSTC7 reads
            ent = unieval.entropy(lines)
            for n in range(4):
                assert near(e["entropy_1_4"][n], ent[f"entropy_{n + 1}"]), f"entropy {n + 1}"
            d = unieval.distinct(lines)
            if isinstance(e["div_1_2"], dict):  # ZeroDivisionError in calc_diversity
                assert d["div_1"] is None or d["div_2"] is None
            else:
                assert near(e["div_1_2"][0], d["div_1"]) and near(e["div_1_2"][1], d["div_2"]), "div"
            if isinstance(e["avg_len"], str):
                assert d["avg_len"] is None
            else:
                assert near(e["avg_len"], d["avg_len"]), "avg_len"
            return
        flavour = "plato" if variant.startswith("PLATO") else "ernie-gen"
        counts[flavour] += 1
        d = unieval.distinct(hyps, flavour=flavour)
        for k in ("intra_dist1", "intra_dist2", "inter_dist1", "inter_dist2"):
            ours = d[k[:-1] + "_" + k[-1]]
            assert near(e[k], ours), f"{k}: {ours} != {e[k]}"

    check_all(cases, one)
    assert counts == {"dstc7": 27, "plato": 27, "ernie-gen": 27}


# ---- ROUGE (tests/metrics/rouge_test.cc) -----------------------------------------------------

def rouge_data():
    return str(require_shared("data/rouge155"))


def test_rouge155_per_instance():
    cases = of_metric(golden("rouge.jsonl"), "rouge155_instance")
    require_shared("data/rouge155/WordNet-2.0-Exceptions/adj.exc")
    data = rouge_data()
    counts = {"checked": 0, "errors": 0}

    def one(c):
        inp, e = c["inputs"], c["expected"]
        args = ([inp["peer_sentences"]], [[m] for m in inp["model_sentences"]])
        if "error" in e:
            with pytest.raises(ValueError):
                unieval.rouge155(*args, flags=c["options"]["flags"], rouge_data=data)
            counts["errors"] += 1
            return
        r = unieval.rouge155(*args, flags=c["options"]["flags"], rouge_data=data)
        assert sorted(r.instances) == sorted(e), f"{sorted(r.instances)} != {sorted(e)}"
        for name, want in e.items():
            (rr, pp, ff), = r.instances[name]
            assert (fmt(rr, 5), fmt(pp, 5), fmt(ff, 5)) == (fmt(want["R"], 5), fmt(want["P"], 5),
                                                             fmt(want["F"], 5)), name
            key = name.replace("-", "_").lower()
            assert fmt(r[f"{key}_f_score"], 5) == fmt(want["F"], 5), f"{name} Average_F"
        counts["checked"] += 1

    check_all(cases, one)
    assert counts["checked"] + counts["errors"] == 276 and counts["errors"] == 3


def test_rouge155_corpus_with_bootstrap():
    cases = of_metric(golden("rouge.jsonl"), "rouge155_corpus")
    require_shared("data/rouge155/WordNet-2.0-Exceptions/adj.exc")
    data = rouge_data()
    assert len(cases) == 2

    def one(c):
        pairs = c["inputs"]["pairs"]
        hyps = [p["peer_sentences"] for p in pairs]
        nmodels = len(pairs[0]["model_sentences"])
        refs = [[p["model_sentences"][k] for p in pairs] for k in range(nmodels)]
        r = unieval.rouge155(hyps, refs, flags=" ".join(c["options"]["flags"]), rouge_data=data, threads=2)
        avg, per = c["expected"]["averages"], c["expected"]["per_instance"]
        assert sorted(r.instances) == sorted(avg)
        for name, e in avg.items():
            key = name.replace("-", "_").lower()
            for letter, measure in (("R", "recall"), ("P", "precision"), ("F", "f_score")):
                for field, suffix in (("avg", ""), ("ci_low", "_cb"), ("ci_high", "_ce")):
                    got = r[f"{key}_{measure}{suffix}"]
                    assert fmt(got, 5) == fmt(e[letter][field], 5), f"{name} {letter} {field}"
            for i, (rr, pp, ff) in enumerate(r.instances[name]):
                pe = per[f"{i + 1}.X"][name]
                assert (fmt(rr, 5), fmt(pp, 5), fmt(ff, 5)) == (fmt(pe["R"], 5), fmt(pe["P"], 5),
                                                                 fmt(pe["F"], 5)), f"{name} {i + 1}"

    check_all(cases, one)


def expect_rouge_values(e, types, got):
    for t in types:
        for field in ("precision", "recall", "fmeasure"):
            ours = getattr(got[t], field)
            assert abs(ours - e[t][field]) <= 1e-12, f"{t} {field}: {ours} != {e[t][field]}"


def test_rouge_score_pairs():
    cases = of_metric(golden("rouge.jsonl"), "rouge_score")
    assert len(cases) == 92

    def one(c):
        o, inp = c["options"], c["inputs"]
        scorer = rouge_scorer.RougeScorer(o["rouge_types"], use_stemmer=o["use_stemmer"],
                                          split_summaries=o.get("split_summaries", False))
        if "targets" in inp:
            got = scorer.score_multi(inp["targets"], inp["prediction"])
        else:
            got = scorer.score(inp["target"], inp["prediction"])
        expect_rouge_values(c["expected"], o["rouge_types"], got)

    check_all(cases, one)


def test_rouge_score_corpus_mean():
    cases = of_metric(golden("rouge.jsonl"), "rouge_score_corpus")
    assert len(cases) == 2

    def one(c):
        o = c["options"]
        scorer = rouge_scorer.RougeScorer(o["rouge_types"], use_stemmer=o["use_stemmer"])
        pairs = c["inputs"]["pairs"]
        per = scorer.score_batch([p["target"] for p in pairs], [p["prediction"] for p in pairs])
        for i, got in enumerate(per):
            expect_rouge_values(c["expected"]["per_pair"][i], o["rouge_types"], got)
        mean = {}
        for t in o["rouge_types"]:
            sums = [0.0, 0.0, 0.0]
            for got in per:
                for j in range(3):
                    sums[j] += got[t][j]
            mean[t] = type(per[0][t])(*(s / len(per) for s in sums))
        expect_rouge_values(c["expected"]["mean"], o["rouge_types"], mean)

    check_all(cases, one)


# ---- SQuAD (tests/metrics/squad_test.cc) -----------------------------------------------------

def test_squad_functions():
    cases = of_metric(golden("squad.jsonl"), "squad_functions")
    assert len(cases) >= 45

    def one(c):
        gold, pred, e = c["inputs"]["gold"], c["inputs"]["pred"], c["expected"]
        assert _core.squad_v1_exact_match(pred, gold) == e["v1.1_exact_match_score"]
        assert near(e["v1.1_f1_score"], _core.squad_v1_f1(pred, gold))
        assert _core.squad_v2_compute_exact(gold, pred) == e["v2.0_compute_exact"]
        assert near(e["v2.0_compute_f1"], _core.squad_v2_compute_f1(gold, pred))

    check_all(cases, one)


V2_ORDER = ["exact", "f1", "total", "HasAns_exact", "HasAns_f1", "HasAns_total", "NoAns_exact",
            "NoAns_f1", "NoAns_total", "best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh"]


def test_squad_datasets():
    cases = [c for c in golden("squad.jsonl") if c["metric"] in ("squad_v1.1", "squad_v2.0")]
    assert len(cases) >= 118
    errors = 0

    def one(c):
        nonlocal errors
        v2 = c["metric"] == "squad_v2.0"
        dataset = {"version": "v2.0" if v2 else "1.1", "data": c["inputs"]["data"]}
        kw = {}
        if "na_prob_thresh" in c["options"]:
            kw["na_prob_thresh"] = c["options"]["na_prob_thresh"]
        e = c["expected"]
        if "error" in e:
            errors += 1
            with pytest.raises(ValueError):
                unieval.squad(dataset, c["inputs"]["predictions"], na_probs=c["inputs"].get("na_probs"), **kw)
            return
        r = unieval.squad(dataset, c["inputs"]["predictions"], na_probs=c["inputs"].get("na_probs"), **kw)
        assert sorted(r) == sorted(e), f"keys {sorted(r)} != {sorted(e)}"
        for k in e:
            assert near(e[k], r[k]), f"{k}: {r[k]} != {e[k]}"
        if v2:
            assert list(r) == [k for k in V2_ORDER if k in e], "official key order"

    check_all(cases, one)
    assert errors >= 2


# ---- CoQA (tests/metrics/coqa_test.cc) -------------------------------------------------------

def test_coqa_turns():
    cases = of_metric(golden("coqa.jsonl"), "coqa_turn")
    assert len(cases) == 30

    def one(c):
        em, f1 = _core.coqa_turn(c["inputs"]["gold_answers"], c["inputs"]["pred"])
        assert near(c["expected"]["em"], em) and near(c["expected"]["f1"], f1), (em, f1)

    check_all(cases, one)


def test_coqa_datasets():
    cases = of_metric(golden("coqa.jsonl"), "coqa_dataset")
    assert len(cases) == 30

    def one(c):
        dataset = {"version": "1.0", "data": c["inputs"]["data"]}
        table = c["expected"]["official_table"]
        rounded = unieval.coqa(dataset, c["inputs"]["predictions"])
        full = unieval.coqa(dataset, c["inputs"]["predictions"], rounded=False)
        assert sorted(rounded) == sorted(table)
        for k, row in table.items():
            assert row["em"] == rounded[k]["em"] and row["f1"] == rounded[k]["f1"], k
            assert row["turns"] == full[k]["turns"], k
            assert row["f1"] == round(full[k]["f1"], 1), k  # Python's round(x, 1), as the script

    check_all(cases, one)


# ---- GLUE (tests/metrics/glue_test.cc) -------------------------------------------------------

def test_glue_task_metrics():
    cases = [c for c in golden("glue.jsonl") if c["metric"] != "glue_score"]
    assert len(cases) == 131

    def one(c):
        task = c["options"]["task"].split("/")[0]
        r = unieval.glue(task, c["inputs"]["labels"], c["inputs"]["predictions"])
        for k, want in c["expected"].items():
            k = "accuracy" if k == "simple_accuracy_mean_eq" else k
            assert k in r, f"{k} missing from {r}"
            if want is None:
                assert r[k] is None, f"{k} should be None (NaN)"
            else:
                assert r[k] is not None and near(want, r[k]), f"{k}: {r[k]} != {want}"

    check_all(cases, one)


def test_glue_score():
    cases = of_metric(golden("glue.jsonl"), "glue_score")
    assert len(cases) == 30

    def one(c):
        avg = unieval.glue_score(c["inputs"]["task_metrics"])
        m_only = unieval.glue_score(c["inputs"]["task_metrics"], mnli="matched")
        assert near(c["expected"]["glue_score_mnli_avg_9tasks"], avg["glue_score"])
        assert near(c["expected"]["glue_score_mnli_m_only_9tasks"], m_only["glue_score"])
        for k, want in c["expected"]["per_task"].items():
            assert near(want, avg["per_task"][k]), k

    check_all(cases, one)
