package cdxj

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCDX11 reads a line of the classic 11-field CDX format pywb also writes
// (" CDX N b a m s k r M S V g": key, timestamp, URL, mime, status, digest,
// redirect, meta tags, length, offset, filename; "-" for none).
func ParseCDX11(line string) (Capture, error) {
	f := strings.Fields(line)
	if len(f) != 11 {
		return Capture{}, fmt.Errorf("cdx line %q: %d fields, want 11", truncate(line), len(f))
	}
	dash := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	c := Capture{Key: f[0], Timestamp: f[1], URL: f[2], Mime: dash(f[3]), Status: dash(f[4]), Digest: dash(f[5]), Filename: f[10]}
	var err error
	if c.Length, err = strconv.ParseInt(f[8], 10, 64); err != nil {
		return Capture{}, fmt.Errorf("cdx line %q: length %q: %w", truncate(line), f[8], err)
	}
	if c.Offset, err = strconv.ParseInt(f[9], 10, 64); err != nil {
		return Capture{}, fmt.Errorf("cdx line %q: offset %q: %w", truncate(line), f[9], err)
	}
	return c, nil
}

// CDX11Line renders the capture in the 11-field CDX format.
func (c Capture) CDX11Line() string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	return strings.Join([]string{c.Key, c.Timestamp, c.URL, dash(c.Mime), dash(c.Status), dash(c.Digest), "-", "-",
		strconv.FormatInt(c.Length, 10), strconv.FormatInt(c.Offset, 10), c.Filename}, " ")
}
