#!/usr/bin/env bash
# Submits a recrawl pipeline to a Flink cluster through Beam's Flink job
# server (the portable runner: --runner=flink --endpoint=JOB_SERVER), and
# prints the exact command before running it. scripts/run-spark.sh does the
# same for Spark.
#
# The job server runs next to the cluster, e.g. (Beam 2.77.0, Flink 1.19):
#   docker run --net=host apache/beam_flink1.19_job_server:2.77.0 --flink-master=FLINK_HOST:8081
# It listens on 8099 for jobs. Any Beam job service works the same way,
# including prism (scripts/prism-jobserver.sh) for a local try-out:
#   FLINK_JOB_ENDPOINT=localhost:8073 ENVIRONMENT_TYPE=LOOPBACK INPUT=... OUTPUT=/tmp/index scripts/run-flink.sh
#
# Environment (required):
#   FLINK_JOB_ENDPOINT  HOST:PORT of the job server          (SPARK_JOB_ENDPOINT for run-spark.sh)
#   INPUT               archives: gs:// files/globs, comma-separated
#   OUTPUT              index directory, gs://
# Environment (optional):
#   PIPELINE            index (default) or extract
#   FORMAT, SHARDS      index format (cdxj|zipnum, default zipnum) and shard count (default 16)
#   BIGTABLE            also load the index into Bigtable: PROJECT/INSTANCE/TABLE
#   ENVIRONMENT_TYPE    where workers run: DOCKER (default), PROCESS, EXTERNAL, LOOPBACK
#   ENVIRONMENT_CONFIG  SDK container image (DOCKER), worker pool HOST:PORT (EXTERNAL), ...
#   WORKER_BINARY       linux/amd64 build of the pipeline for the workers; built
#                       into .cache/bin with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 if unset
#   PARALLELISM         Flink parallelism (default: the cluster's)
#   JOB_NAME            default recrawl-PIPELINE-DATE
#   PRINT_ONLY=1        print the command, do not run it
# Extra arguments are passed on to the pipeline (e.g. --lines_per_block=1000).
#
# Paths must be gs:// (every worker opens them itself) unless ENVIRONMENT_TYPE
# is LOOPBACK, where the workers run inside the submitting process.
set -euo pipefail
cd "$(dirname "$0")/.."

runner="${RECRAWL_PORTABLE_RUNNER:-flink}" # run-spark.sh sets spark
case "$runner" in
  flink) endpoint_var=FLINK_JOB_ENDPOINT ;;
  spark) endpoint_var=SPARK_JOB_ENDPOINT ;;
  *) echo "run-$runner: unknown runner $runner" >&2; exit 2 ;;
esac
me="run-$runner"
die() { echo "$me: $*" >&2; exit 1; }
need() { [ -n "${!1:-}" ] || die "$1 is not set: $2 (see the top of ${RECRAWL_SCRIPT:-$0})"; }

pipeline="${PIPELINE:-index}"
need "$endpoint_var" "the HOST:PORT of the Beam $runner job server"
env_type="${ENVIRONMENT_TYPE:-DOCKER}"
case "${env_type^^}" in DOCKER|PROCESS|EXTERNAL|LOOPBACK) ;; *) die "ENVIRONMENT_TYPE=$env_type: must be DOCKER, PROCESS, EXTERNAL or LOOPBACK" ;; esac

# reachable FLAG VALUE: every path must be gs:// unless the workers are here.
reachable() {
  local p
  [ "${env_type^^}" != LOOPBACK ] || return 0
  IFS=',' read -ra parts <<<"$2"
  for p in "${parts[@]}"; do
    p="${p# }"
    case "$p" in gs://*) ;; *) die "$1=$p is a local path, but $runner workers ($env_type) cannot read this machine's files; use gs://" ;; esac
  done
}

args=()
case "$pipeline" in
  index)
    need INPUT "the archives to index (gs://BUCKET/crawl/*.warc.gz)"
    need OUTPUT "the index directory (gs://BUCKET/index)"
    reachable INPUT "$INPUT"
    reachable OUTPUT "$OUTPUT"
    args+=(--input="$INPUT" --output="$OUTPUT" --format="${FORMAT:-zipnum}" --shards="${SHARDS:-16}")
    [ -z "${BIGTABLE:-}" ] || args+=(--bigtable="$BIGTABLE")
    ;;
  extract)
    # The extraction pipeline (pipelines/extract) is being written; its flags
    # will go here, e.g.:
    #   args+=(--spec="$SPEC" --index="$INDEX" --work="$WORK" --output="$OUTPUT")
    die "PIPELINE=extract is not available yet"
    ;;
  *) die "PIPELINE=$pipeline: must be index or extract" ;;
esac

# The submitting program (this machine) and the worker binary (linux/amd64,
# static). On a linux/amd64 machine one static build serves as both.
# build CMD...: prints a build command and runs it (not with PRINT_ONLY=1).
build() {
  echo "+ $*" >&2
  [ "${PRINT_ONLY:-}" = 1 ] || env "$@"
}

bindir="${RECRAWL_BIN:-$PWD/.cache/bin}"
mkdir -p "$bindir"
worker="${WORKER_BINARY:-}"
if [ "${env_type^^}" != LOOPBACK ] && [ -z "$worker" ]; then
  worker="$bindir/$pipeline-linux-amd64"
  build GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$worker" "./pipelines/$pipeline"
fi
if [ -n "$worker" ] && [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
  driver="$worker"
else
  driver="$bindir/$pipeline"
  build go build -o "$driver" "./pipelines/$pipeline"
fi

cmd=("$driver" --runner="$runner" --endpoint="${!endpoint_var}" --environment_type="${env_type^^}"
  --job_name="${JOB_NAME:-recrawl-$pipeline-$(date -u +%Y%m%d-%H%M%S)}")
[ -z "${ENVIRONMENT_CONFIG:-}" ] || cmd+=(--environment_config="$ENVIRONMENT_CONFIG")
[ "${env_type^^}" = LOOPBACK ] || cmd+=(--worker_binary="$worker")
[ -z "${PARALLELISM:-}" ] || cmd+=(--parallelism="$PARALLELISM")
cmd+=("${args[@]}" "$@")

printf '+' >&2; printf ' %q' "${cmd[@]}" >&2; echo >&2
[ "${PRINT_ONLY:-}" = 1 ] && exit 0
exec "${cmd[@]}"
