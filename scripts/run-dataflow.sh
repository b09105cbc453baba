#!/usr/bin/env bash
# Submits a recrawl pipeline to Google Cloud Dataflow and prints the exact
# command before running it. Credentials are the application default ones
# (`gcloud auth application-default login`, or the service account of the
# machine). DRY_RUN=1 only translates the job and prints it, offline.
#
# Environment (required):
#   PROJECT            Google Cloud project
#   REGION             Dataflow region, e.g. europe-west1
#   BUCKET             bucket for staging and temporary files (gs://BUCKET/staging, gs://BUCKET/tmp);
#                      or set STAGING_LOCATION and TEMP_LOCATION (gs://) yourself
#   INPUT              archives: gs:// files/globs, comma-separated
#   OUTPUT             index directory, gs://
# Environment (optional):
#   PIPELINE           index (default) or extract
#   FORMAT, SHARDS     index format (cdxj|zipnum, default zipnum) and shard count (default 64)
#   BIGTABLE_INSTANCE  also load the index into Bigtable instance PROJECT/BIGTABLE_INSTANCE,
#   BIGTABLE_TABLE       table BIGTABLE_TABLE (default captures)
#   WORKER_BINARY      linux/amd64 build of the pipeline; built into .cache/bin if unset
#   NUM_WORKERS, MAX_NUM_WORKERS, MACHINE_TYPE   Dataflow worker pool
#   JOB_NAME           default recrawl-PIPELINE-DATE (lower case, digits, dashes)
#   DRY_RUN=1          --dry_run: print the translated job, submit nothing
#   PRINT_ONLY=1       print the command, do not run it
# Extra arguments are passed on to the pipeline.
# Example:
#   PROJECT=my-project REGION=europe-west1 BUCKET=my-bucket \
#     INPUT='gs://my-bucket/crawl/*.warc.gz' OUTPUT=gs://my-bucket/index scripts/run-dataflow.sh
set -euo pipefail
cd "$(dirname "$0")/.."

me=run-dataflow
die() { echo "$me: $*" >&2; exit 1; }
need() { [ -n "${!1:-}" ] || die "$1 is not set: $2 (see the top of $0)"; }
gs() { case "$2" in gs://*) ;; *) die "$1=$2 must be a gs:// path: Dataflow workers cannot read this machine's files" ;; esac; }

pipeline="${PIPELINE:-index}"
need PROJECT "the Google Cloud project to run in"
need REGION "the Dataflow region (e.g. europe-west1)"
if [ -z "${STAGING_LOCATION:-}" ]; then
  need BUCKET "the bucket for staging files (or set STAGING_LOCATION=gs://...)"
  STAGING_LOCATION="gs://$BUCKET/staging"
fi
[ -n "${TEMP_LOCATION:-}" ] || TEMP_LOCATION="${STAGING_LOCATION%/}/tmp"
gs STAGING_LOCATION "$STAGING_LOCATION"
gs TEMP_LOCATION "$TEMP_LOCATION"

args=()
case "$pipeline" in
  index)
    need INPUT "the archives to index (gs://BUCKET/crawl/*.warc.gz)"
    need OUTPUT "the index directory (gs://BUCKET/index)"
    IFS=',' read -ra parts <<<"$INPUT"
    for p in "${parts[@]}"; do gs INPUT "${p# }"; done
    gs OUTPUT "$OUTPUT"
    args+=(--input="$INPUT" --output="$OUTPUT" --format="${FORMAT:-zipnum}" --shards="${SHARDS:-64}")
    [ -z "${BIGTABLE_INSTANCE:-}" ] || args+=(--bigtable="$PROJECT/$BIGTABLE_INSTANCE/${BIGTABLE_TABLE:-captures}")
    ;;
  extract)
    # The extraction pipeline (pipelines/extract) is being written; its flags
    # will go here, e.g.:
    #   args+=(--spec="$SPEC" --index="$INDEX" --work="gs://$BUCKET/work" --output="$OUTPUT")
    die "PIPELINE=extract is not available yet"
    ;;
  *) die "PIPELINE=$pipeline: must be index or extract" ;;
esac

# build CMD...: prints a build command and runs it (not with PRINT_ONLY=1).
build() {
  echo "+ $*" >&2
  [ "${PRINT_ONLY:-}" = 1 ] || env "$@"
}

bindir="${RECRAWL_BIN:-$PWD/.cache/bin}"
mkdir -p "$bindir"
worker="${WORKER_BINARY:-}"
if [ -z "$worker" ] && [ "${DRY_RUN:-}" != 1 ]; then
  worker="$bindir/$pipeline-linux-amd64"
  build GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$worker" "./pipelines/$pipeline"
fi
if [ -n "$worker" ] && [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
  driver="$worker"
else
  driver="$bindir/$pipeline"
  build go build -o "$driver" "./pipelines/$pipeline"
fi

cmd=("$driver" --runner=dataflow --project="$PROJECT" --region="$REGION"
  --staging_location="$STAGING_LOCATION" --temp_location="$TEMP_LOCATION"
  --job_name="${JOB_NAME:-recrawl-$pipeline-$(date -u +%Y%m%d-%H%M%S)}")
[ -z "$worker" ] || cmd+=(--worker_binary="$worker")
[ -z "${NUM_WORKERS:-}" ] || cmd+=(--num_workers="$NUM_WORKERS")
[ -z "${MAX_NUM_WORKERS:-}" ] || cmd+=(--max_num_workers="$MAX_NUM_WORKERS")
[ -z "${MACHINE_TYPE:-}" ] || cmd+=(--worker_machine_type="$MACHINE_TYPE")
[ "${DRY_RUN:-}" != 1 ] || cmd+=(--dry_run)
cmd+=("${args[@]}" "$@")

printf '+' >&2; printf ' %q' "${cmd[@]}" >&2; echo >&2
[ "${PRINT_ONLY:-}" = 1 ] && exit 0
exec "${cmd[@]}"
