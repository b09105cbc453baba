#!/usr/bin/env bash
# Submits a recrawl pipeline (index or extract) to a Flink cluster through
# Beam's Flink job server: the portable runner, --runner=flink
# --endpoint=JOB_SERVER. scripts/run-spark.sh does the same for Spark. Every
# command is printed before it runs; with --print (first argument) or
# PRINT_ONLY=1 the commands are only printed, nothing is built or started.
#
# The job server: either one that already runs next to the cluster
# (FLINK_JOB_ENDPOINT=HOST:PORT), or, with FLINK_MASTER=HOST:PORT (the Flink
# JobManager's REST address), this script starts Beam's Flink job server on
# this machine for the run and stops it when the pipeline ends:
#   scripts/beam-jobserver.sh flink --flink-master=HOST:PORT --job-port=8099 --artifact-port=8098
# (scripts/beam-jobserver.sh: a JVM with the jars scripts/install-cluster-deps.sh
# fetched from Maven Central; versions in scripts/versions.env: Beam's job
# server 2.62.0 for Flink 1.19, and Spark 3.5 for run-spark.sh). No docker.
# The cluster's Flink minor version must be the job server's (FLINK_MINOR in
# scripts/versions.env); scripts/flink-cluster.sh starts such a cluster on
# this machine:
#   scripts/flink-cluster.sh &    # prints FLINK_MASTER=127.0.0.1:8081
#   FLINK_MASTER=127.0.0.1:8081 INPUT=... OUTPUT=... scripts/run-flink.sh
#
# Where the workers run (ENVIRONMENT_TYPE):
#   PROCESS (default)  each TaskManager starts the Go SDK's boot program
#                      (BOOT_BINARY, built here from the Beam SDK in go.mod),
#                      which fetches the worker binary from the job server and
#                      runs it. BOOT_BINARY must be at the same path on every
#                      TaskManager host, and they must read the job server's
#                      ARTIFACTS_DIR (on one machine: both are given).
#   LOOPBACK           the workers run in the submitting process: local paths
#                      work; for a cluster on this machine.
#   DOCKER             Beam's Go SDK container image (ENVIRONMENT_CONFIG), on
#                      TaskManagers that run docker.
#   EXTERNAL           a worker pool at ENVIRONMENT_CONFIG=HOST:PORT.
#
# Any Beam job service takes the same submission, including prism
# (scripts/prism-jobserver.sh) for a local try-out:
#   FLINK_JOB_ENDPOINT=localhost:8073 ENVIRONMENT_TYPE=LOOPBACK INPUT=... OUTPUT=/tmp/index scripts/run-flink.sh
#
# Environment, the job server (one of):
#   FLINK_JOB_ENDPOINT  HOST:PORT of a running job server     (SPARK_JOB_ENDPOINT for run-spark.sh)
#   FLINK_MASTER        HOST:PORT of the Flink REST endpoint: start the job server here
#                       (SPARK_MASTER_URL=spark://HOST:7077 for run-spark.sh)
#   FLINK_VERSION       Flink minor version of the cluster, default and only
#                       choice: FLINK_MINOR of scripts/versions.env
#   JOB_PORT, ARTIFACT_PORT   ports of the job server started here (8099, 8098; 0: free ports)
#   ARTIFACTS_DIR       where the job server stages the worker binary; the cluster's
#                       workers must read it too (a gs:// path or a shared volume)
# Environment, the pipeline:
#   PIPELINE            index (default) or extract
#   index:   INPUT (archives: gs:// files/globs, comma-separated), OUTPUT (index directory, gs://),
#            FORMAT, SHARDS (cdxj|zipnum, default zipnum; default 16),
#            BIGTABLE (also load the index into Bigtable: PROJECT/INSTANCE/TABLE)
#   extract: SPEC (the Collection Specification, read here), INDEX (cdxj:gs://…, zipnum:gs://…
#            or bigtable:P/I/T), ARCHIVE (gs:// prefixes, comma-separated), OUTPUT (gs://),
#            WORK (gs://, default OUTPUT/.work)
#   ENVIRONMENT_TYPE    PROCESS (default), LOOPBACK, DOCKER or EXTERNAL (above)
#   ENVIRONMENT_CONFIG  PROCESS: default {"command": "BOOT_BINARY"}; DOCKER: the SDK
#                       image; EXTERNAL: the worker pool's HOST:PORT
#   BOOT_BINARY         PROCESS: the Go SDK's boot program; built into .cache/bin/boot
#                       (GOOS=linux GOARCH=amd64 CGO_ENABLED=0) if unset
#   WORKER_BINARY       linux/amd64 build of the pipeline for the workers; built
#                       into .cache/bin with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 if unset
#   PARALLELISM         Flink parallelism (default: the cluster's)
#   JOB_NAME            default recrawl-PIPELINE-DATE
#   PRINT_ONLY=1        print the commands, run none (or --print as the first argument)
# Extra arguments are passed on to the pipeline (e.g. --lines_per_block=1000).
#
# Paths must be gs:// (every worker opens them itself) unless ENVIRONMENT_TYPE
# is LOOPBACK, where the workers run inside the submitting process, or
# LOCAL_FILES=1 says that the cluster's workers run on this machine (a
# cluster of scripts/flink-cluster.sh or spark-cluster.sh) and read its files.
# Before anything is built or started, also with --print, the pipeline checks
# its command line itself (recrawl PIPELINE --check, run through go run or
# RECRAWL_CHECK_BINARY; scripts/lib.sh): the paths, the index spec, the spec
# and the runner options. A wrong one stops the script with recrawl's error.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --print ]; then
  PRINT_ONLY=1
  shift
