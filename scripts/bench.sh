#!/usr/bin/env bash
# Benchmarks with targets, printed as ratios against a baseline measured in
# the same run (never as timed tests). Usage:
#
#   scripts/bench.sh index      # indexer MB/s per core vs. the decompress+scan ceiling (target >= 70 %);
#                               # wall time of the index pipeline on prism; look-ups/s per backend;
#                               # ZipNum look-ups of a sorted batch, cold and warm
#                               # (100,000 random URLs in batches of 1000; target >= 20,000/s)
#   scripts/bench.sh machine    # (part of index) the whole index pipeline on all cores vs. the all-cores
#                               # inflate+scan ceiling (and the indexer alone, indexer-*, beside it),
#                               # 4 files and 1 file, 1 and 2 workers, CDXJ and ZipNum, peak RSS (target:
#                               # >= 0.9 of the ceiling by wall time, < 1 GB). The default build runs
#                               # BENCH_REPS rounds per cell, each the ceiling then the pipelines and the
#                               # indexer alone; every run is paired with its round's ceiling and the target
#                               # is judged on the median ratio (min-max beside it). -tags isal (ISA-L inflate)
#                               # runs one round. Then the 1-worker cells again, each pipeline side by side
#                               # with its ceiling on the other core. The corpus: real pages (BENCH_CORPUS).
#                               # The peers (jwarc, warcio, cdxj-indexer, pywb) once on one
#                               # file: MB per CPU-second, ratio to recrawl, lines equal to pywb's.
#                               # BENCH_BASE=REV adds REV's pipeline (e.g. main) to every round, run
#                               # beside this build's in alternating order, and prints this build's speed-up
#   scripts/bench.sh document   # documents/s per core of the whole per-document step vs. the bare
#                               # html.Parse of the same pages (target: step within 3x the parse, in CPU time)
#   scripts/bench.sh extract    # Beam (prism) vs. sequential engine on the same archive: wall time,
#                               # peak RSS, seconds per round and the fixed cost of a round
#                               # (target: Beam at K=1000 at least as fast; peak RSS < 2 GB); then extract-jobs
#   scripts/bench.sh extract-jobs  # (part of extract) rounds per job: wall time per round for N = 1 and 10
#                               # rounds per job at K = 100 and 1000 on prism, a Flink and a Spark cluster
#                               # (started and stopped here by the project's scripts); the job start and the
#                               # work per round from N = 1 against N = 10 on the same runner
#   scripts/bench.sh clusters-scale  # extract-jobs on the scale benchmark's 10^6-capture archive: each cluster
#                               # (Flink, Spark) also indexes it (ZipNum, 4 shards, --dictionary; wall, CPU, peak
#                               # RSS) and its index is compared byte for byte with prism's (CLUSTERS_SCALE_INDEX);
#                               # then K = 1000, 10 rounds at N = 10 and N = 1 on prism, Flink and Spark; every
#                               # output file compared with prism's; job start and work per round
#   scripts/bench.sh refresh    # recrawl extract --refresh after a night that adds 1 % of the captures to the
#                               # index (the night-1 index: every 100th CDXJ line left out) against a fresh
#                               # extraction of the same final size on the whole index, in one run: the wall
#                               # time of each and their ratio (the refresh's work should follow what changed,
#                               # not the collection). BENCH_REFRESH_BYTES (default 200MB), BENCH_REFRESH_TARGET
#                               # (default 2000 documents; night 1 extracts 99 % of it), BENCH_REFRESH_K (200)
#   scripts/bench.sh build      # cold build of the module: wall time of `go build ./...` of a copy of the
#                               # module, its dependencies cached (target < 90 s on 2 cores), and the largest
#                               # compiler memory of any of its packages (target < 2 GB); BENCH_BUILD_FRESH=1
#                               # compiles the dependencies cold too (an empty GOCACHE), timed apart
#   scripts/bench.sh replay     # ReplayWeb.page (headless Chromium): time from opening the viewer to the first
#                               # replayed page and to the slowest of the checked pages, for the default package
#                               # and two earlier forms (every document in pages.jsonl, with a ZipNum or a flat
#                               # index), for collections of 348 and 19,045 documents (target: every checked page
#                               # of the default package within 30 s); with BENCH_REPLAY_OUTPUT=DIR, the package
#                               # of that `recrawl extract` output instead (same target)
#   scripts/bench.sh incremental  # an index grown night by night (index --add): the cost of adding a 1 % night
#                               # against a full rebuild of all the files, in wall time and bytes written (target
#                               # <= 3 % each); nights of 1 % and 3 % and a night that adds nothing (BENCH_REPS
#                               # rounds, each from a copy of one base) give the fixed part of a night and its cost
#                               # per GB, by wall and CPU time, and from them the archive size at which a 1 % night
#                               # is within 3 %; the package initialization of recrawl (GODEBUG=inittrace=1); then
#                               # look-ups/s across a base and 10 segments against the same index compacted (target
#                               # >= 0.7; BENCH_INCR_LOOKUPS=0 leaves them out); ZipNum, 4 shards, on a generated
#                               # archive of BENCH_ARCHIVE_BYTES cut into 100 files (BENCH_DIR/archive-incr-SIZE)
#   scripts/bench.sh scale      # the same measurements on generated archives of growing size (SCALE_SIZES captures,
#                               # default "1e5 1e6 3e6"): per size, the ZipNum index with the dictionary (MB/s against
#                               # the all-cores inflate+scan ceiling of the same files, by wall and by CPU time (the
#                               # ratio a loaded machine changes less), peak RSS, peak bytes of its
#                               # temporary run files against the final index), index look-ups/s cold (a new reader per
#                               # batch of 1,000 random keys) and warm (one reader, 100 batches), and one event
#                               # extracted on prism (K = SCALE_K to SCALE_TARGET documents): wall time, peak RSS, the
#                               # frontier per round, and seconds per round split into a fixed part and a part per URL
#                               # looked up (least squares over the rounds of that run and of a run at K = SCALE_SMALL_K);
#                               # then one table and the ratio of each figure, largest archive over smallest.
#                               # Archives are generated once into SCALE_DIR with genarchive --captures N (N
#                               # captures, the lines of the index, or up to 7 more; 2.4-2.7 captures and about
#                               # 4.8-5 KB of WARC per capture): 10^5 is 36,837 article pages and 0.48 GB, 10^6
#                               # about 410,000 pages and 5 GB, 3x10^6 about 1.25 million pages and 15 GB of WARC
#                               # (about 21 GB of disk for all three). 10^5 took 77 s wall, 33 CPU-s, peak RSS
#                               # 136 MB on this machine (2 cores, nice 10, load 8-10 from other work); quiet,
#                               # genarchive writes about 2,200 article pages/s, which puts 10^6 at about 3 minutes
#                               # and 3x10^6 at about 10 (extrapolated, not measured with --captures).
#   scripts/bench.sh lookups    # cold and warm ZipNum look-ups on the 10^6-capture archive of `scale` (SCALE_DIR/
#                               # archive-1000000, generated once), one index per --lines_per_block of LOOKUP_BLOCKS
#                               # (default "3000 1000 300"; the first is the baseline of every ratio): index bytes,
#                               # cluster.idx bytes (and what it would weigh at 4 billion captures), index CPU-s;
#                               # look-ups of batches of 1,000 random keys and of the batches of real rounds (the
#                               # URLs each round of a short extraction looked up: its documents, missing URLs and
#                               # listings), cold (a new reader per batch) and warm (one reader), in lookups/s and
#                               # lookups/cpu-s, blocks and MB inflated per batch (target cold >= 10,000/s)
#   scripts/bench.sh all
#
# Environment:
#   BENCH_DIR            output and cache directory (default bench-out)
#   BENCH_ARCHIVE_BYTES  size of the generated archive (default 1GB; e.g. 200MB for a quick run).
#                        It is generated once per size (marker file .complete) and reused.
#   BENCH_REPS           repetitions of the interleaved measurements (default 3; medians are printed;
#                        `machine`: rounds of the default build per cell, about 3 minutes each on 2 cores)
#   BENCH_CORPUS         the archive for `machine`: "real" (default: 4 files of 262 MB whose captures are
#                        the 324 real news, blog and shop pages of ../shared/conformance/dates, recaptured,
#                        ~31,000 captures per GB like a crawl of real news sites; cmd/genrealcorpus, once, into
#                        BENCH_DIR/real-4x262MB), "generated" (the generated archive: small pages, ~210,000
#                        captures per GB, where the cost per record weighs six times more) or a directory;
#                        its files are also concatenated once into BENCH_DIR/one-file-NAME/all.warc.gz (1 file)
#   BENCH_WORKERS        worker counts for `machine` (default "1 2": GOMAXPROCS of the pipeline and ceiling)
#   BENCH_BASE           `machine`: a git revision (e.g. main) whose index pipeline is built (from
#                        `git archive`, into BENCH_DIR/base-src) and run as the baseline in every round:
#                        rows base-go-*, and RESULT lines of this build's speed-up over it per cell, by wall
#                        and by CPU time (median of the rounds, min-max)
#   BENCH_ISAL           `machine`, `lookups`: 0 leaves out the -tags isal build (default 1)
#   BENCH_SIDE           `machine`: 0 leaves out the side-by-side rounds (default 1: the 1-worker cells again,
#                        each pipeline run at the same time as its ceiling, each on its own core, so that both
#                        meet the same machine; rows "1-side")
#   BENCH_PEERS          `machine`: 0 leaves out the peers (default 1); with BENCH_WORKERS, a run of
#                        record can be split into runs that each fit a quiet-machine window
#   BENCH_EXTRACT_TARGET documents to extract (default 20000), BENCH_EXTRACT_K batch size (default 1000),
#   BENCH_EXTRACT_JOBS_BYTES  extract-jobs' archive (default 200MB: 14,630 article pages, generated once)
#   BENCH_EXTRACT_JOBS_ROUNDS rounds per extraction (default 10), BENCH_EXTRACT_JOBS_K (default "100 1000"),
#   BENCH_EXTRACT_JOBS_N      rounds per job (default "1 10"), BENCH_EXTRACT_JOBS_REPS repetitions (default 1),
#   BENCH_EXTRACT_JOBS_TIMEOUT  seconds after which one extraction is stopped and reported (default 1800)
#   BENCH_EXTRACT_RUNNERS     default "prism flink spark" (the clusters need scripts/install-cluster-deps.sh)
#   BENCH_EXTRACT_JOBS_N1_ROUNDS  rounds of the N = 1 runs (default: BENCH_EXTRACT_JOBS_ROUNDS); when fewer, the same
#                        rounds also run as one job, and the job start comes from those two runs
#   BENCH_EXTRACT_JOBS_ARCHIVE, BENCH_EXTRACT_JOBS_INDEX  an existing archive (with .complete) and its index
#                        instead of the generated one (the index is built by prism when unset)
#   BENCH_EXTRACT_JOBS_INDEX_ON  clusters that also index the archive, compared with the index above (default none)
#   BENCH_EXTRACT_JOBS_INDEX_FLAGS  default "--format=zipnum --shards=4 --dictionary"
#   CLUSTERS_SCALE_CAPTURES (default 1e6), CLUSTERS_SCALE_INDEX (prism's index of it), CLUSTERS_SCALE_INDEX_ON
#                        (default "flink spark"), CLUSTERS_SCALE_N1_ROUNDS (default 10): `clusters-scale`
#   BENCH_REPLAY_PAGES   generated article pages per replay collection (default "80 9200": 348 and
#                        19,045 documents; 5400 gives 11,724); kept in BENCH_DIR/replay; needs
#                        scripts/install-test-deps.sh
#   BENCH_REPLAY_OUTPUT  `replay`: an extraction output folder (collection.wacz, collection.warc.gz,
#                        collection.cdxj, documents.jsonl) to measure instead of the generated collections;
#                        its package is read, never rewritten; 4 documents are checked, and a revisit and a
#                        redirect where it has them
#   BENCH_EXTRACT_SPEC   event of the generated archive whose spec is used (default federal-election-2009)
#   SCALE_SIZES          `scale`: archive sizes in captures (default "1e5 1e6 3e6"; e.g. "1e4 1e5" for a quick run)
#   SCALE_DIR            `scale`: where the generated archives are kept (default ~/.cache/recrawl/scale)
#   SCALE_TARGET, SCALE_K  `scale`: documents to extract (default 20000) and the batch size (default 1000)
#   SCALE_SMALL_K, SCALE_SMALL_ROUNDS  `scale`: the second extraction, for the fit of a round's fixed part
#                        (default K = 100, 8 rounds)
#   SCALE_INDEX_FLAGS    `scale`: index flags beyond --format=zipnum --shards=4 (default --dictionary)
#   LOOKUP_BLOCKS        `lookups`: the --lines_per_block of each index (default "3000 1000 300")
#   LOOKUP_ROUNDS        `lookups`: rounds of the extraction whose batches are looked up (default 8: 6 of K = 1,000)
#
# Binaries are built first (build time never counts), into BENCH_DIR/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-index}"
dir="${BENCH_DIR:-$PWD/bench-out}"
bytes="${BENCH_ARCHIVE_BYTES:-1GB}"
reps="${BENCH_REPS:-3}"
mkdir -p "$dir/bin"
dir="$(cd "$dir" && pwd)"
bin="$dir/bin"
archive="$dir/archive-$bytes"

# go test -bench output is read only by benchstat (a tool of go.mod: go tool benchstat).
# benchstat_table FILE [ARGS...]: benchstat's summary of FILE (median and spread of each metric), for the log.
benchstat_table() { local f="$1"; shift; go tool benchstat "$@" "$f" | grep -v -E '^(goos|goarch|pkg|cpu):'; }

