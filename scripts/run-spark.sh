#!/usr/bin/env bash
# Submits a recrawl pipeline to a Spark cluster through Beam's Spark job
# server (the portable runner: --runner=spark --endpoint=JOB_SERVER), and
# prints the exact command before running it.
#
# The job server runs next to the cluster, e.g. (Beam 2.77.0, Spark 3):
#   docker run --net=host apache/beam_spark3_job_server:2.77.0 --spark-master-url=spark://SPARK_HOST:7077
# It listens on 8099 for jobs.
#
# Environment (required):
#   SPARK_JOB_ENDPOINT  HOST:PORT of the job server
#   INPUT               archives: gs:// files/globs, comma-separated
#   OUTPUT              index directory, gs://
# Optional: PIPELINE, FORMAT, SHARDS, BIGTABLE, ENVIRONMENT_TYPE,
# ENVIRONMENT_CONFIG, WORKER_BINARY, JOB_NAME, PRINT_ONLY=1, as for
# scripts/run-flink.sh, which does the work (Beam's Flink and Spark runners
# are the same portable runner; only the job server differs).
# Example:
#   SPARK_JOB_ENDPOINT=spark-js:8099 INPUT='gs://crawl/2012/*.warc.gz' \
#     OUTPUT=gs://crawl/index BIGTABLE=my-project/recrawl/captures scripts/run-spark.sh
set -euo pipefail
RECRAWL_PORTABLE_RUNNER=spark RECRAWL_SCRIPT="$0" exec "$(dirname "$0")/run-flink.sh" "$@"
