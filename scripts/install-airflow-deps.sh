#!/usr/bin/env bash
# install-airflow-deps.sh installs Apache Airflow with the Beam provider, for
# the nightly DAG (dags/recrawl_nightly.py) and its test (dags/nightly_test.go),
# into a virtualenv in a cache outside the repository ($RECRAWL_CACHE, default
# ~/.cache/recrawl):
#
#   airflow-AIRFLOW_VERSION/bin/airflow
#
# The versions are pinned in scripts/airflow-requirements.txt and every
# transitive dependency in scripts/airflow-constraints.txt (pip's -c, as
# Airflow asks). Needs CPython 3.10-3.13 with venv (PYTHON, default python3).
#
# Idempotent: skipped when the virtualenv's marker names the same pins (a
# hash of both files); a change of pins installs a fresh virtualenv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
me=install-airflow-deps
cache="${RECRAWL_CACHE:-$HOME/.cache/recrawl}"
req="$here/airflow-requirements.txt"
cons="$here/airflow-constraints.txt"
version="$(sed -n 's/^apache-airflow==//p' "$req")"
[ -n "$version" ] || { echo "$me: $req pins no apache-airflow==VERSION" >&2; exit 1; }
pins="$(cat "$req" "$cons" | sha256sum | cut -c1-16)"
venv="$cache/airflow-$version"
marker="$venv/.installed-$pins"

if [ -x "$venv/bin/airflow" ] && [ -f "$marker" ]; then
	echo "$me: Airflow $version present: $venv"
	exit 0
fi
py="${PYTHON:-python3}"
if ! "$py" -m venv --help >/dev/null 2>&1; then
	echo "$me: $py has no venv module (Debian: apt-get install python3-venv)" >&2
	exit 1
fi
mkdir -p "$cache"
tmp="$(mktemp -d "$cache/.airflow-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# Built under its final path: a virtualenv's scripts name their interpreter
# by absolute path, so it cannot be moved once made.
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" -c "$cons"
# A check that it starts, with a throw-away AIRFLOW_HOME (not ~/airflow).
AIRFLOW_HOME="$tmp" "$venv/bin/airflow" version >/dev/null
touch "$marker"
echo "$me: Airflow $version in $venv"
