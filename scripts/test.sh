#!/usr/bin/env bash
# Runs every test of recrawl: static checks, unit tests, conformance tests
# against ../shared, and integration tests against real local servers (the
# Bigtable and GCS emulators in the test process, the prism job server by `go
# tool prism`, the clusters by the scripts in this folder; internal/testkit/testservers).
# Usage: scripts/test.sh [go test flags...]
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "not gofmt'ed:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== licences"
scripts/check-licenses.sh

echo "== go test"
go test -count=1 -timeout 40m "$@" ./...

# The index built with -tags isal inflates with ISA-L (internal/inflate):
# the same members, offsets and index lines, on every real archive in
# ../shared and for any split (install-test-deps.sh installs libisal-dev).
if [ -f /usr/include/isa-l/igzip_lib.h ] || [ -n "${CI:-}" ]; then
  echo "== go test -tags isal (ISA-L inflate)"
  go test -count=1 -timeout 15m -tags isal "$@" ./internal/inflate ./internal/records/...
  go test -count=1 -timeout 15m -tags isal "$@" ./internal/cdxj \
    -run 'TestConformance|TestDamaged|TestPywbDoctests|TestOtherArchives|TestNothingReadable|TestSplitConformance|TestSplitDamagedCRC|TestSplitGeneratedDamaged|TestSplitStoredInnerArchive'
else
  echo "== go test -tags isal: skipped, no libisal-dev (scripts/install-test-deps.sh installs it)"
fi

echo "== hostile-input suite"
scripts/hostile.sh
