package zipnum

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// ParseLine reads one index line, CDXJ or classic CDX. A CDXJ line has a JSON
// block as its third field and goes to [cdxj.Parse]. A CDX line has the fields
// of the Internet Archive's "CDX N b a m s k r M S V g" header (11 fields:
// key, timestamp, original URL, mime, status, digest, redirect, meta tags,
// length, offset, filename) or its older 9-field form without meta tags and
// length ("N b a m s k r V g"). A "-" means "no value".
func ParseLine(line string) (cdxj.Capture, error) {
	line = strings.TrimRight(line, "\r\n")
	if key, rest, ok := strings.Cut(line, " "); ok {
		if ts, js, ok := strings.Cut(rest, " "); ok && strings.HasPrefix(js, "{") {
			c := cdxj.Capture{Key: key, Timestamp: ts}
			if len(ts) >= 4 && strings.Trim(ts, "0123456789") == "" && parseJSONBlock(js, &c) {
				return c, nil
			}
			return cdxj.Parse(line)
		}
	}
	f := strings.Fields(line)
	var c cdxj.Capture
	var length, offset, filename string
	switch len(f) {
	case 11:
		length, offset, filename = f[8], f[9], f[10]
	case 9:
		length, offset, filename = "-", f[7], f[8]
	default:
		return cdxj.Capture{}, fmt.Errorf("cdx line %q: %d fields, want 11 (or 9) or a CDXJ JSON block", truncate(line), len(f))
	}
	dash := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	c.Key, c.Timestamp, c.URL = f[0], f[1], f[2]
	c.Mime, c.Status, c.Digest = dash(f[3]), dash(f[4]), dash(f[5])
	c.Filename = filename
	num := func(name, s string) (int64, error) {
		if s == "-" {
			return 0, nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cdx line %q: %s %q is not an integer", truncate(line), name, s)
		}
		return n, nil
	}
	var err error
	if c.Length, err = num("length", length); err != nil {
		return cdxj.Capture{}, err
	}
	if c.Offset, err = num("offset", offset); err != nil {
		return cdxj.Capture{}, err
	}
	if strings.Trim(c.Timestamp, "0123456789") != "" {
		return cdxj.Capture{}, fmt.Errorf("cdx line %q: timestamp %q is not digits", truncate(line), c.Timestamp)
	}
	return c, nil
}

func truncate(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// parseJSONBlock fills c from a CDXJ JSON block, fast: the blocks pywb and
// cdxj.Capture.Line write are flat objects of strings and numbers, and
// encoding/json (through a map) costs several microseconds per line, most of
// a look-up's time. It reports false for anything it does not handle (escape
// sequences, nested values, unknown syntax), and the caller falls back to
// cdxj.Parse, so the result is always that of cdxj.Parse.
func parseJSONBlock(js string, c *cdxj.Capture) bool {
	s := strings.TrimSpace(js)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' || strings.IndexByte(s, '\\') >= 0 {
		return false
	}
	s = s[1 : len(s)-1]
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return true
		}
		// "name"
		if s[0] != '"' {
			return false
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return false
		}
		name := s[1 : 1+end]
		s = strings.TrimLeft(s[2+end:], " \t")
		if s == "" || s[0] != ':' {
			return false
		}
		s = strings.TrimLeft(s[1:], " \t")
		// value: a string without escapes or a bare number
		var val string
		quoted := false
		if s != "" && s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return false
			}
			val, s, quoted = s[1:1+end], s[2+end:], true
			if !utf8.ValidString(val) || strings.ContainsFunc(val, func(r rune) bool { return r < 0x20 }) {
				return false
			}
		} else {
			end := strings.IndexAny(s, ", \t")
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
			if _, err := strconv.ParseInt(val, 10, 64); err != nil {
				return false // true, false, null, floats, objects: leave to encoding/json
			}
		}
		s = strings.TrimLeft(s, " \t")
		if s != "" {
			if s[0] != ',' {
				return false
			}
			if s = strings.TrimLeft(s[1:], " \t"); s == "" {
				return false // trailing comma
			}
		}
		if quoted && val == "-" {
			val = ""
		}
		switch name {
		case "url":
			c.URL = val
		case "mime":
			c.Mime = val
		case "status":
			c.Status = val
		case "digest":
			c.Digest = val
		case "filename":
			c.Filename = val
		case "length", "offset":
			var n int64
			if val != "" {
				var err error
				if n, err = strconv.ParseInt(val, 10, 64); err != nil {
					return false
				}
			}
			if name == "length" {
				c.Length = n
			} else {
				c.Offset = n
			}
		}
	}
}
