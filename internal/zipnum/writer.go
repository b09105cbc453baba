package zipnum

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	// klauspost's gzip: 2.4x faster than compress/gzip on CDXJ blocks,
	// 3 % larger; any gzip reader (pywb's, ours) reads the blocks.
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/recrawl/recrawl/internal/bytecount"
	"github.com/recrawl/recrawl/internal/cdxj"
)

// DefaultLinesPerBlock is the block size of pywb's and Common Crawl's ZipNum
// indexes.
const DefaultLinesPerBlock = 3000

// MaxLineBytes is the longest index line (CDXJ or CDX, without its newline)
// that the writers and readers of this module accept: 16 MiB, the line
// buffer the index pipeline merges its sorted runs with. A URL is at most
// 1 MiB (a WARC header line is cut there), so a real line is far shorter.
const MaxLineBytes = 16 << 20

// BlockLevel is the gzip level of the blocks. Level 2 against the default
// (5 in klauspost/compress), on the 210,369 lines of the 1 GB benchmark
// corpus in blocks of 3000: 0.24 s instead of 0.44 s on one core, 12.1 MB
// instead of 11.2 MB (+8 %; the lines are 67 MB). Any level is plain gzip
// for pywb and every reader.
const BlockLevel = 2

// Entry is one line of the secondary index: where one block is.
type Entry struct {
	Key    string // "KEY TIMESTAMP" of the block's first line
	Shard  string // shard name, resolved to a file through the location file
	Offset int64  // offset of the block's gzip member in the shard
	Length int64  // length of the gzip member
	Seq    int    // 1-based block number across the whole index
}

// Line renders the entry as a secondary index line (without newline).
func (e Entry) Line() string {
	return e.Key + "\t" + e.Shard + "\t" + strconv.FormatInt(e.Offset, 10) + "\t" +
		strconv.FormatInt(e.Length, 10) + "\t" + strconv.Itoa(e.Seq)
}

// ParseEntry reads one secondary index line. The seq field is optional, as in
// some older indexes (it is then 0).
func ParseEntry(line string) (Entry, error) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	if len(f) != 4 && len(f) != 5 {
		return Entry{}, fmt.Errorf("secondary index line %q: %d tab-separated fields, want 5", truncate(line), len(f))
	}
	e := Entry{Key: f[0], Shard: f[1]}
	var err error
	if e.Offset, err = strconv.ParseInt(f[2], 10, 64); err != nil || e.Offset < 0 {
		return Entry{}, fmt.Errorf("secondary index line %q: offset %q is not a non-negative integer", truncate(line), f[2])
	}
	if e.Length, err = strconv.ParseInt(f[3], 10, 64); err != nil || e.Length <= 0 {
		return Entry{}, fmt.Errorf("secondary index line %q: length %q is not a positive integer", truncate(line), f[3])
	}
	if len(f) == 5 {
		if e.Seq, err = strconv.Atoi(f[4]); err != nil {
			return Entry{}, fmt.Errorf("secondary index line %q: seq %q is not an integer", truncate(line), f[4])
		}
	}
	return e, nil
}

// ShardWriter writes one shard: sorted index lines in, gzip blocks out.
// It is not safe for concurrent use.
type ShardWriter struct {
	w             *bytecount.Writer
	shard         string
	linesPerBlock int

	block    bytes.Buffer // uncompressed lines of the open block
	n        int          // lines in the open block
	firstKey string       // "key timestamp" of the open block's first line
	lastKey  []byte       // "key timestamp" of the last line written
	lines    int64
	gz       *gzip.Writer
	entries  []Entry
	closed   bool

	linesPerSegment int
	segStarts       []int         // offsets in block of the open block's segments' first lines
	segLines        int           // lines of the open block since its last segment's start
	segWriter       *flate.Writer // compresses one segment at a time
	deflated        bytes.Buffer  // the deflate stream of a segmented block
	header          []byte        // the gzip header of a segmented block
}

// NewShardWriter returns a writer of the shard called shard (the name the
// secondary index records) to w. linesPerBlock <= 0 means
// [DefaultLinesPerBlock]; a block also ends before it would hold more than
// [MaxBlockBytes].
func NewShardWriter(w io.Writer, shard string, linesPerBlock int) *ShardWriter {
	if linesPerBlock <= 0 {
		linesPerBlock = DefaultLinesPerBlock
	}
	return &ShardWriter{w: bytecount.NewWriter(w), shard: shard, linesPerBlock: linesPerBlock,
		linesPerSegment: DefaultLinesPerSegment}
}