fi

runner="${RECRAWL_PORTABLE_RUNNER:-flink}" # run-spark.sh sets spark
me="run-$runner"
cluster_flink_version="${FLINK_VERSION:-}" # versions.env (through lib.sh) sets FLINK_VERSION (the patch release)
# shellcheck source=lib.sh
. scripts/lib.sh

job_port="${JOB_PORT:-8099}"
case "$runner" in
  flink)
    endpoint_var=FLINK_JOB_ENDPOINT master_var=FLINK_MASTER master_flag=--flink-master
    flink_version="${cluster_flink_version:-$FLINK_MINOR}"
    [ "$flink_version" = "$FLINK_MINOR" ] ||
      die "FLINK_VERSION=$flink_version: Beam's Flink job server here ($BEAM_JOB_SERVER_VERSION, scripts/versions.env) is for Flink $FLINK_MINOR"
    ;;
  spark)
    # Beam's Spark job server is for Spark 3 (beam-runners-spark-3).
    endpoint_var=SPARK_JOB_ENDPOINT master_var=SPARK_MASTER_URL master_flag=--spark-master-url
    ;;
  *) die "unknown runner $runner" ;;
esac

# The job server: given, or started here from FLINK_MASTER / SPARK_MASTER_URL.
job_server=()
if [ -n "${!endpoint_var:-}" ]; then
  endpoint="${!endpoint_var}"
elif [ -n "${!master_var:-}" ]; then
  endpoint="localhost:$job_port"
  job_server=(scripts/beam-jobserver.sh "$runner" "$master_flag=${!master_var}" --job-port="$job_port"
    --artifact-port="${ARTIFACT_PORT:-8098}")
  [ -z "${ARTIFACTS_DIR:-}" ] || job_server+=(--artifacts-dir="$ARTIFACTS_DIR")
else
  die "set $endpoint_var (HOST:PORT of a running Beam $runner job server) or $master_var (to start one here; see the top of ${RECRAWL_SCRIPT:-$0})"
fi

pipeline="${PIPELINE:-index}"
env_type="${ENVIRONMENT_TYPE:-PROCESS}"
env_type="${env_type^^}"

args=()
pipeline_args "$pipeline" 16
if [ "$pipeline" = index ] && [ -n "${BIGTABLE:-}" ]; then args+=(--bigtable="$BIGTABLE"); fi

bindir="${RECRAWL_BIN:-$PWD/.cache/bin}"
env_config="${ENVIRONMENT_CONFIG:-}"
boot="${BOOT_BINARY:-}" # built below if unset
if [ "$env_type" = PROCESS ] && [ -z "$env_config" ]; then
  env_config="{\"command\": \"${boot:-$bindir/boot}\"}"
fi
job_name="${JOB_NAME:-recrawl-$pipeline-$(date -u +%Y%m%d-%H%M%S)}"
runner_flags=(--runner="$runner" --endpoint="$endpoint" --environment_type="$env_type" --job_name="$job_name")
[ -z "$env_config" ] || runner_flags+=(--environment_config="$env_config")

# LOCAL_FILES=1: the pipeline's own path check (runners.Config.Validate) lets
# non-LOOPBACK workers take local paths too.
[ "${LOCAL_FILES:-}" != 1 ] || export RECRAWL_WORKERS_SHARE_FILES=1
# Before anything is built or started: the pipeline's own checks of paths
# (gs:// unless the workers are here), the index spec and the runner options.
parallelism=()
[ -z "${PARALLELISM:-}" ] || parallelism=(--parallelism="$PARALLELISM")
check_command_line "$pipeline" "${runner_flags[@]}" "${parallelism[@]}" "${args[@]}" "$@"

# The submitting program (this machine) and the worker binary (linux/amd64,
# static). On a linux/amd64 machine one static build serves as both.
print_only || mkdir -p "$bindir"
worker="${WORKER_BINARY:-}"
if [ "$env_type" != LOOPBACK ] && [ -z "$worker" ]; then
  worker="$bindir/recrawl-linux-amd64"
  build GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$worker" ./cmd/recrawl
fi
if [ "$env_type" = PROCESS ] && [ -z "${ENVIRONMENT_CONFIG:-}" ] && [ -z "$boot" ]; then
  build GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$bindir/boot" github.com/apache/beam/sdks/v2/go/container
fi
if [ -n "$worker" ] && [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
  driver="$worker"
else
  driver="$bindir/recrawl"
  build go build -o "$driver" ./cmd/recrawl
fi

if [ ${#job_server[@]} -gt 0 ]; then
  show "${job_server[@]}"
  if ! print_only; then
    js_log="$(mktemp "${TMPDIR:-/tmp}/recrawl-$runner-job-server-XXXXXX.log")"
    on_stopped() { rm -f "$js_log"; }
    trap_daemons
    start_daemon "$js_log" "${job_server[@]}"
    endpoint="$(announced JOB_ENDPOINT "$js_log")" # JOB_PORT=0: a free port
  fi
fi
cmd=("$driver" "$pipeline" --runner="$runner" --endpoint="$endpoint" --environment_type="$env_type" --job_name="$job_name")
[ -z "$env_config" ] || cmd+=(--environment_config="$env_config")
[ "$env_type" = LOOPBACK ] || cmd+=(--worker_binary="$worker")
cmd+=("${parallelism[@]}" "${args[@]}" "$@")

show "${cmd[@]}"
print_only && exit 0
if [ ${#job_server[@]} -gt 0 ]; then
  "${cmd[@]}" # not exec: the EXIT trap stops the job server afterwards
else
  exec "${cmd[@]}"
fi
