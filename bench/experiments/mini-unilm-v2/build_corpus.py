#!/usr/bin/env python3
"""Assemble the pre-training corpus of the mini-UniLM v2 experiment (issue #37): the v1 corpus
(bench/experiments/mini-unilm/build_corpus.py: Debian prose packages, 128 CNN/DM articles, the
ConvAI2 dialogues) plus the in-domain text the fine-tuning tasks come from:

  squad-du-train  SQuAD v1.1 train contexts of the 398 Du et al. training articles
                  (../shared/data/squad_qg/doclist-train.txt) from
                  ../shared/data/squad/train-v1.1.reconstructed.json.gz; one article = a document.
                  The 44 Du test articles, which are in the same SQuAD train file, are refused (the
                  script stops if a test title would be written), and SQuAD dev contexts are not used:
                  Du dev is SQuAD dev, and the runs choose checkpoints on Du dev.
  sst2-train      the SST-2 training sentences (../shared/data/glue/SST-2.train.tsv.gz, text column,
                  no labels); GLUE's rows are shuffled phrases, so 25 consecutive rows form a
                  "document" only for the sentence-pair objectives' sake (their next sentence is
                  as unrelated as a random one; the NSP accuracy of this source says nothing).

Same processing as v1 (sentence split, 3-300 words, exact duplicates dropped in source order,
held-out documents by hash). Python 3 standard library only; nothing is downloaded.

    apt-get install python3.11-doc debian-reference-en dict-gcide wordnet-base jargon-text
    python3 bench/experiments/mini-unilm-v2/build_corpus.py --out /work/mini-unilm-v2/corpus

Output: OUT/train.txt, OUT/heldout.txt, OUT/stats.json as v1 (BERT's corpus format).
"""
import gzip
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("SHARED", os.path.join(HERE, "..", "..", "..", "..", "shared", "data"))

_spec = importlib.util.spec_from_file_location("v1", os.path.join(HERE, "..", "mini-unilm", "build_corpus.py"))
v1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(v1)


def titles(split):
    with open(os.path.join(SHARED, "squad_qg", "doclist-%s.txt" % split), encoding="utf-8") as f:
        return [t.strip() for t in f if t.strip()]


def squad_du_train():
    train, test = set(titles("train")), set(titles("test"))
    if train & test:
        raise SystemExit("doclist-train and doclist-test share titles: %s" % sorted(train & test)[:5])
    path = os.path.join(SHARED, "squad", "train-v1.1.reconstructed.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    seen = set()
    for article in data["data"]:
        title = article["title"]
        if title in test:
            continue  # a Du test article: never pre-trained on
        if title not in train:
            continue  # neither Du train nor Du test (none in SQuAD train today; kept out to be safe)
        seen.add(title)
        yield [s for p in article["paragraphs"] for s in v1.sentences(p["context"])]
    if seen != train:
        raise SystemExit("%d Du training articles missing from %s" % (len(train - seen), path))


def sst2_train(rows_per_doc=25):
    path = os.path.join(SHARED, "glue", "SST-2.train.tsv.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = header.index("sentence")
        doc = []
        for line in f:
            doc.append(line.rstrip("\n").split("\t")[col].strip())
            if len(doc) == rows_per_doc:
                yield doc
                doc = []
    if doc:
        yield doc


v1.SOURCES.extend([("squad-du-train", squad_du_train, None), ("sst2-train", sst2_train, None)])

if __name__ == "__main__":
    if "--with-squad" in sys.argv:
        raise SystemExit("--with-squad adds SQuAD dev (= Du dev, the model-selection split): not in v2")
    sys.exit(v1.main())
