package lookup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// writeIndex writes captures as a sorted CDXJ file and returns its spec.
func writeIndex(t *testing.T, name string, cs []cdxj.Capture) string {
	t.Helper()
	var lines []string
	for _, c := range cs {
		lines = append(lines, c.Line())
	}
	sort.Strings(lines)
	p := filepath.Join(t.TempDir(), name+".cdxj")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "cdxj:" + p
}

func mcap(key, ts, file string, off int64) cdxj.Capture {
	return cdxj.Capture{Key: key, Timestamp: ts, URL: "http://" + key, Mime: "text/html", Status: "200", Digest: "D", Length: 10, Offset: off, Filename: file}
}

// TestMultiIndex: captures of the same key from two archives come back
// together, tagged with their archive, ordered by timestamp, then by the
// order the archives were given in (not by name, not by file name), then
// file name and offset; a key only one archive has is found too.
func TestMultiIndex(t *testing.T) {
	ctx := context.Background()
	national := writeIndex(t, "national", []cdxj.Capture{
		mcap("org,a)/", "20090101000000", "z.warc.gz", 5),
		mcap("org,a)/", "20090301000000", "z.warc.gz", 9),
		mcap("org,b)/", "20090101000000", "z.warc.gz", 20),
	})
	special := writeIndex(t, "special", []cdxj.Capture{
		mcap("org,a)/", "20090101000000", "a.warc.gz", 1), // same time as national's: national first
		mcap("org,a)/", "20090201000000", "a.warc.gz", 2),
		mcap("org,c)/", "20100101000000", "a.warc.gz", 3),
	})
	// "special" sorts before "national" by name, and a.warc.gz before
	// z.warc.gz: only the given order puts national first.
	idx, err := OpenSources(ctx, []Source{{Name: "national", Spec: national}, {Name: "special", Spec: special}})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	got, err := idx.Lookup(ctx, []string{"org,a)/", "org,b)/", "org,c)/", "org,d)/"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ts, archive, file string
	}
	rows := func(cs []cdxj.Capture) []row {
		var out []row
		for _, c := range cs {
			out = append(out, row{c.Timestamp, c.Archive, c.Filename})
		}
		return out
	}
	want := map[string][]row{
		"org,a)/": {{"20090101000000", "national", "z.warc.gz"}, {"20090101000000", "special", "a.warc.gz"},
			{"20090201000000", "special", "a.warc.gz"}, {"20090301000000", "national", "z.warc.gz"}},
		"org,b)/": {{"20090101000000", "national", "z.warc.gz"}},
		"org,c)/": {{"20100101000000", "special", "a.warc.gz"}},
	}
	if len(got) != len(want) {
		t.Errorf("keys found: %d, want %d (%v)", len(got), len(want), got)
	}
	for k, w := range want {
		if g := rows(got[k]); !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got  %v\n want %v", k, g, w)
		}
	}

	// The other order of the same archives: special wins the tie.
	rev, err := OpenSources(ctx, []Source{{Name: "special", Spec: special}, {Name: "national", Spec: national}})
	if err != nil {
		t.Fatal(err)
	}
	defer rev.Close()
	got, err = rev.Lookup(ctx, []string{"org,a)/"})
	if err != nil {
		t.Fatal(err)
	}
	if g := got["org,a)/"]; len(g) < 2 || g[0].Archive != "special" || g[1].Archive != "national" {
		t.Errorf("reversed order: %v; want special's capture before national's at the same time", rows(g))
	}

	// One unnamed source is the plain index: no tags.
	plain, err := OpenSources(ctx, []Source{{Spec: national}})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	got, err = plain.Lookup(ctx, []string{"org,a)/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got["org,a)/"] {
		if c.Archive != "" {
			t.Errorf("single unnamed index tagged a capture with %q", c.Archive)
		}
	}
}

func TestMultiIndexErrors(t *testing.T) {
	ctx := context.Background()
	good := writeIndex(t, "good", []cdxj.Capture{mcap("org,a)/", "20090101000000", "a.warc.gz", 1)})
	_, err := OpenSources(ctx, []Source{{Name: "national", Spec: good}, {Name: "special", Spec: "cdxj:" + filepath.Join(t.TempDir(), "missing.cdxj")}})
	if err == nil || !strings.Contains(err.Error(), `archive "special"`) {
		t.Errorf("an index that does not open: error %v, want one naming archive \"special\"", err)
	}
	if _, err := OpenSources(ctx, nil); err == nil {
		t.Error("no sources: no error")
	}
	a, _ := Open(ctx, good)
	b, _ := Open(ctx, good)
	if _, err := NewMulti([]Named{{Name: "x", Index: a}, {Name: "x", Index: b}}); err == nil {
		t.Error("a name given twice: no error")
	}
	m, err := NewMulti([]Named{{Name: "x", Index: a}, {Name: "y", Index: failing{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lookup(ctx, []string{"org,a)/"}); err == nil || !strings.Contains(err.Error(), `archive "y"`) {
		t.Errorf("a failing index: error %v, want one naming archive \"y\"", err)
	}
	b.Close()
}

type failing struct{}

func (failing) Lookup(context.Context, []string) (map[string][]cdxj.Capture, error) {
	return nil, errors.New("broken")
}
func (failing) Close() error { return nil }

func TestCompareArchives(t *testing.T) {
	order := []string{"national", "special"}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"national", "special", -1}, {"special", "national", 1}, {"special", "special", 0},
		{"special", "other", -1}, {"zeta", "alpha", 1}, {"", "", 0},
	} {
		if got := CompareArchives(order, tc.a, tc.b); got != tc.want {
			t.Errorf("CompareArchives(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
