package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/recrawl/recrawl/internal/records"
)

// ErrNotWARCRecord: a record that is neither a WARC record nor an ARC
// capture that can become one (an ARC file's filedesc record, or bytes that
// are no record).
var ErrNotWARCRecord = errors.New("not a WARC record or an ARC capture")

// CopyRawRecord writes the record at an index offset in a file of an
// archive ("" for a single unnamed one) to w as one gzip member. A WARC
// record is copied unchanged from a per-record-gzip file, else compressed as
// it is read. An ARC capture becomes a WARC/1.0 record (see writeARCAsWARC).
// The record is streamed, never held whole in memory, so a huge record
// costs a copy buffer, not its size. A record that is neither is
// ErrNotWARCRecord, found before anything is written; after any other error
// w may hold part of the record, and the caller discards what it wrote.
func (f *Fetcher) CopyRawRecord(ctx context.Context, w io.Writer, archive, name string, offset, length int64) error {
	of, err := f.openNamed(ctx, archive, name)
	if err != nil {
		return err
	}
	defer f.release(of)
	r := of.r
	if offset < 0 || length < 0 {
		return fmt.Errorf("%s: negative offset %d or length %d in the index", name, offset, length)
	}
	// outside: a length from a damaged or hostile index line that the file
	// cannot hold.
	outside := offset > r.Size() || length > r.Size()-offset
	errOutside := fmt.Errorf("%s: the index's offset %d and length %d lie outside the file (%d bytes)", name, offset, length, r.Size())
	var magic [2]byte
	r.ReadAt(magic[:], offset)
	member := magic == [2]byte{0x1f, 0x8b} && length > 0
	if outside && (member || !isGzip(r)) {
		return errOutside
	}
	// open returns the record's bytes, uncompressed, from their start.
	open := func() (io.Reader, error) {
		switch {
		case member: // a gzip member of its own
			zr, err := gzip.NewReader(io.NewSectionReader(r, offset, length))
			if err != nil {
				return nil, fmt.Errorf("read %s at %d: %w", name, offset, err)
			}
			zr.Multistream(false)
			return zr, nil
		case isGzip(r): // whole-file gzip: offsets are in the decompressed stream
			zr, err := gzip.NewReader(io.NewSectionReader(r, 0, r.Size()))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", name, err)
			}
			if _, err := io.CopyN(io.Discard, zr, offset); err != nil {
				return nil, fmt.Errorf("read %s at %d: %w", name, offset, err)
			}
			return io.LimitReader(zr, length), nil
		}
		return io.NewSectionReader(r, offset, length), nil
	}
	src, err := open()
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(src, 64<<10)
	head, _ := br.Peek(5)
	if string(head) != "WARC/" {
		return writeARCAsWARC(w, open, arcOrigin{archive, name, offset})
	}
	if member {
		if _, err := io.Copy(w, io.NewSectionReader(r, offset, length)); err != nil {
			return fmt.Errorf("copy %s at %d: %w", name, offset, err)
		}
		return nil
	}
	zw := gzip.NewWriter(w)
	n, err := io.Copy(zw, br)
	if err == nil && n < length {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("read %s at %d (%d of %d bytes): %w", name, offset, n, length, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("copy %s at %d: %w", name, offset, err)
	}
	return nil
}

func isGzip(r io.ReaderAt) bool {
	var first [2]byte
	n, _ := r.ReadAt(first[:], 0)
	return n == 2 && first == [2]byte{0x1f, 0x8b}
}

// arcOrigin is where an ARC capture comes from: the archive ("" for a
// single unnamed one), the file and the record's offset as the index names
// them.
type arcOrigin struct {
	archive, file string
	offset        int64
}

// Extension fields naming an ARC capture's origin in the WARC record made
// of it. They are not "WARC-" fields: the WARC standard reserves that
// prefix for its own fields, and none of them says "this record was
// converted from that ARC record" (WARC-Refers-To names a WARC record by its
// WARC-Record-ID, which an ARC record has none of; WARC-Filename belongs to
// warcinfo records and names the WARC file itself). The file and offset are
// what an index line of the source archive names, so the original can be
// found and read again.
const (
	FieldSourceArchive = "Recrawl-Source-Archive" // only for a named archive
	FieldSourceFile    = "Recrawl-Source-File"
	FieldSourceOffset  = "Recrawl-Source-Offset"
)

// maxARCHeaderLine bounds an ARC header line (a URL and four short fields).
const maxARCHeaderLine = 64 << 10

