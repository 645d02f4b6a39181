#!/usr/bin/env bash
# squad-qg from scratch with the copy head (issue #36): command.sh's recipe (preset squad-qg-scratch,
# the 8,000-entry vocabulary, dev loss on 2,000 dev pairs every 500 steps) with the model config
# tasks/scratch/squad-qg-copy.config.json ("unieval_copy": true). Resumable: run the same command
# again to continue from RUN/checkpoint (saved every 100 steps). Started in session 22 (2026-11-29).
exec "${UNIEVAL:-/work/runs/bin4/unieval}" run --task squad-qg --data /work/shared/data/squad_qg \
  --preset squad-qg-scratch --train-split train --dev-split dev --dev-limit 2000 --eval-split test \
  --model-config /work/runs/qg-copy.config.json --vocab /work/runs/squad-qg-8k.txt \
  --out /work/runs/qg-copy --save-every 100 --skip-metric meteor --threads "${THREADS:-2}" --json "$@"
