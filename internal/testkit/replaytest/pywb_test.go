package replaytest

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/report"
	"github.com/recrawl/recrawl/internal/wacz"
)

// TestPywbReplay adds a collection's collection.warc.gz and collection.cdxj
// (our index, not one pywb makes) to a pywb collection, serves it with
// `wayback` on loopback and checks that pywb's id_ replay of each checked
// page returns the archived payload byte for byte: for a revisit, the
// payload of the response it revisits; for a redirect, the 3xx response
// itself.
func TestPywbReplay(t *testing.T) {
	wayback := PywbBin(t, "wayback")
	dir := t.TempDir()
	c, err := BuildCollection(filepath.Join(dir, "run"), 100, 11, wacz.Options{Title: testTitle})
	if err != nil {
		t.Fatal(err)
	}
	ValidateWACZ(t, c.WACZPath())
	checks, err := c.Checks(5, "revisit", "redirect")
	if err != nil {
		t.Fatal(err)
	}
	base := servePywb(t, wayback, filepath.Join(dir, "pywb"), c.Dir)
	client := idReplayClient()

	warc, err := os.Open(c.WARCPath())
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()
	for _, ck := range checks {
		want := ck.Open
		if ck.Kind == "revisit" {
			want = ck.Want
		}
		payload, err := rawPayload(warc, want.Offset, want.Length)
		if err != nil {
			t.Fatal(err)
		}
		u := base + ck.Open.Timestamp + "id_/" + ck.Open.URL
		status, got := idReplay(t, client, u)
		if strconv.Itoa(status) != statusOf(t, warc, ck.Open) {
			t.Errorf("%s %s: pywb status %d, archived %s", ck.Kind, u, status, statusOf(t, warc, ck.Open))
		}
		if !bytes.Equal(got, payload) {
			t.Errorf("%s %s: pywb returned %d bytes, the archived payload has %d (or they differ)\n pywb %.200q\n warc %.200q",
				ck.Kind, u, len(got), len(payload), got, payload)
			continue
		}
		t.Logf("%s %s: %d bytes, identical", ck.Kind, ck.Open.URL, len(got))
	}

	// The link report.html gives a document with --replay_base opens its
	// capture in pywb's framed replay; the frame (mp_) shows the archived
	// title.
	ck := checks[0]
	rec, err := records.ReadRecordAt(warc, ck.Open.Offset, ck.Open.Length, collection.WARCFile)
	if err != nil {
		t.Fatal(err)
	}
	title, _ := ArchivedTitle(rec)
	link := report.WaybackURL(base, ck.Open.Timestamp, ck.Open.URL)
	for _, u := range []string{link, report.WaybackURL(base, ck.Open.Timestamp+"mp_", ck.Open.URL)} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("report link %s: status %d", u, resp.StatusCode)
		}
		if u != link && !strings.Contains(html.UnescapeString(string(body)), "<title>"+title+"</title>") {
			t.Errorf("report link %s: archived title %q not in the replayed frame", u, title)
		}
	}
}

// servePywb makes root a pywb root whose collection "coll" holds
// collDir's collection.warc.gz (hard-linked into archive/) and
// collection.cdxj (our index, as indexes/index.cdxj), serves it with
// `wayback` on a free loopback port until the test ends, and returns the
// collection's base URL once pywb answers.
func servePywb(t *testing.T, wayback, root, collDir string) string {
	t.Helper()
	coll := filepath.Join(root, "collections", "coll")
	for _, sub := range []string{"archive", "indexes"} {
		if err := os.MkdirAll(filepath.Join(coll, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(collDir, collection.WARCFile), filepath.Join(coll, "archive", collection.WARCFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(collDir, collection.CDXJFile), filepath.Join(coll, "indexes", "index.cdxj")); err != nil {
		t.Fatal(err)
	}
	return startWayback(t, wayback, root) + "coll/"
}

// startWayback serves the pywb root on a free loopback port until the test
// ends, and returns its base URL once it answers.
func startWayback(t *testing.T, wayback, root string) string {
	t.Helper()
	port := freePort(t)
	var logs bytes.Buffer
	cmd := exec.Command(wayback, "-b", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "2", "-d", root)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("wayback output:\n%.3000s", logs.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		resp, err := http.Get(base)
		if err == nil {
			resp.Body.Close()
			return base
		}
		select {
		case <-ctx.Done():
			t.Fatalf("wayback did not start: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// idReplayClient is the HTTP client the pywb tests replay with: it does not
// follow redirects, since id_ replay of a redirect returns the 3xx itself.
func idReplayClient() *http.Client {
	return &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// idReplay gets an id_ replay URL and returns the status and the body as
// stored: it asks for no transparent decompression.
func idReplay(t *testing.T, client *http.Client, u string) (status int, body []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// statusOf is the HTTP status of a capture's record (a revisit's own head).
func statusOf(t *testing.T, warc *os.File, c cdxj.Capture) string {
	t.Helper()
	rec, err := records.ReadRecordAt(warc, c.Offset, c.Length, collection.WARCFile)
	if err != nil {
		t.Fatal(err)
	}
	if rec.HTTP == nil {
		return "200"
	}
	return rec.HTTP.StatusCode()
}

// rawPayload returns a record's HTTP entity as stored (content and
// transfer codings left in place): the block after the HTTP head.
func rawPayload(warc *os.File, offset, length int64) ([]byte, error) {
	it, err := records.NewIterator(io.NewSectionReader(warc, offset, length), collection.WARCFile, nil)
	if err != nil {
		return nil, err
	}
	rec, err := it.Next()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(rec.Payload())
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, p, _ := strings.Cut(ln.Addr().String(), ":")
	n, _ := strconv.Atoi(p)
	return n
}
