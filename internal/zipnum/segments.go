package zipnum

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/flate"

	"github.com/recrawl/recrawl/internal/inflate"
)

// DefaultLinesPerSegment is the lines per segment of the blocks
// [ShardWriter] writes: a look-up inflates only the segments of a block
// that hold its keys (docs/formats.md, "Segments").
const DefaultLinesPerSegment = 100

// The segment index is a subfield of the gzip header's extra field
// (RFC 1952 §2.3.1.1) with the id "ZS" and this layout, all integers
// little-endian:
//
//	version      1 byte, segmentIndexVersion
//	count        uint16, the number of segments (at least 2)
//	count times:
//	  inflated   uint32, offset of the segment's first line in the block
//	  deflated   uint32, offset of the segment's first byte in the deflate
//	             stream (counted from the first byte after the gzip header)
//	  flags      1 byte: bit 0 (segmentStartsKey) set if the line before
//	             the segment's first line has another key (or there is
//	             none in the block), so no line of the segment's first key
//	             is in an earlier segment; other bits 0
//	  keyLen     uint16
//	  key        keyLen bytes: the segment's first line up to its first space
//
// The first segment is at 0 in both. A reader that does not know the id or
// the version inflates the block whole, as any gzip reader does.
const (
	segmentSubfieldID1  = 'Z'
	segmentSubfieldID2  = 'S'
	segmentIndexVersion = 1
	segmentStartsKey    = 1  // flags bit
	segmentEntryLen     = 11 // an entry without its key
	// maxSegmentIndexLen bounds the subfield's data: XLEN, a uint16, counts
	// the subfield's id and length too.
	maxSegmentIndexLen = 0xffff - 4
	gzipTrailerLen     = 8 // CRC-32 and ISIZE
)

// segmentKey returns the key of the line starting at data[from:]: the bytes
// up to its first space (a segment's first line has one).
func segmentKey(data []byte, from int) []byte {
	line := data[from:]
	return line[:bytes.IndexByte(line, ' ')]
}

// startsKey reports whether line, which follows data[:end] (whole lines),
// has another key (its bytes up to the first space) than the line before
// it, or there is none.
func startsKey(data []byte, end int, line []byte) bool {
	if end == 0 {
		return true
	}
	prev := data[bytes.LastIndexByte(data[:end-1], '\n')+1 : end-1]
	key := func(l []byte) []byte {
		if i := bytes.IndexByte(l, ' '); i >= 0 {
			return l[:i]
		}
		return l
	}
	return !bytes.Equal(key(prev), key(line))
}

// segmentIndexLen returns the length of the segment index of a block of
// data with segments starting at starts.
func segmentIndexLen(data []byte, starts []int) int {
	n := 3
	for _, from := range starts {
		n += segmentEntryLen + len(segmentKey(data, from))
		if n > maxSegmentIndexLen {
			return n
		}
	}
	return n
}

// appendSegmentedHeader appends to dst the gzip header of a segmented
// block: no name, no time, and the extra field holding the segment index.
func appendSegmentedHeader(dst, data []byte, starts, deflateOffsets []int) []byte {
	indexLen := segmentIndexLen(data, starts)
	dst = append(dst, 0x1f, 0x8b, 8, inflate.FlagExtra, 0, 0, 0, 0, 0, 0xff) // OS: unknown
	dst = binary.LittleEndian.AppendUint16(dst, uint16(indexLen+4))
	dst = append(dst, segmentSubfieldID1, segmentSubfieldID2)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(indexLen))
	dst = append(dst, segmentIndexVersion)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(starts)))
	for i, from := range starts {
		key := segmentKey(data, from)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(from))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(deflateOffsets[i]))
		var flags byte
		if startsKey(data, from, data[from:]) {
			flags |= segmentStartsKey
		}
		dst = append(dst, flags)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(key)))
		dst = append(dst, key...)
	}
	return dst
}

// segmentIndex is the segment index of a block's gzip member.
type segmentIndex struct {
	keys     []string // first line's key of each segment
	newKey   []bool   // the segment's first line starts its key's lines (segmentStartsKey)
	inflated []int    // offset of each segment in the block, then the block's size
	deflated []int    // offset of each segment in the member (the header counted)
}

// segments returns the number of segments.
func (x *segmentIndex) segments() int { return len(x.keys) }

