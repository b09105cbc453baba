// Package benchcorpus gives benchmarks the archive corpus named by
// $RECRAWL_BENCH_ARCHIVE (a directory of WARC/ARC files, e.g. from
// cmd/genarchive; scripts/bench.sh sets it): its files, and the first
// records of its first gzipped WARC file, decompressed in memory.
package benchcorpus

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Files returns the archive files (*.warc.gz, *.arc.gz, *.warc, *.arc, in
// that order) named by $RECRAWL_BENCH_ARCHIVE and their total size. It skips
// the benchmark when the variable is unset and fails it when the directory
// holds no archive file.
func Files(tb testing.TB) ([]string, int64) {
	tb.Helper()
	dir := os.Getenv("RECRAWL_BENCH_ARCHIVE")
	if dir == "" {
		tb.Skip("RECRAWL_BENCH_ARCHIVE is not set (a directory of *.warc.gz files, e.g. from cmd/genarchive)")
	}
	var files []string
	for _, pat := range []string{"*.warc.gz", "*.arc.gz", "*.warc", "*.arc"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatalf("no archive files in %s", dir)
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			tb.Fatal(err)
		}
		total += st.Size()
	}
	return files, total
}

// WARCRecords returns up to limit bytes of the first *.warc.gz file of the
// corpus, decompressed, cut after the last whole record: the records as an
// indexer reads them, without the cost of inflating them.
func WARCRecords(tb testing.TB, limit int64) []byte {
	tb.Helper()
	files, _ := Files(tb)
	if filepath.Ext(files[0]) != ".gz" || filepath.Ext(files[0][:len(files[0])-3]) != ".warc" {
		tb.Fatalf("no *.warc.gz in %s", filepath.Dir(files[0]))
	}
	f, err := os.Open(files[0])
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", files[0], err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, limit))
	if err != nil {
		tb.Fatalf("%s: %v", files[0], err)
	}
	// Whole records only: cut after the last record that starts in it.
	if i := bytes.LastIndex(data, []byte("\r\n\r\nWARC/1.")); i > 0 {
		data = data[:i+4]
	}
	return data
}
