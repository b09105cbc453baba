#!/usr/bin/env bash
# Measures the focusing variants on two layout families of the demo archive
# and prints one table (docs/focus.md):
#   templates: genarchive --templates (hosts in the classic, aside, teasers,
#              footer-farm and amp-print site templates),
#   classic:   the same archive without templates (every host classic).
# For each family: generate, index as ZipNum with the document-frequency
# dictionary, run `extract eval --options OPTIONS` for every event of the
# archive's labels, then cmd/evalsummary prints per variant the mean
# precision at R and recall at 200, the ratio to the label oracle, and per
# template and event the cells with the checks (≥ 2× unfocused, ≥ 2×
# unfocused+listings, ≥ ctf), and the simulated researcher's table: the
# labels-L@N rows (the default to N documents, then `extract --refresh
# --labels_file` to the target with the true labels of its L documents of
# highest relevance, from the archive's labels.tsv) against the default
# and the oracle, in crawl order and in the ranked view (the collection by
# relevance score).
#
# Environment: EVAL_OUT (default eval-out), EVAL_PAGES (articles, default
# 3000), EVAL_TARGET (documents per run, default 200), EVAL_K (batch size,
# default 50), EVAL_OPTIONS (variants, default ctf,unfocused,default,oracle;
# ctf, unfocused and unfocused+listings always run: the 2× check is made
# against both unfocused rows, the spec as given and the crawl that
# counts listing pages), EVAL_FAMILIES (default "templates classic"),
# EVAL_EVENTS (event names, default every spec of the archive),
# EVAL_INDEX_FLAGS (more flags of `recrawl index`, e.g. --dictionary_docs=2000),
# EVAL_RESEARCHER (default 1: the default variants include the researcher
# rows labels-10@50, labels-20@50, labels-10@100 and labels-20@100; 0
# leaves them out, halving the time). EVAL_OPTIONS may also name
# labels-low-L@N (the true labels of the L documents of lowest relevance
# among the first N) and labels-spread-L@N (L documents spread evenly over
# the ranking by relevance); labels-low-10@50, labels-low-20@100 and
# labels-spread-20@100 are defined, and labels-10@50+look-ahead-2 and
# labels-20@100+look-ahead-2: the researcher on default+look-ahead-2.
# With the default variants and EVAL_RESEARCHER=0 an event takes about
# 20 s at low load.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${EVAL_OUT:-eval-out}"
pages="${EVAL_PAGES:-3000}"
target="${EVAL_TARGET:-200}"
k="${EVAL_K:-50}"
researcher=""
if [[ "${EVAL_RESEARCHER:-1}" != 0 ]]; then
  researcher="labels-10@50,labels-20@50,labels-10@100,labels-20@100,"
fi
options="${EVAL_OPTIONS:-ctf,unfocused,default,${researcher}oracle}"
case ",$options," in
  *,unfocused+listings,*) ;;
  *) options="unfocused+listings,$options" ;;
esac
families="${EVAL_FAMILIES:-templates classic}"
bin="$out/bin"
mkdir -p "$bin"

step() { printf '== %s (%s)\n' "$*" "$(date +%T)" >&2; }

step "building"
go build -o "$bin/" ./cmd/genarchive ./cmd/evalsummary ./cmd/recrawl

args=()
for family in $families; do
  dir="$out/$family"
  case "$family" in
    templates) gen=(--templates) ;;
    classic) gen=() ;;
    *) echo "eval-layouts: unknown family '$family' (templates, classic)" >&2; exit 2 ;;
  esac
  step "$family: generating $pages articles and indexing them"
  rm -rf "$dir"
  mkdir -p "$dir"
  "$bin/genarchive" --out "$dir/archive" --pages "$pages" --seed 1 --quiet "${gen[@]}" > "$dir/genarchive.log"
  "$bin/recrawl" index --input="$dir/archive/*.warc.gz" --output="$dir/index" --format=zipnum --shards=2 --dictionary ${EVAL_INDEX_FLAGS:-} 2> "$dir/index.log"
  files=()
  for spec in "$dir"/archive/specs/*.yaml; do
    event=$(basename "$spec" .yaml)
    if [[ -n "${EVAL_EVENTS:-}" && " $EVAL_EVENTS " != *" $event "* ]]; then
      continue
    fi
    step "$family: $event: recrawl eval --options $options"
    # A failed extraction keeps its work directory and the same command
    # resumes it: one more attempt rides over a runner's transient failure.
    for attempt in 1 2; do
      if "$bin/recrawl" eval --labels "$dir/archive/labels.tsv" --event "$event" --report "$dir/$event" \
        --options "$options" --spec "$spec" --index "zipnum:$dir/index" --archive "$dir/archive" \
        --target_size "$target" --batch_size "$k" 2>> "$dir/eval.log" >> "$dir/eval.out"; then
        break
      elif [[ $attempt == 2 ]]; then
        echo "eval-layouts: $family/$event failed twice; see $dir/eval.log" >&2
        exit 1
      fi
      step "$family: $event: failed (see $dir/eval.log); resuming"
    done
    files+=("$dir/$event/evaluation.json")
  done
  args+=("$family=$(IFS=,; echo "${files[*]}")")
done

step "summary"
"$bin/evalsummary" "${args[@]}" | tee "$out/summary.md"
echo "(written to $out/summary.md; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
