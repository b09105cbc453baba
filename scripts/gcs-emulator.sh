#!/usr/bin/env bash
# Starts a Google Cloud Storage emulator (fake-gcs-server, the Go module
# github.com/fsouza/fake-gcs-server at the version pinned in go.mod) on
# 127.0.0.1, waits until it accepts connections and prints one line on stdout:
#
#   STORAGE_EMULATOR_HOST=127.0.0.1:PORT
#
# Everything else goes to stderr, so `eval "$(scripts/gcs-emulator.sh --detach F)"`
# and programs reading stdout get just that line. The Go storage client (and so
# internal/storage and every pipeline) talks to the emulator when
# STORAGE_EMULATOR_HOST is set; buckets are created with the JSON API, e.g.
#   curl -X POST -d '{"name":"b"}' "http://$STORAGE_EMULATOR_HOST/storage/v1/b?project=p"
#
# Usage:
#   scripts/gcs-emulator.sh [--port PORT] [--backend memory|filesystem] [--root DIR] [--timeout SECONDS]
#       Foreground: runs until SIGINT/SIGTERM (or until its parent process
#       exits), then stops the emulator and exits 0.
#   scripts/gcs-emulator.sh --detach PIDFILE [--port PORT] ...
#       Starts the emulator in the background, writes its pid to PIDFILE, prints
#       the line and exits.
#   scripts/gcs-emulator.sh --stop PIDFILE
#       Stops an emulator started with --detach.
#
# PORT 0 (the default) picks a free port. The port must be known before the
# server starts (fake-gcs-server puts it into the upload URLs it hands out, so
# port 0 passed to the server itself would break resumable uploads): the script
# tries random free-looking ports until one binds. --backend memory (the
# default) keeps objects in memory; filesystem keeps them under --root (default:
# a temporary directory removed when the emulator stops).
#
# The binary is built once with `go build` into ${RECRAWL_BIN:-.cache/bin},
# keyed by the module version; it needs only Go and the module cache/proxy.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
host=127.0.0.1
port=0
backend=memory
root=""
timeout=300
detach=""
stop=""

die() { echo "gcs-emulator: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    -p|--port) port="${2:?--port needs a value}"; shift 2 ;;
    --backend) backend="${2:?--backend needs a value}"; shift 2 ;;
    --root) root="${2:?--root needs a directory}"; shift 2 ;;
    --timeout) timeout="${2:?--timeout needs a value}"; shift 2 ;;
    --detach) detach="${2:?--detach needs a pid file}"; shift 2 ;;
    --stop) stop="${2:?--stop needs a pid file}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
case "$port" in ''|*[!0-9]*) die "--port $port is not a number" ;; esac
case "$backend" in memory|filesystem) ;; *) die "--backend $backend: must be memory or filesystem" ;; esac

# stop_pid PID: SIGTERM (the server shuts down on it), then SIGKILL if it does
# not go away.
stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

if [ -n "$stop" ]; then
  [ -f "$stop" ] || die "pid file $stop does not exist"
  read -r pid tmproot <"$stop" || true
  stop_pid "$pid"
  [ -z "${tmproot:-}" ] || rm -rf "$tmproot"
  rm -f "$stop"
  exit 0
fi

command -v go >/dev/null || die "go is not on PATH"

# Build the emulator once per module version. The main package is the module
# root, github.com/fsouza/fake-gcs-server.
version="$(cd "$repo" && go list -m -f '{{.Version}}' github.com/fsouza/fake-gcs-server)" ||
  die "cannot find the version of github.com/fsouza/fake-gcs-server in $repo/go.mod"
bindir="${RECRAWL_BIN:-$repo/.cache/bin}"
bin="$bindir/fake-gcs-server-$version"
if [ ! -x "$bin" ]; then
  mkdir -p "$bindir"
  echo "gcs-emulator: building fake-gcs-server $version into $bin" >&2
  tmp="$(mktemp "$bindir/.fake-gcs-server.XXXXXX")"
  if ! (cd "$repo" && go build -o "$tmp" github.com/fsouza/fake-gcs-server) >&2; then
    rm -f "$tmp"
    die "go build of github.com/fsouza/fake-gcs-server failed"
  fi
  mv -f "$tmp" "$bin" # atomic: concurrent builders both end with a whole binary
fi

tmproot=""
if [ "$backend" = filesystem ] && [ -z "$root" ]; then
  tmproot="$(mktemp -d "${TMPDIR:-/tmp}/gcs-emulator-data.XXXXXX")"
  root="$tmproot"
fi
log="$(mktemp "${TMPDIR:-/tmp}/gcs-emulator.XXXXXX")"
pid=""
cleanup() {
  [ -z "$pid" ] || stop_pid "$pid"
  rm -f "$log"
  [ -z "$tmproot" ] || rm -rf "$tmproot"
}
trap 'cleanup; exit 1' EXIT

# start PORT: starts the server in the background (in its own session in
# --detach mode, so it does not die with this script) and sets pid.
start() {
  # -public-host: the Go client reads objects with XML-API paths
  # (GET /BUCKET/OBJECT) on STORAGE_EMULATOR_HOST; the server serves those only
  # for requests to its public host (the port is ignored), and would otherwise
  # take the host name for a bucket name.
  local args=(-scheme http -host "$host" -port "$1" -public-host "$host" -backend "$backend" -log-level warn)
  [ "$backend" != filesystem ] || args+=(-filesystem-root "$root")
  : >"$log"
  if [ -n "$detach" ] && command -v setsid >/dev/null; then
    setsid "$bin" "${args[@]}" >"$log" 2>&1 </dev/null &
  else
    "$bin" "${args[@]}" >"$log" 2>&1 </dev/null &
  fi
  pid=$!
}

# A port nobody answers on (connection refused) is taken as free; a race with
# another process that binds it first makes the server exit at once with
# "address already in use", and the next port is tried.
deadline=$((SECONDS + timeout))
tries=0
while :; do
  try=$port
  if [ "$port" = 0 ]; then
    try=$((20000 + RANDOM % 40000))
    if (exec 3<>"/dev/tcp/$host/$try") 2>/dev/null; then continue; fi
  elif (exec 3<>"/dev/tcp/$host/$try") 2>/dev/null; then
    die "port $try on $host is already in use"
  fi
  start "$try"
  # Wait until it accepts connections, or exits.
  while ! (exec 3<>"/dev/tcp/$host/$try") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || break
    [ $SECONDS -lt $deadline ] || die "the emulator on port $try accepts no connections after ${timeout}s"
    sleep 0.05
  done
  # Someone answers: make sure it is our server, not a process that took
  # the port between the check above and the server's bind.
  sleep 0.2
  if kill -0 "$pid" 2>/dev/null; then
    break
  fi
  wait "$pid" 2>/dev/null || true
  pid=""
  tries=$((tries + 1))
  if [ "$port" != 0 ] || [ $tries -ge 20 ] || ! grep -q 'address already in use' "$log"; then
    cat "$log" >&2
    die "the emulator exited before it accepted connections on port $try"
  fi
done
addr="$host:$try"

if [ -n "$detach" ]; then
  echo "$pid $tmproot" >"$detach"
  trap - EXIT
  rm -f "$log"
  echo "STORAGE_EMULATOR_HOST=$addr"
  exit 0
fi

echo "STORAGE_EMULATOR_HOST=$addr"
echo "gcs-emulator: running on $addr (pid $pid, backend $backend); stop with SIGINT or SIGTERM" >&2
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
  pid=""
  die "the emulator exited"
fi
cleanup
trap - EXIT
exit 0
