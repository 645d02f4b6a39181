#!/usr/bin/env bash
# squad-qg from scratch on the first 3,000 training pairs, as run (2026-11-28, 2-vCPU Xeon, 1 thread
# while two other runs shared the cores): 12 min 40 s wall. The run that chose the settings of
# tests/pipelines/from_scratch_qg_test.cc (which runs them with --preset squad-qg-scratch, beam 5;
# since session 40 with --epochs 20, which scored BLEU-4 3.81 / ROUGE-L 24.39 there).
unieval vocab --base ../shared/data/vocab/bert-uncased-vocab.txt \
  --corpus ../shared/data/squad_qg/src-train.txt.gz ../shared/data/squad_qg/tgt-train.txt.gz \
  --size 8000 --out squad-qg-8k.txt
unieval run --task squad-qg --data ../shared/data/squad_qg --train-split train --train-limit 3000 \
  --dev-split none --eval-split test --eval-limit 400 --model-config config.json --vocab squad-qg-8k.txt \
  --out runs/ci3k --arch ernie-gen --noise-prob 0 --epochs 30 --batch-size 32 --lr 2e-3 --warmup 200 \
  --max-src-len 64 --max-tgt-len 24 --label-smoothing 0.1 --beam 1 --min-len 3 --max-len 24 \
  --no-repeat-ngram 3 --not-predict @special --skip-metric meteor --threads 1 --no-progress
