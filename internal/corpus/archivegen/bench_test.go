package archivegen

import (
	"context"
	"io"
	"log/slog"
	"testing"
)

// BenchmarkGenerate measures generation speed on one worker; b.SetBytes
// reports the compressed output, so MB/s is WARC bytes per second.
func BenchmarkGenerate(b *testing.B) {
	var pages int64
	for b.Loop() {
		sum, err := Generate(context.Background(), Config{OutDir: b.TempDir(), Pages: 3000, Seed: 1, Workers: 1,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(sum.Bytes)
		pages += sum.Pages
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
