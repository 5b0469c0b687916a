#!/usr/bin/env bash
# The MATS pipeline on the bundled benchmark, as measured in docs/agents.md:
# SFT-75 planner -> planner rollouts (K=8) on dev and on the RL holdout ->
# native agents trained from the holdout rollouts (validators, fixer,
# selector; COLLAB vs INDEP validators) -> the full pipeline on dev and the
# holdout with the same candidates -> the learned ranker (fit on the
# holdout) -> the report by difficulty.
#
# Resumable: a step whose output exists is skipped. OUT defaults to
# out/agents; PLANNER, when set, is an SFT-75 checkpoint to start from.
# Cost on 2 cores: about 10 min of SFT (unless PLANNER is given), then
# roughly 40 min of decoding and training.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/agents}
BENCH=${BENCH:-data/bench}
K=${K:-8}
mkdir -p "$OUT"
scripts/deps.sh >/dev/null
go build -o bin/sqlrl ./cmd/sqlrl
[ -f "$BENCH/dev.json" ] || bin/sqlrl bench generate --preset small --out "$BENCH"
PLANNER=${PLANNER:-$OUT/sft75}
if [ ! -e "$PLANNER/latest" ] && [ ! -f "$PLANNER/config.json" ]; then
  bin/sqlrl train sft -preset small -sft-fraction 0.75 -out "$PLANNER" "$BENCH"
fi
run() { # name args...: pipeline run unless OUT/name.jsonl exists
  local name=$1; shift
  [ -f "$OUT/$name.jsonl" ] || bin/sqlrl pipeline run -planner "$PLANNER" -k "$K" -out "$OUT/$name.jsonl" "$@" "$BENCH" | tee "$OUT/$name.md"
}
run dev_plan
run hold_plan -split holdout
[ -f "$OUT/agents/report.json" ] || bin/sqlrl pipeline train -planner "$PLANNER" -out "$OUT/agents" -pairs "$BENCH" "$OUT/hold_plan.jsonl" | tee "$OUT/agents.md"
A="$OUT/agents/sft"
for split in dev hold; do
  extra=(); [ $split = hold ] && extra=(-split holdout)
  run ${split}_full -reuse "$OUT/${split}_plan.jsonl" -validator "$A" -fixer "$A" -selector "$A" "${extra[@]}"
done
for kind in indep collab; do
  run dev_$kind -reuse "$OUT/dev_plan.jsonl" -validator "$OUT/agents/validator-$kind" -fixer "$A" -selector "$A"
done
bin/sqlrl pipeline train-ranker -out "$OUT/ranker.json" "$OUT/hold_full.jsonl" | tee "$OUT/ranker.md"
bin/sqlrl pipeline report -ranker "$OUT/ranker.json" -json "$OUT/dev_full_report.json" -preds "$OUT/dev_full_preds" "$OUT/dev_full.jsonl" | tee "$OUT/report.md"
for kind in indep collab; do
  bin/sqlrl pipeline report -ranker "$OUT/ranker.json" "$OUT/dev_$kind.jsonl" | tee "$OUT/report_$kind.md"
done
