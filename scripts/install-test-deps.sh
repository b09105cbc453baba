#!/usr/bin/env bash
# install-test-deps.sh installs what the test suite needs beyond Go itself:
# Chromium, which internal/report's test uses to render report.html headless
# (under CI=1 that test fails when Chromium is missing instead of skipping),
# and, through install-replay-deps.sh, the replay viewers that
# internal/testkit/replaytest runs in it (ReplayWeb.page, pywb).
#
# Idempotent: does nothing when a Chromium binary is already on the machine.
# Set CHROMIUM to point the tests at a binary elsewhere.
set -euo pipefail

install_chromium() {
	for bin in "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
		if [ -n "$bin" ] && [ -x "$bin" ]; then
			echo "install-test-deps: chromium present: $bin"
			return 0
		fi
	done

	if ! command -v apt-get >/dev/null 2>&1; then
		echo "install-test-deps: no chromium and no apt-get; install Chromium by hand and set CHROMIUM" >&2
		return 1
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
			return 0
		fi
	done
	echo "install-test-deps: apt-get finished but no chromium binary was found" >&2
	return 1
}

# libisal-dev: ISA-L's inflate, for the tests of the `-tags isal` build
# (internal/inflate; scripts/test.sh runs them).
install_isal() {
	if [ -f /usr/include/isa-l/igzip_lib.h ]; then
		echo "install-test-deps: libisal-dev present"
		return 0
	fi
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then
		SUDO="sudo"
	fi
	$SUDO apt-get update
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends libisal-dev
}

install_chromium
install_isal
bash "$(dirname "$0")/install-replay-deps.sh"
# Flink, Spark and Beam's job servers for the cluster tests (runners/cluster_test.go).
bash "$(dirname "$0")/install-cluster-deps.sh"
# Apache Airflow and its Beam provider for the nightly DAG's test (dags/nightly_test.go).
bash "$(dirname "$0")/install-airflow-deps.sh"
