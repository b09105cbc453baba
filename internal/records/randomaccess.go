package records

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/recrawl/recrawl/internal/records/stream"
)

// DefaultMaxBodyBytes is the body limit of ReadRecordAt: the default
// max_document_bytes of a collection specification.
const DefaultMaxBodyBytes = 5 << 20

// ReadRecordAt is ReadRecordAtLimit with DefaultMaxBodyBytes.
func ReadRecordAt(r io.ReaderAt, offset, length int64, name string) (*Record, error) {
	return ReadRecordAtLimit(r, offset, length, name, DefaultMaxBodyBytes)
}

// ReadRecordAtLimit reads the record at an index offset: a gzip member or a
// plain record starting exactly there. length is the index length (0 if
// unknown); it bounds the read. name is used in errors. The returned record
// has its headers and Body, the decoded HTTP entity (or the whole block for
// records without HTTP).
//
// Memory is bounded by maxBody whatever the record holds: every layer is
// read through a limit while streaming (the record's block, the chunked
// transfer coding, the content coding), so a block or body that inflates to
// gigabytes is never held. A body longer than maxBody is cut there and
// Record.BodyTruncated is set. When the block itself was cut, the rest of
// its gzip member is not read, so its CRC-32 is not checked; otherwise a
// member that fails it is an error.
//
// For whole-file gzip archives (see the package documentation) the offset is
// a position in the decompressed stream; the file is then decompressed from
// its start.
func ReadRecordAtLimit(r io.ReaderAt, offset, length int64, name string, maxBody int64) (*Record, error) {
	if offset < 0 {
		return nil, fmt.Errorf("file %s offset %d: negative offset", name, offset)
	}
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	size := int64(1<<62 - offset)
	if length > 0 {
		size = length
	}
	var head [2]byte
	n, _ := r.ReadAt(head[:], offset)
	var src io.Reader = io.NewSectionReader(r, offset, size)
	base := offset // the file offset of src's first byte; 0 for a decompressed stream
	if offset > 0 && !(n == 2 && head[0] == 0x1f && head[1] == 0x8b) {
		var first [2]byte
		if k, _ := r.ReadAt(first[:], 0); k == 2 && first[0] == 0x1f && first[1] == 0x8b {
			// Whole-file gzip: skip offset decompressed bytes.
			zr, err := gzip.NewReader(io.NewSectionReader(r, 0, 1<<62))
			if err != nil {
				return nil, fmt.Errorf("file %s offset %d: not the start of a WARC record: %w", name, offset, err)
			}
			if _, err := io.CopyN(io.Discard, zr, offset); err != nil {
				return nil, fmt.Errorf("file %s offset %d: not the start of a WARC record: beyond the end of the decompressed file: %w", name, offset, err)
			}
			src = io.MultiReader(bufio.NewReader(zr))
			base = 0
		}
	}
	it, err := NewIterator(src, name, nil)
	if err != nil {
		return nil, err
	}
	it.strict = true
	it.SetFileOffset(base)
	rec, err := it.Next()
	if err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("file %s offset %d: not the start of a WARC record: no data", name, offset)
		}
		if strings.Contains(err.Error(), "not the start") {
			return nil, fmt.Errorf("file %s offset %d: not the start of a WARC record: %w", name, offset, err)
		}
		return nil, fmt.Errorf("file %s offset %d: %w", name, offset, err)
	}
	rec.Offset = offset
	if rec.Damage != nil {
		return nil, fmt.Errorf("file %s offset %d: damaged record: %w", name, offset, rec.Damage)
	}
	raw, rawCut, err := readAtMost(rec.payload, rawLimit(maxBody))
	if err != nil {
		return nil, fmt.Errorf("file %s offset %d: reading the record: %w", name, offset, err)
	}
	if it.block.damage != nil {
		return nil, fmt.Errorf("file %s offset %d: damaged record: %w", name, offset, it.block.damage)
	}
	if !rawCut && it.block.n > 0 {
		return nil, fmt.Errorf("file %s offset %d: record truncated, %d bytes missing", name, offset, it.block.n)
	}
	if !rawCut && it.s.Gzipped() && !it.s.Continuous {
		// The member's CRC-32 is checked at its end, after the block.
		if _, err := it.s.Discard(memberTailLimit); err != nil && !errors.Is(err, stream.EndOfMember) && err != io.EOF {
			return nil, fmt.Errorf("file %s offset %d: damaged record: %w", name, offset, err)
		}
	}
	rec.Length = length
	var cut bool
	rec.Body, cut, rec.BodyDecodeErr = decodeBody(rec.HTTP, raw, rawCut, maxBody)
	rec.BodyTruncated = cut || rawCut
	return rec, nil
}

