#!/usr/bin/env bash
# Runs the hostile-input suite (internal/testkit/hostile/suite_test.go):
# cut and byte-flipped copies of every conformance archive, malformed
# specifications, reads outside the allowed folders (watched with inotify),
# a second run into a running one's output, compressed bombs (peak RSS), and
# SIGKILL at random moments of the extraction and the index pipeline, each
# followed by a resume compared byte for byte with an uninterrupted run.
# Prints one summary line of counts and fails when any count is wrong.
#
# Usage: scripts/hostile.sh [SEED]   (default: the suite's fixed seed; the
# seed is printed, so a failing run can be replayed)
set -euo pipefail
cd "$(dirname "$0")/.."
export RECRAWL_HOSTILE_SUITE=1
if [ $# -gt 0 ]; then
  export RECRAWL_HOSTILE_SEED="$1"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if go test -count=1 -timeout 20m -run '^TestHostileSuite$' -v ./internal/testkit/hostile/ >"$log" 2>&1; then
  grep -E '^(hostile suite|extract:|index:|bombs:)' "$log"
else
  tail -n 80 "$log"
  echo "hostile-input suite FAILED" >&2
  exit 1
fi