// SetLinesPerSegment sets the lines per segment of the blocks written from
// now on (see [DefaultLinesPerSegment] and docs/formats.md): 0 (or less)
// writes blocks without segments, as pywb and the Internet Archive do.
func (s *ShardWriter) SetLinesPerSegment(n int) { s.linesPerSegment = max(n, 0) }

// WriteLine adds one index line (CDXJ or CDX, with or without its newline).
// Lines must come sorted by their "key timestamp" prefix; lines with equal
// prefixes may come in any order.
func (s *ShardWriter) WriteLine(line string) error {
	// WriteLineBytes only reads the line and copies what it keeps.
	return s.WriteLineBytes(unsafe.Slice(unsafe.StringData(line), len(line)))
}

// WriteLineBytes is WriteLine for a line held as bytes (a line merged from
// sorted runs), without a string per line. It does not modify or keep line.
func (s *ShardWriter) WriteLineBytes(line []byte) error {
	if s.closed {
		return fmt.Errorf("zipnum shard %s: write after Close", s.shard)
	}
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 {
		return nil
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		return fmt.Errorf("zipnum shard %s: line %q contains a newline", s.shard, truncate(string(line)))
	}
	if len(line) > MaxLineBytes {
		return fmt.Errorf("zipnum shard %s: line %d %q is %d bytes, longer than %d (MaxLineBytes)",
			s.shard, s.lines+1, truncate(string(line)), len(line), MaxLineBytes)
	}
	key := cdxj.LineSortKeyBytes(line)
	if string(key) < string(s.lastKey) {
		return fmt.Errorf("zipnum shard %s: line %d %q sorts before the previous line's key %q: input is not sorted",
			s.shard, s.lines+1, truncate(string(line)), s.lastKey)
	}
	s.lastKey = append(s.lastKey[:0], key...)
	// A block ends early rather than grow past what readers accept.
	if s.n > 0 && s.block.Len()+len(line)+1 > MaxBlockBytes {
		if err := s.flushBlock(); err != nil {
			return err
		}
	}
	if s.n == 0 {
		s.firstKey = string(key)
	}
	s.startSegment(line)
	s.block.Write(line)
	s.block.WriteByte('\n')
	s.n++
	s.lines++
	if s.n >= s.linesPerBlock {
		return s.flushBlock()
	}
	return nil
}

// startSegment records that a segment starts with line, the next line of
// the open block, if the open segment is full (or the block is empty) and
// line holds a space: a segment's first line starts with its key and a
// space, so the key read back from the index bounds the line exactly. A
// full segment goes on while its key's lines do, up to twice its lines,
// so that a key's lines are in one segment and a look-up inflates only it.
// A block whose first line has no space gets no segments.
func (s *ShardWriter) startSegment(line []byte) {
	if s.linesPerSegment > 0 && bytes.IndexByte(line, ' ') >= 0 &&
		(s.block.Len() == 0 || (len(s.segStarts) > 0 && s.segLines >= s.linesPerSegment &&
			(s.segLines >= 2*s.linesPerSegment || startsKey(s.block.Bytes(), len(s.block.Bytes()), line)))) {
		s.segStarts = append(s.segStarts, s.block.Len())
		s.segLines = 0
	}
	s.segLines++
}

// flushBlock compresses the open block as one gzip member: in segments,
// with their index in the gzip header, if it has two segments or more and
// the index fits in the header, else as one deflate stream.
func (s *ShardWriter) flushBlock() error {
	if s.n == 0 {
		return nil
	}
	start := s.w.N()
	segmented, err := s.writeSegmentedBlock()
	if err != nil {
		return fmt.Errorf("zipnum shard %s: block %d: %w", s.shard, len(s.entries)+1, err)
	}
	if !segmented {
		if err := s.writePlainBlock(); err != nil {
			return err
		}
	}
	s.entries = append(s.entries, Entry{
		Key: s.firstKey, Shard: s.shard, Offset: start, Length: s.w.N() - start, Seq: len(s.entries) + 1,
	})
	s.block.Reset()
	s.segStarts = s.segStarts[:0]
	s.n = 0
	return nil
}

