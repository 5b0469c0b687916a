#!/usr/bin/env bash
# The main job on the bundled data: build sqlrl and evaluate the bundled BIRD
# dev sample with its gold SQL as predictions (must score 100%).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -o bin/sqlrl ./cmd/sqlrl
bin/sqlrl eval --data datasets/bird-dev-sample --gold-as-pred
