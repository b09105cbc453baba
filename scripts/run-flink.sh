#!/usr/bin/env bash
# Submits a recrawl pipeline (index or extract) to a Flink cluster through
# Beam's Flink job server: the portable runner, --runner=flink
# --endpoint=JOB_SERVER. scripts/run-spark.sh does the same for Spark. Every
# command is printed before it runs; with --print (first argument) or
# PRINT_ONLY=1 the commands are only printed, nothing is built or started.
#
# The job server: either one that already runs next to the cluster
# (FLINK_JOB_ENDPOINT=HOST:PORT), or, with FLINK_MASTER=HOST:PORT (the Flink
# JobManager's REST address), this script starts Beam's job server image on
# this machine and stops it when the pipeline ends:
#   docker run --rm --detach --net=host apache/beam_flink<FLINK_VERSION>_job_server:<BEAM_VERSION> \
#     --flink-master=HOST:PORT --job-port=8099 --artifact-port=8098 --expansion-port=8097
# Where these names come from (Beam 2.77.0):
#   - image name: apache/beam runners/flink/job-server-container/flink_job_server_container.gradle
#     names it docker_image_default_repo_prefix ("beam_") + "flink${version}_job_server"
#     under the "apache" root, tagged with the SDK version;
#   - Flink versions with a job server: 1.19, 1.20, 2.0, 2.1, 2.2
#     (PUBLISHED_FLINK_VERSIONS in sdks/python/apache_beam/options/pipeline_options.py
#     of the Beam v2.77.0 module, "in sync with gradle.properties");
#   - job server flags: --flink-master, --job-port, --artifact-port,
#     --expansion-port, --artifacts-dir (FlinkJarJobServer.java_arguments in
#     sdks/python/apache_beam/runners/portability/flink_runner.py of the same module);
#   - the job server's version must be the Beam SDK's: BEAM_VERSION is read from go.mod.
# The Flink cluster's minor version must be FLINK_VERSION.
#
# Any Beam job service takes the same submission, including prism
# (scripts/prism-jobserver.sh) for a local try-out:
#   FLINK_JOB_ENDPOINT=localhost:8073 ENVIRONMENT_TYPE=LOOPBACK INPUT=... OUTPUT=/tmp/index scripts/run-flink.sh
#
# Environment, the job server (one of):
#   FLINK_JOB_ENDPOINT  HOST:PORT of a running job server     (SPARK_JOB_ENDPOINT for run-spark.sh)
#   FLINK_MASTER        HOST:PORT of the Flink REST endpoint: start the job server here
#                       (SPARK_MASTER_URL=spark://HOST:7077 for run-spark.sh)
#   FLINK_VERSION       Flink minor version of the cluster, default 1.20
#   BEAM_VERSION        job server image tag, default the Beam SDK version in go.mod
#   JOB_SERVER_IMAGE    another job server image (default apache/beam_flink${FLINK_VERSION}_job_server)
#   JOB_PORT, ARTIFACT_PORT, EXPANSION_PORT   job server ports (8099, 8098, 8097)
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
#   ENVIRONMENT_TYPE    where workers run: DOCKER (default), PROCESS, EXTERNAL, LOOPBACK
#   ENVIRONMENT_CONFIG  SDK container image (DOCKER), worker pool HOST:PORT (EXTERNAL), ...
#   WORKER_BINARY       linux/amd64 build of the pipeline for the workers; built
#                       into .cache/bin with GOOS=linux GOARCH=amd64 CGO_ENABLED=0 if unset
#   PARALLELISM         Flink parallelism (default: the cluster's)
#   JOB_NAME            default recrawl-PIPELINE-DATE
#   PRINT_ONLY=1        print the commands, run none (or --print as the first argument)
# Extra arguments are passed on to the pipeline (e.g. --lines_per_block=1000).
#
# Paths must be gs:// (every worker opens them itself) unless ENVIRONMENT_TYPE
# is LOOPBACK, where the workers run inside the submitting process.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --print ]; then
  PRINT_ONLY=1
  shift
fi
print_only() { [ "${PRINT_ONLY:-}" = 1 ]; }

runner="${RECRAWL_PORTABLE_RUNNER:-flink}" # run-spark.sh sets spark
me="run-$runner"
die() { echo "$me: $*" >&2; exit 1; }
need() { [ -n "${!1:-}" ] || die "$1 is not set: $2 (see the top of ${RECRAWL_SCRIPT:-$0})"; }
# show CMD...: prints a command as it will run, quoted for the shell.
show() { printf '+' >&2; printf ' %q' "$@" >&2; echo >&2; }

beam_version="${BEAM_VERSION:-$(awk '$1 == "github.com/apache/beam/sdks/v2" { sub(/^v/, "", $2); print $2; exit }' go.mod)}"
[ -n "$beam_version" ] || die "no github.com/apache/beam/sdks/v2 in go.mod: set BEAM_VERSION"
job_port="${JOB_PORT:-8099}"
case "$runner" in
  flink)
    endpoint_var=FLINK_JOB_ENDPOINT master_var=FLINK_MASTER master_flag=--flink-master
    flink_version="${FLINK_VERSION:-1.20}"
    case "$flink_version" in
      1.19|1.20|2.0|2.1|2.2) ;;
      *) die "FLINK_VERSION=$flink_version: Beam $beam_version has Flink job servers for 1.19, 1.20, 2.0, 2.1 and 2.2" ;;
    esac
    image="${JOB_SERVER_IMAGE:-apache/beam_flink${flink_version}_job_server:$beam_version}"
    ;;
  spark)
    # Beam 2.77.0 publishes one Spark job server, for Spark 3
    # (runners/spark/3/job-server/container: spark_job_server_image = 'spark3_job_server';
    # SparkRunnerOptions --spark_version choices ['3']).
    endpoint_var=SPARK_JOB_ENDPOINT master_var=SPARK_MASTER_URL master_flag=--spark-master-url
    image="${JOB_SERVER_IMAGE:-apache/beam_spark3_job_server:$beam_version}"
    ;;
  *) die "unknown runner $runner" ;;