// writePlainBlock writes the open block as one gzip member of one deflate
// stream.
func (s *ShardWriter) writePlainBlock() error {
	if s.gz == nil {
		var err error
		if s.gz, err = gzip.NewWriterLevel(s.w, BlockLevel); err != nil {
			return fmt.Errorf("zipnum shard %s: %w", s.shard, err)
		}
	} else {
		s.gz.Reset(s.w)
	}
	if _, err := s.gz.Write(s.block.Bytes()); err != nil {
		return fmt.Errorf("zipnum shard %s: block %d: %w", s.shard, len(s.entries)+1, err)
	}
	if err := s.gz.Close(); err != nil {
		return fmt.Errorf("zipnum shard %s: block %d: %w", s.shard, len(s.entries)+1, err)
	}
	return nil
}

// writeSegmentedBlock writes the open block as one gzip member whose
// deflate stream is its segments, each compressed from an empty dictionary
// and ended by a sync flush (the last by the final block), with the
// segment index in the header's extra field. It writes nothing and returns
// false if the block has fewer than two segments or the index does not fit
// in the extra field.
func (s *ShardWriter) writeSegmentedBlock() (bool, error) {
	data := s.block.Bytes()
	if len(s.segStarts) < 2 || segmentIndexLen(data, s.segStarts) > maxSegmentIndexLen {
		return false, nil
	}
	if s.segWriter == nil {
		var err error
		if s.segWriter, err = flate.NewWriter(&s.deflated, BlockLevel); err != nil {
			return false, err
		}
	}
	s.deflated.Reset()
	deflateOffsets := make([]int, len(s.segStarts))
	for i, from := range s.segStarts {
		to := len(data)
		if i+1 < len(s.segStarts) {
			to = s.segStarts[i+1]
		}
		deflateOffsets[i] = s.deflated.Len()
		s.segWriter.Reset(&s.deflated) // an empty dictionary: the segment never refers to the bytes before it
		if _, err := s.segWriter.Write(data[from:to]); err != nil {
			return false, err
		}
		end := s.segWriter.Flush // a sync flush: the next segment starts on a byte
		if i == len(s.segStarts)-1 {
			end = s.segWriter.Close // the final block
		}
		if err := end(); err != nil {
			return false, err
		}
	}
	s.header = appendSegmentedHeader(s.header[:0], data, s.segStarts, deflateOffsets)
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc32.ChecksumIEEE(data))
	binary.LittleEndian.PutUint32(trailer[4:], uint32(len(data)))
	for _, part := range [][]byte{s.header, s.deflated.Bytes(), trailer[:]} {
		if _, err := s.w.Write(part); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Close writes the last, partial block and returns the secondary index
// entries of all blocks, numbered from 1 within the shard. It does not close
// the underlying writer.
func (s *ShardWriter) Close() ([]Entry, error) {
	if s.closed {
		return s.entries, nil
	}
	s.closed = true
	if err := s.flushBlock(); err != nil {
		return nil, err
	}
	return s.entries, nil
}

// Lines returns the number of lines written so far.
func (s *ShardWriter) Lines() int64 { return s.lines }

// WriteClusterIndex writes the secondary index of a whole ZipNum index from
// the entries of each shard, given in shard order (the order of their keys). It
// numbers the blocks from 1 across all shards and checks that the first keys
// never decrease, so a misordered list of shards is an error, not an index that
// silently misses captures.
func WriteClusterIndex(w io.Writer, shards ...[]Entry) error {
	bw := bufio.NewWriter(w)
	seq := 0
	last := ""
	for _, entries := range shards {
		for _, e := range entries {
			if e.Key < last {
				return fmt.Errorf("zipnum cluster index: block %s:%d starts with %q, before the previous block's %q: shards out of order",
					e.Shard, e.Offset, e.Key, last)
			}
			last = e.Key
			seq++
			e.Seq = seq
			bw.WriteString(e.Line())
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("zipnum cluster index: %w", err)
	}
	return nil
}

// Location maps a shard name to the path(s) of its file; relative paths are
// relative to the location file.
type Location struct {
	Shard string
	Paths []string
}

// WriteLoc writes a location file: one line per shard, "shard<TAB>path…".
func WriteLoc(w io.Writer, locs []Location) error {
	bw := bufio.NewWriter(w)
	for _, l := range locs {
		if len(l.Paths) == 0 {
			return fmt.Errorf("zipnum location file: shard %q has no path", l.Shard)
		}
		bw.WriteString(l.Shard)
		for _, p := range l.Paths {
			bw.WriteByte('\t')
			bw.WriteString(p)
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("zipnum location file: %w", err)
	}
	return nil
}

// ShardName is the name of the i-th shard (from 0) in indexes written by
// [Build]: Common Crawl's cdx-00000.gz.
func ShardName(i int) string { return fmt.Sprintf("cdx-%05d.gz", i) }

// Build writes a complete ZipNum index into dir (created if needed) from
// lines sorted by their "key timestamp" prefix: shards ShardName(0), … of up to
// linesPerShard lines each (<= 0: one shard), cluster.idx and cluster.loc.
// Files are written under temporary names and renamed at the end, so a failed
// run leaves no index that looks complete. A shard boundary never splits
// the lines of one key and timestamp, as is usual (but not required by
// readers).
func Build(dir string, lines iter.Seq2[string, error], linesPerShard, linesPerBlock int) error {
	return BuildSegments(dir, lines, linesPerShard, linesPerBlock, DefaultLinesPerSegment)
}

// BuildSegments is [Build] with blocks of segments of linesPerSegment lines
// (0: blocks without segments; see [ShardWriter.SetLinesPerSegment]).
func BuildSegments(dir string, lines iter.Seq2[string, error], linesPerShard, linesPerBlock, linesPerSegment int) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("zipnum build: %w", err)
	}
	var (
		shards  [][]Entry
		locs    []Location
		tmp     []string // temporary files to rename (or remove on failure)
		f       *os.File
		bw      *bufio.Writer
		sw      *ShardWriter
		lastKey string
	)
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			for _, t := range tmp {
				os.Remove(t)
			}
		}
	}()
	closeShard := func() error {
		if sw == nil {
			return nil
		}
		entries, err := sw.Close()
		if err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("zipnum build: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("zipnum build: %w", err)
		}
		f, sw = nil, nil
		shards = append(shards, entries)
		return nil
	}
	openShard := func() error {
		name := ShardName(len(shards))
		p := filepath.Join(dir, name+".tmp")
		var err error
		if f, err = os.Create(p); err != nil {
			return fmt.Errorf("zipnum build: %w", err)
		}
		tmp = append(tmp, p)
		bw = bufio.NewWriterSize(f, 1<<16)
		sw = NewShardWriter(bw, name, linesPerBlock)
		sw.SetLinesPerSegment(linesPerSegment)
		locs = append(locs, Location{Shard: name, Paths: []string{name}})
		return nil
	}
	for line, lerr := range lines {
		if lerr != nil {
			return fmt.Errorf("zipnum build: reading lines: %w", lerr)
		}
		key := cdxj.LineSortKey(strings.TrimRight(line, "\r\n"))
		if sw != nil && linesPerShard > 0 && sw.Lines() >= int64(linesPerShard) && key != lastKey {
			if err := closeShard(); err != nil {
				return err
			}
		}
		if sw == nil {
			if err := openShard(); err != nil {
				return err
			}
		}
		if err := sw.WriteLine(line); err != nil {
			return fmt.Errorf("zipnum build: %w", err)
		}
		lastKey = key
	}
	if err := closeShard(); err != nil {
		return err
	}
	for _, pair := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"cluster.idx", func(w io.Writer) error { return WriteClusterIndex(w, shards...) }},
		{"cluster.loc", func(w io.Writer) error { return WriteLoc(w, locs) }},
	} {
		p := filepath.Join(dir, pair.name+".tmp")
		out, err := os.Create(p)
		if err != nil {
			return fmt.Errorf("zipnum build: %w", err)
		}
		tmp = append(tmp, p)
		werr := pair.write(out)
		if cerr := out.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("zipnum build: %s: %w", pair.name, werr)
		}
	}
	// Shards first, the secondary index last: a reader never sees an index
	// pointing to shards that are not there yet.
	for _, t := range tmp {
		if err := os.Rename(t, strings.TrimSuffix(t, ".tmp")); err != nil {
			return fmt.Errorf("zipnum build: %w", err)
		}
	}
	return nil
}

// Lines adapts a slice of lines to the iterator [Build] takes.
func Lines(lines []string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, l := range lines {
			if !yield(l, nil) {
				return
			}
		}
	}
}

// ReadLines iterates over the lines of r (for [Build] from a sorted file).
func ReadLines(r io.Reader) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			if !yield(sc.Text(), nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield("", err)
		}
	}
}
