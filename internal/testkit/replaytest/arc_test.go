package replaytest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/internal/wacz"
)

// arcFiles are the ARC conformance files the ARC replay tests build their
// collection from.
var arcFiles = []string{"conformance/pywb/example.arc.gz", "conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz"}

// arcCollection writes into out the collection an extraction writes for
// every HTTP capture of arcFiles (archive.WriteCollection: each capture a
// WARC record), and returns those captures as the ARC files' own index
// names them, and the folders holding the files.
func arcCollection(t *testing.T, out string) (caps []cdxj.Capture, srcDirs []string) {
	t.Helper()
	var recs []archive.Record
	for _, rel := range arcFiles {
		path := sharedtest.Path(t, rel)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cdxj.IndexFile(bytes.NewReader(data), filepath.Base(path), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
			if c.Status != "" && strings.HasPrefix(c.URL, "http") {
				caps = append(caps, c)
				recs = append(recs, archive.Record{URL: c.URL, File: c.Filename, Offset: c.Offset, Length: c.Length})
			}
			return nil
		})
		if err != nil {
			t.Fatalf("index %s: %v", path, err)
		}
		srcDirs = append(srcDirs, filepath.Dir(path))
	}
	if len(caps) < 5 {
		t.Fatalf("%d HTTP captures in the ARC files", len(caps))
	}
	f := archive.NewFetcher(srcDirs)
	defer f.Close()
	if err := archive.WriteCollection(context.Background(), out, recs, f); err != nil {
		t.Fatal(err)
	}
	return caps, srcDirs
}

// collectionCaptures reads out/collection.cdxj, the captures by URL and
// timestamp ("URL TIMESTAMP").
func collectionCaptures(t *testing.T, out string) map[string]cdxj.Capture {
	t.Helper()
	cdx, err := os.ReadFile(filepath.Join(out, archive.CollectionCDXJ))
	if err != nil {
		t.Fatal(err)
	}
	inColl := map[string]cdxj.Capture{}
	for _, l := range bytes.Split(bytes.TrimSpace(cdx), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		c, err := cdxj.Parse(string(l))
		if err != nil {
			t.Fatal(err)
		}
		inColl[c.URL+" "+c.Timestamp] = c
	}
	return inColl
}

// TestPywbReplayARC: a collection made of nothing but ARC captures (pywb's
// example.arc.gz, the UKWA blackbook ARC) is written as the extraction
// writes it (archive.WriteCollection: each capture a WARC record) and
// served by pywb from its collection.warc.gz and collection.cdxj; pywb's
// id_ replay of every HTTP capture returns its archived status and payload
// byte for byte, the payload also being the ARC record's own.
func TestPywbReplayARC(t *testing.T) {
	wayback := PywbBin(t, "wayback")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	caps, srcDirs := arcCollection(t, out)
	base := servePywb(t, wayback, filepath.Join(dir, "pywb"), out)

	inColl := collectionCaptures(t, out)
	warc, err := os.Open(filepath.Join(out, archive.CollectionWARC))
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()
	client := idReplayClient()
	for _, src := range caps {
		c, ok := inColl[src.URL+" "+src.Timestamp]
		if !ok {
			t.Errorf("%s %s: not in collection.cdxj", src.URL, src.Timestamp)
			continue
		}
		want, err := rawPayload(warc, c.Offset, c.Length)
		if err != nil {
			t.Fatal(err)
		}
		srcFile, err := os.Open(filepath.Join(srcDirs[0], src.Filename))
		if err != nil {
			srcFile, err = os.Open(filepath.Join(srcDirs[1], src.Filename))
		}
		if err != nil {
			t.Fatal(err)
		}
		orig, err := rawPayload(srcFile, src.Offset, src.Length)
		srcFile.Close()
		if err != nil || !bytes.Equal(orig, want) {
			t.Errorf("%s: the collection's payload (%d bytes) is not the ARC record's (%d bytes, %v)", src.URL, len(want), len(orig), err)
		}
		status, got := idReplay(t, client, base+c.Timestamp+"id_/"+c.URL)
		if strconv.Itoa(status) != c.Status {
			t.Errorf("%s: pywb status %d, archived %s", c.URL, status, c.Status)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: pywb returned %d bytes, the archived payload has %d (or they differ)", c.URL, len(got), len(want))
			continue
		}
		t.Logf("%s %s: %d bytes, identical", c.URL, c.Timestamp, len(got))
	}
}

// TestReplayWebPageARC: the collection of TestPywbReplayARC (nothing but
// ARC captures, each written as a WARC record), packaged as a WACZ with its
// HTML pages as documents, passes py-wacz's validation and replays in
// ReplayWeb.page: each HTML page with a title shows its archived title and
// text, the viewer lists those pages, and the service worker's id_ replay
// of every HTTP capture (pages, a redirecting page, robots.txt, images, an
// RSS feed) returns its archived status and payload byte for byte.
func TestReplayWebPageARC(t *testing.T) {
	ReplayWebPageDir(t)
	Chromium(t)
	out := t.TempDir()
	caps, _ := arcCollection(t, out)
	inColl := collectionCaptures(t, out)
	warc, err := os.Open(filepath.Join(out, archive.CollectionWARC))
	if err != nil {
		t.Fatal(err)
	}
	defer warc.Close()
	// The documents: the HTML captures with a title, in collection order.
	var docs []collection.Document
	var pages []Check
	for _, src := range caps {
		c, ok := inColl[src.URL+" "+src.Timestamp]
		if !ok {
			t.Fatalf("%s %s: not in collection.cdxj (%d lines)", src.URL, src.Timestamp, len(inColl))
		}
		if c.Status != "200" || c.Mime != "text/html" {
			continue
		}
		rec, err := records.ReadRecordAt(warc, c.Offset, c.Length, collection.WARCFile)
		if err != nil {
			t.Fatal(err)
		}
		if title, ok := ArchivedTitle(rec); ok {
			docs = append(docs, collection.Document{URL: c.URL, Timestamp: c.Timestamp, Title: title, Rank: len(docs) + 1})
			pages = append(pages, Check{Kind: "page", Open: c, Want: c})
		}
	}
	if len(pages) < 2 {
		t.Fatalf("%d HTML pages with a title among the ARC captures", len(pages))
	}
	if err := packageCollection(out, docs, wacz.Options{Title: testTitle}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, wacz.FileName)
	ValidateWACZ(t, path)

	const name = "arc.wacz"
	v := newViewer(t, map[string]string{name: path})
	coll := ""
	for _, ck := range pages {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		took, id, err := v.replayCheck(ctx, name, warc, ck)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		coll = id
		t.Logf("%s %s: replayed in %v", ck.Open.URL, ck.Open.Timestamp, took.Round(time.Millisecond))
	}
	if err := v.checkPages(coll, name, pages[0], docs); err != nil {
		t.Error(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := v.openReplayed(ctx, name, pages[0])
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for _, src := range caps {
		c := inColl[src.URL+" "+src.Timestamp]
		want, err := rawPayload(warc, c.Offset, c.Length)
		if err != nil {
			t.Fatal(err)
		}
		status, got, err := p.Raw(ctx, coll, c.Timestamp, c.URL)
		if err != nil {
			t.Fatal(err)
		}
		if strconv.Itoa(status) != c.Status {
			t.Errorf("%s: ReplayWeb.page status %d, archived %s", c.URL, status, c.Status)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: ReplayWeb.page returned %d bytes, the archived payload has %d (or they differ)", c.URL, len(got), len(want))
			continue
		}
		t.Logf("%s %s (%s): %d bytes, identical", c.URL, c.Timestamp, c.Mime, len(got))
	}
}
