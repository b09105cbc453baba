#!/usr/bin/env bash
# Submits a recrawl pipeline (index or extract) to a Spark cluster through
# Beam's Spark job server: the portable runner, --runner=spark
# --endpoint=JOB_SERVER. Every command is printed before it runs; --print
# (first argument) or PRINT_ONLY=1 only prints them.
#
# The job server: one already running (SPARK_JOB_ENDPOINT=HOST:PORT), or,
# with SPARK_MASTER_URL=spark://HOST:7077, Beam's image started here:
#   docker run --rm --detach --net=host apache/beam_spark3_job_server:<BEAM_VERSION> \
#     --spark-master-url=spark://HOST:7077 --job-port=8099 --artifact-port=8098 --expansion-port=8097
# Where the names come from (Beam 2.77.0): the image is
# docker_image_default_repo_prefix ("beam_") + spark_job_server_image
# ('spark3_job_server', apache/beam runners/spark/3/job-server/container/build.gradle)
# under the "apache" root, tagged with the SDK version; Spark 3 is the only
# Spark version of the release (SparkRunnerOptions --spark_version choices
# ['3'] in the v2.77.0 module's sdks/python/apache_beam/options/pipeline_options.py);
# the flags are SparkJarJobServer.java_arguments in
# sdks/python/apache_beam/runners/portability/spark_runner.py.
#
# Environment (see scripts/run-flink.sh, which does the work: Beam's Flink and
# Spark runners are the same portable runner, only the job server differs):
#   SPARK_JOB_ENDPOINT or SPARK_MASTER_URL, BEAM_VERSION, JOB_SERVER_IMAGE,
#   JOB_PORT, ARTIFACT_PORT, EXPANSION_PORT, ARTIFACTS_DIR,
#   PIPELINE (index: INPUT, OUTPUT, FORMAT, SHARDS, BIGTABLE;
#             extract: SPEC, INDEX, ARCHIVE, OUTPUT, WORK),
#   ENVIRONMENT_TYPE, ENVIRONMENT_CONFIG, WORKER_BINARY, JOB_NAME, PRINT_ONLY=1
# Example:
#   SPARK_MASTER_URL=spark://spark-master:7077 INPUT='gs://crawl/2012/*.warc.gz' \
#     OUTPUT=gs://crawl/index BIGTABLE=my-project/recrawl/captures scripts/run-spark.sh
set -euo pipefail
RECRAWL_PORTABLE_RUNNER=spark RECRAWL_SCRIPT="$0" exec "$(dirname "$0")/run-flink.sh" "$@"
