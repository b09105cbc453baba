#!/usr/bin/env bash
# Submits a recrawl pipeline (index or extract) to a Spark cluster through
# Beam's Spark job server: the portable runner, --runner=spark
# --endpoint=JOB_SERVER. Every command is printed before it runs; --print
# (first argument) or PRINT_ONLY=1 only prints them.
#
# The job server: one already running (SPARK_JOB_ENDPOINT=HOST:PORT), or,
# with SPARK_MASTER_URL=spark://HOST:7077 (a standalone Spark 3.5 master),
# Beam's Spark job server started on this machine for the run (no docker):
#   scripts/beam-jobserver.sh spark --spark-master-url=spark://HOST:7077 --job-port=8099 --artifact-port=8098
# (the jars of scripts/install-cluster-deps.sh; versions in scripts/versions.env).
# scripts/spark-cluster.sh starts such a cluster on this machine.
#
# Environment: as scripts/run-flink.sh, which does the work (Beam's Flink and
# Spark runners are the same portable runner; only the job server differs),
# with SPARK_JOB_ENDPOINT / SPARK_MASTER_URL for FLINK_JOB_ENDPOINT /
# FLINK_MASTER. PROCESS workers (the default): each executor starts the Go
# SDK's boot program, which runs the worker binary.
# Examples:
#   SPARK_MASTER_URL=spark://spark-master:7077 INPUT='gs://crawl/2012/*.warc.gz' \
#     OUTPUT=gs://crawl/index BIGTABLE=my-project/recrawl/captures scripts/run-spark.sh
#   # a cluster of scripts/spark-cluster.sh on this machine, as runners/cluster_test.go runs it:
#   SPARK_MASTER_URL=spark://127.0.0.1:7077 LOCAL_FILES=1 INPUT=a.warc.gz OUTPUT=/tmp/idx scripts/run-spark.sh
set -euo pipefail
RECRAWL_PORTABLE_RUNNER=spark RECRAWL_SCRIPT="$0" exec "$(dirname "$0")/run-flink.sh" "$@"
