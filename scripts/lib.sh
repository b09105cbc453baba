# Shell functions the cluster scripts share: flink-cluster.sh,
# spark-cluster.sh, beam-jobserver.sh, run-flink.sh, run-dataflow.sh and
# bench.sh source this file after setting `me` (their name, for messages). It reads the
# versions (scripts/versions.env) and sets `cache`, where
# scripts/install-cluster-deps.sh puts the cluster software.
#
# The daemons: a script starts its servers with start_daemon, waits for
# them with wait_ready, and stops every one of them, leaving no process
# behind, when it exits (stop_daemons runs from the EXIT trap that
# trap_daemons sets; SIGTERM and SIGINT exit through it).

lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
. "$lib_dir/versions.env"
cache="${RECRAWL_CACHE:-$HOME/.cache/recrawl}"

# die MESSAGE: prints "$me: MESSAGE" and exits 1.
die() { echo "$me: $*" >&2; exit 1; }

# The run scripts (run-flink.sh, run-spark.sh, run-dataflow.sh):
# print_only: true with --print or PRINT_ONLY=1.
print_only() { [ "${PRINT_ONLY:-}" = 1 ]; }
# need VAR WHAT: dies unless VAR is set, saying what it is.
need() { [ -n "${!1:-}" ] || die "$1 is not set: $2 (see the top of ${RECRAWL_SCRIPT:-$0})"; }
# show CMD...: prints a command as it will run, quoted for the shell.
show() { printf '+' >&2; printf ' %q' "$@" >&2; echo >&2; }
# build CMD...: prints a build command and runs it (not with --print).
build() {
  show env "$@"
  print_only || env "$@"
}

# pipeline_args PIPELINE SHARDS: appends the pipeline's own flags to the
# array args, from INPUT, OUTPUT, FORMAT and SHARDS (default SHARDS) for
# index, SPEC, INDEX, ARCHIVE, OUTPUT and WORK for extract.
pipeline_args() {
  case "$1" in
    index)
      need INPUT "the archives to index (gs://BUCKET/crawl/*.warc.gz)"
      need OUTPUT "the index directory (gs://BUCKET/index)"
      args+=(--input="$INPUT" --output="$OUTPUT" --format="${FORMAT:-zipnum}" --shards="${SHARDS:-$2}")
      ;;
    extract)
      need SPEC "the Collection Specification (a local YAML or JSON file, read by this machine)"
      need INDEX "the snapshot index (zipnum:gs://BUCKET/index, cdxj:gs://..., bigtable:PROJECT/INSTANCE/TABLE)"
      need ARCHIVE "where the index's WARC files are (gs://BUCKET/crawl)"
      need OUTPUT "the output directory (gs://BUCKET/out)"
      args+=(--spec="$SPEC" --index="$INDEX" --archive="$ARCHIVE" --output="$OUTPUT")
      [ -z "${WORK:-}" ] || args+=(--work="$WORK")
      ;;
    *) die "PIPELINE=$1: must be index or extract" ;;
  esac
}

# check_command_line PIPELINE FLAGS...: recrawl's own checks of the command
# line `recrawl PIPELINE FLAGS` (recrawl PIPELINE --check: the flag values,
# the spec and the index spec, the runner options and that every worker can
# reach every path), with RECRAWL_CHECK_BINARY, a build of recrawl for this
# machine, or else `go run ./cmd/recrawl` (built once, then cached by go).
# Nothing is read beyond the spec; dies with recrawl's error.
check_command_line() {
  local out
  if [ -n "${RECRAWL_CHECK_BINARY:-}" ]; then
    out="$("$RECRAWL_CHECK_BINARY" "$1" --check "${@:2}" 2>&1)" && return 0
  else
    out="$(cd "$lib_dir/.." && go run ./cmd/recrawl "$1" --check "${@:2}" 2>&1)" && return 0
  fi
  die "$(grep -v '^exit status [0-9]*$' <<<"$out")"
}