# benchstat_rows FILE FILTER UNIT: "name,median" per benchmark that FILTER (benchstat -filter) selects,
# of the metric UNIT as benchstat names it: in base units (MB/s and MB/cpu-s are B/s and B/cpu-s there,
# in bytes; ns/op is sec/op).
benchstat_rows() {
  go tool benchstat -format csv -filter "$2" "$1" 2>/dev/null |
    sed -n "\|^,$3,CI\$|,/^\$/p" | sed -e '1d' -e '/^$/d' -e '/^geomean,/d' | cut -d, -f1,2
}

# benchstat_median FILE FILTER UNIT: the median of UNIT over the runs FILTER selects (one benchmark), or nan.
benchstat_median() { local v; v=$(benchstat_rows "$@" | head -1 | cut -d, -f2); echo "${v:-nan}"; }

# timed LOG CMD...: runs CMD under /usr/bin/time -v (when available) and prints "wall_s peak_rss_mb cpu_s".
timed() {
  local log="$1"; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1 || { echo "FAILED: $*  (see $log)" >&2; tail -20 "$log" >&2; return 1; }
    awk -F': ' '/Elapsed \(wall clock\)/ { n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; wall=s }
                /Maximum resident set size/ { rss=$2/1024 }
                /User time|System time/ { cpu+=$2 }
                END { printf "%.2f %.0f %.2f\n", wall, rss, cpu }' "$log.time"
  else
    local a b
    a=$(date +%s.%N)
    "$@" >"$log" 2>&1 || { echo "FAILED: $*  (see $log)" >&2; tail -20 "$log" >&2; return 1; }
    b=$(date +%s.%N)
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f nan nan\n", b-a }'
  fi
}

# ensure_real_corpus DIR: the real-page corpus of `machine` (cmd/genrealcorpus), written once.
ensure_real_corpus() {
  if [ ! -f "$1/.complete" ]; then
    local pages="${RECRAWL_SHARED:-$PWD/../shared}/conformance/dates"
    [ -f "$pages/labels.tsv" ] || { echo "bench.sh: the real pages are missing: $pages/labels.tsv (set RECRAWL_SHARED, or BENCH_CORPUS=generated)" >&2; exit 1; }
    go build -o "$bin/genrealcorpus" ./cmd/genrealcorpus
    echo "== writing the real-page corpus in $1 (once; reused by later runs)"
    rm -rf "$1"
    "$bin/genrealcorpus" --out "$1" --pages "$pages" --files 4 --file_bytes 262MB | tail -1
    touch "$1/.complete"
  fi
}

# ensure_scale_archive N DIR LOG: the generated archive of N captures (the lines of its CDXJ index:
# genarchive --captures N writes N to N+7) in DIR, which `scale`, `lookups` and `clusters-scale`
# share; generated once (marker file .complete), the generation's output and timing in LOG.
ensure_scale_archive() {
  local n="$1" a="$2" log="$3" gwall
  if [ -f "$a/.complete" ]; then return 0; fi
  go build -o "$bin/genarchive" ./cmd/genarchive
  echo "== generating $n captures in $a (once; reused by later runs of scale, lookups and clusters-scale)"
  rm -rf "$a"
  read -r gwall _ _ < <(timed "$log" "$bin/genarchive" --out "$a" --captures "$n" --seed 1 --quiet) || exit 1
  echo "generated in $gwall s: $(awk -F'  +' '/^article pages/ { p = $2 } /^captures/ { c = $2 } /^bytes \(gzip\)/ { b = $2 + 0 }
    END { printf "%d captures, %d article pages, %.2f GB", c, p, b / 1e9 }' "$log")"
  touch "$a/.complete"
}

