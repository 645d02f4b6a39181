#!/usr/bin/env bash
# squad-v1.1 from scratch (issue #36): SQuAD v1.1 train (reconstructed, 87,599 questions) -> dev
# (10,570), one epoch, so that the whole run ends inside one session (session 23 lost a 2-epoch run at
# step 2,100 with its machine). 2 x 128 model (config.json here), the squad-qg 8k vocabulary (built by
# `unieval vocab` from the Du train sentences and questions, i.e. SQuAD train text). The run scores
# the suite's first-window baseline on the same dev set and tests the model against it (paired
# bootstrap). As run on 2026-11-29 (session 24), 2-vCPU AMD EPYC VM, 2 threads.
# Run from the repository root with ../shared beside it; U = the unieval binary, W = a work folder.
# Resumable: run the same command again to continue.
set -euo pipefail
U=${U:-./build/unieval}; W=${W:-runs}; mkdir -p "$W"
[ -f "$W/squad-qg-8k.txt" ] || "$U" vocab --base ../shared/data/vocab/bert-uncased-vocab.txt \
  --corpus ../shared/data/squad_qg/src-train.txt.gz ../shared/data/squad_qg/tgt-train.txt.gz \
  --size 8000 --out "$W/squad-qg-8k.txt"
"$U" run --task squad-v1.1 --data ../shared/data/squad \
  --train-split train --eval-split dev --dev-split none \
  --model-config results/experiments/from-scratch/squad-v1.1/config.json \
  --vocab "$W/squad-qg-8k.txt" --out "$W/squad-1ep" --optimizer adamw --weight-decay 0.01 \
  --lr 1e-3 --warmup 0.1 --epochs 1 --batch-size 32 --max-seq-len 192 --doc-stride 96 \
  --max-query-len 48 --dropout 0.1 --classifier-dropout 0.1 --save-every 200 --seed 42 \
  --threads "${THREADS:-2}" --json > "$W/squad-1ep.json"
