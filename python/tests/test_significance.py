"""unieval.sacrebleu.significance (PairedTest, Result) and corpus_score(n_bootstrap=N) against
sacreBLEU 2.6.0 itself: every case of tests/metrics/significance/golden_significance.jsonl
(written by running sacreBLEU, tests/metrics/significance/make_golden.py), compared exactly:
scores, p-values, bootstrap means and 95% half-intervals bit for bit, Result's repr, the
signatures, and for corpus_score the printed score with its " (μ = mean ± ci)" and the JSON
form. Needs numpy (as sacreBLEU's significance does)."""
import json

import pytest

np = pytest.importorskip("numpy")

import unieval.sacrebleu as sacrebleu  # noqa: E402
from unieval.sacrebleu.significance import PairedTest, Result, estimate_ci  # noqa: E402

from conftest import REPO  # noqa: E402

CLASSES = {"BLEU": sacrebleu.BLEU, "CHRF": sacrebleu.CHRF, "TER": sacrebleu.TER}


def cases(kind):
    with open(REPO / "tests/metrics/significance/golden_significance.jsonl", encoding="utf-8") as f:
        return [c for c in (json.loads(line) for line in f if line.strip()) if c["kind"] == kind]


def num(x):
    return None if x is None else float(x)


@pytest.mark.parametrize("case", cases("paired"), ids=lambda c: c["name"])
def test_paired_test_matches_sacrebleu(case, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", case["seed"])
    refs = case["refs"]
    cached = case["refs_via"] == "cache"
    metrics = {m["metric"]: CLASSES[m["metric"]](**m["options"], **({"references": refs} if cached else {}))
               for m in case["metrics"]}
    test = PairedTest([tuple(s) for s in case["systems"]], metrics, None if cached else refs,
                      test_type=case["test_type"], n_samples=case["n_samples"],
                      n_ar_confidence=case["n_ar_confidence"])
    sigs, scores = test()
    want = case["expected"]
    assert scores["System"] == want["system_names"]
    assert {k: str(v) for k, v in sigs.items()} == want["signatures"]
    assert set(scores) - {"System"} == set(want["results"])
    for name, expected in want["results"].items():
        got = scores[name]
        assert len(got) == len(expected)
        for i, (r, e) in enumerate(zip(got, expected)):
            assert isinstance(r, Result)
            assert (num(r.score), num(r.p_value), num(r.mean), num(r.ci)) == (e["score"], e["p_value"], e["mean"],
                                                                              e["ci"]), f"{name} system {i}"
            assert repr(r) == e["repr"]
            assert f"{r.score:.2f}" == f"{e['score']:.2f}"


@pytest.mark.parametrize("case", cases("corpus_bootstrap"), ids=lambda c: c["name"])
def test_corpus_score_bootstrap_matches_sacrebleu(case, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", case["seed"])
    metric = CLASSES[case["metric"]](**case["options"])
    s = metric.corpus_score(case["hyps"], case["refs"], n_bootstrap=case["n_bootstrap"])
    want = case["expected"]
    sig = str(metric.get_signature())
    assert (s.score, s._mean, s._ci) == (want["score"], want["mean"], want["ci"])
    assert str(s) == want["str"]
    assert sig == want["signature"]
    assert s.format(signature=sig, is_json=True) == want["json"]


def test_golden_file_covers_both_tests_and_all_metrics():
    paired = cases("paired")
    assert {c["test_type"] for c in paired} == {"bs", "ar"}
    assert {m["metric"] for c in paired for m in c["metrics"]} == {"BLEU", "CHRF", "TER"}
    assert len(paired) >= 12 and len(cases("corpus_bootstrap")) >= 6


def test_module_paths_and_result():
    import importlib
    mod = importlib.import_module("unieval.sacrebleu.significance")
    assert sacrebleu.significance is mod and mod.PairedTest is PairedTest
    r = Result(12.5, 0.25, 12.0, 1.5)
    assert repr(r) == "score=12.5,p_value=0.25,mean=12.0,ci=1.5"
    assert repr(Result(3.0)) == "score=3.0,p_value=None,mean=None,ci=None"
    mean, ci = estimate_ci(np.arange(80, dtype=float))
    assert (mean, ci) == (39.5, 0.5 * (77 - 2))


def test_seed_none_and_zero(monkeypatch):
    systems = [("base", ["a b c d", "e f g"]), ("other", ["a b d c", "e g f"])]
    refs = [["a b c d", "e f g h"]]
    monkeypatch.setenv("SACREBLEU_SEED", "None")
    sigs, scores = PairedTest(systems, {"BLEU": sacrebleu.BLEU()}, refs, test_type="bs", n_samples=50)()
    assert str(sigs["BLEU"]).startswith("nrefs:1|bs:50|seed:none|")
    assert scores["BLEU"][1].p_value is not None
    # seed 0: the baseline's bootstrap is seeded with 0, the systems' tests with fresh entropy
    # (sacreBLEU passes `seed if seed else None` on); the baseline's interval is reproducible.
    monkeypatch.setenv("SACREBLEU_SEED", "0")
    a = PairedTest(systems, {"BLEU": sacrebleu.BLEU()}, refs, test_type="bs", n_samples=50)()[1]["BLEU"][0]
    b = PairedTest(systems, {"BLEU": sacrebleu.BLEU()}, refs, test_type="bs", n_samples=50)()[1]["BLEU"][0]
    assert (a.mean, a.ci) == (b.mean, b.ci)


def test_defaults_and_argument_checks(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    systems = [("base", ["a b c"]), ("other", ["a c b"])]
    ar = PairedTest(systems, {"TER": sacrebleu.TER()}, [["a b c"]])
    assert (ar.test_type, ar.n_samples, ar.n_ar_confidence) == ("ar", 10000, -1)
    assert str(ar()[0]["TER"]) == "nrefs:1|ar:10000|seed:12345|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
    bs = PairedTest(systems, {"TER": sacrebleu.TER()}, [["a b c"]], test_type="bs", n_ar_confidence=0)
    assert (bs.n_samples, bs.n_ar_confidence) == (1000, 1000)
    with pytest.raises(AssertionError):
        PairedTest(systems, {"TER": sacrebleu.TER()}, [["a b c"]], test_type="xx")
    r = sacrebleu.BLEU()._resampler()
    st = sacrebleu.BLEU()._extract_corpus_statistics(["a b c", "d e"], [["a b c", "d e f"]])
    assert (st.rows, st.cols) == (2, 10)
    with pytest.raises(ValueError):
        r.bootstrap(st, np.zeros((3, 5), dtype=np.int64))  # wrong width
    with pytest.raises(ValueError):
        r.bootstrap(st, np.full((3, 2), 7, dtype=np.int64))  # index out of range
    with pytest.raises(ValueError):
        r.ar(st, st, np.zeros((3, 2), dtype=np.int64))  # not a bool mask


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_prepared_references_count_as_the_references(tokenize, lowercase):
    # PairedTest tokenises each BLEU's references once (_prepare_references); the statistics of
    # every system against them must be those against the references themselves, with several
    # references, a missing one (None), and hypothesis tokens no reference has.
    words = ["The", "cat", "sat,", "on", "mat.", "déjà", "(x)", "1,000", "don't", "中文", "-", "a"]
    rng = np.random.default_rng(7)

    def line(k):
        return " ".join(words[j] for j in rng.integers(len(words), size=k))

    n = 700  # several blocks of the C++ side's 256 segments
    refs = [[line(1 + i % 13) for i in range(n)], [None if i % 9 == 0 else line(2 + i % 7) for i in range(n)]]
    hyps = [line(i % 11) + (f" novel{i % 5}" if i % 3 == 0 else "") for i in range(n)]
    bleu = sacrebleu.BLEU(tokenize=tokenize, lowercase=lowercase)
    prepared = bleu._prepare_references(refs)
    assert bleu._extract_corpus_statistics(hyps, prepared).tolist() == \
        bleu._extract_corpus_statistics(hyps, refs).tolist()
    other = sacrebleu.BLEU(tokenize=tokenize, lowercase=not lowercase)
    with pytest.raises(ValueError):
        other._extract_corpus_statistics(hyps, prepared)


def test_numpy2_is_warned_about_once(monkeypatch):
    # The arithmetic reproduced is numpy 1.x's; under numpy >= 2 the user is told so, once.
    import warnings

    import unieval.sacrebleu_significance as sig
    monkeypatch.setattr(sig, "_warned_numpy2", False)
    monkeypatch.setattr(np, "__version__", "2.1.0")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        sig._np()
        sig._np()
    assert [str(w.message).count("NEP 50") for w in got] == [1]
    monkeypatch.setattr(sig, "_warned_numpy2", False)
    monkeypatch.setattr(np, "__version__", "1.24.2")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        sig._np()
    assert got == []
