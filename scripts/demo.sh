#!/usr/bin/env bash
# The demo, end to end on a fresh clone:
#   1. generate a synthetic web archive (English and German news sites,
#      several events, 1-4 captures per URL, revisits, redirects, 404s),
#   2. index it (ZipNum snapshot index + document frequencies for IDF),
#   3. extract one event's collection with ctf, cf, tf and unfocused,
#   4. evaluate the four runs against the archive's labels (report.html),
# then print how to replay the collections from the report and the time it
# took. The comparison of the focusing options is scripts/demo-options.sh.
# Environment: DEMO_OUT (default demo-out), DEMO_PAGES (articles, default
# 3000), DEMO_EVENT (default federal-election-2009), DEMO_TARGET (documents
# per run, default 300), DEMO_TEMPLATES=1 (hosts built as real news sites
# lay out their links: asides, teaser grids, footer link farms, print/AMP
# copies; genarchive --templates; the report then breaks precision down per
# template), DEMO_SERVE=1 (serve the report and the collections on
# 127.0.0.1 at the end, until Ctrl+C).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/demo-lib.sh

step "building (the first build of Beam takes a few minutes)"
build_demo
built=$SECONDS

make_archive
tail -n 3 "$out/index.log" | sed 's/^/  /' || true

spec="$out/archive/specs/$event.yaml"
runs=()
for strategy in ctf cf tf unfocused; do
  step "extracting '$event' with $strategy (target $target documents, 50 per round)"
  rm -rf "$out/$strategy"
  "$bin/recrawl" extract --spec "$spec" --index "zipnum:$out/index" --archive "$out/archive" \
    --output "$out/$strategy" --strategy "$strategy" --target_size "$target" --batch_size 50
  runs+=("$out/$strategy")
done

step "evaluating the four runs against the archive's labels"
"$bin/recrawl" eval --runs "$(IFS=,; echo "${runs[*]}")" --labels "$out/archive/labels.tsv" --event "$event" \
  --report "$out" 2>/dev/null

echo
echo "report:      $out/report.html"
echo "plot:        $out/accumulated_relevance.png"
echo "collections: $out/{ctf,cf,tf,unfocused}/ (documents.jsonl, collection.wacz, links.graphml, ...)"
echo "replay:      $bin/recrawl serve --report $out   (open the address it prints; each top document is one click from its replay)"
echo "elapsed:     $((SECONDS - start)) s ($((SECONDS - built)) s after the build)"

if [ -n "${DEMO_SERVE:-}" ]; then
  exec "$bin/recrawl" serve --report "$out"
fi
