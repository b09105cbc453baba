// The external sort of the index pipeline (this file): is the external sort of the index pipeline: the lines of
// one part of an archive are sorted in memory and written as a run file
// (WriteRun), and the runs are merged into sorted output (MergeRuns) by reading
// them side by side. Memory then depends on the size of a run and the
// number of runs merged at once, not on the size of the index: the lines
// never pass through the runner.
//
// Lines are sorted bytewise, as pywb sorts an index: by key, then
// timestamp, then the JSON block. A run records a RunMark every MarkEvery bytes
// (the sort key of the line there and its offset), so a merge of one key
// range starts reading each run near the range's start.

package index

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
)

// MarkEvery is the number of run bytes between two marks.
const MarkEvery = 64 << 10

// RunMark is the sort key ("key timestamp") of the line that starts at Offset
// in a run.
type RunMark struct {
	Key    string
	Offset int64
}

// Run is a written run file: sorted lines, each ending in '\n'.
type Run struct {
	Path  string
	Lines int64
	Bytes int64
	Marks []RunMark
}

// WriteRun sorts lines (without newlines; the slice is sorted in place) and
// writes them to path, local or gs://. The file appears only once it is
// complete, so a retried write leaves no half run behind.
func WriteRun(ctx context.Context, path string, lines [][]byte) (Run, error) {
	slices.SortFunc(lines, bytes.Compare)
	return writeSorted(ctx, path, func(add func([]byte) error) error {
		for _, l := range lines {
			if err := add(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteSortedRun writes the lines that each(add) adds, which must come in
// sorted order (lines merged from sorted indexes), as a run at path, with
// its marks.
func WriteSortedRun(ctx context.Context, path string, each func(add func([]byte) error) error) (Run, error) {
	return writeSorted(ctx, path, each)
}

// writeSorted writes the lines that each(add) adds, in sorted order, as a
// run at path.
func writeSorted(ctx context.Context, path string, each func(add func([]byte) error) error) (Run, error) {
	w, err := storage.Create(ctx, path)
	if err != nil {
		return Run{}, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	run := Run{Path: path}
	next := int64(0) // offset of the next mark
	err = each(func(l []byte) error {
		if run.Bytes >= next {
			run.Marks = append(run.Marks, RunMark{Key: string(sortKey(l)), Offset: run.Bytes})
			next = run.Bytes + MarkEvery
		}
		bw.Write(l)
		run.Lines++
		run.Bytes += int64(len(l)) + 1
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		w.Abort()
		return Run{}, fmt.Errorf("write run %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return Run{}, fmt.Errorf("write run %s: %w", path, err)
	}
	return run, nil
}

// sortKey is the first two space-separated fields of a line (cdxj.LineSortKey).
func sortKey(line []byte) []byte {
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		if j := bytes.IndexByte(line[i+1:], ' '); j >= 0 {
			return line[:i+1+j]
		}
	}
	return line
}

// startOffset is an offset of run before which every line is < lo: the
// last mark whose line is surely below lo (its key sorts before lo and is
// not a prefix of it, so the line differs from lo within the key).
func (r Run) startOffset(lo string) int64 {
	var off int64
	for _, m := range r.Marks {
		if m.Key < lo && !strings.HasPrefix(lo, m.Key) {
			off = m.Offset
		}
	}
	return off
}

// MaxFanIn is the most runs MergeRuns reads side by side: open files and one
// 64 KB buffer each. More runs are first merged in groups into
// intermediate runs (next to the first run, removed after).
var MaxFanIn = 256

// MergeRuns calls fn with every line of the runs (without its newline) that is
// >= lo and < hi, in sort order; lo == "" and hi == "" are unbounded. The
// line is valid only during the call.
func MergeRuns(ctx context.Context, runs []Run, lo, hi string, fn func(line []byte) error) error {
	if len(runs) <= MaxFanIn {
		return merge(ctx, runs, lo, hi, fn)
	}
	// One pass over groups of MaxFanIn runs, then merge what it made.
	dir := storage.Dir(runs[0].Path)
	tag := fmt.Sprintf("%016x", hashString(lo+"\x00"+hi+"\x00"+runs[0].Path))
	var merged []Run
	defer func() {
		for _, r := range merged {
			storage.Remove(ctx, r.Path)
		}
	}()
	for i := 0; i < len(runs); i += MaxFanIn {
		group := runs[i:min(i+MaxFanIn, len(runs))]
		p := storage.Join(dir, fmt.Sprintf("merge-%s-%d-%d.run", tag, len(runs), i))
		r, err := writeSorted(ctx, p, func(add func([]byte) error) error {
			return merge(ctx, group, lo, hi, add)
		})
		if err != nil {
			return err
		}
		merged = append(merged, r)
	}
	return MergeRuns(ctx, merged, "", "", fn)
}

// hashString is 64-bit FNV-1a.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// merge merges runs side by side (a heap of cursors).
func merge(ctx context.Context, runs []Run, lo, hi string, fn func(line []byte) error) error {
	h := make(cursorHeap, 0, len(runs))
	defer func() {
		for _, c := range h {
			c.close()
		}
	}()
	for _, r := range runs {
		if r.Lines == 0 {
			continue
		}
		c, err := openCursor(ctx, r, lo, hi)
		if err != nil {
			return err
		}
		if c == nil {
			continue
		}
		h = append(h, c)
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		if err := fn(c.line); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			c.close()
			heap.Pop(&h)
		}
	}
	return nil
}

// cursor reads one run from its start offset up to hi.
type cursor struct {
	path string
	f    io.Closer
	r    *bufio.Reader
	hi   []byte
	line []byte // current line, without its newline
	long []byte // a line longer than the buffer, assembled
}

func openCursor(ctx context.Context, run Run, lo, hi string) (*cursor, error) {
	f, err := storage.OpenReaderAt(ctx, run.Path)
	if err != nil {
		return nil, fmt.Errorf("open run: %w", err)
	}
	start := run.startOffset(lo)
	c := &cursor{path: run.Path, f: f, r: bufio.NewReaderSize(io.NewSectionReader(f, start, f.Size()-start), 64<<10)}
	if hi != "" {
		c.hi = []byte(hi)
	}
	lob := []byte(lo)
	for {
		ok, err := c.next()
		if err != nil || !ok {
			c.close()
			return nil, err
		}
		if bytes.Compare(c.line, lob) >= 0 {
			return c, nil
		}
	}
}

// next reads the next line; false at the end of the run or at hi.
func (c *cursor) next() (bool, error) {
	line, err := c.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		c.long = append(c.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = c.r.ReadSlice('\n')
			c.long = append(c.long, line...)
		}
		line = c.long
	}
	if err == io.EOF && len(line) == 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read run %s: %w", c.path, err)
	}
	c.line = bytes.TrimSuffix(line, []byte{'\n'})
	if c.hi != nil && bytes.Compare(c.line, c.hi) >= 0 {
		return false, nil
	}
	return true, nil
}

func (c *cursor) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

// cursorHeap orders cursors by their current line.
type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return bytes.Compare(h[i].line, h[j].line) < 0 }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
