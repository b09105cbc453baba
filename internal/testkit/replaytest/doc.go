// Package replaytest is what the replay tests share: a generated collection
// (WARC, index, WACZ), or an extraction output, with the checks each
// replayed page must pass, the pinned pywb and ReplayWeb.page installed by
// scripts/install-test-deps.sh, a headless Chromium driven over the
// DevTools protocol, and a proxy that refuses every request, so that a test
// can prove a replay reached nothing outside the collection.
package replaytest
