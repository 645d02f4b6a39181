#!/usr/bin/env bash
# squad-qg from scratch with the copy head, one epoch (issue #36): the squad-qg-scratch preset with
# --epochs 1 (1,184 steps of 64 pairs: the whole run inside the 3-hour budget per run) and
# the model tasks/scratch/squad-qg-copy.config.json (4 x 256, 8k vocabulary, "unieval_copy": true).
# Dev loss on the first 2,000 Du dev pairs every 500 steps keeps RUN/best; the run then decodes the
# full Du test set from RUN/best with the preset's decoding and scores the suite's baselines.
# As run on 2026-11-29 (session 23), 2-vCPU AMD EPYC VM, 2 threads. Resumable: run it again.
# Run from the repository root with ../shared beside it; U = the unieval binary, W = a work folder.
set -euo pipefail
U=${U:-./build/unieval}; W=${W:-runs}; mkdir -p "$W"
D=../shared/data/squad_qg
[ -f "$W/squad-qg-8k.txt" ] || "$U" vocab --base ../shared/data/vocab/bert-uncased-vocab.txt \
  --corpus $D/src-train.txt.gz $D/tgt-train.txt.gz --size 8000 --out "$W/squad-qg-8k.txt"
"$U" run --task squad-qg --data $D --preset squad-qg-scratch --epochs 1 \
  --train-split train --dev-split dev --dev-limit 2000 --eval-split test \
  --model-config tasks/scratch/squad-qg-copy.config.json --vocab "$W/squad-qg-8k.txt" \
  --out "$W/qg-copy1e" --save-every 100 --skip-metric meteor --threads 2 --json > "$W/qg-copy1e.json"
R=$W/qg-copy1e
# 95% bootstrap intervals of the model's scores (result-ci.json):
"$U" eval --task squad-qg --data $D --split test --pred $R/eval/hyp.txt --skip-metric meteor \
  --bootstrap 1000 --json --out results/experiments/from-scratch/squad-qg-copy-1ep/result-ci.json
# Content words taken from the source, the model's against copy-source's:
python3 results/experiments/from-scratch/squad-qg/source_words.py $R/data/eval.src $R/data/eval.tgt \
  $R/eval/hyp.txt $R/baselines/copy-source/pred.txt
# Ten samples:
python3 results/experiments/from-scratch/samples.py $R/data/eval.src $R/data/eval.tgt \
  $R/eval/hyp.txt results/experiments/from-scratch/squad-qg-copy-1ep/samples.md \
  "squad-qg from scratch with the copy head, one epoch: test samples"
