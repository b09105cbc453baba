package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// The tests run the real pipeline through Run, on prism in process (the
// default runner; ptest.Main parses the Beam flags, so -runner=... works too).
func TestMain(m *testing.M) {
	ptest.Main(m)
}

// conformanceFiles returns every WARC and ARC file of the pywb conformance
// material.
func conformanceFiles(t *testing.T) []string {
	t.Helper()
	dir := sharedtest.Path(t, "conformance/pywb")
	var files []string
	for _, pat := range []string{"*.warc.gz", "*.warc", "*.arc", "*.arc.gz"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 10 {
		t.Fatalf("only %d conformance archive files in %s", len(files), dir)
	}
	return files
}

// direct is the index of archive files computed without Beam.
type direct struct {
	lines      []string         // sorted as pywb sorts an index
	skips      map[string]int64 // skipped records by kind
	skipFiles  []string         // files with skipped records
	unreadable []string         // files cdxj.IndexFile gave up on
}

// indexDirectly indexes each file with cdxj.IndexFile, outside Beam.
func indexDirectly(t *testing.T, files []string) direct {
	t.Helper()
	d := direct{skips: map[string]int64{}}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		skipped := false
		_, err = cdxj.IndexFile(r, storage.Base(f), cdxj.IndexOptions{OnSkip: func(s records.Skip) {
			d.skips[s.Kind]++
			skipped = true
		}}, func(c cdxj.Capture) error {
			d.lines = append(d.lines, c.Line())
			return nil
		})
		r.Close()
		if err != nil {
			t.Logf("index %s: %v", f, err)
			d.unreadable = append(d.unreadable, storage.Base(f))
		}
		if skipped {
			d.skipFiles = append(d.skipFiles, storage.Base(f))
		}
	}
	sort.Strings(d.lines)
	return d
}

func joinLines(lines []string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// capturesByKey groups CDXJ lines by SURT key, each key's captures in the
// order of package lookup (timestamp, file name, offset).
func capturesByKey(t *testing.T, lines []string) map[string][]cdxj.Capture {
	t.Helper()
	m := map[string][]cdxj.Capture{}
	for _, l := range lines {
		c, err := cdxj.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		m[c.Key] = append(m[c.Key], c)
	}
	for _, cs := range m {
		slices.SortStableFunc(cs, func(a, b cdxj.Capture) int {
			if a.Timestamp != b.Timestamp {
				return strings.Compare(a.Timestamp, b.Timestamp)
			}
			if a.Filename != b.Filename {
				return strings.Compare(a.Filename, b.Filename)
			}
			return int(a.Offset - b.Offset)
		})
	}
	return m
}

func keysOf(m map[string][]cdxj.Capture) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// runIndex runs the pipeline and fails the test on an error.
func runIndex(t *testing.T, cfg Config) Summary {
	t.Helper()
	if cfg.Format == "" {
		cfg.Format = "cdxj"
	}
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	if cfg.LinesPerBlock == 0 {
		cfg.LinesPerBlock = 3000
	}
	start := time.Now()
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run(%+v): %v", cfg, err)
	}
	if sum == nil {
		t.Fatal("Run returned no summary")
	}
	t.Logf("pipeline ran in %v: %d captures from %d files", time.Since(start).Round(time.Millisecond), sum.Captures, sum.Files)
	return *sum
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
