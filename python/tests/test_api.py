"""Behaviour of the Python API: the sacreBLEU / rouge-score call shapes and result objects,
inputs as iterables, errors (ValueError with the CLI's message), and the script functions on
small inputs written here."""
import json
import math
import os
import random
import re
import subprocess

import pytest

import unieval
import unieval.sacrebleu as sacrebleu
from unieval import _core, rouge_scorer, scoring

from conftest import REPO

HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
        ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]


# ---- sacreBLEU -----------------------------------------------------------------------------

def test_identical_corpus_is_sacrebleus_100():
    s = sacrebleu.corpus_bleu(["the cat sat on the mat"], [["the cat sat on the mat"]])
    # sacreBLEU: 100 * exp(sum(log(100.0) for 4 orders) / 4) / 100 * ..., which is
    # 100.00000000000004 in double precision (sacrebleu issue #275), not 100.0.
    assert s.score == math.exp(sum([math.log(100.0)] * 4) / 4)
    assert s.counts == [6, 5, 4, 3] and s.totals == [6, 5, 4, 3]
    assert s.precisions == [100.0] * 4 and s.bp == 1.0 and s.sys_len == 6 and s.ref_len == 6
    assert str(s) == "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)"
    assert s.format(score_only=True) == "100.00" and s.format(width=1).startswith("BLEU = 100.0 ")


def test_corpus_bleu_result_object_and_signature():
    bleu = sacrebleu.BLEU()
    s = bleu.corpus_score(HYPS, REFS)
    assert isinstance(s, sacrebleu.BLEUScore)
    assert all(isinstance(c, int) for c in s.counts + s.totals)
    assert len(s.precisions) == 4 and 0 < s.score < 100
    assert s.ratio == s.sys_len / s.ref_len
    assert str(bleu.get_signature()) == "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert bleu.get_signature().format(short=True) == "#:2|c:mixed|e:no|tok:13a|s:exp|v:2.6.0"
    # The same numbers through the function and through the C++ result's own formatting.
    f = sacrebleu.corpus_bleu(HYPS, REFS)
    assert (f.score, f.counts, f.totals, f.bp) == (s.score, s.counts, s.totals, s.bp)
    assert str(f) == _core.bleu(HYPS, REFS)["formatted"]


def test_options_change_the_score_as_sacrebleu():
    base = sacrebleu.corpus_bleu(HYPS, REFS)
    lc = sacrebleu.corpus_bleu([h.upper() for h in HYPS], REFS, lowercase=True)
    assert lc.score == base.score  # lowercasing undoes the upper-casing
    none = sacrebleu.corpus_bleu(HYPS, REFS, tokenize="none")
    assert none.sys_len < base.sys_len  # "man." stays one token
    floor = sacrebleu.BLEU(smooth_method="floor")
    assert "smooth:floor" in str(floor.get_signature())
    addk = sacrebleu.corpus_bleu(["a b c"], [["a b d"]], smooth_method="add-k", smooth_value=1)
    assert addk.counts[1] == 1 + 1 and addk.totals[1] == 2 + 1  # add-k shows in the counts (orders > 1)
    assert sacrebleu.corpus_bleu(["a b c"], [["a b d"]], smooth_method="none").score == 0.0


def test_sentence_bleu_uses_effective_order():
    s = sacrebleu.sentence_bleu("the cat", ["the cat sat", "a cat"])
    assert s.score > 0  # no 3-/4-grams: effective order keeps BLEU defined
    assert sacrebleu.sentence_bleu("the cat", ["the cat sat"], use_effective_order=False).score == 0.0
    per = sacrebleu.BLEU(effective_order=True).sentence_scores(HYPS, REFS)
    assert [p.score for p in per] == [sacrebleu.sentence_bleu(h, [r[i] for r in REFS]).score
                                      for i, h in enumerate(HYPS)]


def test_inputs_may_be_any_iterables():
    from_lists = sacrebleu.corpus_bleu(HYPS, REFS)
    from_iters = sacrebleu.corpus_bleu((h for h in HYPS), tuple(iter(r) for r in REFS))
    assert from_iters.score == from_lists.score
    with pytest.raises(TypeError):
        sacrebleu.corpus_bleu("a single string", REFS)
    with pytest.raises(TypeError):
        sacrebleu.corpus_bleu(HYPS, ["not", "streams", "here"])


def test_missing_references_are_none_as_in_sacrebleu():
    hyps = ["a b c d", "e f g h"]
    with_none = sacrebleu.BLEU()
    s = with_none.corpus_score(hyps, [["a b c d", "e f g h"], ["a b c x", None]])
    assert str(with_none.get_signature()).startswith("nrefs:var|")
    # Segment 2 with its one reference scores as if the second stream did not mention it.
    assert s.counts == sacrebleu.corpus_bleu(hyps, [["a b c d", "e f g h"]]).counts


