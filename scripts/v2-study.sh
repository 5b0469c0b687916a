#!/usr/bin/env bash
# Benchmark v2 (held-out domains), as measured in docs/history.md ("On
# benchmark v2's held-out domains" and, in "The agents and the reviewer",
# "On held-out domains"):
# SFT-75 at the v2 recipe -> online KTO on its holdout with renamed samples
# -> greedy, guided EX on dev, dev_compositional and dev_id for both ->
# the reviewer -> K=8 rollouts with the reviewer on the holdout (first 300,
# the weight sweep), dev and dev_compositional.
#
# The figures in the docs were decoded with the schema guide of before
# commit bfe2f08 (a stricter grammar since); a rerun decodes with today's.
#
# Resumable: a step whose output exists is skipped. OUT defaults to
# out/v2-study. Cost on 2 cores: about 30 min of SFT, 10 of KTO, 8 for the
# reviewer, 5 of evaluation and 20 of rollouts.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/v2-study}
D=${BENCH:-data/bench-v2}
mkdir -p "$OUT"
scripts/deps.sh >/dev/null
go build -buildvcs=auto -o bin/sqlrl ./cmd/sqlrl
[ -f "$D/dev.json" ] || bin/sqlrl bench generate --preset v2-small --out "$D"
P="$OUT/sft75"
[ -e "$P/latest" ] || bin/sqlrl train sft -sft-fraction 0.75 -desc-phrase -rename-text -rename-each 0.5 -max-steps 1700 -dev-split - -out "$P" "$D"
[ -e "$OUT/kto/latest" ] || bin/sqlrl train kto -init "$P" -rename 0.5 -rename-text -lr 5e-5 -steps 60 -max-tokens 192 -eval-every -1 -dev-split - -out "$OUT/kto" "$D"
for split in dev dev_compositional dev_id; do
  for m in sft75 kto; do
    f="$OUT/${m}_$split"
    [ -f "$f.jsonl" ] || bin/sqlrl generate -model "$OUT/$m" -split "$split" -out "$f.jsonl" "$D"
    bin/sqlrl eval --data "$D" --split "$split" --pred "$f.jsonl" | tee "$f.eval"
  done
done
R="$OUT/reviewer"
[ -e "$R/latest" ] || bin/sqlrl train sft -task review -init "$P" -epochs 3 -lr 1e-3 -rename-text -rename-each 0.5 -out "$R" "$D"
[ -f "$OUT/hold.jsonl" ] || bin/sqlrl pipeline run -planner "$P" -reviewer "$R" -split holdout -limit 300 -out "$OUT/hold.jsonl" "$D" | tee "$OUT/hold.md"
bin/sqlrl pipeline train-ranker -out "$OUT/ranker.json" "$OUT/hold.jsonl" | tee "$OUT/ranker.md"
for split in dev dev_compositional; do
  [ -f "$OUT/pl_$split.jsonl" ] || bin/sqlrl pipeline run -planner "$P" -reviewer "$R" -split "$split" -out "$OUT/pl_$split.jsonl" "$D" | tee "$OUT/pl_$split.md"
done
