#!/usr/bin/env bash
# squad-qg from scratch (issue #36), the squad-qg-scratch preset: resumable; run the same command
# again to continue. UNIEVAL=path/to/unieval overrides the binary.
exec "${UNIEVAL:-/work/runs/bin2/unieval}" run --task squad-qg --data /work/shared/data/squad_qg \
  --preset squad-qg-scratch --train-split train --dev-split dev --dev-limit 2000 --eval-split test \
  --model-config /work/runs/qg-scratch.config.json --vocab /work/runs/squad-qg-8k.txt \
  --out /work/runs/qg-scratch --save-every 100 --skip-metric meteor --threads 2 --json "$@"
