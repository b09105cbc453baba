#!/usr/bin/env bash
# Starts a standalone Flink cluster on loopback — one JobManager and one
# TaskManager with 2 slots — at the version pinned in scripts/versions.env,
# from the distribution scripts/install-cluster-deps.sh put in the cache
# (run it first; this script runs it when the distribution is missing).
#
# The script stays in the foreground: once the TaskManager has registered
# its slots it prints
#   FLINK_MASTER=127.0.0.1:REST_PORT   the JobManager's REST address, for
#                                      Beam's job server (--flink-master) and
#                                      the web UI (http://127.0.0.1:REST_PORT)
#   FLINK_LOG_DIR=DIR                  the cluster's logs
# and stops both processes, leaving none behind, on SIGTERM, SIGINT or when
# either of them exits.
#
# Options:
#   --port N          REST port (default 8081; 0 picks a free one)
#   --rpc-port N      JobManager RPC port (default 6123; 0 picks a free one)
#   --slots N         TaskManager slots (default 2)
#   --tm-memory SIZE  TaskManager process memory (default 2048m, of which
#                     512m task off-heap: PROCESS workers fetch the Go worker
#                     binary, 200+ MB, through the TaskManager's direct memory)
#   --jm-memory SIZE  JobManager process memory (default 768m)
#   --work DIR        configuration, logs and temporary files (default a new
#                     directory under TMPDIR, removed on exit unless --keep)
#   --keep            keep --work on exit (its logs)
set -euo pipefail
me=flink-cluster
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

port=8081 rpc_port=6123 slots=2 tm_memory=2048m jm_memory=768m work="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --rpc-port) rpc_port="$2"; shift 2 ;;
    --slots) slots="$2"; shift 2 ;;
    --tm-memory) tm_memory="$2"; shift 2 ;;
    --jm-memory) jm_memory="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) die "unknown argument $1 (see the top of $0)" ;;
  esac
done

[ "$port" != 0 ] || port="$(free_port)"
[ "$rpc_port" != 0 ] || rpc_port="$(free_port)"

flink_home="$cache/flink-$FLINK_VERSION"
installed "Flink $FLINK_VERSION" "$flink_home"
work="$(work_dir "$work" flink-cluster)"
# The distribution's configuration and scripts, with this cluster's
# config.yaml: FLINK_CONF_DIR points the scripts at it.
mkdir -p "$work/conf" "$work/log" "$work/tmp"
work="$(cd "$work" && pwd)"
cp "$flink_home/conf/"log4j*.properties "$work/conf/"
cat >"$work/conf/config.yaml" <<EOF
jobmanager:
  bind-host: 127.0.0.1
  rpc:
    address: 127.0.0.1
    port: $rpc_port
  memory:
    process:
      size: $jm_memory
  execution:
    failover-strategy: region
taskmanager:
  bind-host: 127.0.0.1
  host: 127.0.0.1
  numberOfTaskSlots: $slots
  memory:
    process:
      size: $tm_memory
    task:
      off-heap:
        size: 512m
parallelism:
  default: $slots
rest:
  address: 127.0.0.1
  bind-address: 127.0.0.1
  port: $port
blob:
  server:
    port: 0
taskmanager.rpc.port: 0
taskmanager.data.port: 0
io.tmp.dirs: $work/tmp
EOF

export FLINK_CONF_DIR="$work/conf" FLINK_LOG_DIR="$work/log" FLINK_PID_DIR="$work"
on_stopped() { [ -n "$keep" ] || rm -rf "$work"; }
trap_daemons

# The daemons run in the work directory: what their children leave in their
# working directory (the Go SDK's boot program writes pipeline_options.json
# there for a PROCESS worker) goes with it.
cd "$work"
# flink-console.sh runs each daemon in the foreground and execs the JVM, so
# the pid started here is the JVM's.
start_daemon "$work/log/jobmanager.out" "$flink_home/bin/jobmanager.sh" start-foreground
start_daemon "$work/log/taskmanager.out" "$flink_home/bin/taskmanager.sh" start-foreground

# Ready when the JobManager's REST API reports the TaskManager's slots.
slots_offered() {
  case "$(curl -fsS "http://127.0.0.1:$port/overview" 2>/dev/null || true)" in
    *"\"slots-total\":$slots"*) return 0 ;;
  esac
  return 1
}
wait_ready "Flink (logs in $work/log)" slots_offered
echo "FLINK_MASTER=127.0.0.1:$port"
echo "FLINK_LOG_DIR=$work/log"
echo "$me: Flink $FLINK_VERSION, 1 JobManager + 1 TaskManager with $slots slots; web UI http://127.0.0.1:$port; stop with SIGTERM or Ctrl+C" >&2

# Until a signal, or until a daemon exits.
watch_daemons
