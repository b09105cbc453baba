package round

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// cdxjRangeBytes is the size of the pieces a CDXJ index is read in.
const cdxjRangeBytes = 64 << 20

// IndexRange is a piece of an index to read: a byte range of a CDXJ file
// (lines starting in [Start, End)), or a whole ZipNum index; Archive is the
// name of the archive the index belongs to ("" for a single unnamed one).
type IndexRange struct {
	Archive    string
	Kind       string // cdxj or zipnum
	Path       string
	Start, End int64
	// Drop names the archive files removed from the index: their lines
	// are left out.
	Drop []string
}

// IndexLine is one line of an index with the name of its archive.
type IndexLine struct {
	Archive string
	Line    string
}

// ReadIndexLines reads CDXJ files (in parallel byte ranges) and ZipNum
// indexes, those of every source, as KV<SURT key, IndexLine>.
func ReadIndexLines(s beam.Scope, sources []lookup.Source) beam.PCollection {
	s = s.Scope("ReadIndexLines")
	ranges := beam.ParDo(s, &splitIndexFn{}, beam.CreateList(s, sources))
	return beam.ParDo(s, &readIndexRangeFn{}, beam.Reshuffle(s, ranges))
}

type splitIndexFn struct{}

func (splitIndexFn) ProcessElement(src lookup.Source, emit func(IndexRange)) error {
	spec, err := lookup.ParseSpec(src.Spec)
	if err != nil {
		return err
	}
	switch spec.Kind {
	case lookup.KindCDXJ, lookup.KindZipNum:
		// The base and segments of an index built with --add, each read
		// without the lines of the files removed from it.
		parts, err := lookup.IndexParts(context.Background(), spec)
		if err != nil {
			return err
		}
		for _, part := range parts {
			if err := emitPartRanges(src.Name, part, emit); err != nil {
				return err
			}
		}
		return nil
	}
	if src.Name != "" {
		return fmt.Errorf("--join=cogroup reads the whole index and needs a cdxj: or zipnum: index, not %q (archive %q)", spec, src.Name)
	}
	return fmt.Errorf("--join=cogroup reads the whole index and needs a cdxj: or zipnum: index, not %q", spec)
}

// emitPartRanges emits the pieces of one part of an index.
func emitPartRanges(archive string, part lookup.Part, emit func(IndexRange)) error {
	kind, p := part.Spec.Kind, part.Spec.Location
	drop := slices.Sorted(maps.Keys(part.Removed))
	if kind == lookup.KindZipNum {
		emit(IndexRange{Archive: archive, Kind: kind, Path: p, Drop: drop})
		return nil
	}
	size, err := storage.Size(context.Background(), p)
	if err != nil {
		return fmt.Errorf("index %s: %w", part.Spec, err)
	}
	for start := int64(0); start < size; start += cdxjRangeBytes {
		emit(IndexRange{Archive: archive, Kind: kind, Path: p, Start: start, End: min(start+cdxjRangeBytes, size), Drop: drop})
	}
	return nil
}

type readIndexRangeFn struct{}

func (readIndexRangeFn) ProcessElement(ctx context.Context, r IndexRange, emit func(string, IndexLine)) error {
	skipped := beam.NewCounter(CounterNamespace, "index_lines_without_key")
	emitLine := func(line string) {
		if len(r.Drop) > 0 {
			if c, err := zipnum.ParseLine(line); err == nil && slices.Contains(r.Drop, c.Filename) {
				return
			}
		}
		if key, _, ok := strings.Cut(line, " "); ok {
			emit(key, IndexLine{Archive: r.Archive, Line: line})
		} else {
			skipped.Inc(ctx, 1)
		}
	}
	if r.Kind == lookup.KindZipNum {
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
