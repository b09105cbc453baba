#!/usr/bin/env bash
# Starts the Cloud Bigtable emulator (cloud.google.com/go/bigtable/cmd/emulator,
# the in-memory bttest server, at the version pinned in go.mod), waits until it
# accepts connections and prints one line on stdout:
#
#   BIGTABLE_EMULATOR_HOST=127.0.0.1:PORT
#
# Everything else goes to stderr, so `eval "$(scripts/bigtable-emulator.sh --detach F)"`
# and programs reading stdout get just that line.
#
# Usage:
#   scripts/bigtable-emulator.sh [--port PORT] [--host HOST] [--timeout SECONDS]
#       Foreground: runs until SIGINT/SIGTERM (or until its parent process
#       exits), then stops the emulator and exits 0.
#   scripts/bigtable-emulator.sh --detach PIDFILE [--port PORT] ...
#       Starts the emulator in the background, writes its pid to PIDFILE, prints
#       the line and exits.
#   scripts/bigtable-emulator.sh --stop PIDFILE
#       Stops an emulator started with --detach.
#
# PORT 0 (the default) lets the emulator pick a free port. The emulator binary
# is built once with `go build` into ${RECRAWL_CACHE:-$XDG_CACHE_HOME/recrawl}
# (default ~/.cache/recrawl), keyed by the module version; it needs only Go and
# the module proxy.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
host=127.0.0.1
port=0
timeout=300
detach=""
stop=""

die() { echo "bigtable-emulator: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    -p|--port) port="${2:?--port needs a value}"; shift 2 ;;
    --host) host="${2:?--host needs a value}"; shift 2 ;;
    --timeout) timeout="${2:?--timeout needs a value}"; shift 2 ;;
    --detach) detach="${2:?--detach needs a pid file}"; shift 2 ;;
    --stop) stop="${2:?--stop needs a pid file}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
case "$port" in ''|*[!0-9]*) die "port $port is not a number" ;; esac

# stop_pid PID: SIGINT (the emulator shuts down cleanly on it), then SIGTERM,
# then SIGKILL if it does not go away.
stop_pid() {
  local pid=$1 i
  kill -INT "$pid" 2>/dev/null || return 0
  for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

if [ -n "$stop" ]; then
  [ -f "$stop" ] || die "pid file $stop does not exist"
  stop_pid "$(cat "$stop")"
  rm -f "$stop"
  exit 0
fi

command -v go >/dev/null || die "go is not on PATH"

# Build the emulator once per module version.
cache="${RECRAWL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/recrawl}"
version="$(cd "$repo" && go list -m -f '{{.Version}}' cloud.google.com/go/bigtable)" ||
  die "cannot find the version of cloud.google.com/go/bigtable in $repo/go.mod"
bin="$cache/cbtemulator-$version"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  echo "bigtable-emulator: building the emulator $version into $bin" >&2
  tmp="$(mktemp "$cache/.cbtemulator.XXXXXX")"
  if ! (cd "$repo" && go build -o "$tmp" cloud.google.com/go/bigtable/cmd/emulator) >&2; then
    rm -f "$tmp"
    die "go build of cloud.google.com/go/bigtable/cmd/emulator failed"
  fi
  mv -f "$tmp" "$bin" # atomic: concurrent builders both end with a whole binary
fi

log="$(mktemp "${TMPDIR:-/tmp}/bigtable-emulator.XXXXXX")"
# The emulator must not die with this script in --detach mode: start it in its
# own session when setsid is there.
if [ -n "$detach" ] && command -v setsid >/dev/null; then
  setsid "$bin" -host="$host" -port="$port" >"$log" 2>&1 </dev/null &
else
  "$bin" -host="$host" -port="$port" >"$log" 2>&1 </dev/null &
fi
pid=$!
cleanup() { stop_pid "$pid"; rm -f "$log"; }
trap 'cleanup; exit 1' EXIT

# Wait for "Cloud Bigtable emulator running on ADDR", then for the port to
# accept a connection.
addr=""
deadline=$((SECONDS + timeout))
while [ -z "$addr" ]; do
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "the emulator exited before it was ready"; }
  [ $SECONDS -lt $deadline ] || die "the emulator did not start within ${timeout}s"
  addr="$(sed -n 's/^Cloud Bigtable emulator running on \([^ ]*\)$/\1/p' "$log" | head -n1)"
  [ -n "$addr" ] || sleep 0.05
done
until (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "the emulator exited before it accepted connections"; }
  [ $SECONDS -lt $deadline ] || die "the emulator at $addr accepts no connections after ${timeout}s"
  sleep 0.05
done

if [ -n "$detach" ]; then
  echo "$pid" >"$detach"
  trap - EXIT
  rm -f "$log"
  echo "BIGTABLE_EMULATOR_HOST=$addr"
  exit 0
fi

echo "BIGTABLE_EMULATOR_HOST=$addr"
echo "bigtable-emulator: running on $addr (pid $pid); stop with SIGINT or SIGTERM" >&2
trap 'cleanup; trap - EXIT; exit 0' INT TERM
parent=$PPID
# Wait in short, interruptible steps; stop when the emulator dies or when our
# parent (a test binary, a shell) is gone, so no emulator is left behind.
while kill -0 "$pid" 2>/dev/null && kill -0 "$parent" 2>/dev/null; do
  sleep 1 &
  wait $! || true
done
if ! kill -0 "$pid" 2>/dev/null; then
  cat "$log" >&2
  die "the emulator exited"
fi
cleanup
trap - EXIT
exit 0
