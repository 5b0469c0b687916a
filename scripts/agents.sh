#!/usr/bin/env bash
# The MATS pipeline on the bundled benchmark, as measured in docs/history.md
# ("The agents and the reviewer"):
# SFT-75 planner -> planner rollouts (K=8) on dev and on the RL holdout ->
# native agents trained from the holdout rollouts (validators, fixer,
# selector; COLLAB vs INDEP validators) -> the full pipeline on dev and the
# holdout with the same candidates -> the learned ranker (fit on the
# holdout) -> the reviewer (SFT from the planner, writing questions from
# queries) scoring the same candidates on dev, a second sampling seed and
# the holdout (Coder-Reviewer reranking; its weight is chosen on the
# holdout) -> the report by difficulty.
#
# Resumable: a step whose output exists is skipped. OUT defaults to
# out/agents; PLANNER, when set, is an SFT-75 checkpoint to start from.
# Cost on 2 cores: about 10 min of SFT (unless PLANNER is given), then
# roughly 90 min of decoding and training.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/agents}
BENCH=${BENCH:-data/bench}
K=${K:-8}
mkdir -p "$OUT"
scripts/deps.sh >/dev/null
go build -buildvcs=auto -o bin/sqlrl ./cmd/sqlrl
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
run dev_plan_s2 -seed 2
run hold_plan -split holdout
# Native agents (validators, fixer, selector) from the holdout rollouts; with
# COLLAB and INDEP validators trained by ORPO (-pairs).
[ -f "$OUT/agents/report.json" ] || bin/sqlrl pipeline train -planner "$PLANNER" -out "$OUT/agents" -pairs "$BENCH" "$OUT/hold_plan.jsonl" | tee "$OUT/agents.md"
A="$OUT/agents/sft"
run dev_full -reuse "$OUT/dev_plan.jsonl" -validator "$A" -fixer "$A" -selector "$A"
for kind in indep collab; do
  run dev_$kind -reuse "$OUT/dev_plan.jsonl" -validator "$OUT/agents/validator-$kind" -fixer "$A" -selector "$A"
done
# The ranker must learn how far to trust verdicts on questions the agents
# did not train on: two cross-fitted agent runs, each on half the holdout,
# each judging the other half.
for f in 0 1; do
  [ -f "$OUT/fold$f/report.json" ] || bin/sqlrl pipeline train -planner "$PLANNER" -out "$OUT/fold$f" -val-fraction 0.5 -fold $f "$BENCH" "$OUT/hold_plan.jsonl" | tee "$OUT/fold$f.md"
  run hold_fold$f -split holdout -heldout-of "$OUT/fold$f" -reuse "$OUT/hold_plan.jsonl" -validator "$OUT/fold$f/sft" -fixer "$OUT/fold$f/sft" -selector "$OUT/fold$f/sft"
done
bin/sqlrl pipeline train-ranker -out "$OUT/ranker_plan.json" "$OUT/hold_plan.jsonl" | tee "$OUT/ranker_plan.md"
bin/sqlrl pipeline train-ranker -out "$OUT/ranker.json" "$OUT/hold_fold0.jsonl" "$OUT/hold_fold1.jsonl" | tee "$OUT/ranker.md"
bin/sqlrl pipeline report -ranker "$OUT/ranker_plan.json" "$OUT/dev_plan.jsonl" | tee "$OUT/report_plan.md"
bin/sqlrl pipeline report -ranker "$OUT/ranker_plan.json" "$OUT/dev_plan_s2.jsonl" | tee "$OUT/report_plan_s2.md"
bin/sqlrl pipeline report -ranker "$OUT/ranker.json" -json "$OUT/dev_full_report.json" -preds "$OUT/dev_full_preds" "$OUT/dev_full.jsonl" | tee "$OUT/report.md"
for kind in indep collab; do
  bin/sqlrl pipeline report -ranker "$OUT/ranker.json" "$OUT/dev_$kind.jsonl" | tee "$OUT/report_$kind.md"
done
# The reviewer: log P(question | schema, evidence, SQL) for every candidate,
# trained on the planner's own SFT questions (never the holdout), two seeds.
for s in 1 2; do
  R="$OUT/reviewer_s$s"
  [ -e "$R/latest" ] || bin/sqlrl train sft -task review -init "$PLANNER" -epochs 6 -lr 1e-3 -seed $s -out "$R" "$BENCH"
  run hold_review_s$s -split holdout -reuse "$OUT/hold_plan.jsonl" -reviewer "$R"
  run dev_review_s$s -reuse "$OUT/dev_plan.jsonl" -reviewer "$R"
  run dev_review_s${s}_plan2 -reuse "$OUT/dev_plan_s2.jsonl" -reviewer "$R"
  # the sweep that chose -review-weight, on the holdout only
  bin/sqlrl pipeline train-ranker -out "$OUT/ranker_review_s$s.json" "$OUT/hold_review_s$s.jsonl" | tee "$OUT/ranker_review_s$s.md"
done
