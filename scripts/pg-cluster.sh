#!/usr/bin/env bash
# A throw-away PostgreSQL 15 cluster for the tests (issue 12, point 6).
#
#   bash scripts/pg-cluster.sh start     initdb into a fresh temporary directory, start on a free
#                                        port on 127.0.0.1, create gatehouse_test, print its URL
#   bash scripts/pg-cluster.sh url       print the URL of the running cluster
#   bash scripts/pg-cluster.sh status    say whether it runs (exit 0) or not (exit 1)
#   bash scripts/pg-cluster.sh restart   pg_ctl restart -m fast (the database-restart test)
#   bash scripts/pg-cluster.sh stop      pg_ctl stop -m fast, then remove the directory
#
# The URL is postgresql://postgres@127.0.0.1:PORT/gatehouse_test (trust authentication, reachable
# on 127.0.0.1 only, no password). fsync and synchronous_commit stay on: the tests check
# durability, so the cluster must be as durable as a real one.
#
# Every command is idempotent: `start` with a cluster already running prints its URL; `stop`
# with none running does nothing. A state file records the directory and the port:
# $GATEHOUSE_PG_STATE, default build/pg-cluster.state in the checkout. Commands on one state
# file are serialized with flock, so two `start`s at once make one cluster.
#
# PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` OS user
# (Debian's postgresql-15 creates it) and its commands run through runuser; otherwise it
# belongs to the current user. Binaries: $GATEHOUSE_PG_BIN, default /usr/lib/postgresql/15/bin.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
pg_bin="${GATEHOUSE_PG_BIN:-/usr/lib/postgresql/15/bin}"
state="${GATEHOUSE_PG_STATE:-$repo/build/pg-cluster.state}"
database=gatehouse_test
pg_user=postgres  # the database superuser, whoever owns the files

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

die() {
  echo "pg-cluster: $*" >&2
  exit 1
}

# Runs a command as the cluster's OS user. The lock (fd 9) stays with this script: a server
# that inherited it would hold it for its whole life.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@" 9>&-
  else
    "$@" 9>&-
  fi
}

check_binaries() {
  for b in initdb pg_ctl createdb pg_isready; do
    [ -x "$pg_bin/$b" ] || die "$pg_bin/$b not found: install Debian's postgresql-15 (bash scripts/install-deps.sh) or set GATEHOUSE_PG_BIN"
  done
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    die "running as root but there is no 'postgres' OS user to own the cluster (PostgreSQL refuses to run as root); install postgresql-15"
  fi
}

# Reads dir= and port= from the state file; returns 1 when there is none.
read_state() {
  [ -f "$state" ] || return 1
  dir="" port=""
  while IFS='=' read -r k v; do
    case "$k" in
      dir) dir="$v" ;;
      port) port="$v" ;;
    esac
  done <"$state"
  [ -n "$dir" ] && [ -n "$port" ] || die "state file $state is malformed; remove it (and its cluster directory) by hand"
}

url_of() { echo "postgresql://$pg_user@127.0.0.1:$1/$database"; }

running() {
  [ -d "$dir/data" ] && as_owner "$pg_bin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1
}

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
  else
    echo $((20000 + RANDOM % 20000))
  fi
}

log_tail() {
  [ -f "$dir/log" ] && tail -n 20 "$dir/log" | sed 's/^/  | /' >&2 || true
}

# Removes a cluster directory, stopping its server first if one still runs there.
discard() {
  if running; then
    as_owner "$pg_bin/pg_ctl" stop -D "$dir/data" -m fast -w -t 60 >/dev/null 2>&1 ||
      as_owner "$pg_bin/pg_ctl" stop -D "$dir/data" -m immediate -w -t 60 >/dev/null 2>&1 ||
      die "could not stop the server in $dir/data; see $dir/log"
  fi
  case "$dir" in
    */gatehouse-pg.*) rm -rf "$dir" ;;
    *) die "refusing to remove $dir: not a directory this script made" ;;
  esac
}

