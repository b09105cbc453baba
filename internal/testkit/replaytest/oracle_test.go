package replaytest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// Deliberate differences between pywb's cdx-indexer and cdxj.IndexFile,
// the one list the differential test allows. Each is keyed by the archive's
// file name, says why, and asserts what the difference is (so a change on
// either side that removes or alters it fails the test); every other file
// must be identical line for line.
var deliberate = map[string]struct {
	reason string
	check  func(ours, theirs []string) error
}{
	// pywb indexes a whole-file gzip archive (one gzip member for the whole
	// file) as one record whose body is the decompressed rest; cdxj.IndexFile
	// reads the records inside, with offsets in the decompressed stream
	// (see internal/cdxj's package doc).
	"whirlwind.warc.wat.gz": {"pywb: whole-file gzip; we index the records inside", wholeFileGzip},
	"whirlwind.warc.wet.gz": {"pywb: whole-file gzip; we index the records inside", wholeFileGzip},
	"example-bad.warc.gz":   {"pywb: whole-file gzip (pywb's example of a bad file); we index the records inside", wholeFileGzip},
}

// wholeFileGzip: pywb sees at most one record, we see several.
func wholeFileGzip(ours, theirs []string) error {
	if len(theirs) > 1 || len(ours) < 2 {
		return fmt.Errorf("not the whole-file gzip difference: pywb %d lines, ours %d", len(theirs), len(ours))
	}
	return nil
}

// fixed are differences this test found and internal/cdxj now follows
// pywb in; compared like every other file, and asserted here by name.
var fixed = map[string]func(ours []string) error{
	// A request with the non-standard method GETX: pywb -p puts
	// __wb_method=getx into the key of the pair.
	"example-extra.warc": func(ours []string) error {
		for _, l := range ours {
			if strings.HasPrefix(l, "com,example)/?__wb_method=getx&example=2 ") {
				return nil
			}
		}
		return fmt.Errorf("no line keyed com,example)/?__wb_method=getx&example=2")
	},
	// WARC/0.17 metadata records (text/anvl) concurrent to their
	// responses: pywb leaves them out (METADATA_NO_INDEX_TYPES).
	"IAH-20080430204825-00000-blackbook-truncated.warc.gz": func(ours []string) error {
		for _, l := range ours {
			if strings.Contains(l, `"mime": "text/anvl"`) {
				return fmt.Errorf("a text/anvl metadata record is indexed: %s", l)
			}
		}
		return nil
	},
}

// Damaged archives (a truncation or one flipped byte) differ by design
// after the damage: pywb's reader ends the file silently at the first gzip
// member it cannot read (or reads across it, giving the record a wrong
// length), while cdxj.IndexFile skips the damaged record and goes on. So for
// a damaged copy the test asks that the records wholly before the damage
// are indexed as pywb indexes them, the records wholly after the damaged
// member as in the undamaged original, and that the damaged record itself
// is not indexed at all (internal/records' rule: a record cut off or in a
// gzip member failing its CRC-32 is left out).

// pywbIndex runs pywb's cdx-indexer -j -p on one file and returns its lines
// in file order, normalised through cdxj.Parse (fields Capture has no room
// for, such as mime-detected, are dropped; see internal/cdxj), and whether
// pywb finished without an error.
func pywbIndex(t *testing.T, bin, path string) (lines []string, ok bool, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-j", "-p", filepath.Base(path))
	cmd.Dir = filepath.Dir(path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "!") {
			continue
		}
		c, perr := cdxj.Parse(l)
		if perr != nil {
			t.Fatalf("%s: pywb line %q: %v", path, l, perr)
		}
		lines = append(lines, c.Line())
	}
	// cdx-indexer logs "Error while indexing" and still exits 0.
	return lines, err == nil && !strings.Contains(errb.String(), "Error while indexing"), errb.String()
}

// ourIndex indexes one file with the index pipeline's indexer.
func ourIndex(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	_, err = cdxj.IndexFile(bufio.NewReader(f), filepath.Base(path), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		lines = append(lines, c.Line())
		return nil
	})
	return lines, err
}

