package extract

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/scoring/document"
)

// badLink is an outlink that has no SURT key: its port is out of range
// (net/url accepts it, the SURT canonicaliser does not).
const badLink = "http://www.example.com:99999/unreachable.html"

// TestBadInput: record-level problems make a URL missing with a reason, the
// round goes on, and run.json counts them by reason: a stale index entry (an
// offset at another record, and one past the end of the file), a corrupt
// record (bytes overwritten inside its gzip member), an index filename
// outside the --archive locations (never opened), and an outlink without a
// SURT key (counted, not followed). The sequential engine agrees.
func TestBadInput(t *testing.T) {
	a := fixture(t)
	ctx := context.Background()
	ref := readDocs(t, referenceRun(t, a))
	dir := t.TempDir()

	// The seeds of the test spec: eight articles of the reference run, each
	// read in round 0 whatever happens to the others.
	var seeds []doc
	for _, d := range ref {
		if !d.Revisit && d.ScoreReason == "" && d.Outlinks > 0 && d.Depth > 0 {
			seeds = append(seeds, d)
		}
		if len(seeds) == 8 {
			break
		}
	}
	if len(seeds) < 8 {
		t.Fatalf("only %d article pages in the reference run", len(seeds))
	}
	staleOther, stalePastEnd, corrupt, outside, inject := seeds[0], seeds[1], seeds[2], seeds[3], seeds[4]
	controls := seeds[5:]

	loc := filepath.Join(dir, "archive")
	if err := os.Mkdir(loc, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range a.WARCs {
		if filepath.Base(w) == corrupt.Filename {
			continue
		}
		if err := linkFile(w, filepath.Join(loc, filepath.Base(w))); err != nil {
			t.Fatal(err)
		}
	}

	// A copy of the corrupt record's file with bytes overwritten in the
	// middle of its gzip member.
	data, err := os.ReadFile(filepath.Join(a.WARCDir, corrupt.Filename))
	if err != nil {
		t.Fatal(err)
	}
	for i := corrupt.Offset + corrupt.Length/2; i < corrupt.Offset+corrupt.Length/2+32; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(filepath.Join(loc, corrupt.Filename), data, 0o644); err != nil {
		t.Fatal(err)
	}

	// The file "../secret.warc.gz" names: a valid copy, so a read would
	// succeed; its access time is set in the past to see whether it is read.
	secret := filepath.Join(dir, "secret.warc.gz")
	copyFile(t, filepath.Join(a.WARCDir, outside.Filename), secret)
	atimeWorks := setOldAtime(t, secret)

	// The injected record: the article's own page with an unparsable link
	// in its main text, in a WARC file of its own.
	injected := injectBadLink(t, ctx, a, inject, filepath.Join(loc, "INJECT-00000.warc.gz"))

	// The index: the fixture's, with the victims' lines changed.
	var lines []string
	found := map[string]bool{}
	for _, l := range a.Lines {
		c, err := cdxj.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case at(c, staleOther):
			other := otherRecord(t, a, c)
			c.Offset, c.Length = other.Offset, other.Length
			found["stale"] = true
		case at(c, stalePastEnd):
			st, err := os.Stat(filepath.Join(a.WARCDir, c.Filename))
			if err != nil {
				t.Fatal(err)
			}
			c.Offset = st.Size() + 1000
			found["past end"] = true
		case at(c, outside):
			c.Filename = "../secret.warc.gz"
			found["outside"] = true
		case at(c, inject):
			c = injected
			found["inject"] = true
		}
		lines = append(lines, c.Line())
	}
	if len(found) != 4 {
		t.Fatalf("victim index lines found: %v", found)
	}
	sort.Strings(lines)
	index := filepath.Join(dir, "index", "index.cdxj")
	if err := extracttest.WriteLines(index, lines); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "de"} {
		copyFile(t, a.Dictionary(lang), filepath.Join(dir, "index", "df-"+lang+".tsv"))
	}
	spec := filepath.Join(dir, "spec.yaml")
	writeSpecWithSeeds(t, a.Spec(testEvent), spec, seeds)

	args := func(out string, extra ...string) []string {
		return append([]string{"--spec", spec, "--index", "cdxj:" + index, "--archive", loc, "--output", out,
			"--quiet", "--batch_size=25", "--max_rounds=1"}, extra...)
	}
	out := filepath.Join(dir, "out")
	mustRun(t, nil, args(out)...)

	missing := map[string]missingURL{}
	for _, m := range readMissing(t, out) {
		missing[m.SURT] = m
	}
	for _, c := range []struct {
		d      doc
		reason string
		text   string // in the reason
	}{
		{staleOther, extract.ReasonStaleIndex, "holds a record of"},
		{stalePastEnd, extract.ReasonStaleIndex, "past the end"},
		{corrupt, extract.ReasonCorruptRecord, corrupt.Filename},
		{outside, extract.ReasonUnsafeFilename, "../secret.warc.gz"},
	} {
		m, ok := missing[c.d.SURT]
		switch {
		case !ok:
			t.Errorf("%s is not in missing.jsonl; want reason %s", c.d.URL, c.reason)
		case m.ReasonCode != c.reason || !strings.Contains(m.Reason, c.text):
			t.Errorf("%s: missing with %s (%s); want %s, with %q in the reason", c.d.URL, m.ReasonCode, m.Reason, c.reason, c.text)
		}
	}
	tot := readTotals(t, out)
	wantReasons := map[string]int{extract.ReasonStaleIndex: 2, extract.ReasonCorruptRecord: 1, extract.ReasonUnsafeFilename: 1}
	for r, n := range wantReasons {
		if tot.MissingReasons[r] != n {
			t.Errorf("run.json missing_reasons[%s] = %d, want %d (all: %v)", r, tot.MissingReasons[r], n, tot.MissingReasons)
		}
	}
	checkReasonsAgree(t, out)

	collected := map[string]bool{}
	for _, d := range readDocs(t, out) {
		collected[d.SURT] = true
	}
	for _, d := range append([]doc{inject}, controls...) {
		if !collected[d.SURT] {
			t.Errorf("%s was not collected", d.URL)
		}
	}
	if n := tot.Counters[extract.CounterUnparsableOutlinks]; n != 1 {
		t.Errorf("run.json counters[%s] = %d, want 1 (the link %s of %s); counters: %v",
			extract.CounterUnparsableOutlinks, n, badLink, inject.URL, tot.Counters)
	}
	links, err := os.ReadFile(filepath.Join(out, "links.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(links, []byte("99999")) {
		t.Errorf("links.tsv lists the unparsable link")
	}

	if atimeWorks {
		if !atimeOld(t, secret) {
			t.Errorf("%s was read although its index filename is outside the archive", secret)
		}
	} else {
		t.Logf("access times are not kept on this file system: not checked that %s was never read", secret)
	}

	// The sequential engine makes the same decisions: compared with K = 1
	// over 8 rounds, which take the 8 seeds (priority 1) one by one.
	k1, seq := filepath.Join(dir, "k1"), filepath.Join(dir, "sequential")
	mustRun(t, nil, args(k1, "--batch_size=1", "--max_rounds=8")...)
	mustRun(t, nil, args(seq, "--batch_size=1", "--max_rounds=8", "--engine=sequential")...)
	sameOutputs(t, k1, seq, true)
	if st := readTotals(t, seq); fmt.Sprint(st.MissingReasons, st.Counters) != fmt.Sprint(tot.MissingReasons, tot.Counters) {
		t.Errorf("run.json counts of the seeds differ: K = 25 %v %v, sequential %v %v", tot.MissingReasons, tot.Counters, st.MissingReasons, st.Counters)
	}
}