esac

# The job server: given, or started here from FLINK_MASTER / SPARK_MASTER_URL.
job_server=()
if [ -n "${!endpoint_var:-}" ]; then
  endpoint="${!endpoint_var}"
elif [ -n "${!master_var:-}" ]; then
  endpoint="localhost:$job_port"
  container="recrawl-$runner-job-server-$$"
  job_server=(docker run --rm --detach --name "$container" --net=host)
  case "${ARTIFACTS_DIR:-}" in
    "" | gs://*) ;;
    *) job_server+=(--volume "$ARTIFACTS_DIR:$ARTIFACTS_DIR") ;;
  esac
  job_server+=("$image" "$master_flag=${!master_var}" --job-port="$job_port"
    --artifact-port="${ARTIFACT_PORT:-8098}" --expansion-port="${EXPANSION_PORT:-8097}")
  [ -z "${ARTIFACTS_DIR:-}" ] || job_server+=(--artifacts-dir="$ARTIFACTS_DIR")
else
  die "set $endpoint_var (HOST:PORT of a running Beam $runner job server) or $master_var (to start one here in docker; see the top of ${RECRAWL_SCRIPT:-$0})"
fi

pipeline="${PIPELINE:-index}"
env_type="${ENVIRONMENT_TYPE:-DOCKER}"
env_type="${env_type^^}"
case "$env_type" in DOCKER|PROCESS|EXTERNAL|LOOPBACK) ;; *) die "ENVIRONMENT_TYPE=$env_type: must be DOCKER, PROCESS, EXTERNAL or LOOPBACK" ;; esac

# reachable VAR VALUE: every path must be gs:// unless the workers are here.
reachable() {
  local p
  [ "$env_type" != LOOPBACK ] || return 0
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
    need SPEC "the Collection Specification (a local YAML or JSON file, read by this machine)"
    need INDEX "the snapshot index (zipnum:gs://BUCKET/index, cdxj:gs://..., bigtable:PROJECT/INSTANCE/TABLE)"
    need ARCHIVE "where the index's WARC files are (gs://BUCKET/crawl)"
    need OUTPUT "the output directory (gs://BUCKET/out)"
    case "$INDEX" in
      bigtable:*) ;;
      *:*) reachable INDEX "${INDEX#*:}" ;;
      *) die "INDEX=$INDEX: want cdxj:PATH, zipnum:PATH or bigtable:PROJECT/INSTANCE/TABLE" ;;
    esac
    reachable ARCHIVE "$ARCHIVE"
    reachable OUTPUT "$OUTPUT"
    args+=(--spec="$SPEC" --index="$INDEX" --archive="$ARCHIVE" --output="$OUTPUT")
    if [ -n "${WORK:-}" ]; then
      reachable WORK "$WORK"
      args+=(--work="$WORK")
    fi
    ;;
  *) die "PIPELINE=$pipeline: must be index or extract" ;;
esac

# The submitting program (this machine) and the worker binary (linux/amd64,
# static). On a linux/amd64 machine one static build serves as both.
# build CMD...: prints a build command and runs it (not with PRINT_ONLY=1).
build() {
  show env "$@"
  print_only || env "$@"
}

bindir="${RECRAWL_BIN:-$PWD/.cache/bin}"
print_only || mkdir -p "$bindir"
worker="${WORKER_BINARY:-}"
if [ "$env_type" != LOOPBACK ] && [ -z "$worker" ]; then
  worker="$bindir/$pipeline-linux-amd64"
  build GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$worker" "./pipelines/$pipeline"
fi
if [ -n "$worker" ] && [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
  driver="$worker"
else
  driver="$bindir/$pipeline"
  build go build -o "$driver" "./pipelines/$pipeline"
fi

cmd=("$driver" --runner="$runner" --endpoint="$endpoint" --environment_type="$env_type"
  --job_name="${JOB_NAME:-recrawl-$pipeline-$(date -u +%Y%m%d-%H%M%S)}")
[ -z "${ENVIRONMENT_CONFIG:-}" ] || cmd+=(--environment_config="$ENVIRONMENT_CONFIG")
[ "$env_type" = LOOPBACK ] || cmd+=(--worker_binary="$worker")
[ -z "${PARALLELISM:-}" ] || cmd+=(--parallelism="$PARALLELISM")
cmd+=("${args[@]}" "$@")

if [ ${#job_server[@]} -gt 0 ]; then
  show "${job_server[@]}"
  if ! print_only; then
    "${job_server[@]}" >/dev/null
    trap 'docker stop "$container" >/dev/null 2>&1 || true' EXIT
    # Wait until the job server accepts connections (it starts a JVM).
    for i in $(seq 120); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$job_port") 2>/dev/null; then break; fi
      [ "$i" -lt 120 ] || die "the $runner job server ($image) accepts no connections on port $job_port after 120 s; see: docker logs $container"
      sleep 1
    done
  fi
fi
show "${cmd[@]}"
print_only && exit 0
if [ ${#job_server[@]} -gt 0 ]; then
  "${cmd[@]}" # not exec: the trap stops the job server afterwards
else
  exec "${cmd[@]}"
fi
