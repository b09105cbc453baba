#!/usr/bin/env bash
# Runs the Cloud Bigtable emulator (cloud.google.com/go/bigtable/cmd/emulator, a
# `tool` in go.mod, so `go tool` builds it once at the pinned version) on
# 127.0.0.1 in the foreground, until Ctrl-C. In another shell:
#   export BIGTABLE_EMULATOR_HOST=127.0.0.1:PORT
# Usage: scripts/bigtable-emulator.sh [--port PORT]   (default 8086)
# The tests start the same emulator in process (internal/testkit/testservers).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] || [ $# -eq 2 -a "$1" = --port ] || { echo "usage: $0 [--port PORT]" >&2; exit 2; }
port="${2:-8086}"
echo "BIGTABLE_EMULATOR_HOST=127.0.0.1:$port"
exec go tool emulator -host=127.0.0.1 -port="$port"
