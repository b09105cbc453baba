package index

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// TestWriteBigtable runs WriteBigtable in process against the Bigtable
// emulator (bttest, in this process): every capture of the lines can be
// looked up with all its fields, a line that does not parse is skipped
// without failing the bundle, and a second run of the same lines adds no
// duplicate rows.
func TestWriteBigtable(t *testing.T) {
	t.Setenv("BIGTABLE_EMULATOR_HOST", testservers.Bigtable(t))
	const spec = "recrawl-test/index/captures"
	ctx := context.Background()
	if err := EnsureBigtable(ctx, spec); err != nil {
		t.Fatal(err)
	}
	var captures []cdxj.Capture
	var lines []string
	for i := 0; i < 300; i++ {
		c := cdxj.Capture{
			Key:       fmt.Sprintf("com,example%d)/p%d", i%7, i%20),
			Timestamp: fmt.Sprintf("2009%02d%02d120000", 1+i%12, 1+i%28),
			URL:       fmt.Sprintf("https://example%d.com/p%d", i%7, i%20),
			Mime:      "text/html",
			Status:    "200",
			Digest:    fmt.Sprintf("DIGEST%04d", i),
			Length:    int64(1000 + i),
			Offset:    int64(i) * 5000,
			Filename:  fmt.Sprintf("crawl-%d.warc.gz", i%3),
		}
		captures = append(captures, c)
		lines = append(lines, c.Line())
	}
	lines = append(lines, "not a cdxj line")

	for run := 1; run <= 2; run++ {
		p, s := beam.NewPipelineWithRoot()
		WriteBigtable(s, beam.CreateList(s, lines), spec)
		if err := ptest.Run(p); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}

	client, tbl, err := btindex.Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	want := make(map[string][]cdxj.Capture)
	var keys []string
	for _, c := range captures {
		if want[c.Key] == nil {
			keys = append(keys, c.Key)
		}
		want[c.Key] = append(want[c.Key], c)
	}
	got, err := btindex.NewReader(tbl, 0).Lookup(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, key := range keys {
		rows += len(got[key])
		byStamp := make(map[string]cdxj.Capture)
		for _, c := range got[key] {
			byStamp[c.Timestamp+" "+c.Filename+fmt.Sprint(c.Offset)] = c
		}
		for _, c := range want[key] {
			if g, ok := byStamp[c.Timestamp+" "+c.Filename+fmt.Sprint(c.Offset)]; !ok || !reflect.DeepEqual(g, c) {
				t.Errorf("%s %s: got %+v, want %+v", key, c.Timestamp, g, c)
			}
		}
	}
	if rows != len(captures) {
		t.Errorf("%d rows after two runs, want %d (one per capture)", rows, len(captures))
	}
}
