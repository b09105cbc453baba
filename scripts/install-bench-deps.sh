#!/usr/bin/env bash
# Installs the peer indexers that `scripts/bench.sh index` measures beside
# recrawl, pinned, into a cache outside the repository:
#
#   $BENCH_DEPS (default ~/.cache/recrawl-bench)/
#     py/       a Python venv with pywb (cdx-indexer --cdxj), warcio and cdxj-indexer
#     jwarc.jar the jwarc jar from Maven Central (java -jar jwarc.jar cdxj FILE)
#     .complete-<versions>  marker: a second run with the same pins does nothing
#
# Optional (BENCH_ISAL=1): Debian's libisal-dev and libdeflate-dev, for the
# cgo decompressor build (go build -tags isal) that bench.sh measures too.
#
# Needs python3 (venv), java and mvn. Prints the cache directory.
set -euo pipefail
deps="${BENCH_DEPS:-$HOME/.cache/recrawl-bench}"

# Pins. pywb's is the one the replay tests use (scripts/install-test-deps.sh).
PYWB_VERSION=2.10.0
WARCIO_VERSION=1.8.1
CDXJ_INDEXER_VERSION=1.5.0
JWARC_VERSION=0.35.0

marker="$deps/.complete-pywb$PYWB_VERSION-warcio$WARCIO_VERSION-cdxj$CDXJ_INDEXER_VERSION-jwarc$JWARC_VERSION"
mkdir -p "$deps"
if [ ! -f "$marker" ]; then
  echo "== installing the peer indexers into $deps" >&2
  rm -rf "$deps/py"
  python3 -m venv "$deps/py"
  "$deps/py/bin/pip" install --quiet --disable-pip-version-check \
    "pywb==$PYWB_VERSION" "warcio==$WARCIO_VERSION" "cdxj-indexer==$CDXJ_INDEXER_VERSION" >&2
  mvn -q dependency:get -Dartifact="org.netpreserve:jwarc:$JWARC_VERSION" -Dtransitive=false >&2
  mvn -q dependency:copy -Dartifact="org.netpreserve:jwarc:$JWARC_VERSION" -DoutputDirectory="$deps" -Dmdep.stripVersion=true >&2
  test -s "$deps/jwarc.jar"
  touch "$marker"
fi
if [ -n "${BENCH_ISAL:-}" ] && ! dpkg -s libisal-dev libdeflate-dev >/dev/null 2>&1; then
  echo "== installing libisal-dev and libdeflate-dev (apt)" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libisal-dev libdeflate-dev >&2
fi
echo "$deps"
