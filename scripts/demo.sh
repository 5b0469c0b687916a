#!/usr/bin/env bash
# The main job on the bundled data, on a fresh machine:
#  1. build sqlrl (installing gcc and SQLite headers if missing);
#  2. generate the bundled benchmark (small preset: 3,000 train / 500 dev questions);
#  3. split it 75/25, augment the holdout 4x and write every trainer export;
#  4. score the gold SQL as predictions, on the generated dev set and on the
#     bundled BIRD dev sample, with the same evaluator that scores models (100%).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -o bin/sqlrl ./cmd/sqlrl
out=${OUT:-data}
bin/sqlrl bench generate --preset small --out "$out/bench" --force
bin/sqlrl data prepare -out "$out/prepared" "$out/bench"
bin/sqlrl eval --data "$out/bench" --split dev --gold-as-pred
bin/sqlrl eval --data datasets/bird-dev-sample --split dev --gold-as-pred
