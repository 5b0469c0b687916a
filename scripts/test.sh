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
# Headless Chromium and chromedriver from Debian for the page's browser test
# (askserver, which skips without $SQLRL_CHROMIUM); its screenshots and the
# driver's log go to out/artifacts (git-ignored), kept after the run.
if [ -z "${SQLRL_CHROMIUM:-}" ]; then
  browser_env=$(scripts/browser.sh)
  eval "$browser_env"
fi
export SQLRL_ARTIFACTS="${SQLRL_ARTIFACTS:-$PWD/out/artifacts}"
go test -count=1 -timeout 15m ./...
# The numeric packages again on the other gemm paths: float32 sums round
# differently with each kernel, so a tolerance that only holds for this CPU's
# kernel fails on another machine. First the pure-Go gemm and elementwise
# kernels (-tags noblas: what a build without cgo runs), then another OpenBLAS
# kernel than the one picked here (Haswell's AVX2 one where there is AVX-512,
# else Sandybridge's AVX one; Zen's sgemm rounded as Haswell's did). About 20 s.
numeric="./nn ./policy ./train"
go test -count=1 -timeout 10m -tags noblas $numeric
if grep -qsw avx512f /proc/cpuinfo; then other=Haswell; else other=Sandybridge; fi
OPENBLAS_CORETYPE=$other go test -count=1 -timeout 10m $numeric
