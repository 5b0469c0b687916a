#!/usr/bin/env bash
# Installs what building sqlrl needs on a fresh Debian machine: gcc and the
# SQLite headers for the cgo engine. Idempotent and quiet when all is there.
set -euo pipefail
need=()
command -v gcc >/dev/null 2>&1 || need+=(gcc)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
# OpenBLAS is loaded at run time by the native policy's matrix products; without
# it they fall back to pure Go (slower, same results).
ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so\.0' || need+=(libopenblas0)
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi
command -v go >/dev/null 2>&1 || { echo "deps: Go is not installed (need Go 1.26+)" >&2; exit 1; }
