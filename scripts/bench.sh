#!/usr/bin/env bash
# Benchmarks with targets, printed as ratios against a baseline measured in
# the same run (never as timed tests). Usage:
#   scripts/bench.sh index     # indexer MB/s vs. the decompress+scan ceiling; look-ups/s per backend
# Environment: BENCH_DIR (default bench-out), BENCH_ARCHIVE_BYTES (default 1GB).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-index}"
dir="${BENCH_DIR:-$PWD/bench-out}"
bytes="${BENCH_ARCHIVE_BYTES:-1GB}"
mkdir -p "$dir"

bench_index() {
  archive="$dir/archive-$bytes"
  if [ ! -f "$archive/.complete" ]; then
    echo "== generating a $bytes synthetic archive in $archive (once; reused by later runs)"
    rm -rf "$archive"
    go run ./cmd/genarchive --out "$archive" --target-bytes "$bytes" --seed 1
    touch "$archive/.complete"
  fi
  echo "== indexer vs. ceiling, one core (GOMAXPROCS=1), same files, same run"
  RECRAWL_BENCH_ARCHIVE="$archive" GOMAXPROCS=1 go test ./internal/cdxj -run '^$' \
    -bench '^(BenchmarkArchiveIndexer|BenchmarkArchiveScanCeiling)$' -benchtime 1x -count 1 | tee "$dir/index.txt"
  awk '/^BenchmarkArchiveIndexer/ {for(i=1;i<=NF;i++) if($(i+1)=="MB/s") idx=$i}
       /^BenchmarkArchiveScanCeiling/ {for(i=1;i<=NF;i++) if($(i+1)=="MB/s") ceil=$i}
       END { if (idx && ceil) printf "indexer %.1f MB/s per core, ceiling %.1f MB/s: %.0f %% of the ceiling (target >= 70 %%)\n", idx, ceil, 100*idx/ceil }' "$dir/index.txt"

  echo "== the whole index pipeline on prism (2 cores)"
  start=$(date +%s.%N)
  go run ./pipelines/index --input="$archive/*.warc.gz" --output="$dir/index-zipnum" --format=zipnum --shards=4
  end=$(date +%s.%N)
  size=$(du -cb "$archive"/*.warc.gz | tail -1 | cut -f1)
  awk -v s="$size" -v a="$start" -v b="$end" 'BEGIN { printf "pipeline: %.1f MB/s of compressed input in %.1f s\n", s/1e6/(b-a), b-a }'

  echo "== look-ups per second, 100,000 random URLs in batches, per backend (target >= 20,000/s)"
  go test ./internal/lookup -run '^$' -bench 'BenchmarkLookup' -benchtime 1x -count 1 | tee "$dir/lookup.txt"
}

case "$what" in
  index) bench_index ;;
  *) echo "unknown benchmark $what (known: index)"; exit 2 ;;
esac
