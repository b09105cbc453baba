package records

// ARC files are the Internet Archive's format before WARC (ARC v1, and the
// header lines of ARC v2). An ARC file is a sequence of records, each a
// single header line followed by Archive-length bytes:
//
//	filedesc://IAH-20080430204825-00000-blackbook.arc 0.0.0.0 20080430204825 text/plain 76
//	1 0 InternetArchive
//	URL IP-address Archive-date Content-type Archive-length
//
//	http://example.com/ 93.184.216.119 20140216050221 text/html 1591
//	HTTP/1.1 200 OK
//	…
//
// The first record ("filedesc://…") describes the file: a version line, the
// field-name line and optional metadata. The others hold an HTTP response as
// captured, status line and headers included. Files are plain or gzip, with
// one gzip member per record (the usual layout) or one for the whole file.
// The Iterator reads them as it reads WARC files, and counts offsets and
// lengths as pywb does: for per-record gzip, the compressed member;
// otherwise the header line plus Archive-length bytes, without the blank
// line after it.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ARCHeader is the header line of an ARC record.
type ARCHeader struct {
	URL         string
	IP          string
	Date        string // Archive-date as written: 14 digits, sometimes more
	ContentType string
	// Length is Archive-length: the bytes after the header line. It is -1
	// when the field is not a non-negative number (LengthField keeps it).
	Length      int64
	LengthField string
	// Extra holds the fields of ARC v2 lines between Content-type and
	// Archive-length (result code, checksum, location, offset, filename).
	Extra []string
}

// IsFiledesc reports whether the header is the file's description record.
func (h ARCHeader) IsFiledesc() bool { return strings.HasPrefix(h.URL, "filedesc://") }

// Timestamp returns the first 14 characters of the archive date, the
// capture time as pywb indexes it.
func (h ARCHeader) Timestamp() string {
	if len(h.Date) > 14 {
		return h.Date[:14]
	}
	return h.Date
}

// ParseARCHeader parses an ARC header line (with or without its line
// ending). ARC v1 lines have 5 space-separated fields and v2 lines 10; a
// URL with spaces in it (invalid, but found in real files) is rejoined,
// since the other fields never contain spaces. The date must be all digits,
// at least 12 of them, which is what tells a header line from other text.
func ParseARCHeader(line []byte) (ARCHeader, error) {
	line = bytes.TrimRight(line, "\r\n")
	fields := strings.Split(string(line), " ")
	if len(fields) < 5 {
		return ARCHeader{}, fmt.Errorf("ARC header %q: %d fields, want 5 (URL IP-address Archive-date Content-type Archive-length)", clipARCLine(line), len(fields))
	}
	// v1: URL IP date type length; v2: URL IP date type code checksum location offset filename length
	n := 5
	if !isARCDate(fields[len(fields)-3]) && len(fields) >= 10 && isARCDate(fields[len(fields)-8]) {
		n = 10
	}
	urlEnd := len(fields) - n + 1
	h := ARCHeader{
		URL:         strings.Join(fields[:urlEnd], " "),
		IP:          fields[urlEnd],
		Date:        fields[urlEnd+1],
		ContentType: fields[urlEnd+2],
		LengthField: fields[len(fields)-1],
		Length:      -1,
	}
	if n == 10 {
		h.Extra = fields[urlEnd+3 : len(fields)-1]
	}
	if h.URL == "" {
		return ARCHeader{}, fmt.Errorf("ARC header %q: empty URL", clipARCLine(line))
	}
	if !isARCDate(h.Date) {
		return ARCHeader{}, fmt.Errorf("ARC header %q: archive date %q is not a timestamp", clipARCLine(line), h.Date)
	}
	if v, err := strconv.ParseInt(h.LengthField, 10, 64); err == nil && v >= 0 {
		h.Length = v
	}
	return h, nil
}

// isARCDate reports whether s can be an ARC archive date: 12 digits or more.
func isARCDate(s string) bool { return len(s) >= 12 && isDigits(s) }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// clipARCLine is an ARC header line as its errors quote it: at most 120
// bytes.
func clipARCLine(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

func (it *Iterator) parseARC(rec *Record, h ARCHeader) int64 {
	rec.Format = ARC
	rec.Version = "ARC/1"
	rec.Header = Header{{"uri", h.URL}, {"ip-address", h.IP}, {"archive-date", h.Date}, {"content-type", h.ContentType}, {"length", h.LengthField}}
	rec.Type = "response"
	rec.TargetURI = strings.NewReplacer("\r", "%0D", "\n", "%0A", "\x0c", "%0C", "\x00", "%00").Replace(h.URL)
	rec.Date = h.Date
	rec.Timestamp = h.Timestamp()
	rec.ContentType = h.ContentType
	rec.ContentLength = h.Length
	n := h.Length
	if h.IsFiledesc() {
		rec.Type, rec.filedesc = "filedesc", true
		for range 2 { // version line and field-name line
			l, err := it.s.ReadLineLimit(max(n, 1<<20))
			if err != nil && len(l) == 0 {
				break
			}
			rec.Header = append(rec.Header, Field{"filedesc", strings.TrimRight(latin1(l), "\r\n")})
			n -= int64(len(l))
		}
		return max(n, 0)
	}
	if n < 0 {
		it.skip(Skip{Offset: rec.Offset, Kind: KindBadContentLength, Err: fmt.Errorf("ARC length %q is not a length; read as 0 (as pywb does): the record is indexed with an empty payload", h.LengthField)})
		return 0
	}
	return n
}
