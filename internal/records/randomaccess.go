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
)

// ReadRecordAt reads the record at an index offset: a gzip member or a plain
// record starting exactly there. length is the index length (0 if unknown);
// it bounds the read. name is used in errors. The returned record has its
// headers and Body, the decoded HTTP entity (or the whole block for records
// without HTTP).
//
// For whole-file gzip archives (see the package documentation) the offset is
// a position in the decompressed stream; the file is then decompressed from
// its start.
func ReadRecordAt(r io.ReaderAt, offset, length int64, name string) (*Record, error) {
	if offset < 0 {
		return nil, fmt.Errorf("file %s offset %d: negative offset", name, offset)
	}
	size := int64(1<<62 - offset)
	if length > 0 {
		size = length
	}
	var head [2]byte
	n, _ := r.ReadAt(head[:], offset)
	var src io.Reader = io.NewSectionReader(r, offset, size)
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
		}
	}
	it, err := NewIterator(src, name, nil)
	if err != nil {
		return nil, err
	}
	it.strict = true
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
	raw, err := io.ReadAll(rec.payload)
	if err != nil {
		return nil, fmt.Errorf("file %s offset %d: reading the record: %w", name, offset, err)
	}
	if it.block.damage != nil {
		return nil, fmt.Errorf("file %s offset %d: damaged record: %w", name, offset, it.block.damage)
	}
	if it.block.n > 0 {
		return nil, fmt.Errorf("file %s offset %d: record truncated, %d bytes missing", name, offset, it.block.n)
	}
	rec.Length = length
	rec.Body, rec.BodyDecodeErr = decodeBody(rec.HTTP, raw)
	return rec, nil
}

// decodeBody removes chunked transfer coding and gzip/deflate/zstd content
// coding. On failure it returns the raw bytes and the reason.
func decodeBody(h *HTTP, raw []byte) ([]byte, error) {
	if h == nil {
		return raw, nil
	}
	body := raw
	if strings.Contains(strings.ToLower(h.Header.Get("Transfer-Encoding")), "chunked") {
		if d, err := dechunk(raw); err == nil {
			body = d
		} else {
			return raw, fmt.Errorf("chunked transfer coding: %w", err)
		}
	}
	enc := strings.ToLower(strings.TrimSpace(h.Header.Get("Content-Encoding")))
	var zr io.Reader
	var err error
	switch enc {
	case "", "identity", "none":
		return body, nil
	case "gzip", "x-gzip":
		zr, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		// Servers send zlib-wrapped or raw deflate under this name.
		if zr, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
			zr, err = flate.NewReader(bytes.NewReader(body)), nil
		}
	case "zstd":
		var d *zstd.Decoder
		if d, err = zstd.NewReader(bytes.NewReader(body)); err == nil {
			defer d.Close()
			zr = d
		}
	default:
		return body, fmt.Errorf("content coding %q is not supported", enc)
	}
	if err != nil {
		return body, fmt.Errorf("content coding %s: %w", enc, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil && !(errors.Is(err, io.ErrUnexpectedEOF) && len(out) > 0) {
		return body, fmt.Errorf("content coding %s: %w", enc, err)
	}
	return out, nil
}

// dechunk decodes an HTTP/1.1 chunked body; trailers are ignored.
func dechunk(b []byte) ([]byte, error) {
	var out []byte
	for {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
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
			return nil, errors.New("chunk longer than the body")
		}
		out = append(out, rest[:n]...)
		b = bytes.TrimPrefix(bytes.TrimPrefix(rest[n:], []byte("\r")), []byte("\n"))
	}
}