// compare checks our lines against pywb's: identical when pywb finished;
// when pywb stopped with an exception (damaged input), its lines must be
// exactly ours up to where it stopped: we skip the damaged record and go
// on, pywb gives up on the rest of the file.
func compare(t *testing.T, name string, ours, theirs []string, pywbOK bool, stderr string) {
	t.Helper()
	if d, ok := deliberate[name]; ok {
		if err := d.check(ours, theirs); err != nil {
			t.Errorf("%s: %s: %v", name, d.reason, err)
		}
		t.Logf("%s: deliberate difference (%s): pywb %d lines, ours %d", name, d.reason, len(theirs), len(ours))
		return
	}
	if check, ok := fixed[name]; ok {
		if err := check(ours); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	n := min(len(ours), len(theirs))
	for i := 0; i < n; i++ {
		if ours[i] != theirs[i] {
			t.Errorf("%s: line %d differs:\n pywb %s\n ours %s", name, i+1, theirs[i], ours[i])
			return
		}
	}
	switch {
	case pywbOK && len(ours) != len(theirs):
		t.Errorf("%s: pywb %d lines, ours %d (first extra: %q)", name, len(theirs), len(ours), firstExtra(ours, theirs))
	case !pywbOK && len(theirs) > len(ours):
		t.Errorf("%s: pywb stopped with an error after %d lines, but we have only %d: %s", name, len(theirs), len(ours), lastLine(stderr))
	}
}

func firstExtra(a, b []string) string {
	if len(a) > len(b) {
		return a[len(b)]
	}
	return b[len(a)]
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// TestIndexerAgainstPywb is the differential test: for every WARC and ARC
// of the conformance material, and for a generated archive and randomly
// damaged copies of it, pywb's cdx-indexer and cdxj.IndexFile produce the
// same lines (see compare and deliberate).
func TestIndexerAgainstPywb(t *testing.T) {
	bin := PywbBin(t, "cdx-indexer")
	files := sharedtest.ConformanceArchives(t)
	if len(files) < 20 {
		t.Fatalf("only %d conformance archives", len(files))
	}
	tmp := t.TempDir()
	for _, path := range files {
		if !hasArchiveExt(path) {
			// pywb's cdx-indexer skips files not named .warc/.arc(.gz):
			// index a copy under such a name.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			path = filepath.Join(tmp, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		theirs, ok, stderr := pywbIndex(t, bin, path)
		ours, err := ourIndex(path)
		if err != nil && len(theirs) > 0 {
			t.Errorf("%s: our indexer failed (%v) where pywb indexed %d lines", filepath.Base(path), err, len(theirs))
			continue
		}
		compare(t, filepath.Base(path), ours, theirs, ok, stderr)
	}

	// A generated archive (redirects, revisits, 404s, latin-1 and gzip
	// bodies), then damaged copies.
	gen := t.TempDir()
	sum, err := archivegen.Generate(context.Background(), archivegen.Config{OutDir: gen, Pages: 40, Seed: 21, MaxFileSize: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(gen, sum.Files[0].Name)
	theirs, ok, stderr := pywbIndex(t, bin, orig)
	ours, err := ourIndex(orig)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || len(theirs) < 50 {
		t.Fatalf("generated archive: pywb ok=%v, %d lines: %s", ok, len(theirs), lastLine(stderr))
	}
	compare(t, "generated", ours, theirs, ok, stderr)

	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	origLines := map[int64]string{}
	for _, l := range ours {
		c, _ := cdxj.Parse(l)
		c.Filename = ""
		origLines[c.Offset] = c.Line()
	}
	rng := rand.New(rand.NewPCG(21, 22))
	damaged := t.TempDir()
	for i := 0; i < 12; i++ {
		b := bytes.Clone(data)
		var what string
		pos := int64(0)
		if i%2 == 0 {
			pos = 1 + rng.Int64N(int64(len(b)-1))
			b = b[:pos]
			what = fmt.Sprintf("truncated at %d", pos)
		} else {
			pos = rng.Int64N(int64(len(b)))
			b[pos] ^= byte(1 + rng.IntN(255))
			what = fmt.Sprintf("byte %d flipped", pos)
		}
		name := fmt.Sprintf("damaged-%02d.warc.gz", i)
		p := filepath.Join(damaged, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		theirs, _, _ := pywbIndex(t, bin, p)
		ours, _ := ourIndex(p)
		// Intact records before the damage: those whose place is the
		// original's. (A truncated record keeps its offset but, on pywb's
		// side, gets a length up to the cut.)
		before := func(lines []string) []string {
			var out []string
			for _, l := range lines {
				c, _ := cdxj.Parse(l)
				o, _ := cdxj.Parse(origLines[c.Offset])
				if c.Offset+c.Length <= pos && o.Length == c.Length {
					out = append(out, l)
				}
			}
			return out
		}
		ob, tb := before(ours), before(theirs)
		// pywb may also lose the one entry it holds back to pair it with a
		// request when its reader fails: its lines are ours, or ours but
		// the last.
		compare(t, name+" ("+what+"), records before the damage", ob, tb, false, "")
		if len(ob)-len(tb) > 1 {
			t.Errorf("%s (%s): before the damage pywb indexed %d records, we %d", name, what, len(tb), len(ob))
		}
		after := 0
		for _, l := range ours {
			c, _ := cdxj.Parse(l)
			if c.Offset+c.Length <= pos {
				continue
			}
			if c.Offset <= pos {
				t.Errorf("%s (%s): the damaged record is indexed: %s", name, what, l)
				continue
			}
			c.Filename = ""
			if want := origLines[c.Offset]; c.Line() != want {
				t.Errorf("%s (%s): after the damage, offset %d: ours %s, the original's %s", name, what, c.Offset, c.Line(), want)
			}
			after++
		}
		t.Logf("%s (%s): pywb %d lines, ours %d; %d records after the damage as in the original", name, what, len(theirs), len(ours), after)
	}
}

func hasArchiveExt(p string) bool {
	for _, e := range []string{".warc", ".warc.gz", ".arc", ".arc.gz"} {
		if strings.HasSuffix(p, e) {
			return true
		}
	}
	return false
}
