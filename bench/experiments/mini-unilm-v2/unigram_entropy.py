#!/usr/bin/env python3
"""The unigram plateau of a pre-training corpus (issue #37): the entropy, in nats, of the
WordPiece unigram distribution of the corpus tokenised with the experiment's vocabulary. A model
that has learnt only token frequencies predicts a masked token with exactly this cross-entropy
(the masked positions are drawn uniformly over the text's tokens), so a masked-token loss
"past the plateau" is one clearly below it. The tokens are `unieval tokenize`'s, i.e. the
pre-trainer's own. Standard library only.

    python3 unigram_entropy.py --unieval build/unieval --vocab vocab.txt --corpus train.txt --out entropy.json
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unieval", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--corpus", required=True, help="BERT-format text (blank lines are skipped)")
    ap.add_argument("--out", required=True, help="JSON to write (atomically)")
    a = ap.parse_args()
    counts = collections.Counter()
    proc = subprocess.Popen([a.unieval, "tokenize", "--vocab", a.vocab, "--input", a.corpus],
                            stdout=subprocess.PIPE, text=True, encoding="utf-8")
    for line in proc.stdout:
        counts.update(line.split())
    if proc.wait() != 0:
        raise SystemExit("unieval tokenize failed on %s" % a.corpus)
    total = sum(counts.values())
    if total == 0:
        raise SystemExit("%s: no tokens" % a.corpus)
    entropy = -sum(c / total * math.log(c / total) for c in counts.values())
    result = {"corpus": os.path.abspath(a.corpus), "vocab": os.path.abspath(a.vocab), "tokens": total,
              "types": len(counts), "unk": counts.get("[UNK]", 0), "unigram_entropy_nats": entropy,
              "unigram_perplexity": math.exp(entropy)}
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.out)
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
