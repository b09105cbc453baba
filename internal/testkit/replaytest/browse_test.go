package replaytest

import (
	"context"
	"testing"
	"time"
)

// launchBehindProxy launches Chromium with a RefusingProxy as its proxy,
// so that its pages reach nothing beyond loopback, and Chromium's log in
// logFile (none when empty). Both are closed when the test ends, and the
// requests the proxy refused are logged.
func launchBehindProxy(t *testing.T, logFile string) *Browser {
	t.Helper()
	bin := Chromium(t)
	px, err := NewRefusingProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	b, err := Launch(BrowserOptions{Binary: bin, Proxy: px.Addr, DataDir: t.TempDir(), LogFile: logFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		if seen := px.Seen(); len(seen) > 0 {
			t.Logf("requests Chromium tried beyond loopback (refused): %d, first %q", len(seen), seen[0])
		}
	})
	return b
}

// browse launches Chromium behind a RefusingProxy (launchBehindProxy) and
// opens url in a tab. The returned context bounds the test's browsing to
// timeout; the tab, Chromium and the proxy are closed when the test ends.
func browse(t *testing.T, url, logFile string, timeout time.Duration) (context.Context, *Browser, *Page) {
	t.Helper()
	b := launchBehindProxy(t, logFile)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	p, err := b.NewPage(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return ctx, b, p
}