def test_cached_references():
    bleu = sacrebleu.BLEU(references=REFS)
    assert bleu.corpus_score(HYPS).score == sacrebleu.corpus_bleu(HYPS, REFS).score
    with pytest.raises(RuntimeError):
        sacrebleu.BLEU().corpus_score(HYPS)


def test_chrf_objects():
    s = sacrebleu.corpus_chrf(HYPS, REFS)
    assert isinstance(s, sacrebleu.CHRFScore) and str(s) == f"chrF2 = {s.score:.2f}"
    pp = sacrebleu.CHRF(word_order=2)
    t = pp.corpus_score(HYPS, REFS)
    assert t.name == "chrF2++" and t.score != s.score
    assert str(pp.get_signature()) == "nrefs:2|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0"
    one = sacrebleu.sentence_chrf(HYPS[0], [REFS[0][0]])
    assert one.score == 100.0
    kept = sacrebleu.CHRF(whitespace=True)
    assert kept.corpus_score(["a b"], [["ab"]]).score < 100.0 == sacrebleu.corpus_chrf(["a b"], [["ab"]]).score
    assert str(kept.get_signature()) == "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:yes|version:2.6.0"


def cli_error(args, tmp_path):
    """The message `unieval score` prints for bad input (after "unieval score: error: "), or skip."""
    binary = os.environ.get("UNIEVAL_BINARY") or str(REPO / "build" / "unieval")
    if not os.path.exists(binary):
        pytest.skip(f"the unieval CLI is not built ({binary})")
    r = subprocess.run([binary, "score"] + args, capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    m = re.match(r"unieval(?: score)?: error: (.*)$", line)
    assert m, line
    return m.group(1)


def test_errors_are_value_errors_with_the_cli_message(tmp_path):
    h = tmp_path / "h.txt"
    h.write_text("a b c\n")
    with pytest.raises(ValueError) as e:
        sacrebleu.BLEU(tokenize="ja-mecab")
    assert str(e.value) == cli_error(["--metric", "bleu", "--hyp", str(h), "--ref", str(h),
                                      "--tokenize", "ja-mecab"], tmp_path)
    with pytest.raises(ValueError) as e:
        sacrebleu.corpus_bleu(["a"], [["a"]], smooth_method="bogus")
    assert str(e.value) == cli_error(["--metric", "bleu", "--hyp", str(h), "--ref", str(h),
                                      "--smooth", "bogus"], tmp_path)


def test_stream_length_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match="reference stream 0 has 1 segments but the hypotheses have 2"):
        sacrebleu.corpus_bleu(["a", "b"], [["a"]])


# ---- rouge-score ---------------------------------------------------------------------------

def test_rouge_scorer_result_shape():
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    s = scorer.score("The quick brown fox jumps over the lazy dog",
                     "The quick brown dog jumps on the log.")
    assert list(s) == ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    r1 = s["rouge1"]
    assert isinstance(r1, scoring.Score) and r1._fields == ("precision", "recall", "fmeasure")
    # rouge1: 6 of the prediction's 8 tokens match 6 of the target's 9.
    assert (r1.precision, r1.recall) == (6 / 8, 6 / 9)
    assert r1.fmeasure == scoring.fmeasure(6 / 8, 6 / 9)


def test_rouge_scorer_stemming_multi_and_batch():
    plain = rouge_scorer.RougeScorer(["rouge1"])
    stem = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    assert plain.score("cats running", "cat runs")["rouge1"].fmeasure == 0.0
    assert stem.score("cats running", "cat runs")["rouge1"].fmeasure == 1.0
    multi = stem.score_multi(["dogs", "cats running"], "cat runs")
    assert multi["rouge1"].fmeasure == 1.0
    targets, preds = ["a b c", "d e f"], ["a b", "d x f"]
    assert stem.score_batch(targets, preds) == [stem.score(t, p) for t, p in zip(targets, preds)]


def test_rouge_score_batch_is_a_sequence_of_dicts():
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    targets = ["a b c", ("d e f", "d e"), "g h"]  # a tuple of targets: score_multi
    preds = ["a b", "d e", "x y"]
    batch = scorer.score_batch(targets, preds)
    assert len(batch) == 3
    assert batch[1] == scorer.score_multi(["d e f", "d e"], "d e")
    assert batch[1]["rouge1"].fmeasure == 1.0
    assert batch[-1] == batch[2] == scorer.score("g h", "x y")
    assert batch[0:2] == [batch[0], batch[1]]
    assert list(batch) == [scorer.score_multi(t if isinstance(t, tuple) else [t], p) for t, p in zip(targets, preds)]
    with pytest.raises(IndexError):
        batch[3]
    assert len(scorer.score_batch([], [])) == 0
    with pytest.raises(TypeError):
        scorer.score_batch(["a", 3], ["a", "b"])
    with pytest.raises(ValueError, match="2 targets but 1 predictions"):
        scorer.score_batch(["a", "b"], ["a"])