ensure_archive() {
  if [ ! -f "$archive/.complete" ]; then
    go build -o "$bin/genarchive" ./cmd/genarchive
    echo "== generating a $bytes synthetic archive in $archive (once; reused by later runs)"
    rm -rf "$archive"
    "$bin/genarchive" --out "$archive" --target_bytes "$bytes" --seed 1 --quiet | sed -n '1,10p'
    touch "$archive/.complete"
  fi
  size=$(du -cb "$archive"/*.warc.gz | tail -1 | cut -f1)
  pages=$(awk -F': ' '/"pages"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$archive/summary.json")
  echo "archive: $archive: $(ls "$archive"/*.warc.gz | wc -l) file(s), $((size / 1000000)) MB compressed, $pages article pages"
}

bench_index() {
  ensure_archive
  go test -c -o "$bin/cdxj.test" ./internal/cdxj
  go test -c -o "$bin/lookup.test" ./internal/lookup
  go build -o "$bin/recrawl" ./cmd/recrawl

  echo
  echo "== indexer vs. ceiling, one core (GOMAXPROCS=1), same files, interleaved, $reps rounds"
  : >"$dir/index.txt"
  for r in $(seq "$reps"); do
    for b in BenchmarkArchiveIndexer BenchmarkArchiveScanCeiling; do
      RECRAWL_BENCH_ARCHIVE="$archive" GOMAXPROCS=1 "$bin/cdxj.test" -test.run '^$' \
        -test.bench "^$b\$" -test.benchtime 1x | grep '^Benchmark' | tee -a "$dir/index.txt"
    done
  done
  # The indexer against the ceiling, metric by metric (medians, spread, and the indexer's difference).
  benchstat_table "$dir/index.txt" -col .name
  # Headline: MB per CPU-second (the process's user+system time), which the
  # other load of a shared machine barely changes; wall-clock MB/s beside it.
  for unit in B/cpu-s B/s; do
    idx=$(benchstat_median "$dir/index.txt" .name:ArchiveIndexer "$unit")
    ceil=$(benchstat_median "$dir/index.txt" .name:ArchiveScanCeiling "$unit")
    awk -v u="$unit" -v i="$idx" -v c="$ceil" 'BEGIN {
      u = "M" u; i /= 1e6; c /= 1e6
      printf "RESULT index (%s): indexer %.1f, ceiling %.1f %s of compressed input, one core (medians): %.0f %% of the ceiling (target >= 70 %%: %s)\n",
        u, i, c, u, 100*i/c, (i/c >= 0.7 ? "met" : "NOT met") }'
  done

  echo
  echo "== the whole index pipeline on prism (zipnum, 4 shards; all cores), wall time and peak RSS"
  rm -rf "$dir/index-zipnum-$bytes.tmp"
  read -r wall rss cpu < <(timed "$dir/index-pipeline.log" "$bin/recrawl" index --input="$archive/*.warc.gz" \
    --output="$dir/index-zipnum-$bytes.tmp" --format=zipnum --shards=4)
  awk -v s="$size" -v w="$wall" -v m="$rss" -v c="$cpu" -v n="$(nproc)" 'BEGIN {
    printf "RESULT index pipeline: %.1f s wall for %.0f MB compressed on %d cores: %.1f MB/s; %.1f CPU-s: %.1f MB/cpu-s; peak RSS %s MB\n", w, s/1e6, n, s/1e6/w, c, s/1e6/c, m }'
  rm -rf "$dir/index-zipnum-$bytes.tmp"
  # The same with the dictionary (its default bound, --dictionary_docs), as a ratio to the index alone.
  read -r dwall drss dcpu < <(timed "$dir/index-dictionary.log" "$bin/recrawl" index --input="$archive/*.warc.gz" \
    --output="$dir/index-zipnum-$bytes.tmp" --format=zipnum --shards=4 --dictionary)
  awk -v w="$wall" -v c="$cpu" -v dw="$dwall" -v dc="$dcpu" -v m="$drss" 'BEGIN {
    printf "RESULT index pipeline with --dictionary: %.1f s wall (%.2fx the index alone), %.1f CPU-s (%.2fx); peak RSS %s MB\n", dw, dw/w, dc, dc/c, m }'
  rm -rf "$dir/index-zipnum-$bytes.tmp"

  echo
  echo "== look-ups per second: 100,000 random URLs (100 batches of 1000) per backend, 1M-capture index (target >= 20,000/s)"
  # The backends; BENCH_LOOKUP_ALL=1 adds the slow diagnostic variants (no cache, 300-line blocks).
  pat='BenchmarkLookup/(cdxj-disk|zipnum|zipnum-cache512M|bigtable-bttest)$'
  [ -n "${BENCH_LOOKUP_ALL:-}" ] && pat='BenchmarkLookup'
  (cd internal/lookup && "$bin/lookup.test" -test.run '^$' -test.bench "$pat" -test.benchtime 100x) | tee "$dir/lookup.txt" | grep -E '^Benchmark|lookup_test|bench_test'
  benchstat_rows "$dir/lookup.txt" .name:Lookup lookups/s | while IFS=, read -r name v; do
    name="${name#Lookup/}"
    [[ "$name" =~ ^(.*)-[0-9]+$ ]] && name="${BASH_REMATCH[1]}"
    awk -v n="$name" -v v="$v" 'BEGIN {
      printf "RESULT lookup %-24s %9.0f look-ups/s  %s\n", n, v, (v >= 20000 ? "(target met)" : "(below 20,000/s)") }'
  done

  echo
  echo "== ZipNum: a round's sorted batch of 1,000 keys, cold (a new reader per batch) and warm, 10^5 and 10^6 captures (target cold >= 10,000/s)"
  go test -c -o "$bin/zipnum.test" ./internal/zipnum
  (cd internal/zipnum && "$bin/zipnum.test" -test.run '^$' -test.bench 'LookupSortedBatch' -test.benchtime 10x) | tee "$dir/zipnum-batch.txt" | grep -E '^Benchmark'
  for n in 100000 1000000; do
    for unit in lookups/s lookups/cpu-s; do
      cold=$(benchstat_rows "$dir/zipnum-batch.txt" .name:LookupSortedBatch "$unit" | grep "^LookupSortedBatch/captures=$n/cold" | cut -d, -f2)
      warm=$(benchstat_rows "$dir/zipnum-batch.txt" .name:LookupSortedBatch "$unit" | grep "^LookupSortedBatch/captures=$n/warm" | cut -d, -f2)
      awk -v n="$n" -v u="$unit" -v c="$cold" -v w="$warm" 'BEGIN {
        printf "RESULT zipnum sorted batch, %d captures: cold %.0f %s%s, warm %.0f (warm/cold %.1fx)\n", n, c, u,
          (u == "lookups/s" ? (c >= 10000 ? " (target met)" : " (below 10,000/s)") : ""), w, w/c }'
    done
  done
}

# bench_machine: the whole index pipeline at the machine's speed, with the
# ceiling and the peers measured in the same run.
bench_machine() {
  local corpus="${BENCH_CORPUS:-real}"
  case "$corpus" in
    real) corpus="$dir/real-4x262MB"; ensure_real_corpus "$corpus" ;;
    generated) ensure_archive; corpus="$archive" ;;
  esac
  echo "corpus: $corpus: $(ls "$corpus"/*.warc.gz | wc -l) file(s), $(du -cb "$corpus"/*.warc.gz | tail -1 | awk '{ printf "%.0f", $1/1e6 }') MB"
  local one; one="$dir/one-file-$(basename "$corpus")"
  if [ ! -f "$one/.complete" ]; then
    mkdir -p "$one"; cat "$corpus"/*.warc.gz >"$one/all.warc.gz"; touch "$one/.complete"
  fi
  local deps; deps="$(scripts/install-bench-deps.sh)"
  # Two builds: the default (pure-Go inflate) and -tags isal (ISA-L through cgo; internal/inflate).
  go test -c -o "$bin/cdxj.test" ./internal/cdxj
  go build -o "$bin/recrawl" ./cmd/recrawl
  local engines=go peers="${BENCH_PEERS:-1}"
  if [ "${BENCH_ISAL:-1}" != 0 ]; then
    engines="go isal"
    go test -c -tags isal -o "$bin/cdxj-isal.test" ./internal/cdxj
    go build -tags isal -o "$bin/recrawl-isal" ./cmd/recrawl
  fi
  local base="${BENCH_BASE:-}"
  local base_cmd=()
  if [ -n "$base" ]; then
    # The baseline's pipeline, built from its revision's tree with this module cache.
    local rev; rev=$(git rev-parse --short "$base")
    rm -rf "$dir/base-src"; mkdir -p "$dir/base-src"
    git archive "$rev" | tar -x -C "$dir/base-src"
    # A revision with cmd/recrawl runs the index as `recrawl index`; an older one has pipelines/index.
    if [ -d "$dir/base-src/cmd/recrawl" ]; then
      (cd "$dir/base-src" && go build -o "$bin/recrawl-base" ./cmd/recrawl)
      base_cmd=("$bin/recrawl-base" index)
    else
      (cd "$dir/base-src" && go build -o "$bin/index-base" ./pipelines/index)
      base_cmd=("$bin/index-base")
    fi
    echo "baseline: $base ($rev), ${base_cmd[*]}"
  fi
  local four_mb one_mb
  four_mb=$(du -cb "$corpus"/*.warc.gz | tail -1 | awk '{ printf "%.1f", $1/1e6 }')
  one_mb=$(du -b "$one/all.warc.gz" | awk '{ printf "%.1f", $1/1e6 }')
  local table="$dir/machine.tsv"
  printf 'what\tcorpus\tworkers\tround\twall_s\tcpu_s\tMB/s\tMB/cpu-s\tpeak_rss_MB\tload\tsteal_s\n' >"$table"
  # steal: the machine's CPU time taken by the hypervisor so far (all CPUs, seconds). On a
  # shared VM it was up to a third of the CPU during a run, which neither load nor the
  # process's CPU time shows.
  steal() { awk '/^cpu / { printf "%.2f\n", $9 / 100 }' /proc/stat; }
  stimed() { # timed, plus the steal during the run
    local s0 out; s0=$(steal); out=$(timed "$@") || return 1
    echo "$out $(awk -v a="$s0" -v b="$(steal)" 'BEGIN { printf "%.2f", b - a }')"
  }
  row() { # WHAT CORPUS WORKERS ROUND MB "wall rss cpu steal"
    local w r c st; read -r w r c st <<<"$6"
    awk -v a="$1" -v b="$2" -v k="$3" -v n="$4" -v mb="$5" -v w="$w" -v r="$r" -v c="$c" -v st="${st:-nan}" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
      printf "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.1f\t%.1f\t%s\t%s\t%s\n", a, b, k, n, w, c, mb/w, mb/c, r, l, st }' | tee -a "$table"
  }
  echo "== the whole index pipeline (prism, in process) vs. the inflate+scan ceiling, same files, same workers; load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "   (-go: the default build, pure-Go inflate, $reps rounds$([ "$engines" = go ] && echo "; no -tags isal build (BENCH_ISAL=0)" || echo "; -isal: built with -tags isal, ISA-L inflate, round 1 only");"
  echo "    each ceiling uses its build's inflate; within a round the ceiling runs right before the pipelines and the indexer alone$([ -n "$base" ] && echo "; base-go-*: $base's pipeline, beside this build's in alternating order"))"
  for workers in ${BENCH_WORKERS:-1 2}; do
    for case in "four-files:$corpus:$four_mb" "one-file:$one:$one_mb"; do
      IFS=: read -r name cdir mb <<<"$case"
      for r in $(seq "$reps"); do
        for engine in $engines; do
          [ "$engine" = isal ] && [ "$r" -gt 1 ] && continue
          local suffix=""; [ "$engine" = isal ] && suffix="-isal"
          row "ceiling-$engine" "$name" "$workers" "$r" "$mb" "$(RECRAWL_BENCH_ARCHIVE="$cdir" GOMAXPROCS="$workers" stimed "$dir/ceiling.log" \
            "$bin/cdxj$suffix.test" -test.run '^$' -test.bench '^BenchmarkArchiveScanCeilingAllCores$' -test.benchtime 1x)"
          for format in cdxj zipnum; do
            # The baseline (BENCH_BASE) beside this build: second in odd rounds, first in even ones.
            local order="recrawl"
            if [ -n "$base" ] && [ "$engine" = go ]; then
              if [ $((r % 2)) = 1 ]; then order="recrawl base"; else order="base recrawl"; fi
            fi
            for who in $order; do
              local what="recrawl-$engine-$format" prog=("$bin/recrawl$suffix" index)
              [ "$who" = base ] && what="base-go-$format" prog=("${base_cmd[@]}")
              rm -rf "$dir/machine-index.tmp"
              row "$what" "$name" "$workers" "$r" "$mb" "$(GOMAXPROCS="$workers" stimed "$dir/machine-index.log" \
                "${prog[@]}" --input="$cdir/*.warc.gz" --output="$dir/machine-index.tmp" --format="$format" --shards=4)"
              if [ "$format" = cdxj ] && [ "$name" = four-files ]; then
                # Every build (and the baseline), worker count and round gives the same index.
                if [ -f "$dir/recrawl.cdxj" ]; then
                  cmp -s "$dir/machine-index.tmp/index.cdxj" "$dir/recrawl.cdxj" || echo "RESULT machine: index.cdxj of $what, $workers worker(s), round $r DIFFERS from the first run's"
                else
                  cp "$dir/machine-index.tmp/index.cdxj" "$dir/recrawl.cdxj"
                fi
              fi
              rm -rf "$dir/machine-index.tmp"
            done
          done
          # The indexer alone (cdxj.IndexRange over the same ranges, lines dropped): what the
          # records cost beyond the ceiling, apart from the pipeline around them.
          row "indexer-$engine" "$name" "$workers" "$r" "$mb" "$(RECRAWL_BENCH_ARCHIVE="$cdir" GOMAXPROCS="$workers" stimed "$dir/ceiling.log" \
            "$bin/cdxj$suffix.test" -test.run '^$' -test.bench '^BenchmarkArchiveIndexerAllCores$' -test.benchtime 1x)"
        done
      done
    done
  done
  rm -f "$dir/recrawl.cdxj"
  [ "${BENCH_SIDE:-1}" != 0 ] && machine_side_by_side
  [ "$peers" != 0 ] && machine_peers
  machine_results
}

# machine_side_by_side: bench_machine's 1-worker cells once more, each pipeline
# run at the same time as its ceiling, each on its own core (taskset; the cores
# swap every round). One binary's single runs drift by 10-20 % from one minute
# to the next on a shared VM, so a ceiling measured before a pipeline can be
# measured on another machine, in effect; side by side, both meet the same one.
# Their rows have workers "1-side" and rounds "Nc"/"Nz" (the format).
machine_side_by_side() {
  if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
    echo "== side by side: skipped (needs 2 cores and taskset)"; return 0
  fi
  echo "== 1 worker, side by side: each pipeline and its ceiling at the same time, on cores 0 and 1 (swapped every round), $reps rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
  local case name cdir mb r format cout pout
  for case in "four-files:$corpus:$four_mb" "one-file:$one:$one_mb"; do
    IFS=: read -r name cdir mb <<<"$case"
    for r in $(seq "$reps"); do
      for format in cdxj zipnum; do
        rm -rf "$dir/side-index.tmp"; cout="$dir/side-ceiling.out"
        ( RECRAWL_BENCH_ARCHIVE="$cdir" GOMAXPROCS=1 stimed "$dir/side-ceiling.log" taskset -c $((r % 2)) \
          "$bin/cdxj.test" -test.run '^$' -test.bench '^BenchmarkArchiveScanCeilingAllCores$' -test.benchtime 1x >"$cout" ) &
        pout=$(GOMAXPROCS=1 stimed "$dir/side-index.log" taskset -c $(((r + 1) % 2)) \
          "$bin/recrawl" index --input="$cdir/*.warc.gz" --output="$dir/side-index.tmp" --format="$format" --shards=4)
        wait $!
        row ceiling-go "$name" 1-side "$r${format:0:1}" "$mb" "$(cat "$cout")"
        row "recrawl-go-$format" "$name" 1-side "$r${format:0:1}" "$mb" "$pout"
        rm -rf "$dir/side-index.tmp"
      done
    done
  done
}

# machine_peers: bench_machine's peers (jwarc, warcio, cdxj-indexer, pywb) on one file.
machine_peers() {
  # The peers are single-threaded: one file, one core each (MB per CPU-second).
  local pf; pf=$(ls "$corpus"/*.warc.gz | head -1)
  local pmb; pmb=$(du -b "$pf" | awk '{ printf "%.1f", $1/1e6 }')
  echo "== the peers on $(basename "$pf") ($pmb MB), one core each"
  for engine in $engines; do
    local suffix=""; [ "$engine" = isal ] && suffix="-isal"
    row "recrawl-$engine-cdxj" one-of-four 1 1 "$pmb" "$(GOMAXPROCS=1 stimed "$dir/peer-recrawl.log" \
      "$bin/recrawl$suffix" index --input="$pf" --output="$dir/peer-recrawl.tmp" --format=cdxj)"
    cp "$dir/peer-recrawl.tmp/index.cdxj" "$dir/peer-recrawl-$engine.cdxj"; rm -rf "$dir/peer-recrawl.tmp"
  done
  if [ "$engines" != go ]; then
    cmp -s "$dir/peer-recrawl-go.cdxj" "$dir/peer-recrawl-isal.cdxj" || echo "RESULT machine: the two builds' index.cdxj DIFFER"
  fi
  mv "$dir/peer-recrawl-go.cdxj" "$dir/peer-recrawl.cdxj"; rm -f "$dir/peer-recrawl-isal.cdxj"
  # Inflate alone, as far as the peers' and faster decompressors go: Go's
  # (klauspost) and ISA-L's inside the ceiling benchmark (inflate + header
  # scan, one core), zlib (gzip; what jwarc and Python use), ISA-L's igzip
  # and libdeflate as programs, to /dev/null.
  mkdir -p "$dir/peer-file"; ln -sf "$pf" "$dir/peer-file/"
  row ceiling-go one-of-four 1 1 "$pmb" "$(RECRAWL_BENCH_ARCHIVE="$dir/peer-file" GOMAXPROCS=1 stimed "$dir/ceiling.log" \
    "$bin/cdxj.test" -test.run '^$' -test.bench '^BenchmarkArchiveScanCeilingAllCores$' -test.benchtime 1x)"
  if [ "$engines" != go ]; then
    row ceiling-isal one-of-four 1 1 "$pmb" "$(RECRAWL_BENCH_ARCHIVE="$dir/peer-file" GOMAXPROCS=1 stimed "$dir/ceiling.log" \
      "$bin/cdxj-isal.test" -test.run '^$' -test.bench '^BenchmarkArchiveScanCeilingAllCores$' -test.benchtime 1x)"
  fi
  row inflate-zlib one-of-four 1 1 "$pmb" "$(stimed "$dir/inflate.log" bash -c 'gzip -dc "$1" >/dev/null' _ "$pf")"
  row inflate-igzip one-of-four 1 1 "$pmb" "$(stimed "$dir/inflate.log" bash -c 'igzip -dc "$1" >/dev/null' _ "$pf")"
  row inflate-libdeflate one-of-four 1 1 "$pmb" "$(stimed "$dir/inflate.log" bash -c 'libdeflate-gunzip -c "$1" >/dev/null' _ "$pf")"
  row jwarc one-of-four 1 1 "$pmb" "$(stimed "$dir/peer-jwarc.cdxj" java -XX:ActiveProcessorCount=1 -jar "$deps/jwarc.jar" cdxj "$pf")"
  row warcio one-of-four 1 1 "$pmb" "$(stimed "$dir/peer-warcio.cdxj" "$deps/py/bin/warcio" index "$pf")"
  row cdxj-indexer one-of-four 1 1 "$pmb" "$(stimed "$dir/peer-cdxj-indexer.cdxj" "$deps/py/bin/cdxj-indexer" "$pf")"
  row pywb one-of-four 1 1 "$pmb" "$(stimed "$dir/peer-pywb.log" "$deps/py/bin/cdx-indexer" --cdxj -o "$dir/peer-pywb.cdxj" "$pf")"
  echo
  echo "== outputs: lines, and the share of pywb's lines each output has (same line, any order; warcio's index is not CDXJ)"
  local ref="$dir/peer-pywb.cdxj"
  grep -v '^ CDX' "$ref" | sort >"$ref.sorted"
  for p in recrawl jwarc cdxj-indexer pywb warcio; do
    local f="$dir/peer-$p.cdxj"
    sort "$f" >"$f.sorted"
    # jwarc and cdxj-indexer write the digest with its "sha1:" prefix: also compared without it.
    sed 's/"digest": "sha1:/"digest": "/' "$f.sorted" | sort >"$f.nosha1"
    awk -v p="$p" -v n="$(wc -l <"$f.sorted")" -v ref="$(wc -l <"$ref.sorted")" -v same="$(comm -12 "$ref.sorted" "$f.sorted" | wc -l)" \
        -v same2="$(comm -12 "$ref.sorted" "$f.nosha1" | wc -l)" 'BEGIN {
      printf "RESULT output %-13s %7d lines (pywb %d); lines equal to pywb: %d (%.1f %%); without \"sha1:\": %d (%.1f %%)\n", p, n, ref, same, 100*same/ref, same2, 100*same2/ref }'
  done
}

# machine_results: bench_machine's table and its ratios.
machine_results() {
  echo
  echo "== RESULT table ($table)"
  column -t -s $'\t' "$table"
  # Ratios: each pipeline (and the indexer alone) against the ceiling of its own
  # inflate measured in the same round and, for -isal, against the pure-Go
  # ceiling of that round too; by wall time (MB/s; the target, meaningful on an
  # idle machine) and by CPU time (MB/cpu-s; what a loaded machine still
  # measures). The median over the rounds judges the target; min-max beside it
  # (single runs of one binary differ by 10-20 % on a shared VM).
  echo "== load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
  awk -F'\t' '
    function sortv(v, n,   i, j, t) { for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j+1] = v[j]; v[j+1] = t } }
    function stat(name, k, n,   v, i) { for (i = 1; i <= n; i++) v[i] = val[name FS k FS i]; sortv(v, n)
      lo = v[1]; hi = v[n]; return (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2 }
    NR > 1 {
      if ($2 == "one-of-four") { core[$1] = $8; rss[$1] = $9; next }
      key = $2 FS $3 FS $4
      if ($1 ~ /^ceiling-/) { e = substr($1, 9); cw[e FS key] = $7; cc[e FS key] = $8; next }
      split($1, q, "-"); e = q[2]; k = $1 FS $2 FS $3
      if (!(k in n)) { n[k] = 0; eng[k] = e }
      i = ++n[k]
      val["wall" FS k FS i] = $7 / cw[e FS key]; val["cpu" FS k FS i] = $8 / cc[e FS key]
      val["gowall" FS k FS i] = $7 / cw["go" FS key]; val["gocpu" FS k FS i] = $8 / cc["go" FS key]
      val["mbs" FS k FS i] = $7; val["load" FS k FS i] = $10; val["steal" FS k FS i] = $11 / $5
      if ($9 + 0 > mem[k] + 0) mem[k] = $9
      if ($1 ~ /^(recrawl|base)-go-/) { # this build against the baseline, round by round
        kk = q[3] FS $2 FS $3; rk = kk FS $4
        if (q[1] == "base") { bw[rk] = $5; bc[rk] = $6; bk[kk] = 1 } else { rw[rk] = $5; rc[rk] = $6 }
        if ($4 + 0 > maxr[kk] + 0) maxr[kk] = $4 } }
    END {
      for (kk in bk) { m = 0; sb = 0; sr = 0
        for (r = 1; r <= maxr[kk]; r++) if ((kk FS r) in bw && (kk FS r) in rw) {
          m++; val["spw" FS kk FS m] = bw[kk FS r] / rw[kk FS r]; val["spc" FS kk FS m] = bc[kk FS r] / rc[kk FS r]
          sb += bc[kk FS r]; sr += rc[kk FS r] }
        if (m == 0) continue
        split(kk, a, FS); w = stat("spw", kk, m); wlo = lo; whi = hi; c = stat("spc", kk, m)
        printf "RESULT machine vs-base %-6s %-10s %s worker(s): this build %.3fx the baseline by wall (median of %d round(s); %.3f-%.3f), %.3fx by CPU time (%.3f-%.3f); CPU-s over the rounds %.2f (baseline %.2f)\n", a[1], a[2], a[3], w, m, wlo, whi, c, lo, hi, sr, sb }
      for (k in n) { split(k, a, FS); e = eng[k]; m = n[k]
        w = stat("wall", k, m); wlo = lo; whi = hi; c = stat("cpu", k, m); clo = lo; chi = hi
        mbs = stat("mbs", k, m); ld = stat("load", k, m); llo = lo; lhi = hi
        who = (a[3] == "1-side") ? "1 worker, side by side:" : a[3] " worker(s):"
        printf "RESULT machine %-20s %-10s %s %.2f of the %s ceiling by wall (median of %d round(s); %.2f-%.2f), per CPU-s %.2f (%.2f-%.2f); %.1f MB/s", a[1], a[2], who, w, e, m, wlo, whi, c, clo, chi, mbs
        if (a[1] ~ /^base-/) printf " (the baseline)"
        else if (a[1] ~ /^recrawl-/) printf " (target >= 0.9 on the median by wall: %s)", (w >= 0.9 ? "met" : "NOT met")
        else printf " (the indexer alone: no pipeline)"
        if (e != "go") printf "; %.2f (%.2f per CPU-s) of the go ceiling", stat("gowall", k, m), stat("gocpu", k, m)
        printf "; peak RSS %s MB", mem[k]
        if (a[1] ~ /^recrawl-/) printf " (target < 1024: %s)", (mem[k] < 1024 ? "met" : "NOT met")
        st = stat("steal", k, m); printf "; load %.2f-%.2f; steal %.2f-%.2f of a CPU\n", llo, lhi, lo, hi }
      for (p in core) if (p !~ /^recrawl-/ && p !~ /^ceiling-/ && p !~ /^inflate-/) {
        printf "RESULT peer %-13s %.1f MB/cpu-s; recrawl-go %.1f = %.2fx", p, core[p], core["recrawl-go-cdxj"], core["recrawl-go-cdxj"]/core[p]
        if ("recrawl-isal-cdxj" in core) printf ", recrawl-isal %.1f = %.2fx", core["recrawl-isal-cdxj"], core["recrawl-isal-cdxj"]/core[p]
        printf " per core (peer peak RSS %s MB; recrawl %s / %s MB)\n", rss[p], rss["recrawl-go-cdxj"], rss["recrawl-isal-cdxj"] } }' "$table" | sort
}

bench_document() {
  go test -c -o "$bin/scoring.test" ./scoring
  echo "== documents/s per core (GOMAXPROCS=1): whole per-document step vs. bare html.Parse of the same page, interleaved page by page; $((reps + 2)) runs"
  GOMAXPROCS=1 "$bin/scoring.test" -test.run '^$' -test.bench '^BenchmarkDocumentStep$' -test.benchtime 3s \
    -test.count "$((reps + 2))" >"$dir/document.txt"
  benchstat_table "$dir/document.txt" -filter '-.unit:(sec/op OR B/op OR allocs/op)'
  load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
  for sub in pages=30-100KB pages=raw; do
    sel="/${sub/=/:}"
    step=$(benchstat_median "$dir/document.txt" "$sel" step-docs/s)
    parse=$(benchstat_median "$dir/document.txt" "$sel" parse-docs/s)
    ratio=$(benchstat_median "$dir/document.txt" "$sel" step/parse)
    cpu=$(benchstat_median "$dir/document.txt" "$sel" step/parse-cpu)
    kb=$(benchstat_median "$dir/document.txt" "$sel" KB/page)
    # The target is judged on the ratio of CPU time (step/parse-cpu): on a machine shared with other
    # jobs the wall-time ratio also measures the scheduler (measured under a load average of 25 on 2
    # cores: wall ratios of one page set from 2.3x to 5.8x between runs). Both are printed.
    awk -v s="$sub" -v a="$step" -v p="$parse" -v r="$ratio" -v c="$cpu" -v kb="$kb" -v load="$load" 'BEGIN {
      judged = (c == "nan" || c == "") ? r : c
      printf "RESULT document %-15s (%.0f KB/page): step %.0f docs/s per core, bare parse %.0f docs/s: step = %.2fx the parse in CPU time, %.2fx in wall time (median; target <= 3x: %s; load average %s)\n",
        s, kb, a, p, c, r, (judged <= 3 ? "met" : "NOT met"), load }'
  done
}

# extract_index: builds the ZipNum index (and the document frequencies) of
# $archive for the extraction, once per archive size; sets index.
extract_index() {
  index="$dir/index-extract-$bytes"
  if [ ! -f "$index/.complete" ]; then
    echo "== indexing $archive for extraction (zipnum + document frequencies, once)"
    rm -rf "$index"
    "$bin/recrawl" index --input="$archive/*.warc.gz" --output="$index" --format=zipnum --shards=4 --dictionary --dictionary_sample=0.25 >"$dir/index-extract.log" 2>&1 ||
      { tail -20 "$dir/index-extract.log"; exit 1; }
    touch "$index/.complete"
  fi
}

# extract_run ENGINE K TARGET NAME [FLAG...]: one extraction of $spec on
# $archive; prints "wall rss rounds collected stop mean_round_s
# median_round_s sum_round_s cpu" (the round seconds from rounds.jsonl: the
# jobs' wall time, without the process's start and the spec's loading).
# With extract_timeout set (seconds), a run that takes longer is stopped and
# extract_run fails.
extract_run() {
  local out="$dir/extract-$4" cmd=("$bin/recrawl" extract)
  [ -z "${extract_timeout:-}" ] || cmd=(timeout --signal=TERM "$extract_timeout" "$bin/recrawl" extract)
  rm -rf "$out"
  read -r wall rss cpu < <(timed "$out.log" "${cmd[@]}" --spec "$spec" --index "zipnum:$index" --archive "$archive" \
    --output "$out" --engine "$1" --batch_size "$2" --target_size "$3" --max_rounds 0 --strategy ctf --quiet "${@:5}") || return 1
  local tot
  tot=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["rounds"], t["collected"], t["stop_reason"].replace(" ","_"))' "$out/run.json")
  local mean
  mean=$(python3 -c 'import json,sys,statistics as s; r=[json.loads(l)["seconds"] for l in open(sys.argv[1])]; print("%.3f %.3f %.3f" % (sum(r)/len(r), s.median(r), sum(r)))' "$out/rounds.jsonl")
  echo "$wall $rss $tot $mean $cpu"
}

bench_extract() {
  ensure_archive
  if [ "${pages:-0}" -lt 50000 ]; then
    echo "note: the archive has $pages article pages (< 50,000); use BENCH_ARCHIVE_BYTES=1GB for the benchmark of record"
  fi
  target="${BENCH_EXTRACT_TARGET:-20000}"
  k="${BENCH_EXTRACT_K:-1000}"
  event="${BENCH_EXTRACT_SPEC:-federal-election-2009}"
  spec="$archive/specs/$event.yaml"
  go build -o "$bin/recrawl" ./cmd/recrawl
  extract_index

  report() { # NAME LINE
    set -- "$1" $2
    printf "RESULT extract %-22s wall %7.1f s  CPU %7.1f s  peak RSS %6s MB  rounds %4s  collected %6s  round s mean %.3f median %.3f sum %.1f  (stop: %s)\n" \
      "$1" "$2" "${10}" "$3" "$4" "$5" "$7" "$8" "$9" "$6"
  }

  echo "== extraction of $target documents (ctf, K=$k) on $archive, spec $event; engines interleaved"
  seq_line=$(extract_run sequential "$k" "$target" "sequential-k$k"); report "sequential K=$k" "$seq_line"
  beam_line=$(extract_run beam "$k" "$target" "beam-k$k"); report "beam K=$k" "$beam_line"
  set -- $seq_line; sw=$1
  set -- $beam_line; bw=$1; brss=$2
  awk -v s="$sw" -v b="$bw" -v m="$brss" 'BEGIN {
    printf "RESULT extract: beam/sequential wall = %.2f (target <= 1: %s); beam peak RSS %s MB (target < 2048: %s)\n",
      b/s, (b <= s ? "met" : "NOT met"), m, (m < 2048 ? "met" : "NOT met") }'

  # The fixed cost of a round: the same extraction with a tiny K, where a
  # round has almost no work, gives the seconds per round that do not depend
  # on K.
  small_k="${BENCH_EXTRACT_SMALL_K:-10}"
  small_target="${BENCH_EXTRACT_SMALL_TARGET:-300}"
  echo "== per-round fixed cost: K=$small_k, $small_target documents"
  sl=$(extract_run sequential "$small_k" "$small_target" "sequential-k$small_k"); report "sequential K=$small_k" "$sl"
  bl=$(extract_run beam "$small_k" "$small_target" "beam-k$small_k"); report "beam K=$small_k" "$bl"
  set -- $bl; bfix=$7
  set -- $sl; sfix=$7
  set -- $beam_line; brounds=$3; bmed=$7
  awk -v bf="$bfix" -v sf="$sfix" -v n="$brounds" -v bm="$bmed" 'BEGIN {
    printf "RESULT extract: fixed cost per round (median round at K=small): beam %.3f s, sequential %.3f s; beam at K=1000: %d rounds x %.3f s fixed = %.1f s of overhead, %.0f %% of its median round\n",
      bf, sf, n, bf, n*bf, 100*bf/bm }'

  bench_extract_jobs
}

# bench_extract_jobs: several rounds per job (--rounds_per_job). The same
# extraction (a fixed number of rounds) with N = 1 and N = 10 rounds per job,
# at K = 100 and K = 1000, on in-process prism, then on a Flink and a Spark
# cluster on loopback, each started by the project's scripts
# (flink-cluster.sh / spark-cluster.sh and beam-jobserver.sh; LOOPBACK
# workers) for its runs and stopped after them. Prints the wall time per
# round and, from N = 1 against N = 10 on the same runner in the same run,
# the cost of a job start and the work per round. It has its own archive,
# small by default, so that it finishes in about half an hour on 2 shared
# cores. BENCH_EXTRACT_JOBS_ARCHIVE and _INDEX point it at an existing
# archive and its index instead (bench_clusters_scale); with
# BENCH_EXTRACT_JOBS_INDEX_ON, the clusters named there also index the
# archive (after the extractions) and their index is compared with the reference index byte for byte.
# At the end the outputs of every runner are compared with prism's of the
# same K, N and rounds, file by file.
bench_extract_jobs() {
  local bytes="${BENCH_EXTRACT_JOBS_BYTES:-200MB}"
  local archive="${BENCH_EXTRACT_JOBS_ARCHIVE:-$dir/archive-$bytes}"
  local rounds="${BENCH_EXTRACT_JOBS_ROUNDS:-10}"
  local ks="${BENCH_EXTRACT_JOBS_K:-100 1000}" ns="${BENCH_EXTRACT_JOBS_N:-1 10}"
  local runners="${BENCH_EXTRACT_RUNNERS:-prism flink spark}" jreps="${BENCH_EXTRACT_JOBS_REPS:-1}"
  local n1_rounds="${BENCH_EXTRACT_JOBS_N1_ROUNDS:-$rounds}" index_on="${BENCH_EXTRACT_JOBS_INDEX_ON:-}"
  local iflags; read -r -a iflags <<<"${BENCH_EXTRACT_JOBS_INDEX_FLAGS:---format=zipnum --shards=4 --dictionary}"
  # A run that has not finished after this long is stopped and reported
  # (with FLINK_PLANNER_FIX=0, Flink's own planner needs hours for a 10-round
  # job: scripts/flink-planner/README.md).
  local extract_timeout="${BENCH_EXTRACT_JOBS_TIMEOUT:-1800}"
  local event="${BENCH_EXTRACT_SPEC:-federal-election-2009}"
  local spec="$archive/specs/$event.yaml" index results="$dir/extract-jobs-${runners// /-}.txt"
  if [ -n "${BENCH_EXTRACT_JOBS_ARCHIVE:-}" ]; then
    [ -f "$archive/.complete" ] || { echo "bench.sh: $archive is not a complete generated archive (no .complete)"; exit 1; }
    echo "archive: $archive: $(ls "$archive"/*.warc.gz | wc -l) file(s), $(($(du -cb "$archive"/*.warc.gz | tail -1 | cut -f1) / 1000000)) MB compressed"
  else
    ensure_archive
  fi
  go build -o "$bin/recrawl" ./cmd/recrawl
  if [ -n "${BENCH_EXTRACT_JOBS_INDEX:-}" ]; then
    index="$BENCH_EXTRACT_JOBS_INDEX"
    [ -f "$index/cluster.idx" ] || [ -n "$(ls "$index"/*.cdxj 2>/dev/null)" ] || { echo "bench.sh: no index in $index"; exit 1; }
    echo "reference index (prism's): $index"
  elif [ -n "${BENCH_EXTRACT_JOBS_ARCHIVE:-}" ]; then
    index="$dir/jobs-prism-index"
    rm -rf "$index"
    jobs_index_run prism "$index"
  else
    extract_index
  fi
  local me=bench
  # shellcheck source=lib.sh
  . scripts/lib.sh
  # Fewer rounds at N = 1: the same rounds also run as one job (N = those rounds), so that the
  # job start comes from two runs of the same rounds and the work of the longer runs from it.
  if [ "$n1_rounds" -lt "$rounds" ] && [[ " $ns " != *" $n1_rounds "* ]]; then
    ns="$(echo "$ns $n1_rounds" | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')"
  fi
  echo "== rounds per job: $rounds rounds (N = 1: $n1_rounds) (ctf, $event) on $archive; N in {$ns}, K in {$ks}, on: $runners; $jreps repetition(s), N interleaved"
  : >"$results"
  local runner k n rep order line endpoint master started load planned flags=()
  for runner in $runners; do
    flags=()
    started=$(date +%s.%N)
    case "$runner" in
      prism) ;;
      flink | spark)
        trap_daemons
        # The cluster's logs stay in BENCH_DIR/jobs-RUNNER-cluster (--keep).
        rm -rf "$dir/jobs-$runner-cluster"
        if [ "$runner" = flink ]; then
          start_daemon "$dir/jobs-flink-cluster.log" scripts/flink-cluster.sh --port 0 --rpc-port 0 --work "$dir/jobs-flink-cluster" --keep
          master="--flink-master=$(announced FLINK_MASTER "$dir/jobs-flink-cluster.log")"
        else
          start_daemon "$dir/jobs-spark-cluster.log" scripts/spark-cluster.sh --port 0 --web-port 0 --work "$dir/jobs-spark-cluster" --keep
          master="--spark-master-url=$(announced SPARK_MASTER_URL "$dir/jobs-spark-cluster.log")"
        fi
        start_daemon "$dir/jobs-$runner-jobserver.log" scripts/beam-jobserver.sh "$runner" "$master" --job-port=0 --artifact-port=0
        endpoint="$(announced JOB_ENDPOINT "$dir/jobs-$runner-jobserver.log")"
        flags=(--runner="$runner" --endpoint="$endpoint" --environment_type=LOOPBACK)
        awk -v a="$started" -v b="$(date +%s.%N)" -v r="$runner" -v m="$master" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
          printf "%s cluster (%s) and its job server started in %.1f s (load average %s)\n", r, m, b-a, l }'
        ;;
      *) echo "unknown runner $runner in BENCH_EXTRACT_RUNNERS (prism, flink, spark)"; exit 2 ;;
    esac
    for rep in $(seq "$jreps"); do
      for k in $ks; do
        order="$ns"
        [ $((rep % 2)) = 1 ] || order="$(echo "$ns" | tr ' ' '\n' | tac | tr '\n' ' ')"
        for n in $order; do
          load="$(cut -d' ' -f1 /proc/loadavg)"
          planned=0
          [ "$runner" != flink ] || planned="$(grep -c 'Translating pipeline' "$dir/jobs-flink-jobserver.log" || true)"
          local max_rounds="$rounds"
          [ "$n" -gt "$n1_rounds" ] || max_rounds="$n1_rounds"
          if ! line=$(extract_run beam "$k" 100000000 "jobs-$runner-k$k-n$n" --max_rounds "$max_rounds" --rounds_per_job "$n" "${flags[@]}"); then
            echo "RESULT extract-jobs $runner K=$k N=$n: failed or stopped after ${extract_timeout} s (load $load; see $dir/extract-jobs-$runner-k$k-n$n.log)"
            continue
          fi
          set -- $line
          echo "$runner $k $n $rep $1 $8 $3 $4 $load $(cut -d' ' -f1 /proc/loadavg)" >>"$results"
          awk -v r="$runner" -v k="$k" -v n="$n" -v w="$1" -v j="$8" -v nr="$3" -v c="$4" -v l="$load" -v l1="$(cut -d' ' -f1 /proc/loadavg)" -v m="$2" -v cpu="$9" 'BEGIN {
            printf "RESULT extract-jobs %-5s K=%-4d N=%-2d %7.2f s per round (wall %6.1f s, jobs %6.1f s, %d rounds, %d collected; submitting process: CPU %.1f s, peak RSS %s MB; load %s-%s)\n", r, k, n, w/nr, w, j, nr, c, cpu, m, l, l1 }'
          [ "$runner" != flink ] || flink_planning "$dir/jobs-flink-jobserver.log" "$planned" "$runner K=$k N=$n"
        done
      done
    done
    # The index after the extractions, on the same cluster.
    if [ "$runner" != prism ] && [[ " $index_on " == *" $runner "* ]]; then
      jobs_index_run "$runner" "$dir/jobs-$runner-index" "${flags[@]}" || true
    fi
    if [ "$runner" != prism ]; then
      stop_daemons
      daemon_pids=() daemon_logs=()
    fi
  done
  # Per runner and K, medians over the repetitions; the job start S and the
  # work per round W from the jobs' time T(N) = jobs(N) * S + rounds * W: S
  # from two runs of the same rounds in different numbers of jobs, then W of
  # each run as (T - jobs * S) / rounds (the N = 1 runs may have fewer
  # rounds, BENCH_EXTRACT_JOBS_N1_ROUNDS, whose work differs: the first
  # rounds have a small frontier).
  python3 - "$results" <<'EOF'
import collections, math, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, k, n, rep, wall, jobs, rounds, got, l0, l1 = line.split()
    runs[(r, int(k), int(n))].append((float(wall), float(jobs), int(rounds), float(l0), float(l1)))
order = {"prism": 0, "flink": 1, "spark": 2}
for r, k in sorted({(r, k) for r, k, _ in runs}, key=lambda x: (order.get(x[0], 9), x[1])):
    ns = sorted(n for rr, kk, n in runs if (rr, kk) == (r, k))
    med = {n: (statistics.median(v[0] for v in runs[(r, k, n)]),
               statistics.median(v[1] for v in runs[(r, k, n)]),
               runs[(r, k, n)][0][2]) for n in ns}
    loads = [l for n in ns for v in runs[(r, k, n)] for l in v[3:]]
    jobs = {n: math.ceil(med[n][2] / n) for n in ns}
    parts = ["N=%d %.2f s (%d rounds)" % (n, med[n][0] / med[n][2], med[n][2]) for n in ns]
    extra = ""
    pairs = [(a, b) for a in ns for b in ns if a < b and med[a][2] == med[b][2] and jobs[a] != jobs[b]]
    if pairs:
        a, b = pairs[0]
        start = (med[a][1] - med[b][1]) / (jobs[a] - jobs[b])
        extra = "; job start %.2f s (N=%d against N=%d, %d rounds each); work per round (jobs' time less the starts): %s" % (
            start, a, b, med[a][2], ", ".join("N=%d %.2f s" % (n, (med[n][1] - jobs[n] * start) / med[n][2]) for n in ns))
    elif len(ns) > 1:
        a, b = ns[0], ns[-1]
        det = jobs[a] * med[b][2] - jobs[b] * med[a][2]
        if det:
            start = (med[a][1] * med[b][2] - med[b][1] * med[a][2]) / det
            work = (jobs[a] * med[b][1] - jobs[b] * med[a][1]) / det
            extra = "; N=%d/N=%d = %.2f; job start %.2f s, work %.2f s per round" % (
                b, a, (med[b][0] / med[b][2]) / (med[a][0] / med[a][2]), start, work)
    print("RESULT extract-jobs %s K=%d: wall per round %s%s (load average %.1f-%.1f)" % (
        r, k, ", ".join(parts), extra, min(loads), max(loads)))
EOF
  jobs_same_bytes "$dir"
}

# jobs_same_bytes DIR: compares every output file of each extract-jobs run
# in DIR (DIR/extract-jobs-RUNNER-kK-nN, also those of earlier invocations
# with other runners) with prism's run of the same K and N, and each
# runner's N runs with each other when they ran the same rounds; rounds.jsonl and run.json without their timing
# and runner fields (as runners/cluster_test.go's sameFiles).
jobs_same_bytes() {
  python3 - "$@" <<'EOF'
import glob, json, os, re, sys
d = sys.argv[1]
def comparable(path):
    data = open(path, "rb").read()
    name = os.path.basename(path)
    if name == "rounds.jsonl":
        out = []
        for line in data.strip().split(b"\n"):
            m = json.loads(line); m.pop("seconds", None); out.append(json.dumps(m, sort_keys=True))
        return "\n".join(out).encode()
    if name == "run.json":
        m = json.loads(data)
        for f in ("seconds", "flags", "engine"):
            m.pop(f, None)
        return json.dumps(m, sort_keys=True).encode()
    return data
def files(run):
    return sorted(e.name for e in os.scandir(run) if e.is_file())
def rounds(run):
    return json.load(open(os.path.join(run, "run.json")))["totals"]["rounds"]
def compare(want, got):
    fw, fg = files(want), files(got)
    diff = sorted(set(fw) ^ set(fg))
    for f in sorted(set(fw) & set(fg)):
        if comparable(os.path.join(want, f)) != comparable(os.path.join(got, f)):
            diff.append(f)
    size = sum(os.path.getsize(os.path.join(got, f)) for f in fg)
    what = "same bytes" if not diff else "DIFFERENT: " + ", ".join(diff)
    print("RESULT extract-jobs same bytes: %s vs %s (%d rounds; %d files, %.1f MB): %s" % (
        os.path.basename(got), os.path.basename(want), rounds(got), len(fg), size / 1e6, what))
runs = {}
for path in glob.glob(os.path.join(d, "extract-jobs-*-k*-n*")):
    m = re.match(r"extract-jobs-(\w+)-k(\d+)-n(\d+)$", os.path.basename(path))
    if m and os.path.isdir(path) and os.path.exists(os.path.join(path, "run.json")):
        runs[(m.group(1), int(m.group(2)), int(m.group(3)))] = path
for (r, k, n), path in sorted(runs.items()):
    if r != "prism" and ("prism", k, n) in runs:
        compare(runs[("prism", k, n)], path)
for r in sorted({r for r, _, _ in runs}):
    for k in sorted({k for rr, k, _ in runs if rr == r}):
        ns = sorted(n for rr, kk, n in runs if (rr, kk) == (r, k))
        for n in ns[1:]:
            if rounds(runs[(r, k, ns[0])]) == rounds(runs[(r, k, n)]):
                compare(runs[(r, k, ns[0])], runs[(r, k, n)])
EOF
}

# jobs_index_run RUNNER OUT [FLAG...]: indexes the extract-jobs archive on
# RUNNER (its runner flags; none for prism) into OUT with the index flags;
# prints its wall time, the submitting process's CPU time and peak RSS (with
# LOOPBACK workers the pipeline's Go code runs there) and, on a cluster, the
# CPU time and the largest summed RSS of the cluster's and the job server's
# process trees (sampled every 2 s); then compares OUT with the reference
# index ($index) file by file.
jobs_index_run() {
  local runner="$1" out="$2"; shift 2
  local load0 sampler="" wall rss cpu ccpu crss cluster=""
  load0="$(cut -d' ' -f1 /proc/loadavg)"
  rm -rf "$out"
  if [ "$runner" != prism ]; then
    rm -f "$out.sampled" "$out.stop"
    python3 - "$out.sampled" "$out.stop" "${daemon_pids[@]}" <<'EOF' &
import os, sys, time
dst, stop, roots = sys.argv[1], sys.argv[2], {int(p) for p in sys.argv[3:]}
tick, page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
cpu, peak = {}, 0
def stat(pid):
    f = open("/proc/%d/stat" % pid).read()
    rest = f[f.rindex(")") + 2:].split()
    return int(rest[1]), (int(rest[11]) + int(rest[12])) / tick, int(rest[21]) * page
while True:
    procs = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                procs[int(e)] = stat(int(e))
            except (OSError, ValueError, IndexError):
                pass
    tree, grew = set(roots), True
    while grew:
        grew = False
        for pid, (ppid, _, _) in procs.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grew = True
    total = 0
    for pid in tree & procs.keys():
        cpu[pid] = procs[pid][1]
        total += procs[pid][2]
    peak = max(peak, total)
    with open(dst, "w") as f:
        f.write("%.1f %.0f\n" % (sum(cpu.values()), peak / 1e6))
    if os.path.exists(stop):
        break
    time.sleep(2)
EOF
    sampler=$!
  fi
  if ! read -r wall rss cpu < <(timed "$out.log" "$bin/recrawl" index --input="$archive/*.warc.gz" --output="$out" "${iflags[@]}" "$@"); then
    echo "RESULT extract-jobs index on $runner: FAILED (load $load0; see $out.log)"
    [ -z "$sampler" ] || { touch "$out.stop"; wait "$sampler"; }
    return 1
  fi
  if [ -n "$sampler" ]; then
    touch "$out.stop"; wait "$sampler"
    read -r ccpu crss <"$out.sampled"
    cluster="; cluster and job server processes: CPU $ccpu s, peak RSS $crss MB"
  fi
  echo "RESULT extract-jobs index on $runner (${iflags[*]}): wall $wall s, submitting process CPU $cpu s, peak RSS $rss MB$cluster; $(du -sb "$out" | cut -f1) bytes (load $load0-$(cut -d' ' -f1 /proc/loadavg))"
  if [ "$out" != "$index" ]; then
    local f diff=""
    for f in $( (ls "$index"; ls "$out") | sort -u); do
      [ -f "$index/$f" ] && [ -f "$out/$f" ] && cmp -s "$index/$f" "$out/$f" || diff="$diff $f"
    done
    echo "RESULT extract-jobs index on $runner vs the reference index $index: ${diff:+DIFFERENT:}${diff:-same bytes (every file)}"
  fi
}

# bench_clusters_scale: extract-jobs on a generated archive of the scale
# benchmark (CLUSTERS_SCALE_CAPTURES, default 10^6 captures, in SCALE_DIR;
# generated when missing, see ensure_scale_archive):
# K = 1000, 10 rounds at N = 10 and CLUSTERS_SCALE_N1_ROUNDS (default 10) at
# N = 1, on prism, Flink and Spark; then each cluster indexes the archive
# (ZipNum, 4 shards, the dictionary: the flags of the scale benchmark) and
# its index is compared with prism's (CLUSTERS_SCALE_INDEX, an index of the
# same archive built by prism with the same flags, e.g. the scale
# benchmark's BENCH_DIR/scale-1000000/index; built here when unset).
bench_clusters_scale() {
  local cache="${SCALE_DIR:-$HOME/.cache/recrawl/scale}" n
  n=$(awk -v s="${CLUSTERS_SCALE_CAPTURES:-1e6}" 'BEGIN { printf "%d", s }')
  if [ -z "${BENCH_EXTRACT_JOBS_ARCHIVE:-}" ]; then
    mkdir -p "$cache"
    ensure_scale_archive "$n" "$cache/archive-$n" "$dir/clusters-scale-gen-$n.log"
  fi
  BENCH_EXTRACT_JOBS_ARCHIVE="${BENCH_EXTRACT_JOBS_ARCHIVE:-$cache/archive-$n}" \
  BENCH_EXTRACT_JOBS_INDEX="${CLUSTERS_SCALE_INDEX:-}" \
  BENCH_EXTRACT_JOBS_INDEX_ON="${CLUSTERS_SCALE_INDEX_ON:-flink spark}" \
  BENCH_EXTRACT_JOBS_K="${BENCH_EXTRACT_JOBS_K:-1000}" \
  BENCH_EXTRACT_JOBS_N1_ROUNDS="${CLUSTERS_SCALE_N1_ROUNDS:-10}" \
  BENCH_EXTRACT_JOBS_TIMEOUT="${BENCH_EXTRACT_JOBS_TIMEOUT:-3600}" \
    bench_extract_jobs
}

# flink_planning LOG SKIP WHAT: from the Flink job server's log (its lines
# are timed), how long the jobs after the first SKIP took from "Translating
# pipeline" to "Submitting job": Beam's translation and Flink's planning,
# before the cluster sees the job.
flink_planning() {
  python3 - "$@" <<'EOF'
import datetime, sys
log, skip, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def t(line):
    return datetime.datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M:%S.%f")
starts, subs = [], []
for line in open(log, errors="replace"):
    if "Translating pipeline" in line:
        starts.append(t(line))
    elif "RestClusterClient - Submitting job" in line:
        subs.append(t(line))
secs = [(b - a).total_seconds() for a, b in zip(starts[skip:], subs[skip:])]
if secs:
    print("RESULT extract-jobs %s: translation + planning %.1f s per job (max %.1f s, %d jobs)" % (
        what, sum(secs) / len(secs), max(secs), len(secs)))
EOF
}

# bench_build: a cold build of the module's own packages. The module is
# copied to a new directory: without -trimpath a package's directory is part
# of its build cache key, so every package of the copy compiles cold, while
# the dependencies (same module-cache paths) come from the cache, compiled
# first if they are not there yet (timed apart). BENCH_BUILD_FRESH=1 uses an
# empty GOCACHE instead, so the dependencies' cold compile time is measured
# too. A -toolexec wrapper records each compile's peak RSS and wall time.
bench_build() {
  local wrap log copy cache=""
  wrap="$dir/compile-rss.sh"
  log="$dir/compile-rss.txt"
  cat >"$wrap" <<'WRAP'
#!/usr/bin/env bash
# -toolexec wrapper: runs the tool; for compile, appends "package peak_rss_kb wall_s" to $COMPILE_RSS_LOG.
tool="$1"; shift
case "$(basename "$tool")" in
  compile)
    pkg=""; prev=""
    for a in "$@"; do [ "$prev" = "-p" ] && pkg="$a"; prev="$a"; done
    t="$(mktemp)"
    /usr/bin/time -f '%M %e' -o "$t" "$tool" "$@"; rc=$?
    [ -n "$pkg" ] && echo "$pkg $(cat "$t")" >>"$COMPILE_RSS_LOG"
    rm -f "$t"; exit $rc ;;
  *) exec "$tool" "$@" ;;
esac
WRAP
  chmod +x "$wrap"
  : >"$log"; : >"$log.deps"
  if [ -n "${BENCH_BUILD_FRESH:-}" ]; then cache="$(mktemp -d)"; export GOCACHE="$cache"; fi
  copy="$(mktemp -d)"
  tar --exclude=./.git --exclude=./bench-out -cf - . | tar -xf - -C "$copy"
  local mod deps a b dep_s mod_s
  mod="$(go list -m)"
  mapfile -t deps < <(cd "$copy" && go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./... | grep -v "^$mod\\(/\\|\$\\)")
  echo "== cold build of the module ($(cd "$copy" && go list ./... | wc -l) packages, copied to $copy), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); ${#deps[@]} dependency packages${cache:+ in an empty GOCACHE}"
  a=$(date +%s.%N)
  (cd "$copy" && COMPILE_RSS_LOG="$log.deps" go build -toolexec "$wrap" "${deps[@]}")
  b=$(date +%s.%N); dep_s=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", b-a }')
  a=$(date +%s.%N)
  (cd "$copy" && COMPILE_RSS_LOG="$log" go build -toolexec "$wrap" ./...)
  b=$(date +%s.%N); mod_s=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", b-a }')
  echo "the module's packages by compiler peak RSS (MB) and compile seconds:"
  sort -k2,2nr "$log" | head -8 | awk '{ printf "  %-60s %6.0f MB %6.1f s\n", $1, $2/1024, $3 }'
  local top
  top=$(sort -k2,2nr "$log" | head -1)
  awk -v d="$dep_s" -v m="$mod_s" -v t="$top" -v n="$(wc -l <"$log.deps")" 'BEGIN { split(t, f, " ")
    printf "RESULT build: the module cold %.1f s wall (target < 90 s: %s); largest compiler peak RSS %.0f MB in %s (target < 2048 MB: %s); dependencies before it %.1f s (%d compiled, the rest cached)\n",
      m, (m < 90 ? "met" : "NOT met"), f[2]/1024, f[1], (f[2]/1024 < 2048 ? "met" : "NOT met"), d, n }'
  rm -rf "$copy" ${cache:+"$cache"}
}

bench_replay() {
  echo "== replay: ReplayWeb.page, time to the first replayed page (internal/testkit/replaytest)"
  local pages fail=0 log
  # The generated collections are kept here and reused (a 19,045-document one takes a minute or more to build).
  mkdir -p "$dir/replay"
  local runs=${BENCH_REPLAY_PAGES:-80 9200}
  if [ -n "${BENCH_REPLAY_OUTPUT:-}" ]; then
    [ -f "$BENCH_REPLAY_OUTPUT/collection.wacz" ] || { echo "BENCH_REPLAY_OUTPUT=$BENCH_REPLAY_OUTPUT: no collection.wacz there"; return 1; }
    runs=output
  fi
  for pages in $runs; do
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    log="$dir/replay-$pages.log"
    if [ "$pages" = output ]; then
      RECRAWL_REPLAY_BENCH_DIR="$dir/replay" RECRAWL_REPLAY_BENCH_OUTPUT="$(cd "$BENCH_REPLAY_OUTPUT" && pwd)" \
        nice -n 10 go test -count=1 -timeout 90m -run 'TestReplayTimeToFirstPage$' -v ./internal/testkit/replaytest \
        >"$log" 2>&1 || { echo "FAILED: replay bench on $BENCH_REPLAY_OUTPUT (see $log)"; tail -20 "$log"; return 1; }
    else
      RECRAWL_REPLAY_BENCH_DIR="$dir/replay" RECRAWL_REPLAY_BENCH_PAGES=$pages \
        nice -n 10 go test -count=1 -timeout 90m -run 'TestReplayTimeToFirstPage$' -v ./internal/testkit/replaytest \
        >"$log" 2>&1 || { echo "FAILED: replay bench with $pages pages (see $log)"; tail -20 "$log"; return 1; }
    fi
    grep '^replay-bench' "$log"
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    # The target: with the package recrawl writes (wacz.Package's default, or the extraction output's),
    # every checked page within 30 s of opening the viewer.
    awk '/^replay-bench/ { delete v; for (i=1;i<=NF;i++) { split($i,kv,"="); v[kv[1]]=kv[2] }
         if (v["form"]=="default" || v["form"]=="output") { ok = ("slowest_s" in v) && v["slowest_s"]+0 <= 30; printf "target (%s package, %s documents): slowest page %.1f s <= 30 s: %s\n", v["form"], v["docs"], v["slowest_s"], ok ? "met" : "MISSED"; found=1; exit !ok } }
         END { if (!found) { print "target: no measurement of the default package"; exit 1 } }' \
      "$log" || fail=1
  done
  return $fail
}

# bench_incremental: index --add of a 1 % night against a full rebuild, and
# look-ups across a base and 10 segments against the compacted index.
bench_incremental() {
  local inc="$dir/archive-incr-$bytes"
  if [ ! -f "$inc/.complete" ]; then
    go build -o "$bin/genarchive" ./cmd/genarchive
    local total per
    total=$(numfmt --from=auto "${bytes%B}")
    per=$((total / 100))
    echo "== generating a $bytes archive in 100 files of $per bytes in $inc (once)"
    rm -rf "$inc"
    "$bin/genarchive" --out "$inc" --target_bytes "$bytes" --max_file_size "$per" --seed 1 --quiet | sed -n '1,3p'
    touch "$inc/.complete"
  fi
  go build -o "$bin/recrawl" ./cmd/recrawl
  mapfile -t files < <(ls "$inc"/*.warc.gz | sort)
  local n=${#files[@]} night=$(( ${#files[@]} >= 200 ? ${#files[@]} / 100 : 1 ))
  echo "archive: $n files, $(du -cb "${files[@]}" | tail -1 | cut -f1) bytes; a night is $night file(s), 1 %"
  local flags=(--format=zipnum --shards=4) w="$dir/incr.tmp"
  rm -rf "$w"; mkdir -p "$w"
  join() { local IFS=,; echo "$*"; }
  written() { du -sb "$1" | cut -f1; }

  local abytes; abytes=$(du -cb "${files[@]}" | tail -1 | cut -f1)
  echo
  echo "== a full rebuild of all $n files"
  read -r fwall _ fcpu < <(timed "$dir/incr-full.log" "$bin/recrawl" index --input="$(join "${files[@]}")" --output="$w/full" "${flags[@]}")
  fbytes=$(written "$w/full")
  echo "full rebuild: $fwall s wall, $fcpu s CPU, $fbytes bytes written"

  # The nights start from copies of one base of the first n-3*night files:
  # a night of `night` files (1 %), the same night again (it adds nothing:
  # what every run pays whatever it adds), a night of 3*night files (3 %).
  local base=$((n - 3 * night)) r
  echo
  echo "== nights onto a base of the first $base files, each from a copy of the base, $reps rounds: the next $night file(s), the same again (adds nothing), the last $((3 * night))"
  "$bin/recrawl" index --add --input="$(join "${files[@]:0:base}")" --output="$w/base" "${flags[@]}" >"$dir/incr-base.log" 2>&1
  local in1 in3
  in1=$(du -cb "${files[@]:base:night}" | tail -1 | cut -f1)
  in3=$(du -cb "${files[@]:base}" | tail -1 | cut -f1)
  : >"$w/nights.txt"
  # night KIND FILES INPUT_BYTES: one --add onto a fresh copy of the base (KIND
  # noop: again onto the index the last night left); appends "KIND wall cpu
  # bytes-written input-bytes" to nights.txt.
  night_run() {
    local kind=$1 k=$2 in=$3 listed nw nc nb
    if [ "$kind" != noop ]; then rm -rf "$w/inc"; cp -a "$w/base" "$w/inc"; fi
    listed=$(stat -c %s "$w/inc/index.files")
    read -r nw _ nc < <(timed "$dir/incr-$kind.log" "$bin/recrawl" index --add --input="$(join "${files[@]:0:base+k}")" --output="$w/inc" "${flags[@]}")
    nb=$(( $(stat -c %s "$w/inc/index.files") - listed ))
    [ "$kind" = noop ] || nb=$((nb + $(written "$w/inc/segments/000001")))
    echo "$kind $nw $nc $nb $in" >>"$w/nights.txt"
  }
  for r in $(seq 1 "$reps"); do
    night_run night1 "$night" "$in1"
    night_run noop "$night" 0
    night_run night3 $((3 * night)) "$in3"
  done
  awk '{ printf "  %-6s %6.2f s wall %5.2f s CPU %9d bytes written, %d bytes of WARC added\n", $1, $2, $3, $4, $5 }' "$w/nights.txt"
  # What every recrawl process pays before its first line: the package initialization.
  GODEBUG=inittrace=1 "$bin/recrawl" version 2>"$w/inittrace.txt" >/dev/null
  awk '/^init / { ms += $5; mb += $8 / 1e6; if ($2 ~ /go-dateparser|go-htmldate/) { dms += $5; dmb += $8 / 1e6 } }
    END { printf "RESULT incremental package initialization (GODEBUG=inittrace=1 recrawl version): %.0f ms, %.0f MB; of which go-dateparser and go-htmldate %.0f ms, %.0f MB\n", ms, mb, dms, dmb }' "$w/inittrace.txt"

  # Medians over the rounds, then the fit: a night costs F + S x (bytes of
  # WARC it adds) (S and F from the nights of 1 % and 3 %), a full rebuild
  # F + SF x (archive bytes); a 1 % night is then within 3 % of a full rebuild
  # from an archive of 0.97 F / (0.03 SF - 0.01 S) bytes.
  awk -v fw="$fwall" -v fc="$fcpu" -v fb="$fbytes" -v A="$abytes" '
    function median(kind, col,   m, i, j, v, t) { m = 0
      for (i = 1; i <= N; i++) if (K[i] == kind) v[++m] = C[i, col]
      for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
      return m ? v[int((m + 1) / 2)] : 0 }
    function fit(what, t1, t0, t3, full,   s, f, sf, a3) {
      s = (t3 - t1) / (b3 - b1); f = t1 - s * b1; sf = (full - f) / A
      printf "RESULT incremental fit (%s): a night costs %.2f s fixed (a night that adds nothing: %.2f s) + %.2f s per GB of WARC added; a full rebuild %.2f s per GB beyond the same fixed part; ",
        what, f, t0, s * 1e9, sf * 1e9
      if (f <= 0) { print "the fixed part came out at or below 0 (noise): no size follows"; return }
      if (0.03 * sf - 0.01 * s <= 0) { print "a night adds at least 3 times a full rebuild per byte: no size at which a 1 % night is within 3 %"; return }
      a3 = 0.97 * f / (0.03 * sf - 0.01 * s)
      printf "a 1 %% night is within 3 %% of a full rebuild from an archive of %.1f GB (this one: %.2f GB, %.1f %% by the fit)\n",
        a3 / 1e9, A / 1e9, 100 * (f + s * A / 100) / (f + sf * A) }
    { N++; K[N] = $1; for (i = 2; i <= 5; i++) C[N, i] = $i }
    END {
      w1 = median("night1", 2); c1 = median("night1", 3); nb = median("night1", 4); b1 = median("night1", 5)
      w0 = median("noop", 2); c0 = median("noop", 3)
      w3 = median("night3", 2); c3 = median("night3", 3); b3 = median("night3", 5)
      printf "RESULT incremental night: %.2f s and %d bytes written, against %.2f s and %d bytes for a full rebuild: %.1f %% of the wall time (target <= 3 %%: %s), %.1f %% of the bytes (target <= 3 %%: %s); CPU %.1f s against %.1f s: %.1f %%\n",
        w1, nb, fw, fb, 100*w1/fw, (w1/fw <= 0.03 ? "met" : "NOT met"), 100*nb/fb, (nb/fb <= 0.03 ? "met" : "NOT met"), c1, fc, 100*c1/fc
      fit("wall", w1, w0, w3, fw)
      fit("CPU", c1, c0, c3, fc) }' "$w/nights.txt"
  rm -rf "$w/inc" "$w/base"
  if [ "${BENCH_INCR_LOOKUPS:-1}" = 0 ]; then
    rm -rf "$w"
    return
  fi
  go test -c -o "$bin/lookup.test" ./internal/lookup
  echo
  echo "== look-ups: a base of 90 % of the files and 10 nights of 1 % as segments, against the same index compacted"
  rm -rf "$w/inc"
  local base=$((n - 10 * night))
  "$bin/recrawl" index --add --input="$(join "${files[@]:0:base}")" --output="$w/inc" "${flags[@]}" >"$dir/incr-base.log" 2>&1
  for i in $(seq 1 10); do
    "$bin/recrawl" index --add --input="$(join "${files[@]:0:base+i*night}")" --output="$w/inc" "${flags[@]}" >>"$dir/incr-base.log" 2>&1
  done
  echo "segments: $(ls "$w/inc/segments" | wc -l)"
  cp -r "$w/inc" "$w/compacted"
  "$bin/recrawl" index compact --output="$w/compacted" >>"$dir/incr-base.log" 2>&1
  cmp -s "$w/compacted/cluster.idx" "$w/full/cluster.idx" || echo "RESULT incremental: the compacted cluster.idx DIFFERS from the full build's"
  zcat "$w/full"/cdx-*.gz | cut -d' ' -f1 | uniq >"$w/keys.txt"
  (cd internal/lookup && RECRAWL_BENCH_KEYS="$w/keys.txt" RECRAWL_BENCH_INDEXES="segments=zipnum:$w/inc,compacted=zipnum:$w/compacted" \
    "$bin/lookup.test" -test.run '^$' -test.bench '^BenchmarkIndexLookup$' -test.benchtime 100x -test.count "$reps") | tee "$dir/incr-lookup.txt" | grep -E '^Benchmark'
  # median look-ups/s of a sub-benchmark over the rounds
  median_rate() { grep "^BenchmarkIndexLookup/$1-" "$dir/incr-lookup.txt" | awk '{ for (i = 2; i <= NF; i++) if ($i == "lookups/s") print $(i-1) }' |
    sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR+1)/2)] : "nan") }'; }
  seg=$(median_rate segments)
  comp=$(median_rate compacted)
  awk -v s="$seg" -v c="$comp" 'BEGIN {
    printf "RESULT incremental look-ups: %.0f/s across a base and 10 segments, %.0f/s compacted: %.2f of the compacted rate (target >= 0.7: %s)\n",
      s, c, s/c, (s/c >= 0.7 ? "met" : "NOT met") }'
  rm -rf "$w"
}

# bench_refresh: see the usage at the top. The archive is its own (small by
# default); the full index and the night-1 index are built once per size.
bench_refresh() {
  local bytes="${BENCH_REFRESH_BYTES:-200MB}"
  local archive="$dir/archive-$bytes"
  ensure_archive
  local target="${BENCH_REFRESH_TARGET:-2000}" k="${BENCH_REFRESH_K:-200}"
  local night1_target=$((target * 99 / 100))
  local spec="$archive/specs/${BENCH_EXTRACT_SPEC:-federal-election-2009}.yaml"
  local idx="$dir/index-refresh-$bytes"
  go build -o "$bin/recrawl" ./cmd/recrawl
  if [ ! -f "$idx/.complete" ]; then
    echo "== indexing $archive for the refresh (cdxj + document frequencies, once)"
    rm -rf "$idx"
    "$bin/recrawl" index --input="$archive/*.warc.gz" --output="$idx/full" --dictionary --dictionary_sample=0.25 >"$dir/index-refresh.log" 2>&1 ||
      { tail -20 "$dir/index-refresh.log"; exit 1; }
    # Night 1: the same index without every 100th capture, with the same
    # document frequencies (and the manifest that lists them).
    mkdir -p "$idx/night1"
    awk 'NR % 100 != 0' "$idx/full/index.cdxj" >"$idx/night1/index.cdxj"
    cp "$idx/full/"df-*.tsv "$idx/full/index.manifest" "$idx/night1/"
    touch "$idx/.complete"
  fi
  local common=(--spec "$spec" --archive "$archive" --batch_size "$k" --max_rounds 0 --strategy ctf --quiet)
  local fresh="$dir/refresh-fresh" refreshed="$dir/refresh-refreshed"
  rm -rf "$fresh" "$refreshed"
  echo "== fresh extraction of $target documents (K=$k) on the whole index"
  read -r fw frss _ < <(timed "$fresh.log" "$bin/recrawl" extract "${common[@]}" --index "cdxj:$idx/full/index.cdxj" --output "$fresh" --target_size "$target") || return 1
  echo "== night 1: $night1_target documents on the index without 1 % of its captures"
  read -r nw _ < <(timed "$refreshed-night1.log" "$bin/recrawl" extract "${common[@]}" --index "cdxj:$idx/night1/index.cdxj" --output "$refreshed" --target_size "$night1_target") || return 1
  echo "== refresh to $target documents on the whole index"
  read -r rw rrss _ < <(timed "$refreshed.log" "$bin/recrawl" extract "${common[@]}" --index "cdxj:$idx/full/index.cdxj" --output "$refreshed" --target_size "$target" --refresh) || return 1
  local added again rounds frounds
  read -r added again rounds < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r["refreshes"][-1]; print(f["documents_added"], f["resolved_again"], r["totals"]["rounds"]-f["first_round"])' "$refreshed/run.json")
  frounds=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["rounds"])' "$fresh/run.json")
  awk -v r="$rw" -v f="$fw" -v n="$nw" -v a="$added" -v g="$again" -v rr="$rounds" -v fr="$frounds" -v rm="$rrss" -v fm="$frss" 'BEGIN {
    printf "RESULT refresh: %.1f s (%d rounds, %d documents added, %d missing URLs resolved again; peak RSS %s MB) vs fresh extraction %.1f s (%d rounds; %s MB): ratio %.2f (night 1 took %.1f s)\n",
      r, rr, a, g, rm, f, fr, fm, r/f, n }'
}

# bench_scale: see the usage at the top. Everything of one size is measured
# in one stretch, and the sizes one after the other in the same run: compare
# the ratios between sizes, not the seconds of another run.
bench_scale() {
  local cache="${SCALE_DIR:-$HOME/.cache/recrawl/scale}" sizes="${SCALE_SIZES:-1e5 1e6 3e6}"
  local target="${SCALE_TARGET:-20000}" k="${SCALE_K:-1000}" event="${BENCH_EXTRACT_SPEC:-federal-election-2009}"
  local small_k="${SCALE_SMALL_K:-100}" small_rounds="${SCALE_SMALL_ROUNDS:-8}"
  local iflags; read -r -a iflags <<<"${SCALE_INDEX_FLAGS:---dictionary}"
  mkdir -p "$cache"
  go build -o "$bin/recrawl" ./cmd/recrawl
  go test -c -o "$bin/cdxj.test" ./internal/cdxj
  go test -c -o "$bin/lookup.test" ./internal/lookup
  local table="$dir/scale.tsv"
  printf 'captures\tarchive_MB\tceiling_MB/s\tindex_MB/s\tindex/ceiling\tindex/ceiling_cpu\tindex_rss_MB\truns_peak_MB\tindex_MB\truns/index\tcold_lookups/s\twarm_lookups/s\textract_wall_s\trounds\tcollected\tround_fixed_s\tround_ms_per_url\tround_s_median\textract_rss_MB\tfrontier_max\n' >"$table"
  echo "== scale: sizes $sizes (captures); extraction of '$event', K = $k to $target documents on prism; load $(cut -d' ' -f1-3 /proc/loadavg)"
  local size
  for size in $sizes; do
    local n; n=$(awk -v s="$size" 'BEGIN { printf "%d", s }')
    local a="$cache/archive-$n" w="$dir/scale-$n"
    ensure_scale_archive "$n" "$a" "$dir/scale-gen-$n.log"
    local mb; mb=$(du -cb "$a"/*.warc.gz | tail -1 | awk '{ printf "%.1f", $1/1e6 }')
    rm -rf "$w"; mkdir -p "$w"

    # The ceiling, then the index of the same files (all cores each).
    local cwall ccpu iwall irss icpu runs_peak
    read -r cwall _ ccpu < <(RECRAWL_BENCH_ARCHIVE="$a" timed "$w/ceiling.log" \
      "$bin/cdxj.test" -test.run '^$' -test.bench '^BenchmarkArchiveScanCeilingAllCores$' -test.benchtime 1x)
    local idx="$w/index"
    # The run files live in the run's temporary folder under --output (lookup.RunTempDirPrefix);
    # their peak size is sampled every half second.
    ( set +e +o pipefail; peak=0; while [ ! -f "$w/index.done" ]; do
        b=$(du -sb "$idx"/.runs-* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
        [ "$b" -gt "$peak" ] && peak=$b && echo "$peak" >"$w/runs-peak"
        sleep 0.5
      done ) &
    local poller=$!
    read -r iwall irss icpu < <(timed "$w/index.log" "$bin/recrawl" index --input="$a/*.warc.gz" --output="$idx" \
      --format=zipnum --shards=4 "${iflags[@]}") || { touch "$w/index.done"; wait "$poller"; return 1; }
    touch "$w/index.done"; wait "$poller"
    runs_peak=$(cat "$w/runs-peak" 2>/dev/null || echo 0)
    local index_bytes captures
    index_bytes=$(du -sb "$idx" | cut -f1)
    zcat "$idx"/*.gz 2>/dev/null | cut -d' ' -f1 >"$w/lines.txt" || true
    captures=$(wc -l <"$w/lines.txt")
    uniq "$w/lines.txt" >"$w/keys.txt"; rm -f "$w/lines.txt"
    echo "index: $captures captures, $(wc -l <"$w/keys.txt") URLs, $index_bytes bytes; $iwall s, peak RSS $irss MB, run files at most $runs_peak bytes"

    # Look-ups of 1,000 random keys: cold, a new reader for each of 5 batches; warm, one reader for 100.
    local cold warm
    (cd internal/lookup && RECRAWL_BENCH_KEYS="$w/keys.txt" RECRAWL_BENCH_INDEXES="idx=zipnum:$idx" \
      "$bin/lookup.test" -test.run '^$' -test.bench '^BenchmarkIndexLookup$' -test.benchtime 1x -test.count 5) >"$w/lookup-cold.txt"
    (cd internal/lookup && RECRAWL_BENCH_KEYS="$w/keys.txt" RECRAWL_BENCH_INDEXES="idx=zipnum:$idx" \
      "$bin/lookup.test" -test.run '^$' -test.bench '^BenchmarkIndexLookup$' -test.benchtime 100x) >"$w/lookup-warm.txt"
    rate() { awk '/^BenchmarkIndexLookup/ { for (i = 2; i <= NF; i++) if ($i == "lookups/s") print $(i-1) }' "$1" |
      sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR+1)/2)] : "nan") }'; }
    cold=$(rate "$w/lookup-cold.txt"); warm=$(rate "$w/lookup-warm.txt")

    # The extraction at K, then a few rounds at the small K: the rounds of both give the fit.
    # While it runs, once a second: the rounds done, the process's RSS and the size of .work,
    # for the peak RSS and .work per round (against the frontier of that round).
    local spec="$a/specs/$event.yaml" ewall erss
    ( set +e +o pipefail; while [ ! -f "$w/extract.done" ]; do
        pid=$(pgrep -n -f -- "--output $w/extract --engine" || true)
        rss=$([ -n "$pid" ] && awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
        done_rounds=$(ls -d "$w/extract/.work"/state-*/DONE 2>/dev/null | wc -l)
        work=$(du -sb "$w/extract/.work" 2>/dev/null | cut -f1)
        echo "$done_rounds ${rss:-0} ${work:-0}" >>"$w/extract-samples.txt"
        sleep 1
      done ) &
    poller=$!
    read -r ewall erss _ < <(timed "$w/extract.log" "$bin/recrawl" extract --spec "$spec" --index "zipnum:$idx" --archive "$a" \
      --output "$w/extract" --engine beam --batch_size "$k" --target_size "$target" --max_rounds 0 --strategy ctf --quiet) ||
      { touch "$w/extract.done"; wait "$poller"; return 1; }
    touch "$w/extract.done"; wait "$poller"
    timed "$w/extract-small.log" "$bin/recrawl" extract --spec "$spec" --index "zipnum:$idx" --archive "$a" \
      --output "$w/extract-small" --engine beam --batch_size "$small_k" --target_size "$target" --max_rounds "$small_rounds" \
      --strategy ctf --quiet >/dev/null
    local fit
    fit=$(python3 - "$w/extract" "$w/extract-small" "$w/extract-samples.txt" <<'PY'
import json, sys, statistics
main = [json.loads(l) for l in open(sys.argv[1] + "/rounds.jsonl")]
small = [json.loads(l) for l in open(sys.argv[2] + "/rounds.jsonl")]
pts = [(r["selected"], r["seconds"]) for r in main + small]
n = len(pts); mx = sum(x for x, _ in pts) / n; my = sum(y for _, y in pts) / n
sxx = sum((x - mx) ** 2 for x, _ in pts)
b = sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else float("nan")
a = my - b * mx
tot = json.load(open(sys.argv[1] + "/run.json"))["totals"]
print("%d %d %.3f %.3f %.3f %d" % (tot["rounds"], tot["collected"], a, 1000 * b,
      statistics.median(r["seconds"] for r in main), max(r["frontier_size"] for r in main)))
# the state-00000 DONE is the initial state: n DONE files = round n-1 done, round n running
peak, work = {}, {}
for line in open(sys.argv[3]):
    d, rss, w = (int(v) for v in line.split())
    peak[d - 1] = max(peak.get(d - 1, 0), rss // 1024)
    work[d - 1] = max(work.get(d - 1, 0), w // 1000000)
print("per round (frontier at the start: seconds, peak RSS MB while it ran, .work MB): " + ", ".join(
    "%d:%.2fs,%dMB,%dMB" % (r["frontier_size"], r["seconds"], peak.get(r["round"], 0), work.get(r["round"], 0)) for r in main))
PY
)
    local first; first=$(head -1 <<<"$fit")
    echo "RESULT scale $n captures, $(tail -1 <<<"$fit")"
    awk -v n="$captures" -v mb="$mb" -v cw="$cwall" -v iw="$iwall" -v cc="$ccpu" -v ic="$icpu" -v ir="$irss" -v rp="$runs_peak" -v ib="$index_bytes" \
        -v c="$cold" -v wm="$warm" -v ew="$ewall" -v er="$erss" -v f="$first" 'BEGIN { split(f, x, " ")
      printf "%d\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%d\t%.1f\t%.1f\t%.2f\t%.0f\t%.0f\t%.1f\t%d\t%d\t%.3f\t%.3f\t%.3f\t%d\t%d\n",
        n, mb, mb/cw, mb/iw, cw/iw, cc/ic, ir, rp/1e6, ib/1e6, rp/ib, c, wm, ew, x[1], x[2], x[3], x[4], x[5], er, x[6] }' >>"$table"
  done
  echo
  echo "== scale: one row per archive, then the ratio largest / smallest"
  column -t -s $'\t' "$table"
  awk -F'\t' 'NR == 2 { split($0, lo, "\t") } NR > 2 { split($0, hi, "\t") } NR == 1 { split($0, h, "\t") }
    END { if (!length(hi)) exit; line = "ratio"; for (i = 2; i <= length(h); i++) line = line "  " h[i] "=" (lo[i] + 0 ? sprintf("%.2f", hi[i] / lo[i]) : "nan")
      printf "RESULT scale ratio (%d over %d captures): %s\n", hi[1], lo[1], line }' "$table"
}

