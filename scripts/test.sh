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
# A throwaway PostgreSQL for the PostgreSQL engine's tests (they skip without
# $SQLRL_PG_DSN); an already exported SQLRL_PG_DSN is used as it is.
if [ -z "${SQLRL_PG_DSN:-}" ]; then
  pg_env=$(scripts/postgres.sh start)
  eval "$pg_env"
  trap 'scripts/postgres.sh stop "$SQLRL_PG_DIR"' EXIT
fi
go test -count=1 -timeout 15m ./...
