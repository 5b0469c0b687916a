#!/usr/bin/env bash
# A throwaway PostgreSQL server for sqlrl's tests and for local use of the
# PostgreSQL engine (docs/postgres.md).
#
#   eval "$(scripts/postgres.sh start)"     # prints: export SQLRL_PG_DSN=... SQLRL_PG_DIR=...
#   scripts/postgres.sh stop "$SQLRL_PG_DIR"
#   scripts/postgres.sh status "$SQLRL_PG_DIR"
#
# start installs Debian's postgresql when no server binaries are found, runs
# initdb into a fresh temporary directory as an unprivileged user (initdb
# refuses root: as root it runs as the `postgres` system user the package
# creates), and starts the server on a free loopback port, with its unix socket
# in that directory. Only stdout carries the export lines; progress goes to
# stderr. The cluster is for tests: trust authentication on 127.0.0.1 only,
# fsync off, C locale (byte-order text comparison and ASCII-only case folding,
# as SQLite's BINARY collation and LIKE have). The superuser is `sqlrl` and
# the database `sqlrl`. Set SQLRL_PG_PORT to choose the port.
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then
    echo "$d"
    return 0
  fi
  return 1
}

install_server() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing Debian's postgresql (server binaries not found)"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >&2
}

# as runs a command as the cluster's owner: `postgres` when we are root.
as() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local bin dir port tries
  bin=$(bindir) || { install_server; bin=$(bindir); } || { log "no PostgreSQL server after install"; exit 1; }
  dir=$(mktemp -d "${TMPDIR:-/tmp}/sqlrl-pg.XXXXXX")
  touch "$dir/.sqlrl-pg"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || { log "no 'postgres' user to run the server as"; exit 1; }
    chown postgres: "$dir"
  fi
  chmod 700 "$dir"
  as "$bin/initdb" -D "$dir/data" -U sqlrl --auth=trust -E UTF8 --no-locale -N >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; log "initdb failed"; exit 1; }
  port=${SQLRL_PG_PORT:-54329}
  for tries in $(seq 1 50); do
    if port_free "$port"; then
      if as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null 2>&1; then
        break
      fi
      tail -n 5 "$dir/server.log" >&2 || true
    fi
    [ -z "${SQLRL_PG_PORT:-}" ] || { log "port $port unusable"; exit 1; }
    port=$((port + 1))
  done
  as "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 || { log "server did not start"; exit 1; }
  as "$bin/psql" -X -q -h "$dir" -p "$port" -U sqlrl -d postgres -c 'CREATE DATABASE sqlrl' >&2
  echo "$port" >"$dir/port"
  log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir"
  echo "export SQLRL_PG_DSN='postgres://sqlrl@127.0.0.1:$port/sqlrl?sslmode=disable'"
  echo "export SQLRL_PG_DIR='$dir'"
}

checkdir() {
  local dir=$1
  [ -n "$dir" ] || { log "which cluster? give the directory start printed (SQLRL_PG_DIR)"; exit 2; }
  [ -f "$dir/.sqlrl-pg" ] || { log "$dir is not a cluster made by postgres.sh"; exit 2; }
}

stop() {
  local dir=${1:-${SQLRL_PG_DIR:-}} bin
  checkdir "$dir"
  bin=$(bindir) || true
  if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
    as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || log "pg_ctl stop failed (removing the directory anyway)"
  fi
  rm -rf -- "$dir"
}

status() {
  local dir=${1:-${SQLRL_PG_DIR:-}} bin
  checkdir "$dir"
  bin=$(bindir)
  as "$bin/pg_ctl" -D "$dir/data" status
}

case "${1:-}" in
start) start ;;
stop) stop "${2:-}" ;;
status) status "${2:-}" ;;
*)
  echo "usage: $0 start | stop [DIR] | status [DIR]" >&2
  exit 2
  ;;
esac