// at reports whether capture c holds the payload of document d.
func at(c cdxj.Capture, d doc) bool {
	return c.Filename == d.Filename && c.Offset == d.Offset
}

// otherRecord returns a capture of another URL in the same file.
func otherRecord(t *testing.T, a *extracttest.Archive, c cdxj.Capture) cdxj.Capture {
	t.Helper()
	for _, l := range a.Lines {
		o, err := cdxj.Parse(l)
		if err == nil && o.Filename == c.Filename && o.Key != c.Key && !o.IsRevisit() {
			return o
		}
	}
	t.Fatalf("no other record in %s", c.Filename)
	return cdxj.Capture{}
}

// injectBadLink writes a WARC file with one response record: the page of d
// with badLink added to its first plain paragraph, and returns its capture.
// It checks that the link lands in the main content.
func injectBadLink(t *testing.T, ctx context.Context, a *extracttest.Archive, d doc, path string) cdxj.Capture {
	t.Helper()
	f := archive.NewFetcher([]string{a.WARCDir})
	defer f.Close()
	var orig cdxj.Capture
	for _, l := range a.Lines {
		if c, err := cdxj.Parse(l); err == nil && at(c, d) {
			orig = c
		}
	}
	rec, err := f.Read(ctx, orig)
	if err != nil {
		t.Fatal(err)
	}
	ct := rec.HTTP.Header.Get("Content-Type")
	i := bytes.Index(rec.Body, []byte("<p>"))
	if i < 0 {
		t.Fatalf("%s has no plain <p>", d.URL)
	}
	i += len("<p>")
	body := append(append(append([]byte{}, rec.Body[:i]...),
		`See also <a href="`+badLink+`">the unreachable page</a> for the details. `...), rec.Body[i:]...)

	captured, err := extract.CaptureTime(d.Timestamp)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := document.Parse(body, ct, orig.URL, document.Options{DefaultLanguage: "en", CaptureTime: captured})
	if err != nil {
		t.Fatal(err)
	}
	inMain := false
	for _, l := range parsed.Outlinks {
		inMain = inMain || l.URL == badLink && l.InMain
	}
	if !inMain {
		t.Fatalf("the injected link is not an outlink of the main content of %s", d.URL)
	}

	httpPart := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ct, len(body))
	block := append([]byte(httpPart), body...)
	var rb bytes.Buffer
	fmt.Fprintf(&rb, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:6f1d3c1e-0000-4000-8000-000000000001>\r\n"+
		"WARC-Date: %s\r\nWARC-Target-URI: %s\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n",
		captured.Format(time.RFC3339), orig.URL, len(block))
	rb.Write(block)
	rb.WriteString("\r\n\r\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(rb.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var caps []cdxj.Capture
	if _, err := cdxj.IndexFile(bytes.NewReader(gz.Bytes()), filepath.Base(path), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		caps = append(caps, c)
		return nil
	}); err != nil || len(caps) != 1 {
		t.Fatalf("index the injected record: %d captures, %v", len(caps), err)
	}
	if caps[0].Key != d.SURT || caps[0].Timestamp != d.Timestamp || caps[0].Status != "200" {
		t.Fatalf("injected capture %+v does not replace the capture of %s at %s", caps[0], d.SURT, d.Timestamp)
	}
	return caps[0]
}