def test_reference_counts_of_the_signature():
    # nrefs: the number of streams, "var" when a None leaves a segment with fewer references.
    assert _core.streams_info([["a", "b"], ["c", "d"]]) == (2, False)
    assert _core.streams_info([["a", "b"], ["c", None]]) == (-1, True)
    assert _core.streams_info([["a", None], [None, "d"]]) == (1, True)
    assert _core.streams_info([]) == (0, False)
    bleu = sacrebleu.BLEU()
    bleu.corpus_score(["a b", "c d"], [["a b", "c d"], ["a b", "c d"]])
    assert str(bleu.get_signature()).startswith("nrefs:2|")


def test_rouge_lsum_splits_at_newlines():
    scorer = rouge_scorer.RougeScorer(["rougeL", "rougeLsum"])
    s = scorer.score("a b\nc d", "c d\na b")
    assert s["rougeLsum"].fmeasure == 1.0 and s["rougeL"].fmeasure < 1.0


def test_rouge_scorer_refuses_what_it_cannot_reproduce():
    with pytest.raises(ValueError):
        rouge_scorer.RougeScorer(["rouge1"], split_summaries=True)
    with pytest.raises(ValueError):
        rouge_scorer.RougeScorer(["rougeX"])


def test_bootstrap_aggregator():
    agg = scoring.BootstrapAggregator()
    for _ in range(5):
        agg.add_scores({"rouge1": scoring.Score(0.5, 0.25, 1 / 3)})
    res = agg.aggregate()["rouge1"]
    assert isinstance(res, scoring.AggregateScore)
    assert res.low == res.mid == res.high == scoring.Score(0.5, 0.25, 1 / 3)
    agg = scoring.BootstrapAggregator(confidence_interval=0.9, n_samples=200)
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    for t, p in [("a b c", "a b"), ("a b", "c d"), ("x y z", "x y z"), ("p q", "p r")]:
        agg.add_scores(scorer.score(t, p))
    def seed():  # numpy's generator when numpy is importable (as rouge-score), else random's
        random.seed(7)
        try:
            import numpy as np
            np.random.seed(7)
        except ImportError:
            pass

    seed()
    first = agg.aggregate()["rouge1"]
    seed()
    assert agg.aggregate()["rouge1"] == first  # seeded: the same resamples
    assert first.low.fmeasure <= first.mid.fmeasure <= first.high.fmeasure
    with pytest.raises(ValueError):
        scoring.BootstrapAggregator(confidence_interval=2)
    with pytest.raises(ValueError):
        scoring.BootstrapAggregator(n_samples=0)


# ---- the script functions ------------------------------------------------------------------

def test_rouge155_flags_and_keywords_agree():
    hyps = ["the cat sat on the mat . it was happy .", "a dog barked"]
    refs = [["a cat sat on a mat .", "the dog barked loudly"]]
    by_flags = unieval.rouge155(hyps, refs, flags="-c 95 -r 1000 -n 2 -a", sentence_sep=" . ")
    by_kw = unieval.rouge155(hyps, refs, c=95, r=1000, n=2, a=True, sentence_sep=" . ")
    by_field = unieval.rouge155(hyps, refs, max_n=2, sentence_sep=" . ")
    assert by_flags == by_kw == by_field
    assert set(by_flags) >= {"rouge_1_f_score", "rouge_1_f_score_cb", "rouge_1_f_score_ce",
                             "rouge_2_recall", "rouge_l_precision"}
    assert by_flags.signature.startswith("rouge155|n:2|")
    assert "ROUGE-1 Average_F" in by_flags.report
    assert len(by_flags.instances["ROUGE-1"]) == 2
    # A flat list of references is one stream.
    assert unieval.rouge155(hyps, refs[0], n=2, sentence_sep=" . ") == by_flags


def test_rouge155_stemming_needs_the_data_directory(monkeypatch):
    monkeypatch.delenv("UNIEVAL_ROUGE_DATA", raising=False)
    with pytest.raises(ValueError, match="rouge_data"):
        unieval.rouge155(["a b"], [["a b"]], n=1, m=True)
    with pytest.raises(ValueError, match="unknown ROUGE-1.5.5 flag"):
        unieval.rouge155(["a b"], [["a b"]], flags="-q")


