#!/usr/bin/env bash
# Starts Beam's Flink or Spark job server (the portable runner's job
# service, the same one Beam's job server jars and images run) on this
# machine, in the foreground, pointed at a cluster:
#   scripts/beam-jobserver.sh flink --flink-master=127.0.0.1:8081 [--job-port=8099]
#   scripts/beam-jobserver.sh spark --spark-master-url=spark://127.0.0.1:7077 [--job-port=8099]
# with the jars scripts/install-cluster-deps.sh fetched (versions in
# scripts/versions.env; run it first, or this script runs it). Once the job
# service accepts connections it prints
#   JOB_ENDPOINT=localhost:PORT
# for the pipelines' --endpoint. Other arguments go to the job server's
# driver (FlinkJobServerDriver / SparkJobServerDriver), e.g. --artifacts-dir.
# With --flink-master=[local] / --spark-master-url=local[2] the job server
# runs an embedded Flink or Spark instead (faster to start, not a cluster).
#
# Flink's job server plans each job with Flink's DataSet optimizer, two of
# whose visitors take exponential time in a job of several extraction
# rounds; this script puts the replacements of scripts/flink-planner (its
# README says why and what they change) first on the classpath, compiled
# once into the cache (needs javac). FLINK_PLANNER_FIX=0: Flink's own.
#
# Ports: --job-port (default 8099), --artifact-port (default 8098); 0 picks a
# free one. The expansion service (for cross-language transforms, which
# recrawl does not use) gets a free port. JOBSERVER_HEAP caps the JVM's heap
# (default 768m). JOBSERVER_STACK is its threads' stack size (default 16m):
# planning a job walks the pipeline's graph recursively, and an extraction
# job's graph is deep enough that Java's default 1 MB overflowed once
# (java.lang.StackOverflowError) while the JIT had not compiled the walk yet,
# under load. Stops, leaving no process behind, on SIGTERM or SIGINT.
#
# Staged artifacts: the job server stages each job's files in a folder of
# its --artifacts-dir and, for the Go SDK's jobs, leaves the folder behind
# when the job ends (Beam 2.62.0's default dir, /tmp/beam-artifact-staging,
# kept one per job). Unless --artifacts-dir is given, this script gives it
# a directory of its own, prints it (JOB_ARTIFACTS_DIR=DIR), removes the
# folder of every job that ended within seconds, and the directory when it
# stops.
#
# Spark: the job server's Spark driver never gives up on a cluster it lost
# (a killed master or worker process): it logs "Disconnected from Spark
# cluster! Waiting for reconnection...", its job hangs, and every later job
# fails at once with "Only one SparkContext should be running in this JVM
# (SPARK-2243)". When that line appears this script says so and restarts the
# job server on the same ports: the hanging job ends (its driver fails with
# one line naming the job server) and the next job gets a new SparkContext.
set -euo pipefail
me=beam-jobserver
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

runner="${1:-}"
shift || true
job_port=8099 artifact_port=8098 master="" args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --job-port=*) job_port="${1#*=}" ;;
    --job-port) job_port="$2"; shift ;;
    --artifact-port=*) artifact_port="${1#*=}" ;;
    --artifact-port) artifact_port="$2"; shift ;;
    --flink-master=* | --spark-master-url=*) master="$1" ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ "$job_port" != 0 ] || job_port="$(free_port)"
[ "$artifact_port" != 0 ] || artifact_port="$(free_port)"

case "$runner" in
  flink)
    lib="$cache/beam-flink-$FLINK_MINOR-job-server-$BEAM_JOB_SERVER_VERSION/lib"
    main=org.apache.beam.runners.flink.FlinkJobServerDriver
    case "$master" in --flink-master=*) ;; *) die "flink: --flink-master=HOST:REST_PORT (or [local]) is required" ;; esac
    classpath="$lib/*"
    ;;
  spark)
    lib="$cache/beam-spark-3-job-server-$BEAM_JOB_SERVER_VERSION/lib"
    main=org.apache.beam.runners.spark.SparkJobServerDriver
    case "$master" in --spark-master-url=*) ;; *) die "spark: --spark-master-url=spark://HOST:PORT (or local[N]) is required" ;; esac
    # Beam's Spark runner declares Spark as "provided": the cluster's own
    # Spark jars, so the job server's driver is the cluster's version
    # exactly. The runner and its dependencies come first: Beam's GCS
    # client needs a newer Guava than Spark's guava-14, and Beam's slf4j
    # (with slf4j-simple) logs for both.
    spark_home="$cache/spark-$SPARK_VERSION"
    installed "Spark $SPARK_VERSION" "$spark_home"
    classpath="$lib/*:$spark_home/jars/*"
    ;;
  *) die "usage: $0 flink|spark --flink-master=HOST:PORT|--spark-master-url=spark://HOST:PORT [--job-port=N]" ;;
esac
installed "Beam $BEAM_JOB_SERVER_VERSION's $runner job server" "$lib/.."

