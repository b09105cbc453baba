#!/usr/bin/env bash
# Checks the licence of every module that recrawl's packages link against an
# allow list of licences compatible with recrawl's own (Apache-2.0, LICENSE):
# Apache-2.0, MIT, BSD-2-Clause, BSD-3-Clause, ISC, 0BSD, and MPL-2.0 (weak
# copyleft: using it unmodified is fine). Anything else fails: GPL, AGPL,
# LGPL, any other licence, and a licence the classifier cannot identify,
# each named with its package. A module whose licence was reviewed by hand
# is listed in EXCEPTIONS below with the reason, and with a phrase its
# licence file must still contain (so a new version under another licence
# fails again).
#
# The classifier is github.com/google/go-licenses, pinned as a Go tool in
# go.mod (`go tool go-licenses`); its `check` reads the module cache only,
# so the script runs offline (GOPROXY=off) once `go mod download` has run.
# Usage: scripts/check-licenses.sh
set -euo pipefail
cd "$(dirname "$0")/.."
me=check-licenses

allowed=Apache-2.0,MIT,BSD-2-Clause,BSD-3-Clause,ISC,0BSD,MPL-2.0

# EXCEPTIONS: module path | a phrase of its licence file | why it is acceptable.
EXCEPTIONS=(
  "github.com/ajstarks/svgo|Creative Commons Attribution 4.0 International|CC-BY-4.0: use and redistribution with attribution; gonum.org/v1/plot's SVG backend links it"
  "github.com/golang/freetype|The FreeType License|FreeType License or GPL-2.0+, at the user's choice: recrawl takes the FreeType License (BSD-style, with credit); gonum.org/v1/plot links it"
)

ignore=()
for e in "${EXCEPTIONS[@]}"; do
  IFS='|' read -r mod phrase _ <<<"$e"
  dir=$(go list -m -f '{{.Dir}}' "$mod" 2>/dev/null) || { echo "$me: $mod is listed as an exception but is not in the module graph: remove it" >&2; exit 1; }
  if [ -z "$dir" ] || ! grep -qsF "$phrase" "$dir"/LICENSE*; then
    echo "$me: $mod: its licence file no longer says \"$phrase\"; review its licence again" >&2
    exit 1
  fi
  ignore+=(--ignore "$mod")
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! go tool go-licenses check ./... --allowed_licenses="$allowed" "${ignore[@]}" >"$log" 2>&1; then
  # go-licenses logs much besides its verdicts (assembly files it cannot
  # inspect, warnings); keep the lines that name a package's licence.
  grep -E 'Not allowed license|Failed to find license|forbidden|unknown|error|Error' "$log" | grep -v 'contains non-Go code' >&2 || tail -20 "$log" >&2
  echo "$me: a linked module's licence is not in the allow list ($allowed); review it and add it to EXCEPTIONS in scripts/check-licenses.sh only if it is compatible with Apache-2.0" >&2
  exit 1
fi
echo "$me: every linked module's licence is one of $allowed, or a reviewed exception (${#EXCEPTIONS[@]}: $(for e in "${EXCEPTIONS[@]}"; do printf '%s ' "${e%%|*}"; done | sed 's/ $//'))"
