#!/usr/bin/env bash
# Submits a recrawl pipeline (index or extract) to Google Cloud Dataflow and
# prints the exact commands before running them; with --print (first
# argument) or PRINT_ONLY=1 it only prints them. Credentials are the
# application default ones (`gcloud auth application-default login`, or the
# service account of the machine). DRY_RUN=1 only translates the job (for
# extract: its first round) and prints it, offline.
#
# Environment (required):
#   PROJECT            Google Cloud project
#   REGION             Dataflow region, e.g. europe-west1
#   BUCKET             bucket for staging and temporary files (gs://BUCKET/staging, gs://BUCKET/tmp);
#                      or set STAGING_LOCATION and TEMP_LOCATION (gs://) yourself
#   PIPELINE           index (default) or extract
#   index:   INPUT (archives: gs:// files/globs, comma-separated), OUTPUT (index directory, gs://)
#   extract: SPEC (the Collection Specification, read here), INDEX (cdxj:gs://…, zipnum:gs://…
#            or bigtable:P/I/T), ARCHIVE (gs:// prefixes, comma-separated), OUTPUT (gs://)
# Environment (optional):
#   FORMAT, SHARDS     index format (cdxj|zipnum, default zipnum) and shard count (default 64)
#   BIGTABLE_INSTANCE  also load the index into Bigtable instance PROJECT/BIGTABLE_INSTANCE,
#   BIGTABLE_TABLE       table BIGTABLE_TABLE (default captures)
#   WORK               extract: state directory, gs:// (default OUTPUT/.work)
#   WORKER_BINARY      linux/amd64 build of the pipeline; built into .cache/bin if unset
#   NUM_WORKERS, MAX_NUM_WORKERS, MACHINE_TYPE   Dataflow worker pool
#   JOB_NAME           default recrawl-PIPELINE-DATE (lower case, digits, dashes)
#   DRY_RUN=1          --dry_run: print the translated job, submit nothing
#   PRINT_ONLY=1       print the commands, run none (or --print as the first argument)
# Extra arguments are passed on to the pipeline. Before anything is built,
# also with --print, the pipeline checks its command line itself (recrawl
# PIPELINE --check, through go run or RECRAWL_CHECK_BINARY; scripts/lib.sh):
# every path gs://, the index spec, the spec and the runner options.
# Example:
#   PROJECT=my-project REGION=europe-west1 BUCKET=my-bucket \
#     INPUT='gs://my-bucket/crawl/*.warc.gz' OUTPUT=gs://my-bucket/index scripts/run-dataflow.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --print ]; then
  PRINT_ONLY=1
  shift
fi
me=run-dataflow
# shellcheck source=lib.sh
. scripts/lib.sh

pipeline="${PIPELINE:-index}"
need PROJECT "the Google Cloud project to run in"
need REGION "the Dataflow region (e.g. europe-west1)"
if [ -z "${STAGING_LOCATION:-}" ]; then
  need BUCKET "the bucket for staging files (or set STAGING_LOCATION=gs://...)"
  STAGING_LOCATION="gs://$BUCKET/staging"
fi
[ -n "${TEMP_LOCATION:-}" ] || TEMP_LOCATION="${STAGING_LOCATION%/}/tmp"

args=()
pipeline_args "$pipeline" 64
if [ "$pipeline" = index ] && [ -n "${BIGTABLE_INSTANCE:-}" ]; then
  args+=(--bigtable="$PROJECT/$BIGTABLE_INSTANCE/${BIGTABLE_TABLE:-captures}")
fi

job_name="${JOB_NAME:-recrawl-$pipeline-$(date -u +%Y%m%d-%H%M%S)}"
runner_flags=(--runner=dataflow --project="$PROJECT" --region="$REGION"
  --staging_location="$STAGING_LOCATION" --temp_location="$TEMP_LOCATION" --job_name="$job_name")
pool_flags=()
[ -z "${NUM_WORKERS:-}" ] || pool_flags+=(--num_workers="$NUM_WORKERS")
[ -z "${MAX_NUM_WORKERS:-}" ] || pool_flags+=(--max_num_workers="$MAX_NUM_WORKERS")
[ -z "${MACHINE_TYPE:-}" ] || pool_flags+=(--worker_machine_type="$MACHINE_TYPE")
[ "${DRY_RUN:-}" != 1 ] || pool_flags+=(--dry_run)
# Before anything is built: the pipeline's own checks of the paths (all
# gs://: Dataflow workers cannot read this machine's files), the index spec
# and the runner options.
check_command_line "$pipeline" "${runner_flags[@]}" "${pool_flags[@]}" "${args[@]}" "$@"

# The submitting program (this machine) and the worker binary (linux/amd64,
# static). On a linux/amd64 machine one static build serves as both.
bindir="${RECRAWL_BIN:-$PWD/.cache/bin}"
print_only || mkdir -p "$bindir"
worker="${WORKER_BINARY:-}"
if [ -z "$worker" ] && [ "${DRY_RUN:-}" != 1 ]; then
  worker="$bindir/recrawl-linux-amd64"
  build GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$worker" ./cmd/recrawl
fi
if [ -n "$worker" ] && [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
  driver="$worker"
else
  driver="$bindir/recrawl"
  build go build -o "$driver" ./cmd/recrawl
fi

cmd=("$driver" "$pipeline" "${runner_flags[@]}")
[ -z "$worker" ] || cmd+=(--worker_binary="$worker")
cmd+=("${pool_flags[@]}" "${args[@]}" "$@")

show "${cmd[@]}"
print_only && exit 0
exec "${cmd[@]}"