// memberTailLimit is how much is read after a record's block to reach the end
// of its gzip member (normally 4 bytes, "\r\n\r\n").
const memberTailLimit = 64 << 10

// rawLimit is how much of a block is read for a body limit of maxBody: the
// body plus room for the chunked transfer coding's size lines.
func rawLimit(maxBody int64) int64 { return maxBody + maxBody/8 + 64<<10 }

// readAtMost reads r to its end or limit bytes, whichever comes first, and
// reports whether there was more.
func readAtMost(r io.Reader, limit int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil || int64(len(b)) < limit {
		return b, false, err
	}
	var one [1]byte
	k, err := io.ReadFull(r, one[:])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return b, k > 0, err
}

// decodeBody removes chunked transfer coding and gzip/deflate/zstd content
// coding, reading at most maxBody decoded bytes; cut reports that the body
// was longer. rawCut says raw is the start of a longer block (a chunk or a
// compressed stream broken off at its end is then expected). On failure it
// returns the raw bytes (at most maxBody of them) and the reason.
func decodeBody(h *HTTP, raw []byte, rawCut bool, maxBody int64) (body []byte, cut bool, err error) {
	clip := func(b []byte) ([]byte, bool) {
		if int64(len(b)) > maxBody {
			return b[:maxBody], true
		}
		return b, false
	}
	if h == nil {
		body, cut = clip(raw)
		return body, cut, nil
	}
	body = raw
	if strings.Contains(strings.ToLower(h.Header.Get("Transfer-Encoding")), "chunked") {
		d, err := dechunk(raw, rawCut)
		if err != nil {
			body, cut = clip(raw)
			return body, cut, fmt.Errorf("chunked transfer coding: %w", err)
		}
		body = d
	}
	enc := strings.ToLower(strings.TrimSpace(h.Header.Get("Content-Encoding")))
	var zr io.Reader
	switch enc {
	case "", "identity", "none":
		body, cut = clip(body)
		return body, cut, nil
	case "gzip", "x-gzip":
		zr, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		// Servers send zlib-wrapped or raw deflate under this name.
		if zr, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
			zr, err = flate.NewReader(bytes.NewReader(body)), nil
		}
	case "zstd":
		var d *zstd.Decoder
		if d, err = zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderMaxMemory(uint64(maxBody)+1<<20)); err == nil {
			defer d.Close()
			zr = d
		}
	default:
		body, cut = clip(body)
		return body, cut, fmt.Errorf("content coding %q is not supported", enc)
	}
	if err != nil {
		body, cut = clip(body)
		return body, cut, fmt.Errorf("content coding %s: %w", enc, err)
	}
	out, more, err := readAtMost(zr, maxBody)
	if err != nil && !(errors.Is(err, io.ErrUnexpectedEOF) && len(out) > 0) {
		body, cut = clip(body)
		return body, cut, fmt.Errorf("content coding %s: %w", enc, err)
	}
	return out, more, nil
}

// dechunk decodes an HTTP/1.1 chunked body; trailers are ignored. When cut
// is set, b is the start of a longer body: a chunk broken off at its end is
// kept as far as it goes.
func dechunk(b []byte, cut bool) ([]byte, error) {
	var out []byte
	for {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			if cut && out != nil {
				return out, nil
			}
			return nil, errors.New("no chunk size line")
		}
		sz := strings.TrimSpace(string(line))
		if i := strings.IndexByte(sz, ';'); i >= 0 {
			sz = strings.TrimSpace(sz[:i])
		}
		n, err := strconv.ParseUint(sz, 16, 63)
		if err != nil {
			return nil, fmt.Errorf("chunk size %q", sz)
		}
		if n == 0 {
			return out, nil
		}
		if uint64(len(rest)) < n {
			if cut {
				return append(out, rest...), nil
			}
			return nil, errors.New("chunk longer than the body")
		}
		out = append(out, rest[:n]...)
		b = bytes.TrimPrefix(bytes.TrimPrefix(rest[n:], []byte("\r")), []byte("\n"))
	}
}