# bench_lookups: see the usage at the top. The runs alternate between the
# indexes, BENCH_REPS times; medians are printed.
bench_lookups() {
  local cache="${SCALE_DIR:-$HOME/.cache/recrawl/scale}" n=1000000 blocks="${LOOKUP_BLOCKS:-3000 1000 300}"
  local event="${BENCH_EXTRACT_SPEC:-federal-election-2009}" rounds="${LOOKUP_ROUNDS:-8}"
  local a="$cache/archive-$n" w="$dir/lookups"
  go build -o "$bin/recrawl" ./cmd/recrawl
  go test -c -o "$bin/lookup.test" ./internal/lookup
  local isal="${BENCH_ISAL:-1}"
  [ "$isal" = 0 ] || go test -c -tags isal -o "$bin/lookup-isal.test" ./internal/lookup
  ensure_scale_archive "$n" "$a" "$dir/lookups-gen.log"
  rm -rf "$w"; mkdir -p "$w"
  echo "== ZipNum look-ups on $a: --lines_per_block $blocks, 4 shards; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  local nb first="${blocks%% *}"
  for nb in $blocks; do
    local iwall icpu
    read -r iwall _ icpu < <(timed "$w/index-$nb.log" "$bin/recrawl" index --input="$a/*.warc.gz" --output="$w/index-$nb" \
      --format=zipnum --shards=4 --lines_per_block="$nb")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$nb" "$icpu" "$iwall" "$(du -sb "$w/index-$nb" | cut -f1)" \
      "$(stat -c %s "$w/index-$nb/cluster.idx")" "$(grep -c . "$w/index-$nb/cluster.idx")" >>"$w/indexes.tsv"
  done
  zcat "$w/index-$first"/*.gz | cut -d' ' -f1 >"$w/lines.txt"
  local captures; captures=$(wc -l <"$w/lines.txt")
  uniq "$w/lines.txt" >"$w/keys.txt"; rm -f "$w/lines.txt"
  # A real round's batches: the URLs each round of a short extraction looked up.
  timed "$w/extract.log" "$bin/recrawl" extract --spec "$a/specs/$event.yaml" --index "zipnum:$w/index-$first" --archive "$a" \
    --output "$w/extract" --engine beam --batch_size 1000 --target_size 20000 --max_rounds "$rounds" --strategy ctf --quiet >/dev/null
  python3 - "$w/extract" "$w/round-batches.txt" <<'PY'
import json, sys, collections
keys = collections.defaultdict(set)
for f in ("documents.jsonl", "missing.jsonl", "listings.jsonl"):
    for line in open(f"{sys.argv[1]}/{f}"):
        d = json.loads(line)
        keys[d["round"]].add(d["surt"])
full = [r for r in sorted(keys) if len(keys[r]) >= 500]  # the rounds of a whole batch of K
open(sys.argv[2], "w").write("\n\n".join("\n".join(sorted(keys[r])) for r in full) + "\n")
print(f"round batches: rounds {full[0]}-{full[-1]}, {sum(len(keys[r]) for r in full) / len(full):.0f} URLs each")
PY
  local nbatches; nbatches=$(grep -c '^$' "$w/round-batches.txt" || true); nbatches=$((nbatches + 1))
  local rep
  for rep in $(seq "$reps"); do
    for nb in $blocks; do
      local run=(env RECRAWL_BENCH_INDEXES="n$nb=zipnum:$w/index-$nb" "$bin/lookup.test" -test.run '^$' -test.bench '^BenchmarkIndexLookup$')
      (cd internal/lookup && RECRAWL_BENCH_COLD=1 RECRAWL_BENCH_KEYS="$w/keys.txt" "${run[@]}" -test.benchtime 5x) | sed -n 's/^Benchmark/cold-random Benchmark/p' >>"$w/lookups.txt"
      (cd internal/lookup && RECRAWL_BENCH_KEYS="$w/keys.txt" "${run[@]}" -test.benchtime 20x) | sed -n 's/^Benchmark/warm-random Benchmark/p' >>"$w/lookups.txt"
      (cd internal/lookup && RECRAWL_BENCH_COLD=1 RECRAWL_BENCH_BATCHES="$w/round-batches.txt" "${run[@]}" -test.benchtime "${nbatches}x") | sed -n 's/^Benchmark/cold-round Benchmark/p' >>"$w/lookups.txt"
      (cd internal/lookup && RECRAWL_BENCH_BATCHES="$w/round-batches.txt" "${run[@]}" -test.benchtime "${nbatches}x") | sed -n 's/^Benchmark/warm-round Benchmark/p' >>"$w/lookups.txt"
      # The same index with ISA-L's inflate (-tags isal), cold, at the baseline block size.
      if [ "$isal" != 0 ] && [ "$nb" = "$first" ]; then
        run=(env RECRAWL_BENCH_INDEXES="n$nb=zipnum:$w/index-$nb" "$bin/lookup-isal.test" -test.run '^$' -test.bench '^BenchmarkIndexLookup$')
        (cd internal/lookup && RECRAWL_BENCH_COLD=1 RECRAWL_BENCH_KEYS="$w/keys.txt" "${run[@]}" -test.benchtime 5x) | sed -n 's/^Benchmark/cold-random-isal Benchmark/p' >>"$w/lookups.txt"
        (cd internal/lookup && RECRAWL_BENCH_COLD=1 RECRAWL_BENCH_BATCHES="$w/round-batches.txt" "${run[@]}" -test.benchtime "${nbatches}x") | sed -n 's/^Benchmark/cold-round-isal Benchmark/p' >>"$w/lookups.txt"
      fi
    done
  done
  python3 - "$w/indexes.tsv" "$w/lookups.txt" "$captures" "$first" <<'PY'
import sys, statistics, collections
idx = {l.split("\t")[0]: l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()}
captures, first = int(sys.argv[3]), sys.argv[4]
runs = collections.defaultdict(list)
for line in open(sys.argv[2]):
    f = line.split()
    mode, nb = f[0], f[1].split("/")[1].split("-")[0][1:]
    runs[(mode, nb)].append({f[i + 1]: float(f[i]) for i in range(3, len(f) - 1, 2)})
med = lambda mode, nb, unit: statistics.median(r[unit] for r in runs[(mode, nb)])
print(f"{captures} captures. Per --lines_per_block: index CPU-s, index bytes, cluster.idx bytes (lines) and at 4e9 captures")
for nb, (_, cpu, wall, size, cbytes, clines) in idx.items():
    at4e9 = int(cbytes) / int(clines) * 4e9 / (captures / int(clines))
    print(f"RESULT lookups index lines_per_block={nb}: {float(cpu):.1f} CPU-s ({float(wall):.0f} s wall), {int(size)/1e6:.1f} MB, "
          f"cluster.idx {int(cbytes)/1e3:.1f} KB ({clines} blocks); at 4e9 captures {at4e9/1e6:,.0f} MB")
for mode in ("cold-random", "cold-round", "warm-random", "warm-round", "cold-random-isal", "cold-round-isal"):
    for nb in idx:
        if not runs[(mode, nb)]:
            continue
        c, s = med(mode, nb, "lookups/cpu-s"), med(mode, nb, "lookups/s")
        base = mode.removesuffix("-isal")  # the ISA-L rows against the Go inflate of the same batches
        c0, s0 = med(base, first, "lookups/cpu-s"), med(base, first, "lookups/s")
        target = ("" if not mode.startswith("cold") else " (target met)" if s >= 10000 else " (below 10,000/s)")
        print(f"RESULT lookups {mode:16s} lines_per_block={nb:>5s}: {s:7.0f} lookups/s{target}, {c:7.0f} lookups/cpu-s, "
              f"{med(mode, nb, 'blocks/batch'):5.0f} blocks and {med(mode, nb, 'MB-inflated/batch'):6.1f} MB inflated per batch; "
              f"vs {'Go inflate' if mode != base else first}: {s/s0:.2f}x wall, {c/c0:.2f}x CPU (median of {len(runs[(mode, nb)])})")
PY
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

main() {
  case "$what" in
    refresh) bench_refresh ;;
    build) bench_build ;;
    index) bench_index; bench_machine ;;
    machine) bench_machine ;;
    document) bench_document ;;
    extract) bench_extract ;;
    extract-jobs) bench_extract_jobs ;;
    clusters-scale) bench_clusters_scale ;;
    replay) bench_replay ;;
    incremental) bench_incremental ;;
    scale) bench_scale ;;
    lookups) bench_lookups ;;
    all) bench_index; bench_machine; bench_document; bench_extract; bench_refresh; bench_replay ;;
    *) echo "unknown benchmark $what (known: build, index, machine, document, extract, extract-jobs, clusters-scale, refresh, replay, incremental, scale, lookups, all)"; exit 2 ;;
  esac
}
main; exit  # on one line: edits to this file while it runs cannot change what runs
