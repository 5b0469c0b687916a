#!/usr/bin/env bash
# The test suite: what CI runs (.ci/run) and what README.md tells you to run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:" $unformatted >&2
  exit 1
fi
go vet ./...
go test -count=1 -timeout 15m ./...
