// Package records iterates the records of one archive file of any kind
// (.warc, .warc.gz, .arc, .arc.gz; the format is detected from the content)
// and reads single records at an index offset.
//
// For every record it gives what a snapshot index and the extraction need:
// its offset and length in the file as pywb (warcio's ArchiveIterator)
// computes them, its WARC header (ARC records mapped to WARC terms), the
// HTTP status line and headers when the payload is an HTTP message, and the
// payload. The record syntax is parsed here, following warcio's parser,
// because the index needs exact gzip member boundaries, pywb's record
// selection, tolerance of damage and speed; gowarc checks the parsed headers
// in the tests.
//
// Damage is reported as Skip values through a callback, and iteration goes
// on with the next record that can be found. A record found damaged after
// Next returned it has Record.Damage set by Finish and is not to be indexed.
// The offset rules for each file layout: docs/formats.md.
package records

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Format is the archive format of a record.
type Format int

const (
	WARC Format = iota + 1
	ARC
)

func (f Format) String() string {
	switch f {
	case WARC:
		return "warc"
	case ARC:
		return "arc"
	}
	return "unknown"
}

// Skip kinds: short, stable reasons.
const (
	KindEmptyFile        = "empty-file"
	KindGarbage          = "garbage"
	KindTruncatedGzip    = "truncated-gzip"
	KindBadGzip          = "bad-gzip"
	KindBadContentLength = "bad-content-length"
	KindBadDate          = "bad-date"
	KindTruncatedRecord  = "truncated-record"
	KindMultiRecord      = "multi-record-member"
	KindBadHeader        = "bad-header"
	KindHeaderTooLong    = "header-too-long"
)

// RecordKept reports whether a problem of this kind leaves its record in
// the index, repaired as the Skip's Err says, instead of leaving it out.
// Only KindBadContentLength does: a Content-Length (or ARC length) that is
// not a length is read as 0, as pywb reads it, so the record is indexed
// with an empty payload and its block shows up as garbage (a Skip of its
// own); a gzip member without Content-Length is read to its end.
func RecordKept(kind string) bool { return kind == KindBadContentLength }

// Bounds of a record's header (the WARC header, and the HTTP head of its
// block): a header of more lines or bytes is cut there, reported as
// KindHeaderTooLong naming the file, offset and the field where it was cut,
// and the record is left out (Record.Damage). Each line is also cut at
// 1 MiB. Real headers have a few dozen lines of a few KB in all.
const (
	MaxHeaderLines = 1000
	MaxHeaderBytes = 1 << 20
)

// Skip is a problem found while reading a file: what was skipped or
// repaired, and where.
type Skip struct {
	File   string
	Offset int64  // offset in the file where the problem starts
	Bytes  int64  // bytes skipped, when known
	Kind   string // one of the Kind constants
	Err    error
}

func (s Skip) Error() string {
	return fmt.Sprintf("%s offset %d: %s: %v", s.File, s.Offset, s.Kind, s.Err)
}

// ErrNoRecords is returned when not a single record could be read.
var ErrNoRecords = errors.New("no records could be read")

// Field is one header line.
type Field struct{ Name, Value string }

// Header is an ordered list of header fields.
type Header []Field

// Get returns the value of the first field called name (case-insensitive).
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Has reports whether a field called name is present.
func (h Header) Has(name string) bool {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// HTTP is the status (or request) line and headers of an HTTP message.
type HTTP struct {
	// Protocol is the first token of the first line: "HTTP/1.1" for a
	// response, the method for a request.
	Protocol string
	// StatusLine is the rest of the first line: "200 OK", or for a request
	// "/path HTTP/1.1".
	StatusLine string
	Header     Header
}

// StatusCode is the first token of the status line ("" if none).
func (h *HTTP) StatusCode() string {
	code, _, _ := strings.Cut(h.StatusLine, " ")
	return code
}

// Record is one archive record.
type Record struct {
	File   string
	Format Format
	// Offset and Length locate the record in the file (see the package
	// documentation). During iteration Length is set by Iterator.Finish.
	Offset, Length int64

	Version string // "WARC/1.0", "WARC/1.1", "ARC/1"
	Header  Header // WARC header fields; for ARC records, the ARC fields

	Type          string // WARC-Type; ARC: "response", or "filedesc" for the file header
	TargetURI     string // WARC-Target-URI; ARC: the URL
	Date          string // WARC-Date or ARC archive date as written
	Timestamp     string // 14-digit capture time; "" if Date is unparsable
	ContentType   string // the record's Content-Type (ARC: the content-type field)
	ContentLength int64  // block length (-1 when invalid or missing)
	RecordID      string
	ConcurrentTo  string
	PayloadDigest string // WARC-Payload-Digest as written
	// Revisit fields.
	RefersTo, RefersToTargetURI, RefersToDate string

	// HTTP is the parsed HTTP message head, nil when the block is not parsed
	// as HTTP (pywb parses response, request and revisit records with http:
	// or https: URIs and a non-empty block).
	HTTP *HTTP

	// Body is the decoded HTTP entity (chunked transfer coding and gzip,
	// deflate or zstd content coding removed); set by ReadRecordAt only.
	Body []byte
	// BodyDecodeErr says why Body is raw (unknown content coding, damaged
	// chunking or compression).
	BodyDecodeErr error
	// BodyTruncated is set by ReadRecordAt when the body was longer than
	// its limit (ReadOptions.MaxBodyBytes) and was cut there.
	BodyTruncated bool

	// Damage is set by Iterator.Finish when the record cannot be trusted: its
	// header or block is cut off by the end of the file, or its gzip member
	// is damaged (a failed CRC-32 means every byte of it may be wrong). The
	// problem itself has been reported as a Skip at the record's offset; a
	// damaged record must not be indexed.
	Damage error

	payload  *blockReader
	filedesc bool
}

// Payload reads the rest of the block after the HTTP head (the whole block
// when there is none), raw: transfer and content codings are not removed.
// During iteration it is valid until the next call to Next or Finish.
func (r *Record) Payload() interface{ Read([]byte) (int, error) } { return r.payload }

// latin1 decodes header bytes as warcio does: UTF-8 if valid, else Latin-1.
func latin1(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}