// errSegmentIndex reports a segment index that contradicts itself or its
// member.
var errSegmentIndex = errors.New("bad segment index in the gzip header")

// parseSegmentIndex reads the segment index from the header of a block's
// gzip member. It returns nil for a member without one (or with a version
// this reader does not know), and an error wrapping errSegmentIndex for
// one that is damaged. A member whose header is not gzip has none: the
// gzip reader refuses it, by the rules of inflate.ParseHeader.
func parseSegmentIndex(member []byte) (*segmentIndex, error) {
	h, err := inflate.ParseHeader(member)
	if err != nil {
		return nil, nil
	}
	field := segmentSubfield(h.Extra)
	if len(field) == 0 || field[0] != segmentIndexVersion {
		return nil, nil
	}
	headerLen := h.Len
	if headerLen > len(member)-gzipTrailerLen {
		return nil, fmt.Errorf("%w: the header ends at byte %d of a member of %d bytes, inside its %d-byte trailer",
			errSegmentIndex, headerLen, len(member), gzipTrailerLen)
	}
	if len(field) < 3 {
		return nil, fmt.Errorf("%w: %d bytes", errSegmentIndex, len(field))
	}
	count := int(binary.LittleEndian.Uint16(field[1:]))
	x := &segmentIndex{keys: make([]string, count), newKey: make([]bool, count), inflated: make([]int, count+1), deflated: make([]int, count)}
	p := field[3:]
	deflateLen := len(member) - gzipTrailerLen - headerLen
	for i := range count {
		if len(p) < segmentEntryLen {
			return nil, fmt.Errorf("%w: segment %d of %d cut off", errSegmentIndex, i+1, count)
		}
		x.inflated[i] = int(binary.LittleEndian.Uint32(p))
		x.deflated[i] = int(binary.LittleEndian.Uint32(p[4:]))
		x.newKey[i] = p[8]&segmentStartsKey != 0
		keyLen := int(binary.LittleEndian.Uint16(p[9:]))
		if len(p) < segmentEntryLen+keyLen {
			return nil, fmt.Errorf("%w: segment %d of %d cut off", errSegmentIndex, i+1, count)
		}
		x.keys[i] = string(p[segmentEntryLen : segmentEntryLen+keyLen])
		p = p[segmentEntryLen+keyLen:]
		switch {
		case i == 0 && (x.inflated[0] != 0 || x.deflated[0] != 0):
			return nil, fmt.Errorf("%w: the first segment is at %d (inflated), %d (deflated), not 0", errSegmentIndex, x.inflated[0], x.deflated[0])
		case i > 0 && (x.inflated[i] <= x.inflated[i-1] || x.deflated[i] <= x.deflated[i-1] ||
			x.keys[i] < x.keys[i-1] || belowKeySpace(x.keys[i], x.keys[i-1], ' ')): // keys and lines in order
			return nil, fmt.Errorf("%w: segment %d (%d, %d, %q) does not follow segment %d (%d, %d, %q)", errSegmentIndex,
				i+1, x.inflated[i], x.deflated[i], truncate(x.keys[i]), i, x.inflated[i-1], x.deflated[i-1], truncate(x.keys[i-1]))
		case x.deflated[i] >= deflateLen:
			return nil, fmt.Errorf("%w: segment %d starts at %d, past the %d bytes of deflate data", errSegmentIndex, i+1, x.deflated[i], deflateLen)
		}
	}
	for i := range x.deflated {
		x.deflated[i] += headerLen
	}
	size := int(binary.LittleEndian.Uint32(member[len(member)-4:])) // ISIZE
	if count < 2 || len(p) != 0 || size <= x.inflated[count-1] || size > MaxBlockBytes {
		return nil, fmt.Errorf("%w: %d segments, %d bytes left over, the last at %d of a block of %d bytes (ISIZE)",
			errSegmentIndex, count, len(p), x.inflated[max(count-1, 0)], size)
	}
	x.inflated[count] = size
	return x, nil
}

// segmentSubfield returns the data of the segment index's subfield ("ZS")
// of a gzip header's extra field, nil if it has none: the subfields are an
// id of 2 bytes, a length (uint16) and that many bytes (RFC 1952
// §2.3.1.1); a subfield that runs past the field ends the search.
func segmentSubfield(extra []byte) []byte {
	for len(extra) >= 4 {
		n := int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return nil
		}
		if extra[0] == segmentSubfieldID1 && extra[1] == segmentSubfieldID2 {
			return extra[4 : 4+n]
		}
		extra = extra[4+n:]
	}
	return nil
}

