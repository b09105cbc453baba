package records

import (
	"bytes"
	"io"
	"testing"

	"github.com/recrawl/recrawl/internal/corpus/benchcorpus"
)

// BenchmarkIteratorHeaders reads the records of a real archive, already
// decompressed in memory, as the indexer reads them (ReuseRecords, payloads
// skipped): the cost of finding and parsing the WARC and HTTP headers apart
// from inflating. The archive is the first *.warc.gz file of
// $RECRAWL_BENCH_ARCHIVE (as for internal/cdxj's archive benchmarks), its
// first 64 MB decompressed:
//
//	RECRAWL_BENCH_ARCHIVE=DIR go test ./internal/records -run '^$' -bench Headers -benchmem
func BenchmarkIteratorHeaders(b *testing.B) {
	data := benchcorpus.WARCRecords(b, 64<<20)
	for _, indexOnly := range []bool{false, true} {
		name := "all-fields"
		if indexOnly {
			name = "index-fields"
		}
		b.Run(name, func(b *testing.B) { iterateHeaders(b, data, indexOnly) })
	}
}

// iterateHeaders is BenchmarkIteratorHeaders over data, with or without
// IndexFieldsOnly.
func iterateHeaders(b *testing.B, data []byte, indexOnly bool) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		it, err := NewIterator(bytes.NewReader(data), "bench.warc", nil)
		if err != nil {
			b.Fatal(err)
		}
		it.ReuseRecords()
		if indexOnly {
			it.IndexFieldsOnly()
		}
		n = 0
		for {
			rec, err := it.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Timestamp == "" && rec.Type != "warcinfo" {
				b.Fatalf("record %d: no timestamp", n)
			}
			n++
		}
		if it.Skips() > 0 {
			b.Fatalf("%d skips", it.Skips())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
	b.ReportMetric(float64(n), "records")
}