# installed WHAT HOME: makes sure that scripts/install-cluster-deps.sh has
# put WHAT (e.g. "Flink 1.19.3") into HOME, running it if not.
installed() {
  [ -e "$2/.complete" ] || "$lib_dir/install-cluster-deps.sh" >&2
  [ -e "$2/.complete" ] || die "no $1 in $2"
}

# work_dir DIR NAME: prints DIR, created, or if DIR is empty a new directory
# NAME-XXXXXX under TMPDIR.
work_dir() {
  if [ -n "$1" ]; then
    mkdir -p "$1" && echo "$1"
  else
    mktemp -d "${TMPDIR:-/tmp}/$2-XXXXXX"
  fi
}

# free_port: a loopback port that was free a moment ago.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

daemon_pids=()
daemon_logs=()

# start_daemon LOG CMD...: runs CMD in the background, its output into LOG
# (- : into the script's own standard output and error). CMD must exec its
# server (flink-console.sh, spark-class and java do), so that the pid is the
# server's, or stop it on SIGTERM (the scripts here do).
start_daemon() {
  local log="$1"
  shift
  if [ "$log" = - ]; then
    "$@" &
  else
    "$@" >"$log" 2>&1 &
  fi
  daemon_pids+=($!)
  daemon_logs+=("$log")
}

# stop_daemons: SIGTERM to every daemon, SIGKILL to those alive 10 s later;
# then runs `on_stopped` if the script defines it (e.g. to remove its work
# directory).
stop_daemons() {
  trap - EXIT INT TERM
  local p alive
  for p in "${daemon_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=""
    for p in "${daemon_pids[@]}"; do ! kill -0 "$p" 2>/dev/null || alive=1; done
    [ -n "$alive" ] || break
    sleep 0.2
  done
  for p in "${daemon_pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ! declare -F on_stopped >/dev/null || on_stopped
}

# trap_daemons: stop the daemons when the script exits, also on SIGTERM
# and SIGINT.
trap_daemons() {
  trap stop_daemons EXIT
  trap 'exit 143' TERM
  trap 'exit 130' INT
}

# daemons_alive WHAT: dies, with the tail of the daemons' logs, if one of
# them has exited.
daemons_alive() {
  local i
  for i in "${!daemon_pids[@]}"; do
    if kill -0 "${daemon_pids[$i]}" 2>/dev/null; then continue; fi
    [ "${daemon_logs[$i]}" != - ] || die "$1 (see the output above)"
    die "$1: $(basename "${daemon_logs[$i]}") ended; its last lines:
$(tail -n 40 "${daemon_logs[$i]}")"
  done
}

# wait_ready WHAT CHECK...: runs CHECK every 0.5 s until it succeeds, for at
# most 120 s, dying if a daemon exits meanwhile.
wait_ready() {
  local what="$1" i
  shift
  for i in $(seq 240); do
    daemons_alive "$what: a process exited while starting"
    if "$@"; then return 0; fi
    [ "$i" -lt 240 ] || die "$what: not ready within 120 s"
    sleep 0.5
  done
}

# watch_daemons: returns never; dies when one of the daemons exits (the
# EXIT trap then stops the others).
watch_daemons() {
  while :; do
    daemons_alive "a process exited"
    sleep 1
  done
}

# announced VAR LOG: waits until LOG has a line VAR=VALUE (the cluster
# scripts print one once their server is ready) and prints VALUE; dies,
# with the log's tail, if a daemon exits first or after 240 s.
announced() {
  local i v
  for i in $(seq 480); do
    v="$(sed -n "s/^$1=//p" "$2" | head -n 1)"
    if [ -n "$v" ]; then
      echo "$v"
      return 0
    fi
    daemons_alive "waiting for $1"
    [ "$i" -lt 480 ] || die "no $1= in $2 within 240 s; its last lines:
$(tail -n 30 "$2")"
    sleep 0.5
  done
}
