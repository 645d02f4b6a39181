#!/usr/bin/env python3
"""Golden TER values for tests/metrics/ter_test.cc, produced by sacreBLEU itself.

Ran with: sacreBLEU 2.6.0 source, github.com/mjpost/sacrebleu commit
f615c7286d4d813370efb824d94fc2bfcd3a6b94 (tag v2.6.0 plus a README fix; TER code unchanged),
under Debian's /usr/bin/python3 (3.11) with python3-portalocker, -tabulate, -colorama, -lxml,
-regex and -numpy from apt; the source tree has no version.py (setuptools_scm writes it), so
one with __version__ = "2.6.0" was added beside __init__.py.

    /usr/bin/python3 tests/metrics/ter/make_golden.py --sacrebleu-src /tmp/sb \
        > tests/metrics/ter/golden_ter.jsonl

Every case is scored under each of the 16 combinations of (normalized, no_punct,
asian_support, case_sensitive) unless it names its own list. One JSON object per line:
  name, options{normalized,no_punct,asian_support,case_sensitive}, hyps[], refs[stream][segment],
  score (TERScore.score, repr), score_str (Score.format's 2-decimal string), num_edits,
  ref_length, signature, segments[{score, score_str, num_edits, ref_length}] (sentence_score).
The corpora are fixed or come from random.Random(seed): rerunning gives the same file.
"""
import argparse
import itertools
import json
import random
import sys


def words_corpus(rng, n, vocab, min_len, max_len):
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(min_len, max_len)))
            for _ in range(n)]


def perturb(rng, sent, vocab):
    """A hypothesis made from a reference: block moves, drops, insertions, substitutions."""
    w = sent.split()
    for _ in range(rng.randint(0, 4)):
        op = rng.random()
        if op < 0.35 and len(w) > 2:  # move a block
            i = rng.randrange(len(w))
            k = rng.randint(1, min(5, len(w) - i))
            blk = w[i:i + k]
            del w[i:i + k]
            j = rng.randint(0, len(w))
            w[j:j] = blk
        elif op < 0.55 and w:
            del w[rng.randrange(len(w))]
        elif op < 0.75:
            w.insert(rng.randint(0, len(w)), rng.choice(vocab))
        elif w:
            w[rng.randrange(len(w))] = rng.choice(vocab)
    return " ".join(w)


