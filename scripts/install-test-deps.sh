#!/usr/bin/env bash
# install-test-deps.sh installs what the test suite needs beyond Go itself:
# Chromium, which internal/report's test uses to render report.html headless
# (under CI=1 that test fails when Chromium is missing instead of skipping).
#
# Idempotent: does nothing when a Chromium binary is already on the machine.
# Set CHROMIUM to point the tests at a binary elsewhere.
set -euo pipefail

# Flink, Spark and Beam's job servers for the cluster tests (runners/cluster_test.go).
bash "$(dirname "$0")/install-cluster-deps.sh"

for bin in "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
	if [ -n "$bin" ] && [ -x "$bin" ]; then
		echo "install-test-deps: chromium present: $bin"
		exit 0
	fi
done

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-test-deps: no chromium and no apt-get; install Chromium by hand and set CHROMIUM" >&2
	exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# fonts-dejavu-core: Chromium needs at least one font to lay out text.
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core

for bin in /usr/bin/chromium /usr/bin/chromium-browser; do
	if [ -x "$bin" ]; then
		echo "install-test-deps: installed $bin ($("$bin" --version 2>/dev/null || echo 'version unknown'))"
		exit 0
	fi
done
echo "install-test-deps: apt-get finished but no chromium binary was found" >&2
exit 1