// writeARCAsWARC writes the ARC capture that open reads (its header line,
// then Archive-length bytes) to w as one gzip member holding a WARC/1.0
// record, as warcio and jwarc convert ARC records: a "response" record
// whose block is the ARC record's bytes, for an http(s) URL an HTTP response
// (Content-Type application/http;msgtype=response), otherwise with the ARC
// content type (a DNS lookup: text/dns); WARC-Target-URI, WARC-Date from the
// ARC date, WARC-IP-Address when the ARC has one, WARC-Block-Digest
// computed over the block (the payload digest is left to the indexer, which
// computes it from the payload as it does for the ARC file), a
// WARC-Record-ID derived from the origin (the same collection byte for byte
// on every run), and the origin (FieldSourceFile, …). The block is read
// twice, once for its digest, never held in memory.
func writeARCAsWARC(w io.Writer, open func() (io.Reader, error), from arcOrigin) error {
	where := fmt.Sprintf("%s at %d", from.file, from.offset)
	h, block, err := openARCBlock(open)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	digest := sha1.New()
	n, err := io.Copy(digest, block)
	if err != nil {
		return fmt.Errorf("read %s: %w", where, err)
	}
	if n < h.Length {
		return fmt.Errorf("read %s: the ARC record is cut off, %d of its %d bytes: %w", where, n, h.Length, io.ErrUnexpectedEOF)
	}
	ts := h.Timestamp()
	if len(ts) != 14 {
		return fmt.Errorf("%s: ARC date %q is not a 14-digit timestamp", where, h.Date)
	}
	// As the index reader names the URL (records.Record.TargetURI).
	url := strings.NewReplacer("\r", "%0D", "\n", "%0A", "\x0c", "%0C", "\x00", "%00").Replace(h.URL)
	var head bytes.Buffer
	head.WriteString("WARC/1.0\r\n")
	field := func(name, value string) { fmt.Fprintf(&head, "%s: %s\r\n", name, value) }
	ct := "application/http;msgtype=response"
	if !strings.HasPrefix(url, "http:") && !strings.HasPrefix(url, "https:") {
		ct = h.ContentType // a DNS lookup (text/dns) and the like: no HTTP message
	}
	field("WARC-Type", "response")
	field("WARC-Record-ID", originRecordID(from))
	field("WARC-Target-URI", url)
	field("WARC-Date", fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", ts[0:4], ts[4:6], ts[6:8], ts[8:10], ts[10:12], ts[12:14]))
	if ip := h.IP; ip != "" && ip != "-" && ip != "0.0.0.0" {
		field("WARC-IP-Address", ip)
	}
	field("WARC-Block-Digest", "sha1:"+base32.StdEncoding.EncodeToString(digest.Sum(nil)))
	field("Content-Type", ct)
	field("Content-Length", fmt.Sprint(h.Length))
	if from.archive != "" {
		field(FieldSourceArchive, from.archive)
	}
	field(FieldSourceFile, from.file)
	field(FieldSourceOffset, fmt.Sprint(from.offset))
	head.WriteString("\r\n")

	_, block, err = openARCBlock(open)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	zw := gzip.NewWriter(w)
	zw.Write(head.Bytes())
	if k, err := io.Copy(zw, block); err != nil || k != h.Length {
		return fmt.Errorf("read %s again (%d of %d bytes): %v", where, k, h.Length, err)
	}
	zw.Write([]byte("\r\n\r\n"))
	if err := zw.Close(); err != nil {
		return fmt.Errorf("copy %s: %w", where, err)
	}
	return nil
}

// openARCBlock reads an ARC record's header line and returns it with a
// reader of its Archive-length bytes. An invalid length is read as 0, as
// pywb reads it. The filedesc record, and bytes that are not an ARC
// record, are ErrNotWARCRecord.
func openARCBlock(open func() (io.Reader, error)) (records.ARCHeader, io.Reader, error) {
	src, err := open()
	if err != nil {
		return records.ARCHeader{}, nil, err
	}
	br := bufio.NewReaderSize(src, 64<<10)
	var line []byte
	for len(bytes.TrimSpace(line)) == 0 { // blank lines before the header, as the index reader skips them
		l, err := br.ReadSlice('\n')
		if err != nil && !(err == io.EOF && len(l) > 0) {
			if err == bufio.ErrBufferFull {
				return records.ARCHeader{}, nil, fmt.Errorf("%w: a first line over %d bytes", ErrNotWARCRecord, maxARCHeaderLine)
			}
			return records.ARCHeader{}, nil, fmt.Errorf("%w: %v", ErrNotWARCRecord, err)
		}
		line = l
	}
	h, err := records.ParseARCHeader(line)
	if err != nil {
		return records.ARCHeader{}, nil, fmt.Errorf("%w: %v", ErrNotWARCRecord, err)
	}
	if h.IsFiledesc() {
		return records.ARCHeader{}, nil, fmt.Errorf("%w: the ARC file's filedesc record", ErrNotWARCRecord)
	}
	if h.Length < 0 {
		h.Length = 0
	}
	return h, io.LimitReader(br, h.Length), nil
}

// originRecordID is a WARC-Record-ID that depends only on the origin: a
// name-based UUID (version 5 layout, SHA-1) of "archive/file#offset".
func originRecordID(from arcOrigin) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("recrawl-arc:%s/%s#%d", from.archive, from.file, from.offset)))
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