def cases():
    out = []
    # Hand-checkable basics.
    out.append(("shift", ["a b c d e"], [["c d a b e"]], None))
    out.append(("insertion_deletion_substitution",
                ["the cat sat on mat", "the the cat sat on the mat", "a dog sat on the mat"],
                [["the cat sat on the mat"] * 3], None))
    out.append(("identical", ["The quick brown fox ."], [["The quick brown fox ."]], None))
    out.append(("empty_hyp", ["", "a b"], [["a b c", "a b"]], None))
    out.append(("empty_ref", ["a b c", "x"], [["", "x"]], None))
    out.append(("both_empty", [""], [[""]], None))
    out.append(("all_empty_refs_nonempty_hyp", ["a b c"], [[""]], None))
    out.append(("whitespace_only", ["   ", " a\t b "], [["\u3000", "a b"]], None))
    out.append(("two_refs", ["the cat sat on the mat", "a b c d"],
                [["the cat is on the mat", "d c b a"], ["a cat sat on a mat", "a b d c e f"]], None))
    out.append(("two_refs_one_empty", ["a b c", "q"], [["", "q r"], ["a c b", ""]], None))
    out.append(("case", ["The Cat SAT", "İstanbul ΟΔΟΣ Straße"],
                [["the cat sat", "istanbul οδος strasse"]], None))
    out.append(("punctuation_and_normalisation",
                ["Hello, world! It's John's car; 3.5 and 1,000 (approx.) \"quoted\" 3-4 a-b",
                 "&quot;x&quot; &amp; &lt;tag&gt; done. end,",
                 "e.g. U.S.A. co-operate 10.000,5 well-known ... ?!",
                 "he said: \"no\" [yes] {maybe} <b> ~ ^ _ ` | \\ @ # $ % & * +"],
                [["Hello world it 's John 's car 3.5 and 1,000 approx \" quoted \" 3 - 4 a - b",
                  "\"x\" & <tag> done . end ,",
                  "e.g. USA cooperate 10.000,5 well known . . . ? !",
                  "he said : no yes maybe b"]], None))
    out.append(("newlines_in_segments", ["line one\n-continued here\nnext"],
                [["line one continued here next"]], None))
    out.append(("asian",
                ["我爱北京天安门。", "これはペンです、はい！", "ひらがな", "カタカナ", "東京（とうきょう）に行く，好？",
                 "한국어 문장입니다.", "㈠㈡ ㌀ ﹰ ⺀ ㇀ ｡｢｣･ ・", "mixed 中文 text，ok？"],
                [["我 爱 北京 天安门 。", "これは ペン です 、 はい ！", "ひらがな", "カタカナ",
                  "東京 に 行く ， 好 ？", "한국어 문장입니다 .", "㈠ ㈡ ㌀", "mixed 中 文 text , ok ?"]],
                None))
    # Shifts: block moves of several sizes and distances.
    out.append(("shifts",
                ["d e f a b c", "one two three four five six seven eight nine ten",
                 "x y z a b c d e f g h i j k l m n o p",
                 "b a", "a a a b b b", "c b a c b a"],
                [["a b c d e f", "six seven eight nine ten one two three four five",
                  "a b c d e f g h i j k l m n o p x y z",
                  "a b", "b b b a a a", "a b c a b c"]], None))
    rng = random.Random(42)
    vocab = ("the a of to and in is that it for on with as was at by an be this from or have "
             "not are but they his her which one all we there been has more if will would who "
             "Cat DOG , . ! ? ; : \" ' ( ) - & 3.5 1,000 10-20 it's John's e.g.").split()
    # Long segments: far-from-diagonal alignments (beam width 25), shifts beyond 50 positions,
    # extreme length ratios.
    base = words_corpus(rng, 1, vocab[:40], 120, 120)[0]
    bw = base.split()
    long_h = [
        " ".join(["zz"] * 40 + bw),               # 40 insertions before the match
        " ".join(bw[60:] + bw[:60]),               # halves swapped (shift distance 60)
        " ".join(bw[:3]),                           # ratio 40
        " ".join(bw + bw + bw),                     # ratio 1/3
        " ".join(bw[::-1]),                         # reversed
        perturb(rng, base, vocab), perturb(rng, base, vocab),
        " ".join(w for i, w in enumerate(bw) if i % 7),  # scattered deletions
    ]
    out.append(("long", long_h, [[base] * len(long_h)], None))
    # Very repetitive long segments: thousands of candidate shifts (the 1000-candidate limit).
    rep_ref = " ".join(rng.choice("a b c".split()) for _ in range(80))
    rep_h = [" ".join(rng.choice("a b c".split()) for _ in range(80)) for _ in range(3)]
    out.append(("repetitive_candidate_limit", rep_h, [[rep_ref] * 3], None))
    # Random corpora from perturbed references, one and two references.
    refs = words_corpus(rng, 60, vocab, 0, 30)
    hyps = [perturb(rng, r, vocab) for r in refs]
    out.append(("random_1ref", hyps, [refs], None))
    refs2 = [perturb(rng, r, vocab) for r in refs]
    out.append(("random_2ref", hyps, [refs, refs2], None))
    # Mixed scripts with punctuation in random positions.
    uvocab = "我 爱 北京 。 、 ， ！ ？ ｡ ・ ひら カタ 한국 Ünï CÖDÉ ΣΟΦΙΑ İ ß , . \" ( ) ; : ! ? x y".split()
    urefs = words_corpus(rng, 20, uvocab, 1, 12)
    uhyps = [perturb(rng, r, uvocab).replace(" ", "", rng.randint(0, 2)) for r in urefs]
    out.append(("random_unicode", uhyps, [urefs], None))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sacrebleu-src", required=True, help="directory holding the sacrebleu package")
    args = ap.parse_args()
    sys.path.insert(0, args.sacrebleu_src)
    import sacrebleu
    from sacrebleu.metrics import TER
    assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__

    for name, hyps, refs, combos in cases():
        combos = combos or list(itertools.product([False, True], repeat=4))
        for norm, nopunct, asian, case in combos:
            opts = dict(normalized=norm, no_punct=nopunct, asian_support=asian, case_sensitive=case)
            ter = TER(**opts)
            s = ter.corpus_score(hyps, refs)
            segs = []
            for i, h in enumerate(hyps):
                ss = TER(**opts).sentence_score(h, [r[i] for r in refs])
                segs.append({"score": ss.score, "score_str": f"{ss.score:.2f}",
                             "num_edits": ss.num_edits, "ref_length": ss.ref_length})
            print(json.dumps({"name": name, "options": opts, "hyps": hyps, "refs": refs,
                              "score": s.score, "score_str": f"{s.score:.2f}",
                              "num_edits": s.num_edits, "ref_length": s.ref_length,
                              "signature": str(ter.get_signature()), "segments": segs},
                             ensure_ascii=False))


if __name__ == "__main__":
    main()
