package transforms

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/zipnum"
)

func init() {
	register.DoFn2x0[[]Ranked, func(string, Ranked)](&rankedByKeyFn{})
	register.Emitter2[string, Ranked]()
	register.DoFn2x1[string, func(IndexRange), error](&splitIndexFn{})
	register.Emitter1[IndexRange]()
	register.DoFn3x1[context.Context, IndexRange, func(string, string), error](&readIndexRangeFn{})
	register.Emitter2[string, string]()
	register.DoFn4x1[string, func(*Ranked) bool, func(*string) bool, func([]Resolved), error](&cogroupResolveFn{})
	register.Iter1[Ranked]()
}

// cdxjRangeBytes is the size of the pieces a CDXJ index is read in.
const cdxjRangeBytes = 64 << 20

// IndexRange is a piece of an index to read: a byte range of a CDXJ file
// (lines starting in [Start, End)), or a whole ZipNum index.
type IndexRange struct {
	Kind       string // cdxj or zipnum
	Path       string
	Start, End int64
}

// cogroupResolve joins the batch with every line of the index by SURT key.
func cogroupResolve(s beam.Scope, chunks beam.PCollection, indexSpec string) beam.PCollection {
	entries := beam.ParDo(s, &rankedByKeyFn{}, chunks)
	lines := ReadIndexLines(s, indexSpec)
	return beam.ParDo(s, &cogroupResolveFn{}, beam.CoGroupByKey(s, entries, lines))
}

// ReadIndexLines reads a CDXJ file (in parallel byte ranges) or a ZipNum
// index as KV<SURT key, CDXJ line>.
func ReadIndexLines(s beam.Scope, indexSpec string) beam.PCollection {
	s = s.Scope("ReadIndexLines")
	ranges := beam.ParDo(s, &splitIndexFn{}, beam.Create(s, indexSpec))
	return beam.ParDo(s, &readIndexRangeFn{}, beam.Reshuffle(s, ranges))
}

type rankedByKeyFn struct{}

func (rankedByKeyFn) ProcessElement(chunk []Ranked, emit func(string, Ranked)) {
	for _, r := range chunk {
		emit(r.Entry.Key, r)
	}
}

type splitIndexFn struct{}

func (splitIndexFn) ProcessElement(spec string, emit func(IndexRange)) error {
	kind, p, _ := strings.Cut(spec, ":")
	switch kind {
	case "cdxj":
		size, err := storage.Size(context.Background(), p)
		if err != nil {
			return fmt.Errorf("index %s: %w", spec, err)
		}
		for start := int64(0); start < size; start += cdxjRangeBytes {
			emit(IndexRange{Kind: kind, Path: p, Start: start, End: min(start+cdxjRangeBytes, size)})
		}
		return nil
	case "zipnum":
		emit(IndexRange{Kind: kind, Path: p})
		return nil
	}
	return fmt.Errorf("--join=cogroup reads the whole index and needs a cdxj: or zipnum: index, not %q", spec)
}

type readIndexRangeFn struct{}

func (readIndexRangeFn) ProcessElement(ctx context.Context, r IndexRange, emit func(string, string)) error {
	emitLine := func(line string) {
		if key, _, ok := strings.Cut(line, " "); ok {
			emit(key, line)
		}
	}
	if r.Kind == "zipnum" {
		zr, err := zipnum.Open(r.Path, zipnum.Options{})
		if err != nil {
			return err
		}
		defer zr.Close()
		for line, err := range zr.Range("", "\xff") {
			if err != nil {
				return fmt.Errorf("index %s: %w", r.Path, err)
			}
			emitLine(line)
		}
		return nil
	}
	f, err := storage.OpenReaderAt(ctx, r.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	from := r.Start
	if from > 0 {
		from-- // a line starting exactly at Start follows a newline at Start-1
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, from, f.Size()-from), 1<<20)
	pos := from
	if r.Start > 0 { // skip the rest of the line that started before Start
		skipped, err := br.ReadString('\n')
		pos += int64(len(skipped))
		if err != nil {
			return nil
		}
	}
	for pos < r.End {
		line, err := br.ReadString('\n')
		pos += int64(len(line))
		if l := strings.TrimRight(line, "\r\n"); l != "" {
			emitLine(l)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("index %s at %d: %w", r.Path, pos, err)
		}
	}
	return nil
}

type cogroupResolveFn struct{}

func (cogroupResolveFn) ProcessElement(key string, ranked func(*Ranked) bool, lines func(*string) bool, emit func([]Resolved)) error {
	var rs []Ranked
	var r Ranked
	for ranked(&r) {
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil // an index key no batch URL asked for
	}
	var caps []cdxj.Capture
	var l string
	for lines(&l) {
		c, err := cdxj.Parse(l)
		if err != nil {
			return fmt.Errorf("index line for %s: %w", key, err)
		}
		caps = append(caps, c)
	}
	// The order of lookup.Index: timestamp, file name, offset.
	sort.SliceStable(caps, func(i, j int) bool {
		a, b := caps[i], caps[j]
		if a.Timestamp != b.Timestamp {
			return a.Timestamp < b.Timestamp
		}
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	out := make([]Resolved, len(rs))
	for i, r := range rs {
		out[i] = Resolved{Ranked: r, Captures: caps}
	}
	emit(out)
	return nil
}
