#!/usr/bin/env bash
# install-replay-deps.sh installs the replay viewers that internal/testkit/replaytest
# runs, at the versions pinned in scripts/replay-deps.env, into a cache outside
# the repository ($RECRAWL_CACHE, default ~/.cache/recrawl):
#
#   replaywebpage-$REPLAYWEBPAGE_VERSION/package/{ui.js,sw.js}
#       ReplayWeb.page's prebuilt files, from `npm pack` (an `npm install
#       replaywebpage` fails: a dependency version is missing from the
#       registry, and the prebuilt files need none of them).
#   pywb-$PYWB_VERSION/bin/{wayback,wb-manager,cdx-indexer}
#       pywb in its own virtualenv.
#   pywb-$PYWB_VERSION/bin/wacz
#       py-wacz $WACZ_VERSION in the same virtualenv: `wacz validate -f FILE`
#       checks the packages internal/wacz writes.
#
# Chromium itself comes from scripts/install-test-deps.sh. Idempotent: each
# part is skipped when its marker file exists.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=replay-deps.env
. "$here/replay-deps.env"
cache="${RECRAWL_CACHE:-$HOME/.cache/recrawl}"
mkdir -p "$cache"

rwp="$cache/replaywebpage-$REPLAYWEBPAGE_VERSION"
if [ -s "$rwp/package/ui.js" ] && [ -s "$rwp/package/sw.js" ]; then
	echo "install-replay-deps: ReplayWeb.page $REPLAYWEBPAGE_VERSION present: $rwp"
else
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-replay-deps: npm is missing (needed for ReplayWeb.page)" >&2
		exit 1
	fi
	tmp="$(mktemp -d "$cache/.rwp-XXXXXX")"
	(cd "$tmp" && npm pack --silent "replaywebpage@$REPLAYWEBPAGE_VERSION" >/dev/null && tar xzf "replaywebpage-$REPLAYWEBPAGE_VERSION.tgz")
	rm -rf "$rwp"
	mv "$tmp" "$rwp"
	echo "install-replay-deps: ReplayWeb.page $REPLAYWEBPAGE_VERSION in $rwp"
fi

venv="$cache/pywb-$PYWB_VERSION"
if [ -x "$venv/bin/wayback" ] && [ -x "$venv/bin/cdx-indexer" ] && [ -f "$venv/.installed" ]; then
	echo "install-replay-deps: pywb $PYWB_VERSION present: $venv"
else
	py="${PYTHON:-python3}"
	if ! "$py" -m venv --help >/dev/null 2>&1; then
		echo "install-replay-deps: $py has no venv module (Debian: apt-get install python3-venv)" >&2
		exit 1
	fi
	rm -rf "$venv"
	"$py" -m venv "$venv"
	"$venv/bin/pip" install --quiet --disable-pip-version-check "pywb==$PYWB_VERSION"
	touch "$venv/.installed"
	echo "install-replay-deps: pywb $PYWB_VERSION in $venv"
fi

if [ -x "$venv/bin/wacz" ] && [ -f "$venv/.installed-wacz-$WACZ_VERSION" ]; then
	echo "install-replay-deps: py-wacz $WACZ_VERSION present: $venv"
else
	"$venv/bin/pip" install --quiet --disable-pip-version-check "wacz==$WACZ_VERSION"
	touch "$venv/.installed-wacz-$WACZ_VERSION"
	echo "install-replay-deps: py-wacz $WACZ_VERSION in $venv"
fi
