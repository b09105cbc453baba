package records

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recrawl/recrawl/internal/records/stream"
)

// isBlank reports whether line is only white space (bytes.TrimSpace's).
func isBlank(line []byte) bool {
	if len(line) > 0 && line[0] < utf8.RuneSelf && !isSpace(line[0]) {
		return false // the usual header line; isSpace is TrimSpace's ASCII space
	}
	return len(bytes.TrimSpace(line)) == 0
}

// warcVersion reports whether line starts with one of warcVersionLines, in
// any case.
func warcVersion(line []byte) bool {
	if len(line) < 8 {
		return false
	}
	for _, v := range warcVersionLines {
		if len(line) >= len(v) && hasPrefixFold(line, v) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether b starts with the upper-case ASCII prefix,
// in any case (bytes.ToUpper without its copy: for the ASCII bytes of a
// prefix, only an ASCII letter upper-cases to a letter).
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := b[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// warcVersionLines are the version strings warcVersion accepts;
// versionString returns them without a new string.
var warcVersionLines = [...]string{"WARC/1.0", "WARC/1.1", "WARC/0.17", "WARC/0.18"}

// versionString is strings.TrimSpace(latin1(first)), without a new string
// for the usual version lines.
func versionString(first []byte) string {
	t := bytes.TrimSpace(first)
	for _, v := range warcVersionLines {
		if string(t) == v {
			return v
		}
	}
	return strings.TrimSpace(latin1(first))
}

// isHeaderLine reports whether line starts a record.
func isHeaderLine(line []byte) bool {
	if warcVersion(line) {
		return true
	}
	_, err := ParseARCHeader(line)
	return err == nil
}

// headerCap counts a header's lines and bytes against MaxHeaderLines and
// MaxHeaderBytes; cut says where the header was cut, naming the field.
type headerCap struct {
	lines int
	bytes int64
	cut   error
}

// over counts line (cut at stream.MaxLine when tooLong) and reports
// whether the header is past its bounds.
func (c *headerCap) over(line []byte, tooLong bool) bool {
	if c.cut != nil {
		return true
	}
	c.lines++
	c.bytes += int64(len(line))
	if c.lines <= MaxHeaderLines && c.bytes <= MaxHeaderBytes && !tooLong {
		return false
	}
	name, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(":"))
	switch {
	case tooLong:
		c.cut = fmt.Errorf("has a line longer than %d bytes (line %d, field %q)", stream.MaxLine, c.lines, clip(name))
	case c.lines > MaxHeaderLines:
		c.cut = fmt.Errorf("has more than %d lines (cut at line %d, field %q)", MaxHeaderLines, c.lines, clip(name))
	default:
		c.cut = fmt.Errorf("has more than %d bytes (cut at line %d, field %q)", MaxHeaderBytes, c.lines, clip(name))
	}
	return true
}

// isSpace reports the bytes header lines are trimmed of (Python's
// str.strip without arguments, for ASCII).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\x0b' || c == '\x0c'
}

func trimRightSpace(l []byte) []byte {
	for len(l) > 0 && isSpace(l[len(l)-1]) {
		l = l[:len(l)-1]
	}
	return l
}

// commonHeaderName is latin1(name) for the names nearly every WARC and HTTP
// header has, without a new string (the compiler does not allocate for a
// switch on string(name)); "" for the others.
func commonHeaderName(name []byte) string {
	switch string(name) {
	case "WARC-Type":
		return "WARC-Type"
	case "WARC-Record-ID":
		return "WARC-Record-ID"
	case "WARC-Date":
		return "WARC-Date"
	case "WARC-Target-URI":
		return "WARC-Target-URI"
	case "WARC-Payload-Digest":
		return "WARC-Payload-Digest"
	case "WARC-Block-Digest":
		return "WARC-Block-Digest"
	case "WARC-Concurrent-To":
		return "WARC-Concurrent-To"
	case "WARC-IP-Address":
		return "WARC-IP-Address"
	case "WARC-Warcinfo-ID":
		return "WARC-Warcinfo-ID"
	case "WARC-Identified-Payload-Type":
		return "WARC-Identified-Payload-Type"
	case "Content-Type":
		return "Content-Type"
	case "Content-Length":
		return "Content-Length"
	case "Date":
		return "Date"
	case "Server":
		return "Server"
	case "Connection":
		return "Connection"
	case "Cache-Control":
		return "Cache-Control"
	case "Last-Modified":
		return "Last-Modified"
	case "ETag":
		return "ETag"
	case "Expires":
		return "Expires"
	case "Vary":
		return "Vary"
	case "Set-Cookie":
		return "Set-Cookie"
	case "Content-Encoding":
		return "Content-Encoding"
	case "Transfer-Encoding":
		return "Transfer-Encoding"
	case "Location":
		return "Location"
	case "Accept-Ranges":
		return "Accept-Ranges"
	}
	return ""
}
