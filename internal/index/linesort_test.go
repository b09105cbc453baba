package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testLines makes CDXJ-like lines whose keys are often prefixes of one
// another ("com,a)/p1" and "com,a)/p1x"), with equal keys and timestamps.
func testLines(r *rand.Rand, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("com,site%d)/p%d", r.Intn(30), r.Intn(300))
		if r.Intn(4) == 0 {
			key += "x"
		}
		ts := fmt.Sprintf("2009%010d", r.Intn(50))
		if r.Intn(10) == 0 {
			ts = ts[:8] // a short timestamp: keys that are prefixes of boundaries
		}
		out = append(out, fmt.Sprintf(`%s %s {"url": "http://site/%d", "n": %d}`, key, ts, i, r.Intn(1000)))
	}
	if n > 10 {
		out[3] = strings.Repeat("z", 200<<10) + " 2009 {}" // longer than a read buffer
	}
	return out
}

// TestMergeEqualsSort: the runs of any cut of the lines, merged over any
// key range, give exactly the sorted lines of that range.
func TestMergeEqualsSort(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ctx := context.Background()
	lines := testLines(r, 30000)
	dir := t.TempDir()
	var runs []Run
	for i, rest := 0, lines; len(rest) > 0; i++ {
		k := min(len(rest), 1+r.Intn(12000))
		var part [][]byte
		for _, l := range rest[:k] {
			part = append(part, []byte(l))
		}
		run, err := WriteRun(ctx, filepath.Join(dir, fmt.Sprintf("run-%d", i)), part)
		if err != nil {
			t.Fatal(err)
		}
		if run.Lines != int64(k) || len(run.Marks) < int(run.Bytes/(2*MarkEvery)) {
			t.Fatalf("run %d: %d lines, %d bytes, %d marks", i, run.Lines, run.Bytes, len(run.Marks))
		}
		runs = append(runs, run)
		rest = rest[k:]
	}
	runs = append(runs, Run{Path: filepath.Join(dir, "never-opened")}) // an empty run is skipped
	sorted := slices.Clone(lines)
	slices.Sort(sorted)
	bounds := []string{""}
	for i := 0; i < 12; i++ {
		l := sorted[r.Intn(len(sorted))]
		f := strings.SplitN(l, " ", 3)
		bounds = append(bounds, f[0]+" "+f[1], f[0], f[0]+" "+f[1][:4])
	}
	defer func(n int) { MaxFanIn = n }(MaxFanIn)
	for _, fanIn := range []int{256, 2} { // 2: merged in several passes through intermediate runs
		MaxFanIn = fanIn
		for i := 0; i < 40; i++ {
			lo, hi := bounds[r.Intn(len(bounds))], bounds[r.Intn(len(bounds))]
			if i == 0 {
				lo, hi = "", ""
			}
			var want []string
			for _, l := range sorted {
				if l >= lo && (hi == "" || l < hi) {
					want = append(want, l)
				}
			}
			var got []string
			err := MergeRuns(ctx, runs, lo, hi, func(l []byte) error {
				got = append(got, string(l))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("fan-in %d: MergeRuns [%q, %q): %d lines, want %d", fanIn, lo, hi, len(got), len(want))
			}
		}
	}
	left, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != len(runs)-1 {
		t.Errorf("%d files left in the run directory, want the %d runs: intermediate runs not removed", len(left), len(runs)-1)
	}
}

// TestWriteSorts: WriteRun sorts bytewise and ends every line with a newline.
func TestWriteSorts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r")
	run, err := WriteRun(context.Background(), p, [][]byte{[]byte("b 2"), []byte("a 9"), []byte("a 10")})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := MergeRuns(context.Background(), []Run{run}, "", "", func(l []byte) error {
		buf.Write(l)
		buf.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "a 10\na 9\nb 2\n" || run.Bytes != int64(buf.Len()) {
		t.Errorf("run holds %q (%d bytes)", buf.String(), run.Bytes)
	}
}