cmd_start() {
  check_binaries
  if read_state; then
    if running; then
      url_of "$port"
      return 0
    fi
    echo "pg-cluster: the cluster in $dir is not running; replacing it" >&2
    discard
    rm -f "$state"
  fi

  dir="$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-pg.XXXXXX")"
  chmod 755 "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
  as_owner test -w "$dir" || die "the postgres OS user cannot write to $dir (set TMPDIR to a directory it can reach)"
  as_owner mkdir -m 700 "$dir/sock"

  if ! as_owner "$pg_bin/initdb" -D "$dir/data" -U "$pg_user" --auth=trust --no-locale \
      -E UTF8 >"$dir/initdb.log" 2>&1; then
    sed 's/^/  | /' "$dir/initdb.log" >&2
    rm -rf "$dir"
    die "initdb failed"
  fi
  # Trust on the socket and on 127.0.0.1 only; nothing else may connect.
  echo "include 'gatehouse.conf'" | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
  as_owner tee "$dir/data/pg_hba.conf" >/dev/null <<EOF
local all all              trust
host  all all 127.0.0.1/32 trust
EOF

  local tries=0 started=0
  while [ "$tries" -lt 5 ]; do
    tries=$((tries + 1))
    port="$(free_port)"
    as_owner tee "$dir/data/gatehouse.conf" >/dev/null <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/sock'
fsync = on
synchronous_commit = on
full_page_writes = on
max_connections = 200
EOF
    if as_owner "$pg_bin/pg_ctl" start -D "$dir/data" -l "$dir/log" -w -t 60 >/dev/null 2>&1; then
      started=1
      break
    fi
    # Someone took the port between the probe and the bind: try another one.
    grep -q "could not bind\|Address already in use" "$dir/log" 2>/dev/null || break
  done
  if [ "$started" -ne 1 ]; then
    log_tail
    discard
    die "pg_ctl start failed (log above)"
  fi

  if ! as_owner "$pg_bin/createdb" -h "$dir/sock" -p "$port" -U "$pg_user" "$database" 2>"$dir/createdb.log"; then
    sed 's/^/  | /' "$dir/createdb.log" >&2
    discard
    die "createdb $database failed"
  fi

  mkdir -p "$(dirname "$state")"
  printf 'dir=%s\nport=%s\n' "$dir" "$port" >"$state.tmp"
  mv "$state.tmp" "$state"
  url_of "$port"
}

cmd_stop() {
  if ! read_state; then
    echo "pg-cluster: no cluster recorded in $state; nothing to stop" >&2
    return 0
  fi
  check_binaries
  discard
  rm -f "$state"
  echo "pg-cluster: stopped and removed $dir" >&2
}

cmd_url() {
  read_state || die "no cluster recorded in $state; run: bash scripts/pg-cluster.sh start"
  running || die "the cluster in $dir is not running; run: bash scripts/pg-cluster.sh start"
  url_of "$port"
}

cmd_status() {
  if read_state && running; then
    echo "running: $(url_of "$port") (directory $dir)"
  else
    echo "not running"
    return 1
  fi
}

cmd_restart() {
  check_binaries
  read_state || die "no cluster recorded in $state; run: bash scripts/pg-cluster.sh start"
  [ -d "$dir/data" ] || die "the cluster directory $dir is gone; run stop, then start"
  if ! as_owner "$pg_bin/pg_ctl" restart -D "$dir/data" -l "$dir/log" -m fast -w -t 60 >/dev/null 2>&1; then
    log_tail
    die "pg_ctl restart failed (log above)"
  fi
  url_of "$port"
}

main() {
  local cmd="${1:-}"
  case "$cmd" in
    -h | --help | help) usage; return 0 ;;
    start | stop | url | status | restart) ;;
    "") usage >&2; exit 2 ;;
    *) echo "pg-cluster: unknown command '$cmd'" >&2; usage >&2; exit 2 ;;
  esac
  [ "$#" -eq 1 ] || die "$cmd takes no arguments"

  mkdir -p "$(dirname "$state")"
  exec 9>"$state.lock"
  flock 9
  "cmd_$cmd"
}

main "$@"
