package cdxj

import (
	"errors"
	"io"

	"github.com/recrawl/recrawl/internal/records"
)

// Range is a nominal byte range [Start, End) of an archive file of Size
// bytes: the unit of work when one file is indexed in parts. IndexRange
// moves both ends to split points (records.SplitFinder), so the ranges
// Split returns together index every record of the file exactly once.
type Range struct {
	File       string
	Start, End int64
	Size       int64
}

// Split cuts a file of size bytes into nominal ranges of about rangeBytes
// (one range for rangeBytes <= 0 or a small file).
func Split(file string, size, rangeBytes int64) []Range {
	if rangeBytes <= 0 || size <= rangeBytes {
		return []Range{{File: file, Start: 0, End: size, Size: size}}
	}
	n := (size + rangeBytes - 1) / rangeBytes
	out := make([]Range, 0, n)
	for i := range n {
		out = append(out, Range{File: file, Start: size * i / n, End: size * (i + 1) / n, Size: size})
	}
	return out
}

// Whole reports whether the range is the whole file.
func (r Range) Whole() bool { return r.Start <= 0 && r.End >= r.Size }

// IndexRange indexes the records of one range of a file: those that start
// at or after the split point at rng.Start and before the split point at
// rng.End. Captures and skips carry offsets in the whole file. Indexing the
// ranges of Split one by one, in any order and on any machine, gives the
// same captures as IndexFile over the whole file.
//
// The error is non-nil if r cannot be read or emit fails; and, for a range
// that is the whole file, as for IndexFile when not a single record could be
// read (records.ErrNoRecords). A part of a larger file may hold no record.
func IndexRange(r io.ReaderAt, filename string, rng Range, opts IndexOptions, emit func(Capture) error) (IndexStats, error) {
	splits, err := records.NewSplitFinder(r, rng.Size)
	if err != nil {
		return IndexStats{}, err
	}
	// The search for the start stops at the range's end: a range without
	// a split point holds no record start, whatever follows it.
	start, found, err := splits.Next(rng.Start, rng.End)
	if err != nil {
		return IndexStats{}, err
	}
	if !found && !rng.Whole() {
		return IndexStats{}, nil // a part of a file that holds no record start
	}
	end := rng.Size
	if rng.End < rng.Size {
		if end, _, err = splits.Next(rng.End, rng.Size); err != nil {
			return IndexStats{}, err
		}
	}
	shifted := opts
	shifted.FileOffset = start
	if opts.OnSkip != nil {
		shifted.OnSkip = func(s records.Skip) {
			s.Offset += start
			opts.OnSkip(s)
		}
	}
	// A buffer of 1 MB: over remote storage every ReadAt is a request. It
	// is the iterator's own, not a second one in front of it (a copy of
	// every byte).
	if shifted.ReadBuffer == 0 {
		shifted.ReadBuffer = 1 << 20
	}
	in := io.NewSectionReader(r, start, end-start)
	st, err := IndexFile(in, filename, shifted, func(c Capture) error {
		c.Offset += start
		return emit(c)
	})
	if err != nil && errors.Is(err, records.ErrNoRecords) && !(start == 0 && end == rng.Size) {
		err = nil
	}
	return st, err
}
