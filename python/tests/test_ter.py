"""TER through the Python drop-in (unieval.sacrebleu.TER, corpus_ter, sentence_ter, TercomTokenizer):
every case of tests/metrics/ter/golden_ter.jsonl (written by running sacreBLEU 2.6.0 itself,
tests/metrics/ter/make_golden.py), compared as tests/metrics/ter_test.cc compares them: edits and
reference length exact, the score at sacreBLEU's printed precision and to 1e-9, the signature;
and sacreBLEU's own TercomTokenizer examples (its test/test_tokenizer_ter.py cases, restated;
Apache-2.0, credited in THIRD_PARTY_NOTICES.md)."""
import json

import pytest

import unieval.sacrebleu as sacrebleu

from conftest import REPO, close


def cases():
    with open(REPO / "tests/metrics/ter/golden_ter.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_every_golden_case_corpus_and_sentence_level():
    failures, n, segs = [], 0, 0
    for c in cases():
        o = c["options"]
        metric = sacrebleu.TER(**o)
        s = metric.corpus_score(c["hyps"], c["refs"])
        got = (s.num_edits, s.ref_length, f"{s.score:.2f}", str(metric.get_signature()))
        want = (int(c["num_edits"]), c["ref_length"], c["score_str"], c["signature"])
        if got != want or not close(c["score"], s.score):
            failures.append(f"{c['name']} {o}: {got} != {want}")
        n += 1
        for i, seg in enumerate(c["segments"]):
            refs = [stream[i] for stream in c["refs"]]
            t = sacrebleu.sentence_ter(c["hyps"][i], refs, **o)
            if (t.num_edits, t.ref_length, f"{t.score:.2f}") != (int(seg["num_edits"]), seg["ref_length"],
                                                                 seg["score_str"]):
                failures.append(f"{c['name']} {o} segment {i}: {t.num_edits} {t.ref_length} {t.score}")
            segs += 1
    assert not failures, f"{len(failures)} differ:\n" + "\n".join(failures[:20])
    assert n == 320 and segs > 3000


def test_result_objects_and_strings():
    s = sacrebleu.corpus_ter(["a b c d e"], [["c d a b e"]])
    assert (s.score, s.num_edits, s.ref_length) == (20.0, 1, 5.0)
    assert isinstance(s.num_edits, int)
    assert str(s) == "TER = 20.00"
    ter = sacrebleu.TER(normalized=True, case_sensitive=True)
    ter.corpus_score(["a b"], [["a b"], ["a c"]])
    sig = ter.get_signature()
    assert str(sig) == "nrefs:2|case:mixed|tok:tercom|norm:yes|punct:yes|asian:no|version:2.6.0"
    assert sig.format(short=True) == "#:2|c:mixed|t:tercom|nr:yes|pn:yes|as:no|v:2.6.0"
    cached = sacrebleu.TER(references=[["c d a b e"]])
    assert cached.corpus_score(["a b c d e"]).score == 20.0
    boot = sacrebleu.TER()  # bootstrap CIs: test_significance.py checks them against sacreBLEU
    assert boot.corpus_score(["a b", "c d"], [["a b", "c e"]], n_bootstrap=100).score == 25.0
    assert str(boot.get_signature()).startswith("nrefs:1|bs:100|seed:12345|case:lc|")


@pytest.mark.parametrize("options, text, expected", [
    ({}, "a b c d", "a b c d"),
    ({}, "", ""),
    ({}, "a b c d.", "a b c d."),
    ({}, "A B C D.", "a b c d."),
    ({"no_punct": True}, "a b c d.", "a b c d"),
    ({"no_punct": True}, "A ; B ) C : D.", "a b c d"),
    ({"normalized": True}, "a b (c) d.", "a b ( c ) d ."),
    ({"normalized": True}, "Jim's car.", "jim 's car ."),
    ({"normalized": True}, "4.2", "4.2"),
    ({"normalized": True, "asian_support": True}, "美众院公布对特", "美 众 院 公 布 对 特"),
    ({"normalized": True, "asian_support": True}, "りの拳銃を持", "りの 拳 銃 を 持"),
])
def test_tercom_tokenizer(options, text, expected):
    tok = sacrebleu.TercomTokenizer(**options)
    assert tok(text) == expected
    assert tok.signature() == "tercom"
