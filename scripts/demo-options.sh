#!/usr/bin/env bash
# The comparison of the focusing options (docs/focus.md), on the demo's
# archive: generates and indexes it as scripts/demo.sh does (or reuses
# DEMO_OUT's archive and index when they are there), then runs one
# extraction per variant of `recrawl eval --options` (the paper's preset,
# the default, each option on its own, the unfocused crawls, the label
# oracle) and adds the comparison to OUT/report.html and
# OUT/evaluation.json: precision at R, recall at 200 and accumulated
# relevance against the paper's ctf and the unfocused crawl.
# Environment: DEMO_OUT (default demo-out; the report goes to
# DEMO_OUT/options), DEMO_PAGES (default 3000), DEMO_EVENT (default
# federal-election-2009), DEMO_TARGET (default 300), DEMO_TEMPLATES=1
# (genarchive --templates: precision broken down per site template),
# DEMO_OPTIONS (variants, default all; `recrawl eval --help` lists them).
# All variants take about 10 minutes and 800 MB of disk on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/demo-lib.sh

step "building"
build_demo

if [ ! -s "$out/archive/labels.tsv" ] || [ ! -d "$out/index" ]; then
  make_archive
else
  step "reusing $out/archive and $out/index"
fi

step "comparing the focusing options on '$event' (one extraction per variant: ${DEMO_OPTIONS:-all})"
mkdir -p "$out/options"
"$bin/recrawl" eval --options "${DEMO_OPTIONS:-all}" --labels "$out/archive/labels.tsv" --event "$event" \
  --report "$out/options" --spec "$out/archive/specs/$event.yaml" --index "zipnum:$out/index" --archive "$out/archive" \
  --target_size "$target" --batch_size 50 2>/dev/null

echo
echo "report:  $out/options/report.html (the options comparison; evaluation.json holds the same numbers)"
echo "elapsed: $((SECONDS - start)) s"
