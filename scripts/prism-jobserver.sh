#!/usr/bin/env bash
# Starts a standalone prism job server (Beam's portable runner, the same job
# API as Flink's and Spark's job servers) and keeps it in the foreground.
# Arguments are passed on to prism, e.g.:
#   scripts/prism-jobserver.sh --job_port=18073 --web_port=18074
# Submit a pipeline to it with:
#   --runner=universal --endpoint=localhost:18073 --environment_type=LOOPBACK
# The binary is built once into $RECRAWL_BIN (default .cache/bin) so restarts are fast.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${RECRAWL_BIN:-$PWD/.cache/bin}"
mkdir -p "$bin"
if [ ! -x "$bin/prism" ] || [ go.mod -nt "$bin/prism" ]; then
  go build -o "$bin/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
fi
exec "$bin/prism" "$@"
