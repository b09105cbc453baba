#!/usr/bin/env bash
# Installs the peer indexers that `scripts/bench.sh index` measures beside
# recrawl, pinned, into a cache outside the repository:
#
#   $BENCH_DEPS (default ~/.cache/recrawl-bench)/
#     py/       a Python venv with pywb (cdx-indexer --cdxj), warcio and cdxj-indexer
#     jwarc.jar the jwarc jar from Maven Central (java -jar jwarc.jar cdxj FILE)
#     .complete-<versions>  marker: a second run with the same pins does nothing
#
# Also Debian's isal (igzip) and libdeflate-tools (libdeflate-gunzip): the
# faster inflaters whose speed on the same files bench.sh prints beside Go's;
# and libisal-dev, for the index built with `-tags isal` (internal/inflate:
# ISA-L's inflate through cgo), which bench.sh runs beside the default.
#
# Needs python3 (venv), java and mvn. Prints the cache directory.
set -euo pipefail
deps="${BENCH_DEPS:-$HOME/.cache/recrawl-bench}"

# Pins. pywb: the version the replay tests pin (scripts/replay-deps.env).
PYWB_VERSION=2.9.1
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
if ! command -v igzip >/dev/null 2>&1 || ! command -v libdeflate-gunzip >/dev/null 2>&1 || [ ! -f /usr/include/isa-l/igzip_lib.h ]; then
  echo "== installing isal, libisal-dev and libdeflate-tools (apt)" >&2
  if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq isal libisal-dev libdeflate-tools >&2
fi
echo "$deps"
