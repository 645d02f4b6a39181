#!/usr/bin/env bash
# squad-qg from scratch with the copy head, a second epoch as a warm restart (issue #36): the weights
# of squad-qg-copy-1ep's RUN/best (one epoch, dev loss 3.7761) trained for one more epoch over the
# same 75,722 Du train pairs with the same preset (squad-qg-scratch: AdamW, peak lr 1e-3, 400 warmup
# steps, linear decay to 0 over the epoch's 1,184 steps, seed 42). The schedule restarts: this is
# not the 2-epoch schedule, which would decay over 2,368 steps. Dev loss on the first 2,000 Du dev
# pairs every 500 steps keeps RUN/best; the run then decodes the full Du test set (each distinct
# sentence once) with the preset's decoding and the word lexicon of the training pairs
# (--lexicon-train, chosen on dev with the one-epoch model: ../squad-qg-copy-1ep/README.md), and
# scores the suite's baselines. Needs W/qg-copy1e from ../squad-qg-copy-1ep/command.sh and, for the
# paired test, ../squad-qg-copy-1ep/lexicon/hyp.txt.gz. Resumable: run it again.
# As run from 2026-11-29 (session 24), 2-vCPU AMD EPYC VM, 2 threads.
# Run from the repository root with ../shared beside it; U = the unieval binary, W = a work folder.
set -euo pipefail
U=${U:-./build/unieval}; W=${W:-runs}
D=../shared/data/squad_qg
[ -f "$W/qg-copy1e/best/model.safetensors" ] || {
  echo "run ../squad-qg-copy-1ep/command.sh first (W/qg-copy1e/best)" >&2; exit 2; }
"$U" run --task squad-qg --data $D --preset squad-qg-scratch --epochs 1 \
  --train-split train --dev-split dev --dev-limit 2000 --eval-split test \
  --model "$W/qg-copy1e/best" --out "$W/qg-copy-restart" --save-every 100 \
  --lexicon-train --skip-metric meteor --threads 2 --json > "$W/qg-copy-restart.json"
R=$W/qg-copy-restart
E=results/experiments/from-scratch/squad-qg-copy-restart
# 95% bootstrap intervals of the model's scores, and the paired test against the one-epoch model
# decoded the same way (with the lexicon):
zcat results/experiments/from-scratch/squad-qg-copy-1ep/lexicon/hyp.txt.gz > "$W/qg-copy1e-lex.txt"
"$U" eval --task squad-qg --data $D --split test --pred $R/eval/hyp.txt --skip-metric meteor \
  --bootstrap 1000 --paired-pred "$W/qg-copy1e-lex.txt" \
  --json --out $E/result-ci.json
python3 results/experiments/from-scratch/squad-qg/source_words.py $R/data/eval.src $R/data/eval.tgt \
  $R/eval/hyp.txt $R/baselines/copy-source/pred.txt
python3 results/experiments/from-scratch/samples.py $R/data/eval.src $R/data/eval.tgt \
  $R/eval/hyp.txt $E/samples.md \
  "squad-qg from scratch with the copy head, a second epoch (warm restart): test samples"
cp $R/result.json $E/result.json
gzip -9n < $R/eval/hyp.txt > $E/hyp.txt.gz
"$U" plot --run $R --out $E/curves.svg
# The issue's constant question (#36 quotes it: BLEU-4 0.89, ROUGE-L 26.49 on another slice), as a
# paired baseline on the same test set:
yes "what was the theme of super bowl 50 ?" | head -n 11877 > "$W/constant-question.txt"
"$U" eval --task squad-qg --data $D --split test --pred $R/eval/hyp.txt --skip-metric meteor \
  --bootstrap 1000 --paired-pred "$W/constant-question.txt" \
  --paired-system "constant: what was the theme of super bowl 50 ?" --json --out $E/result-issue-constant.json
