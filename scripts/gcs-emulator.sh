#!/usr/bin/env bash
# Runs a Google Cloud Storage emulator (github.com/fsouza/fake-gcs-server, a
# `tool` in go.mod, so `go tool` builds it once at the pinned version) on
# 127.0.0.1 in the foreground, objects in memory, until Ctrl-C. In another
# shell:
#   export STORAGE_EMULATOR_HOST=127.0.0.1:PORT
#   curl -X POST -d '{"name":"my-bucket"}' "http://$STORAGE_EMULATOR_HOST/storage/v1/b?project=p"   # a bucket
# The Go storage client (internal/storage, every pipeline) then talks to it.
# Usage: scripts/gcs-emulator.sh [--port PORT]   (default 4443)
# The tests start the same server in process (internal/testkit/testservers).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] || [ $# -eq 2 -a "$1" = --port ] || { echo "usage: $0 [--port PORT]" >&2; exit 2; }
port="${2:-4443}"
echo "STORAGE_EMULATOR_HOST=127.0.0.1:$port"
# -public-host: the Go client reads objects with XML-API paths (GET /BUCKET/OBJECT),
# which the server serves only for requests to its public host.
exec go tool fake-gcs-server -scheme=http -host=127.0.0.1 -port="$port" -public-host=127.0.0.1 -backend=memory -log-level=warn