def test_squad_from_objects_and_files(tmp_path):
    data = {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [
        {"id": "q1", "question": "?", "answers": [{"text": "the Eiffel Tower", "answer_start": 0}]},
        {"id": "q2", "question": "?", "answers": [{"text": "Paris", "answer_start": 0}]}]}]}]}
    preds = {"q1": "Eiffel tower", "q2": "in Paris, France"}
    r = unieval.squad(data, preds)
    assert list(r) == ["exact_match", "f1"]
    assert r["exact_match"] == 50.0
    assert r["f1"] == 100 * (1.0 + 2 * (1 / 3) * 1 / (1 / 3 + 1)) / 2
    (tmp_path / "d.json").write_text(json.dumps(data))
    (tmp_path / "p.json").write_text(json.dumps(preds))
    assert unieval.squad(str(tmp_path / "d.json"), tmp_path / "p.json") == r
    assert unieval.squad(data["data"], preds) == r  # the official evaluate(dataset, predictions)
    v2 = unieval.squad(data, preds, version="2.0")
    assert v2["total"] == 2 and "HasAns_exact" in v2
    with pytest.raises(FileNotFoundError):
        unieval.squad(data, tmp_path / "missing.json")


def test_squad_bad_json_names_the_source():
    with pytest.raises(ValueError) as e:
        _core.squad('{"data": [', "{}")
    assert str(e.value).startswith("dataset:")


def test_coqa_small():
    data = {"version": "1.0", "data": [{"id": "s1", "source": "wikipedia", "story": "x",
                                        "questions": [{"turn_id": 1, "input_text": "?"}],
                                        "answers": [{"turn_id": 1, "input_text": "yes"}]}]}
    r = unieval.coqa(data, [{"id": "s1", "turn_id": 1, "answer": "Yes"}])
    assert r["wikipedia"] == {"em": 100.0, "f1": 100.0, "turns": 1}
    assert r["overall"]["f1"] == 100.0


def test_glue_labels_by_name_or_number():
    assert unieval.glue("rte", ["entailment", "not_entailment"], [0, 0]) == {"accuracy": 0.5}
    mrpc = unieval.glue("mrpc", [1, 0, 1, 1], ["1", "0", "0", "1"])
    assert mrpc["accuracy"] == 0.75 and mrpc["f1"] == 0.8
    assert unieval.glue("cola", [0, 1], [1, 1])["matthews_corrcoef"] == 0.0
    with pytest.raises(ValueError, match="not a label"):
        unieval.glue("rte", ["entailment"], ["maybe"])
    with pytest.raises(ValueError):
        unieval.glue("no-such-task", [1], [1])


def test_distinct_and_entropy():
    d = unieval.distinct(["a b a b", "a c"])
    assert d == {"div_1": 3 / 6, "div_2": 3 / 4, "avg_len": 3.0}
    p = unieval.distinct(["a b a b", "a c"], flavour="plato")
    assert set(p) == {"intra_dist_1", "intra_dist_2", "inter_dist_1", "inter_dist_2"}
    e = unieval.entropy(["a b", "a c"], orders=(1,))
    assert e == {"entropy_1": -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))}


def test_nist_returns_nine_orders():
    s = unieval.nist(HYPS, REFS)
    assert len(s["nist_cum"]) == 9 and s["nist_cum"][3] > 0 and s["warnings"] == []
    assert unieval.nist(HYPS, REFS, flavour="nltk")["score"] > 0


def test_evaluate_squad_task(tmp_path):
    data = {"version": "v2.0", "data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [
        {"id": "q1", "question": "?", "answers": [{"text": "x", "answer_start": 0}]},
        {"id": "q2", "question": "?", "answers": [], "is_impossible": True}]}]}]}
    (tmp_path / "dev.json").write_text(json.dumps(data))
    (tmp_path / "pred.json").write_text(json.dumps({"q1": "x", "q2": ""}))
    r = unieval.evaluate(task="squad-v2", data=str(tmp_path / "dev.json"), pred=str(tmp_path / "pred.json"))
    assert r["task"] == "squad-v2"
    scores = {s["name"]: s["value"] for s in r["scores"]} if isinstance(r["scores"], list) else r["scores"]
    assert json.dumps(scores)  # plain JSON data
    in_memory = unieval.evaluate(task="squad-v2", data=tmp_path / "dev.json", pred={"q1": "x", "q2": ""})
    assert in_memory["scores"] == r["scores"]
    with pytest.raises(ValueError):
        unieval.evaluate(task="no-such-task", data=str(tmp_path / "dev.json"), pred=str(tmp_path / "pred.json"))


def test_version_is_the_projects():
    import re
    text = (REPO / "CMakeLists.txt").read_text()
    assert unieval.__version__ == re.search(r"project\(unieval VERSION ([0-9.]+)", text).group(1)
