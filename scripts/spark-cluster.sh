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
#   SPARK_WORKER_DIR=DIR                     the worker's directory (one app-*
#                                            folder per application)
#   SPARK_WORKER_PID=PID                     the worker's JVM
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
#   --cleanup-interval SECONDS, --app-data-ttl SECONDS
#                      the worker removes the folders of applications that
#                      ended more than --app-data-ttl seconds ago (default 600)
#                      every --cleanup-interval seconds (default 60): each
#                      job of Beam's Spark job server is an application whose
#                      folder holds the job server's jars, about 420 MB
set -euo pipefail
me=spark-cluster
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

port=7077 web_port=8080 cores=2 memory=1g work="" keep="" cleanup_interval=60 app_data_ttl=600
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --web-port) web_port="$2"; shift 2 ;;
    --cores) cores="$2"; shift 2 ;;
    --memory) memory="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --cleanup-interval) cleanup_interval="$2"; shift 2 ;;
    --app-data-ttl) app_data_ttl="$2"; shift 2 ;;
    *) die "unknown argument $1 (see the top of $0)" ;;
  esac
done

[ "$port" != 0 ] || port="$(free_port)"
[ "$web_port" != 0 ] || web_port="$(free_port)"

spark_home="$cache/spark-$SPARK_VERSION"
installed "Spark $SPARK_VERSION" "$spark_home"
work="$(work_dir "$work" spark-cluster)"
mkdir -p "$work/log" "$work/worker" "$work/conf"
# Loopback only; small daemons (their heaps; executors get --memory).
export SPARK_HOME="$spark_home" SPARK_CONF_DIR="$work/conf" SPARK_LOG_DIR="$work/log"
export SPARK_LOCAL_IP=127.0.0.1 SPARK_MASTER_HOST=127.0.0.1 SPARK_LOCAL_DIRS="$work/tmp"
export SPARK_DAEMON_MEMORY=512m SPARK_NO_DAEMONIZE=1
# The worker removes the folders of ended applications (Spark keeps them
# for ever by default).
export SPARK_WORKER_OPTS="-Dspark.worker.cleanup.enabled=true -Dspark.worker.cleanup.interval=$cleanup_interval -Dspark.worker.cleanup.appDataTtl=$app_data_ttl${SPARK_WORKER_OPTS:+ $SPARK_WORKER_OPTS}"
mkdir -p "$work/tmp"

on_stopped() { [ -n "$keep" ] || rm -rf "$work"; }
trap_daemons

# spark-class execs the JVM, so the pids started here are the JVMs'.
start_daemon "$work/log/master.out" "$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master \
  --host 127.0.0.1 --port "$port" --webui-port "$web_port"
start_daemon "$work/log/worker.out" "$spark_home/bin/spark-class" org.apache.spark.deploy.worker.Worker \
  --host 127.0.0.1 --webui-port 0 --cores "$cores" --memory "$memory" --work-dir "$work/worker" \
  "spark://127.0.0.1:$port"

# Ready when the master's JSON status lists an ALIVE worker.
worker_alive() {
  case "$(curl -fsS "http://127.0.0.1:$web_port/json/" 2>/dev/null || true)" in
    *'"aliveworkers" : 1'* | *'"aliveworkers":1'*) return 0 ;;
  esac
  return 1
}
wait_ready "Spark (logs in $work/log)" worker_alive
echo "SPARK_MASTER_URL=spark://127.0.0.1:$port"
echo "SPARK_MASTER_WEB=http://127.0.0.1:$web_port"
echo "SPARK_LOG_DIR=$work/log"
echo "SPARK_WORKER_DIR=$work/worker"
echo "SPARK_WORKER_PID=${daemon_pids[1]}"
echo "$me: Spark $SPARK_VERSION, 1 master + 1 worker ($cores cores, $memory); web UI http://127.0.0.1:$web_port; stop with SIGTERM or Ctrl+C" >&2

# Until a signal, or until a daemon exits.
watch_daemons
