package records

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// headerBuilder gathers the fields of one header (a record's WARC header or
// the HTTP head of its block), warcio style: lines split at the first colon,
// names trimmed of trailing blanks and values of leading white space,
// continuation lines extending the previous value, lines without a colon
// dropped, every name and value decoded by latin1. It decodes them into one
// buffer that the Iterator reuses and makes one string of it when the
// header is complete: two allocations per header (that string and the
// Header) instead of one per name and value. The fields' strings are
// substrings of it.
type headerBuilder struct {
	arena []byte      // decoded names and values, back to back
	spans []fieldSpan // one per field, in order
	// only, when set, says which fields to keep (Iterator.IndexFieldsOnly):
	// the others are neither decoded nor copied.
	only func(name []byte) bool
	// fields counts the fields of the header, kept or not; dropped says
	// that the last one was left out (and so are its continuation lines).
	fields  int
	dropped bool
}

// fieldSpan is a field being gathered: name is a constant for the common
// names (headerName), else arena[ns:ne]; the value is arena[vs:ve].
type fieldSpan struct {
	name           string
	ns, ne, vs, ve int
}

func (b *headerBuilder) reset() {
	b.arena, b.spans = b.arena[:0], b.spans[:0]
	b.fields, b.dropped = 0, false
}

// add adds one header line.
func (b *headerBuilder) add(l []byte) {
	l = trimRightSpace(l)
	if len(l) == 0 {
		return
	}
	if l[0] == ' ' || l[0] == '\t' {
		if n := len(b.spans); n > 0 && !b.dropped {
			// The last value ends the arena, so the piece extends it.
			b.arena = appendLatin1(b.arena, l)
			b.spans[n-1].ve = len(b.arena)
		}
		return
	}
	i := bytes.IndexByte(l, ':')
	if i < 0 {
		return
	}
	name, value := l[:i], l[i+1:]
	for len(name) > 0 && (name[len(name)-1] == ' ' || name[len(name)-1] == '\t') {
		name = name[:len(name)-1]
	}
	b.fields++
	if b.dropped = b.only != nil && !b.only(name); b.dropped {
		return
	}
	for len(value) > 0 && isSpace(value[0]) {
		value = value[1:]
	}
	var f fieldSpan
	if f.name = commonHeaderName(name); f.name == "" {
		f.ns = len(b.arena)
		b.arena = appendLatin1(b.arena, name)
		f.ne = len(b.arena)
	}
	f.vs = len(b.arena)
	b.arena = appendLatin1(b.arena, value)
	f.ve = len(b.arena)
	b.spans = append(b.spans, f)
}

// appendTo returns the fields gathered (nil if none) in dst's array when it
// has room, else in a new one of their number. Their strings come from sl
// (nil: their own allocation).
func (b *headerBuilder) appendTo(dst Header, sl *Slab) Header {
	if len(b.spans) == 0 {
		return nil
	}
	if cap(dst)-len(dst) < len(b.spans) {
		dst = append(make(Header, 0, len(dst)+len(b.spans)), dst...)
	}
	s := sl.String(b.arena)
	for _, f := range b.spans {
		name := f.name
		if name == "" {
			name = s[f.ns:f.ne]
		}
		dst = append(dst, Field{name, s[f.vs:f.ve]})
	}
	return dst
}

// appendLatin1 appends latin1(b): b if it is valid UTF-8, else each byte
// as the rune of the same value.
func appendLatin1(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for _, c := range b {
		dst = utf8.AppendRune(dst, rune(c))
	}
	return dst
}

// indexWARCField reports whether a WARC header field is one the index
// reads (IndexFieldsOnly): a field of Record (warcFields) or WARC-Filename.
// A name with a non-ASCII byte is kept: Header.Get's Unicode case folding
// may match it ("ſ" folds to "s").
func indexWARCField(name []byte) bool {
	switch string(name) {
	case "WARC-Type", "WARC-Target-URI", "WARC-Date", "Content-Type", "WARC-Record-ID", "WARC-Concurrent-To",
		"WARC-Payload-Digest", "Content-Length":
		return true
	case "WARC-Block-Digest", "WARC-IP-Address", "WARC-Warcinfo-ID", "WARC-Identified-Payload-Type":
		return false
	}
	return foldedIn(name, warcFields[:]) || foldedIn(name, []string{"WARC-Filename"})
}

// indexHTTPField reports whether an HTTP header field is one the index
// reads (IndexFieldsOnly): Content-Type and Content-Length.
func indexHTTPField(name []byte) bool {
	switch string(name) {
	case "Content-Type", "Content-Length", "content-type", "content-length":
		return true
	}
	return foldedIn(name, []string{"Content-Type", "Content-Length"})
}

// foldedIn reports whether name equals one of the ASCII names in any case,
// or has a byte outside ASCII (kept, see indexWARCField).
func foldedIn(name []byte, names []string) bool {
	for _, c := range name {
		if c >= 0x80 {
			return true
		}
	}
	for _, n := range names {
		if len(n) == len(name) && asciiEqualFold(name, n) {
			return true
		}
	}
	return false
}

// asciiEqualFold reports whether b and s (of the same length, ASCII) are
// equal in any case.
func asciiEqualFold(b []byte, s string) bool {
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// warcFields are the WARC header fields a Record has fields for, in the
// order of the bits of fieldSet.
var warcFields = [...]string{
	"WARC-Type", "WARC-Target-URI", "WARC-Date", "Content-Type", "WARC-Record-ID", "WARC-Concurrent-To",
	"WARC-Payload-Digest", "WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date", "Content-Length",
}

const fieldContentLength = 10

// warcFieldIndex is the index in warcFields of a field name (any case), or
// -1. The names headerName returns as constants are matched by a switch.
func warcFieldIndex(name string) int {
	switch name {
	case "WARC-Type":
		return 0
	case "WARC-Target-URI":
		return 1
	case "WARC-Date":
		return 2
	case "Content-Type":
		return 3
	case "WARC-Record-ID":
		return 4
	case "WARC-Concurrent-To":
		return 5
	case "WARC-Payload-Digest":
		return 6
	case "Content-Length":
		return fieldContentLength
	case "WARC-Block-Digest", "WARC-IP-Address", "WARC-Warcinfo-ID", "WARC-Identified-Payload-Type":
		return -1
	}
	for i, w := range warcFields {
		if strings.EqualFold(name, w) {
			return i
		}
	}
	return -1
}

// setWARCFields sets the Record's fields from its WARC header in one pass:
// each from the first field of its name, as Header.Get would. It returns
// the Content-Length value and whether the header has one.
func setWARCFields(rec *Record, h Header) (contentLength string, hasLength bool) {
	var seen uint16
	var dst = [...]*string{
		&rec.Type, &rec.TargetURI, &rec.Date, &rec.ContentType, &rec.RecordID, &rec.ConcurrentTo,
		&rec.PayloadDigest, &rec.RefersTo, &rec.RefersToTargetURI, &rec.RefersToDate, &contentLength,
	}
	for _, f := range h {
		k := warcFieldIndex(f.Name)
		if k < 0 || seen&(1<<k) != 0 {
			continue
		}
		seen |= 1 << k
		*dst[k] = f.Value
	}
	return contentLength, seen&(1<<fieldContentLength) != 0
}
