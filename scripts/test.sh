#!/usr/bin/env bash
# Runs every test of recrawl: static checks, unit tests, conformance tests
# against ../shared, and integration tests against real local servers (the
# Bigtable emulator and the prism job server, started by the scripts in this
# folder). Usage: scripts/test.sh [go test flags...]
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "not gofmt'ed:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 25m "$@" ./...

echo "== hostile-input suite"
scripts/hostile.sh
