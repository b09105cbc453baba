#!/usr/bin/env bash
# Starts a standalone Spark cluster on loopback — one master and one worker —
# at the version pinned in scripts/versions.env, from the distribution
# scripts/install-cluster-deps.sh put in the cache (run it first; this script
# runs it when the distribution is missing).
#
# The script stays in the foreground: once the worker has registered with
# the master it prints
#   SPARK_MASTER_URL=spark://127.0.0.1:PORT  the master, for Beam's job server
#                                            (--spark-master-url)
#   SPARK_MASTER_WEB=http://127.0.0.1:PORT   the master's web UI (/json lists
#                                            the applications)
#   SPARK_LOG_DIR=DIR                        the master's and worker's logs
# and stops both processes, leaving none behind, on SIGTERM, SIGINT or when
# either of them exits.
#
# Options:
#   --port N           master port (default 7077; 0 picks a free one)
#   --web-port N       master web UI port (default 8080; 0 picks a free one)
#   --cores N          the worker's cores (default 2)
#   --memory SIZE      the worker's memory for executors (default 1g)
#   --work DIR         logs and the worker's directory (default a new directory
#                      under TMPDIR, removed on exit unless --keep)
#   --keep             keep --work on exit
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"
cache="${RECRAWL_CACHE:-$HOME/.cache/recrawl}"
me=spark-cluster
die() { echo "$me: $*" >&2; exit 1; }

port=7077 web_port=8080 cores=2 memory=1g work="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --web-port) web_port="$2"; shift 2 ;;
    --cores) cores="$2"; shift 2 ;;
    --memory) memory="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) die "unknown argument $1 (see the top of $0)" ;;
  esac
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
[ "$port" != 0 ] || port="$(free_port)"
[ "$web_port" != 0 ] || web_port="$(free_port)"

spark_home="$cache/spark-$SPARK_VERSION"
[ -e "$spark_home/.complete" ] || "$here/install-cluster-deps.sh" >&2
[ -e "$spark_home/.complete" ] || die "no Spark $SPARK_VERSION in $spark_home"

if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/spark-cluster-XXXXXX")"
else
  mkdir -p "$work"
fi
mkdir -p "$work/log" "$work/worker" "$work/conf"
# Loopback only; small daemons (their heaps; executors get --memory).
export SPARK_HOME="$spark_home" SPARK_CONF_DIR="$work/conf" SPARK_LOG_DIR="$work/log"
export SPARK_LOCAL_IP=127.0.0.1 SPARK_MASTER_HOST=127.0.0.1 SPARK_LOCAL_DIRS="$work/tmp"
export SPARK_DAEMON_MEMORY=512m SPARK_NO_DAEMONIZE=1
mkdir -p "$work/tmp"

pids=()
cleanup() {
  trap - EXIT INT TERM
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local alive=""
    for p in "${pids[@]}"; do ! kill -0 "$p" 2>/dev/null || alive=1; done
    [ -n "$alive" ] || break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# spark-class execs the JVM, so the pids started here are the JVMs'.
"$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master \
  --host 127.0.0.1 --port "$port" --webui-port "$web_port" >"$work/log/master.out" 2>&1 &
pids+=($!)
"$spark_home/bin/spark-class" org.apache.spark.deploy.worker.Worker \
  --host 127.0.0.1 --webui-port 0 --cores "$cores" --memory "$memory" --work-dir "$work/worker" \
  "spark://127.0.0.1:$port" >"$work/log/worker.out" 2>&1 &
pids+=($!)

# Ready when the master's JSON status lists an ALIVE worker.
for i in $(seq 240); do
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || die "a Spark process exited while starting; its log:
$(tail -n 40 "$work/log/"*.out)"
  done
  status="$(curl -fsS "http://127.0.0.1:$web_port/json/" 2>/dev/null || true)"
  case "$status" in *'"aliveworkers" : 1'* | *'"aliveworkers":1'*) break ;; esac
  [ "$i" -lt 240 ] || die "no worker registered with the master within 120 s; $work/log"
  sleep 0.5
done
echo "SPARK_MASTER_URL=spark://127.0.0.1:$port"
echo "SPARK_MASTER_WEB=http://127.0.0.1:$web_port"
echo "SPARK_LOG_DIR=$work/log"
echo "$me: Spark $SPARK_VERSION, 1 master + 1 worker ($cores cores, $memory); web UI http://127.0.0.1:$web_port; stop with SIGTERM or Ctrl+C" >&2

while :; do
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || die "a Spark process exited; logs in $work/log"
  done
  sleep 1
done