# flink_planner: prints the jar of the classes of scripts/flink-planner,
# compiled against the job server's jars once per version of their sources
# (a jar: Beam's Flink runner ships the job server's classpath with each job,
# and takes every entry of it for a jar).
# They replace two visitors of Flink's DataSet planner that walk every path
# through a plan, exponentially many for a job of several extraction rounds
# (scripts/flink-planner/README.md). FLINK_PLANNER_FIX=0: Flink's own.
flink_planner() {
  local src="$lib_dir/flink-planner" sum dir tmp
  sum="$(cd "$src" && find . -name '*.java' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-12)"
  dir="$cache/flink-planner-$FLINK_MINOR-$BEAM_JOB_SERVER_VERSION-$sum"
  if [ ! -e "$dir/.complete" ]; then
    command -v javac >/dev/null || die "no javac on PATH: the Flink job server's planner fix needs a JDK 17 (Debian: openjdk-17-jdk-headless)"
    tmp="$(mktemp -d "$cache/.flink-planner-XXXXXX")"
    javac -nowarn -d "$tmp/classes" -cp "$lib/*" $(find "$src" -name '*.java') >&2 &&
      jar cf "$tmp/flink-planner.jar" -C "$tmp/classes" . || { rm -rf "$tmp"; die "building $src failed"; }
    touch "$tmp/.complete"
    rm -rf "$dir"
    mv "$tmp" "$dir"
  fi
  echo "$dir/flink-planner.jar"
}
planner=""
if [ "$runner" = flink ] && [ "${FLINK_PLANNER_FIX:-1}" != 0 ]; then
  classpath="$(flink_planner):$classpath"
  planner=" with scripts/flink-planner's visitors"
fi

# Beam's job servers use the expansion port 8097 unless told: pick a free one.
expansion_port="$(free_port)"
# Every log line gets its time (how long a job took to plan and submit).
java_opts=(-Xmx"${JOBSERVER_HEAP:-768m}" -Xss"${JOBSERVER_STACK:-16m}" -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.showDateTime=true
  "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSS")
if [ "$runner" = spark ]; then
  # Spark 3.5 on Java 17 (what Spark's own launcher adds).
  java_opts+=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED
    --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false
    -Dspark.driver.host=127.0.0.1 -Dspark.driver.bindAddress=127.0.0.1)
  # The executors, likewise: Beam's Guava before Spark's guava-14 (without
  # it the first task of every job fails once, NoSuchMethodError
  # Preconditions.checkState in Beam's GCS client, and Spark retries it).
  guava=("$lib"/guava-*.jar "$lib"/failureaccess-*.jar)
  java_opts+=("-Dspark.executor.extraClassPath=$(IFS=:; echo "${guava[*]}")")
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/beam-jobserver-XXXXXX")"
artifacts=""
case " ${args[*]-} " in
  *" --artifacts-dir"*) ;;
  *) artifacts="$work/artifacts"; mkdir -p "$artifacts"; args+=(--artifacts-dir="$artifacts") ;;
esac
on_stopped() { rm -rf "$work"; }
trap_daemons

# The JVM's output goes to $jvm_log and from there (tail) to this script's
# standard error, where it logs; jvm_index is the JVM's place among the
# daemons.
jvm_log="$work/jobserver.log"
: >"$jvm_log"
follow_log() { exec tail -n +1 -F "$jvm_log" 1>&2 2>/dev/null; }
start_daemon - follow_log
jvm_index=${#daemon_pids[@]}
start_jvm() {
  java "${java_opts[@]}" -cp "$classpath" "$main" "$master" \
    --job-host=localhost --job-port="$job_port" --artifact-port="$artifact_port" \
    --expansion-port="$expansion_port" "${args[@]}" >>"$jvm_log" 2>&1 &
  daemon_pids[jvm_index]=$!
  daemon_logs[jvm_index]="$jvm_log"
}
start_jvm

accepts() { (exec 3<>"/dev/tcp/127.0.0.1/$job_port") 2>/dev/null; }
wait_ready "the $runner job server on port $job_port" accepts
echo "JOB_ENDPOINT=localhost:$job_port"
[ -z "$artifacts" ] || echo "JOB_ARTIFACTS_DIR=$artifacts"
echo "$me: Beam $BEAM_JOB_SERVER_VERSION $runner job server on localhost:$job_port ($master)$planner" >&2

# restart_jvm: stops the job server's JVM (SIGTERM, SIGKILL after 10 s) and
# starts it again on the same ports.
restart_jvm() {
  local pid="${daemon_pids[jvm_index]}"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  start_jvm
  wait_ready "the $runner job server on port $job_port (restarted)" accepts
  echo "$me: restarted the $runner job server on localhost:$job_port" >&2
}

# remove_finished_artifacts: removes the staging folders of the jobs that
# ended. The job server tries to itself when a job ends, but matches only
# the folder's top level (ARTIFACTS/HASH/*), while the Go SDK's artifact
# is staged under its full path (HASH/1-0:go-/tmp/.../FILE): it logs
# "No files found for spec: ARTIFACTS/HASH/*" and keeps the folder.
remove_finished_artifacts() {
  local d
  grep -o "No files found for spec: $artifacts/[0-9a-f]*/\*" "$jvm_log" 2>/dev/null |
    sed 's/^No files found for spec: //; s|/\*$||' | sort -u |
    while read -r d; do
      [ ! -e "$d" ] || rm -rf "$d"
    done || true # no such line yet: grep fails
}

# spark_lost: the job server's Spark driver logged that it lost its
# cluster since the JVM started (lost_seen counts the earlier lines).
lost_line='Disconnected from Spark cluster'
lost_seen=0
spark_lost() { [ "$(grep -c "$lost_line" "$jvm_log" || true)" -gt "$lost_seen" ]; }

# Until a signal, or until a daemon exits.
while :; do
  daemons_alive "a process exited"
  [ -z "$artifacts" ] || remove_finished_artifacts
  if [ "$runner" = spark ] && spark_lost; then
    echo "$me: the job server's Spark driver lost its cluster ($master; its log: \"$lost_line\"): its job cannot end and later jobs would fail (SPARK-2243); restarting the job server" >&2
    lost_seen="$(grep -c "$lost_line" "$jvm_log" || true)"
    restart_jvm
  fi
  sleep 2
done
