#!/usr/bin/env bash
# The flywheel on the bundled benchmark (the main job before specialise):
#  1. build sqlrl (installing gcc, SQLite headers and OpenBLAS if missing);
#  2. generate the bundled benchmark if it is not there (small preset:
#     3,000 train / 500 dev questions, BIRD layout);
#  3. split it 75/25, augment the holdout 4x and write every trainer export
#     (TRL, OpenRLHF, verl) for training elsewhere;
#  4. sqlrl experiment flywheel: SFT on the 75%, online KTO on half the 25%
#     holdout (x4 schema shuffles, hybrid gate reward, prompts renamed as SFT
#     renames, guided samples scored on-policy, SFT replay), greedy
#     evaluation of both checkpoints on every dev question and on the other
#     half of the holdout (split heldout), and the before/after table by
#     difficulty (the report's stage table gives each stage's time; a
#     committed one: docs/reports/flywheel-*/report.md).
# Running it again resumes: finished stages are cached in out/flywheel/runs.
# DATA (default data) holds the benchmark and the exports, OUT (default
# out/flywheel) the runs and the report; arguments go to the flywheel
# (e.g. scripts/bench-flywheel.sh -quick, or -kto-steps 50).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -buildvcs=auto -o bin/sqlrl ./cmd/sqlrl
data=${DATA:-data}
out=${OUT:-out/flywheel}
[ -f "$data/bench/dev.json" ] || bin/sqlrl bench generate --preset small --out "$data/bench" --force
bin/sqlrl data prepare -out "$data/prepared" "$data/bench"
bin/sqlrl experiment flywheel -out "$out" "$@" "$data/bench"
