#!/usr/bin/env bash
# The native policy's recipe on the bundled benchmark, end to end (figures:
# docs/history.md, "The native policy (policy.md §6)"):
#  1. build sqlrl and generate the benchmark (small preset) if missing;
#  2. SFT from random weights on the 75% SFT split (preset small, 16 epochs, groups of 8);
#  3. decode the 500 dev questions greedily under the schema guide, and score them;
#  4. sample 8 candidates per question, vote among them by execution, and score
#     pass@1, pass@8, the oracle and the vote.
# OUT (default runs/sft) holds the run, the predictions and the reports.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -buildvcs=auto -o bin/sqlrl ./cmd/sqlrl
data=${DATA:-data/bench}
out=${OUT:-runs/sft}
[ -f "$data/dev.json" ] || bin/sqlrl bench generate --preset small --out "$data" --force
mkdir -p "$out"
bin/sqlrl train sft -out "$out" -epochs "${EPOCHS:-16}" -eval-every 564 "$data"
bin/sqlrl generate -model "$out" -out "$out/dev.jsonl" -bird "$out/dev.json" "$data"
bin/sqlrl eval --data "$data" --split dev --pred "$out/dev.jsonl" --json "$out/dev-report.json"
bin/sqlrl generate -model "$out" -n 8 -temperature 1 -top-p 0.9 -vote -out "$out/dev8.jsonl" "$data"
bin/sqlrl eval --data "$data" --split dev --pred "$out/dev8.jsonl" --json "$out/dev8-report.json"