var seedsBlock = regexp.MustCompile(`(?m)^seeds:\n(?:\s+- .*\n)+`)

// writeSpecWithSeeds copies a YAML spec with its seeds replaced.
func writeSpecWithSeeds(t *testing.T, from, to string, seeds []doc) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("seeds:\n")
	for _, d := range seeds {
		fmt.Fprintf(&b, "    - %q\n", d.URL)
	}
	if !seedsBlock.Match(data) {
		t.Fatalf("%s has no seeds block", from)
	}
	if err := os.WriteFile(to, seedsBlock.ReplaceAll(data, []byte(b.String())), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

var oldTime = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

// setOldAtime sets path's access time far in the past (its modification
// time stays now) and reports whether reading a file updates the access
// time here (relatime does when atime < mtime; noatime never does), probed
// on a copy.
func setOldAtime(t *testing.T, path string) bool {
	t.Helper()
	probe := path + ".probe"
	copyFile(t, path, probe)
	defer os.Remove(probe)
	now := time.Now()
	for _, p := range []string{path, probe} {
		if err := os.Chtimes(p, oldTime, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.ReadFile(probe); err != nil {
		t.Fatal(err)
	}
	return !atimeOld(t, probe)
}

func atimeOld(t *testing.T, path string) bool {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		t.Fatalf("no access time for %s", path)
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec).Before(oldTime.Add(time.Hour))
}
