#!/usr/bin/env bash
# The reduced QG run (FromScratchQgTest's recipe: the first 3,000 Du training pairs, 2 x 128, 8k
# vocabulary, 30 epochs), scored on the first 2,000 Du dev pairs, with and without the copy head.
# ARM=copy adds "unieval_copy": true to the model config (copy.config.json / plain.config.json here).
# Run from the repository root with ../shared beside it; VOCAB is the 8,000-entry vocabulary of
#   unieval vocab --base ../shared/data/vocab/bert-uncased-vocab.txt \
#     --corpus ../shared/data/squad_qg/src-train.txt.gz ../shared/data/squad_qg/tgt-train.txt.gz \
#     --size 8000 --out "$VOCAB"
set -euo pipefail
ARM=$1; OUT=${OUT:-runs/qg-3k}; VOCAB=${VOCAB:-$OUT/vocab-8k.txt}
./build/unieval run --task squad-qg --data ../shared/data/squad_qg --preset squad-qg-scratch \
  --train-split train --train-limit 3000 --dev-split none --eval-split dev --eval-limit 2000 \
  --model-config results/experiments/from-scratch/squad-qg-copy-3k/$ARM.config.json \
  --vocab "$VOCAB" --out "$OUT/$ARM" \
  --epochs 30 --batch-size 32 --lr 2e-3 --warmup 200 --max-src-len 64 --max-tgt-len 24 \
  --max-len 24 --skip-metric meteor --threads 2 --no-progress --json
# Then, with both arms done, the paired bootstrap of copy against plain (copy-vs-plain.json):
#   mkdir -p $OUT/pair && ln -sf ../copy/eval/src-eval.txt $OUT/pair/src-dev.txt \
#     && ln -sf ../copy/eval/tgt-eval.txt $OUT/pair/tgt-dev.txt
#   ./build/unieval eval --task squad-qg --data $OUT/pair --split dev --pred $OUT/copy/eval/hyp.txt \
#     --skip-metric meteor --bootstrap 1000 --paired-pred $OUT/plain/eval/hyp.txt \
#     --paired-system plain --system copy --json --out copy-vs-plain.json
# And the share of content words taken from the source:
#   python3 results/experiments/from-scratch/squad-qg/source_words.py $OUT/copy/eval/src-eval.txt \
#     $OUT/copy/eval/tgt-eval.txt $OUT/copy/eval/hyp.txt $OUT/plain/eval/hyp.txt