// belowKeySpace reports whether k+" " < key+string(sep), without building
// either: whether a line starting with key k and a space sorts below the
// bound key+sep.
func belowKeySpace(k, key string, sep byte) bool {
	switch {
	case len(k) < len(key):
		if c := strings.Compare(k, key[:len(k)]); c != 0 {
			return c < 0
		}
		return ' ' <= key[len(k)] // equal: k+" " is a prefix of key, below key+sep
	case len(k) == len(key):
		if c := strings.Compare(k, key); c != 0 {
			return c < 0
		}
		return ' ' < sep
	default:
		if c := strings.Compare(k[:len(key)], key); c != 0 {
			return c < 0
		}
		return k[len(key)] < sep
	}
}

// keySegments returns the segments [lo, hi) that can hold lines of key
// (lines in [key+" ", key+"!")), as blockRange does for blocks: its lines
// may start in the segment before the first one whose first line is not
// below key+" ", unless that segment starts with the key's first line.
func (x *segmentIndex) keySegments(key string) (lo, hi int) {
	// The keys are in their lines' order (parseSegmentIndex checks), so the
	// ones below a bound come first.
	n := x.segments()
	j := sort.Search(n, func(i int) bool { return !belowKeySpace(x.keys[i], key, ' ') })
	lo = max(j-1, 0)
	if j < n && x.newKey[j] && x.keys[j] == key {
		lo = j
	}
	hi = j + sort.Search(n-j, func(i int) bool { return !belowKeySpace(x.keys[j+i], key, '!') })
	return lo, hi
}

// segmentRun is a run of segments [lo, hi) of a block inflated together,
// held at data[off:] of a partly inflated block.
type segmentRun struct{ lo, hi, off int }

// segmentRuns returns the runs of segments that hold the lines of the
// sorted keys, in order, adjacent runs joined.
func (x *segmentIndex) segmentRuns(keys []string) []segmentRun {
	var runs []segmentRun
	for _, k := range keys {
		lo, hi := x.keySegments(k)
		if lo == hi {
			continue
		}
		if len(runs) > 0 && lo <= runs[len(runs)-1].hi {
			runs[len(runs)-1].hi = max(runs[len(runs)-1].hi, hi)
			continue
		}
		runs = append(runs, segmentRun{lo: lo, hi: hi})
	}
	return runs
}

// segmentReader is a raw deflate reader started at a segment's first byte.
type segmentReader struct {
	src bytes.Reader
	fr  io.ReadCloser
}

var segmentReaders sync.Pool // *segmentReader

// inflateSegments inflates the runs of segments of a block from its gzip
// member into one string, the runs end to end, and sets each run's offset
// in it.
func inflateSegments(member []byte, x *segmentIndex, runs []segmentRun) (string, error) {
	total := 0
	for _, run := range runs {
		total += x.inflated[run.hi] - x.inflated[run.lo]
	}
	out := make([]byte, total)
	sr, _ := segmentReaders.Get().(*segmentReader)
	if sr == nil {
		sr = &segmentReader{}
	}
	defer segmentReaders.Put(sr)
	off := 0
	for i, run := range runs {
		sr.src.Reset(member[x.deflated[run.lo]:])
		if sr.fr == nil {
			sr.fr = flate.NewReader(&sr.src)
		} else if err := sr.fr.(flate.Resetter).Reset(&sr.src, nil); err != nil {
			return "", err
		}
		n := x.inflated[run.hi] - x.inflated[run.lo]
		if _, err := io.ReadFull(sr.fr, out[off:off+n]); err != nil {
			return "", fmt.Errorf("segments %d to %d (inflated %d+%d, deflated at %d): %w",
				run.lo+1, run.hi, x.inflated[run.lo], n, x.deflated[run.lo], inflate.NoEOF(err))
		}
		if out[off+n-1] != '\n' || (run.lo > 0 && !bytes.HasPrefix(out[off:], []byte(x.keys[run.lo]+" "))) {
			return "", fmt.Errorf("%w: segments %d to %d (inflated %d+%d) do not hold whole lines from the key %q",
				errSegmentIndex, run.lo+1, run.hi, x.inflated[run.lo], n, truncate(x.keys[run.lo]))
		}
		runs[i].off = off
		off += n
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), nil
}
