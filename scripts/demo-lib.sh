# demo-lib.sh: what scripts/demo.sh and scripts/demo-options.sh share, sourced
# by both from the repository's root: their settings (DEMO_OUT, DEMO_PAGES,
# DEMO_EVENT, DEMO_TARGET, DEMO_TEMPLATES), the step lines with the time
# since the start, the build, and the demo archive with its index.
start=$SECONDS
out="${DEMO_OUT:-demo-out}"
pages="${DEMO_PAGES:-3000}"
event="${DEMO_EVENT:-federal-election-2009}"
target="${DEMO_TARGET:-300}"
templates=()
[ -z "${DEMO_TEMPLATES:-}" ] || templates=(--templates)
bin="$out/bin"
mkdir -p "$bin"

step() { printf '\n== %s (%d s)\n' "$*" $((SECONDS - start)); }

# build_demo builds recrawl and genarchive into $bin.
build_demo() {
  go build -o "$bin/" ./cmd/recrawl ./cmd/genarchive
}

# make_archive generates the demo archive into $out/archive and indexes it
# into $out/index (ZipNum, 2 shards, with document frequencies).
make_archive() {
  step "generating a synthetic archive of $pages articles in $out/archive"
  rm -rf "$out/archive" "$out/index"
  "$bin/genarchive" --out "$out/archive" --pages "$pages" --seed 1 --quiet ${templates[@]+"${templates[@]}"}
  step "indexing it (ZipNum, 2 shards, with document frequencies)"
  "$bin/recrawl" index --input="$out/archive/*.warc.gz" --output="$out/index" --format=zipnum --shards=2 --dictionary 2> "$out/index.log"
}
