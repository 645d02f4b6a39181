#!/usr/bin/env bash
# squad-v1.1 from scratch (issue #36): SQuAD v1.1 train (reconstructed, 87,599 questions) -> dev (10,570);
# 2 x 128 model, the squad_qg 8k vocabulary (built by `unieval vocab` from the Du train sentences and
# questions, i.e. SQuAD train text). Resumable: run the same command again to continue.
exec "${UNIEVAL:-/work/runs/bin2/unieval}" run --task squad-v1.1 --data /work/shared/data/squad \
  --train-split train --eval-split dev --dev-split none \
  --model-config /work/runs/squad-scratch.config.json --vocab /work/runs/squad-qg-8k.txt \
  --out /work/runs/squad-scratch --optimizer adamw --weight-decay 0.01 --lr 1e-3 --warmup 0.1 \
  --epochs 2 --batch-size 32 --max-seq-len 192 --doc-stride 96 --max-query-len 48 \
  --dropout 0.1 --classifier-dropout 0.1 --save-every 200 --threads "${THREADS:-1}" --json "$@"
