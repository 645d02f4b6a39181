#!/usr/bin/env bash
# squad-qg from scratch, the full run's RUN/best at step 9,500 of 11,840 (dev loss 4.0344, the
# best so far; copied aside while the run continued): decoding chosen on the first 2,000 Du dev
# pairs (dev-grid.tsv: highest dev BLEU-4, then ROUGE-L), then the full Du test set (11,877) with
# it and the suite's baselines. As run on 2026-11-29, 2-vCPU Xeon, training paused meanwhile:
# dev grid 20 min 45 s (two settings at a time, 1 thread each), test 16 min 8 s (2 threads).
# MODEL = a copy of RUN/best; U = the unieval binary; W = an output folder.
set -u
common=(run --task squad-qg --data ../shared/data/squad_qg --model "$MODEL"
  --preset squad-qg-scratch --arch ernie-gen --no-train --train-split train --dev-split none
  --no-repeat-ngram 3 --not-predict @special --max-len 32 --skip-metric meteor --no-progress --json)
# The dev grid: one run per setting (NAME: flags), first 2,000 dev pairs, no baselines.
for g in "b1m3:--beam 1 --min-len 3" "b5m3:--beam 5 --min-len 3" "b5m6:--beam 5 --min-len 6" \
         "b5m8:--beam 5 --min-len 8" "b5m10:--beam 5 --min-len 10" "b10m8:--beam 10 --min-len 8" \
         "b10m10:--beam 10 --min-len 10" "b5m8lp12:--beam 5 --min-len 8 --length-penalty 1.2"; do
  "$U" "${common[@]}" --eval-split dev --eval-limit 2000 --no-baselines --threads 1 \
    --out "$W/dev-${g%%:*}" ${g#*:} > "$W/dev-${g%%:*}.json"
done
# The chosen setting (b5m8) on the full test set, with the constant and copy-source baselines:
"$U" "${common[@]}" --eval-split test --threads 2 --out "$W/test" --beam 5 --min-len 8 > "$W/test.json"
# A hand-written constant question as one more reference point (frame-baseline.json):
yes "what is the name of the ?" | head -11877 > "$W/frame.txt"
"$U" eval --task squad-qg --data ../shared/data/squad_qg --split test --pred "$W/test/eval/hyp.txt" \
  --skip-metric meteor --bootstrap 1000 --paired-pred "$W/frame.txt" --paired-system frame --json
# Content words taken from the source (source_words.py, one folder up):
python3 ../source_words.py "$W/test/data/eval.src" "$W/test/data/eval.tgt" "$W/test/eval/hyp.txt" \
  "$W/test/baselines/copy-source/pred.txt"
