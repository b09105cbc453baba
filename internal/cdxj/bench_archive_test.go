package cdxj

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/corpus/benchcorpus"
	"github.com/recrawl/recrawl/internal/inflate"
	"github.com/recrawl/recrawl/internal/records"
)

// Benchmarks over a real generated archive (cmd/genarchive), for
// scripts/bench.sh index:
//
//	RECRAWL_BENCH_ARCHIVE=DIR GOMAXPROCS=1 go test ./internal/cdxj -run '^$' \
//	    -bench 'BenchmarkArchive(Indexer|ScanCeiling)$' -benchtime 1x
//
// DIR holds *.warc.gz (and *.arc.gz) files. Both benchmarks read the same
// files from disk (the page cache after the first pass) and report MB/s of
// compressed input; their ratio is the indexer's share of the ceiling.

func BenchmarkArchiveIndexer(b *testing.B) {
	files, total := benchcorpus.Files(b)
	b.SetBytes(total)
	captures, records := 0, 0
	cpu := startCPU()
	for b.Loop() {
		captures, records = 0, 0
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			st, err := IndexFile(f, filepath.Base(name), IndexOptions{}, func(Capture) error { return nil })
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			captures += st.Captures
			records += st.Records
		}
	}
	cpu.report(b, total)
	b.ReportMetric(float64(captures), "captures")
	b.ReportMetric(float64(records), "records")
}

// BenchmarkArchiveScanCeiling is the fastest pass we have over the same
// files: inflate every gzip member (internal/inflate, the engine of the
// build, one member at a time as the indexer must, to know member offsets)
// and find the WARC header lines, nothing else.
func BenchmarkArchiveScanCeiling(b *testing.B) {
	files, total := benchcorpus.Files(b)
	b.SetBytes(total)
	sc := newCeilingScanner()
	members := 0
	cpu := startCPU()
	for b.Loop() {
		members = 0
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			n, _, err := sc.scan(f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			members += n
		}
	}
	cpu.report(b, total)
	b.ReportMetric(float64(members), "members")
}

// BenchmarkArchiveScanCeilingAllCores is the ceiling on all cores
// (GOMAXPROCS workers): the files cut into ranges at split points, as the
// index pipeline cuts them, and each range inflated and scanned as in
// BenchmarkArchiveScanCeiling. Its MB/s is what the whole index pipeline
// is held against.
func BenchmarkArchiveScanCeilingAllCores(b *testing.B) {
	benchRangesAllCores(b, func() func(Range) error {
		sc := newCeilingScanner()
		return func(rng Range) error { return scanRange(sc, rng) }
	})
}

// scanRange moves a range to its split points and scans it.
func scanRange(sc *ceilingScanner, rng Range) error {
	f, err := os.Open(rng.File)
	if err != nil {
		return err
	}
	defer f.Close()
	start, err := records.SplitPoint(f, rng.Size, rng.Start)
	if err != nil {
		return err
	}
	end, err := records.SplitPoint(f, rng.Size, rng.End)
	if err != nil {
		return err
	}
	if start < end {
		_, _, err = sc.scan(io.NewSectionReader(f, start, end-start))
	}
	return err
}

// ceilingScanner inflates a per-record gzip file member by member and reads
// the header lines at the start of each member. Its buffers are reused.
type ceilingScanner struct {
	br *bufio.Reader
	zr inflate.Member
	in *bufio.Reader
}

func newCeilingScanner() *ceilingScanner {
	return &ceilingScanner{br: bufio.NewReaderSize(nil, 64<<10), zr: inflate.New(), in: bufio.NewReaderSize(nil, 64<<10)}
}

// scan returns the number of gzip members and header lines read.
func (s *ceilingScanner) scan(r io.Reader) (members, headers int, err error) {
	s.br.Reset(r)
	for {
		if _, err := s.br.Peek(1); err == io.EOF {
			return members, headers, nil
		}
		if err := s.zr.Reset(s.br); err != nil {
			return members, headers, err
		}
		s.in.Reset(s.zr)
		members++
		for {
			line, err := s.in.ReadSlice('\n')
			if err != nil || len(line) <= 2 {
				break
			}
			headers++
		}
		if _, err := s.in.WriteTo(io.Discard); err != nil {
			return members, headers, err
		}
	}
}

// cpuClock measures the CPU time (user + system, all threads) of this
// process. On a shared machine the wall time of a benchmark depends on what
// else runs; its CPU time much less so. MB/cpu-s is the rate per core busy.
type cpuClock struct{ start time.Duration }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{cpuTime()} }

// report adds MB/cpu-s: the bytes of all iterations per CPU second.
func (c cpuClock) report(b *testing.B, bytesPerOp int64) {
	if d := cpuTime() - c.start; d > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkArchiveIndexerAllCores is IndexRange over the ranges of
// BenchmarkArchiveScanCeilingAllCores, on as many workers: the indexer's
// share of the all-cores ceiling, without the pipeline around it.
func BenchmarkArchiveIndexerAllCores(b *testing.B) {
	benchRangesAllCores(b, func() func(Range) error { return indexRangeFile })
}

// benchRangesAllCores cuts the benchmark's files into ranges at 64 MB, as
// the index pipeline does, and hands them to GOMAXPROCS workers; each
// worker makes its own range function with newWorker. It reports MB/s,
// MB/cpu-s and the number of workers.
func benchRangesAllCores(b *testing.B, newWorker func() func(Range) error) {
	files, total := benchcorpus.Files(b)
	b.SetBytes(total)
	workers := runtime.GOMAXPROCS(0)
	cpu := startCPU()
	for b.Loop() {
		var ranges []Range
		for _, name := range files {
			st, err := os.Stat(name)
			if err != nil {
				b.Fatal(err)
			}
			ranges = append(ranges, Split(name, st.Size(), 64<<20)...)
		}
		next := make(chan Range)
		errs := make(chan error, workers)
		for range workers {
			go func() {
				work := newWorker()
				var first error
				for rng := range next {
					if first == nil {
						first = work(rng)
					}
				}
				errs <- first
			}()
		}
		for _, r := range ranges {
			next <- r
		}
		close(next)
		for range workers {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.report(b, total)
	b.ReportMetric(float64(workers), "workers")
}

// indexRangeFile indexes one range of a file, its lines dropped.
func indexRangeFile(rng Range) error {
	f, err := os.Open(rng.File)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = IndexRange(f, filepath.Base(rng.File), rng, IndexOptions{}, func(Capture) error { return nil })
	return err
}

// BenchmarkIndexPlain is IndexFile over the first 64 MB of the first
// *.warc.gz file of $RECRAWL_BENCH_ARCHIVE, decompressed in memory: the
// indexer's own work per record (headers, entry, SURT key, line) apart
// from inflating, which the ceiling measures.
//
//	RECRAWL_BENCH_ARCHIVE=DIR GOMAXPROCS=1 go test ./internal/cdxj -run '^$' -bench IndexPlain -benchmem
func BenchmarkIndexPlain(b *testing.B) {
	data := benchcorpus.WARCRecords(b, 64<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var st IndexStats
	var line []byte
	var err error
	for b.Loop() {
		st, err = IndexFile(bytes.NewReader(data), "bench.warc", IndexOptions{}, func(c Capture) error {
			line = c.AppendLine(line[:0])
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if st.Skips > 0 || st.Captures == 0 {
		b.Fatalf("%+v", st)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*st.Records), "ns/record")
	b.ReportMetric(float64(st.Captures), "captures")
}
