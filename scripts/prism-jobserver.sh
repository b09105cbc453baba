#!/usr/bin/env bash
# Runs a standalone prism job server (Beam's portable runner, the same job API
# as Flink's and Spark's job servers; a `tool` in go.mod) in the foreground.
# Arguments are passed on to prism, e.g.:
#   scripts/prism-jobserver.sh --job_port=18073 --web_port=18074
# Submit a pipeline to it with:
#   --runner=universal --endpoint=localhost:18073 --environment_type=LOOPBACK
set -euo pipefail
cd "$(dirname "$0")/.."
exec go tool prism "$@"
