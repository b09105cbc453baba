// Package cdxj defines a capture (one line of a snapshot index) and reads and
// writes it in the CDXJ format that pywb writes:
//
//	SURT-KEY 14-DIGIT-TIMESTAMP {"url": …, "mime": …, "status": …, "digest": …, "length": …, "offset": …, "filename": …}
//
// Lines sort by (key, timestamp) as plain byte strings, so a sorted file can be
// searched with a binary search on its key prefix.
package cdxj

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Capture is one archived capture of a URL: where its record is and what it holds.
type Capture struct {
	Key       string // canonical SURT key of the URL (see internal/surt)
	Timestamp string // 14-digit capture time, YYYYMMDDhhmmss (UTC)
	URL       string // the URL as recorded
	Mime      string // media type without parameters; "warc/revisit" for revisits; "unk" if unknown
	Status    string // HTTP status code, "" when the record has none (revisits, resources)
	Digest    string // payload digest without its "sha1:" prefix
	Length    int64  // length of the (compressed) record in its file
	Offset    int64  // offset of the record in its file
	Filename  string // the WARC/ARC file name as stored in the index (relative)
	// Archive names the archive the capture was found in when an
	// extraction reads several (internal/lookup's multi-index sets it);
	// "" for a single unnamed archive. It is not part of the CDXJ line:
	// Line leaves it out and Parse never sets it.
	Archive string
}

// SortKey is the part of a line that orders it: "KEY TIMESTAMP".
func (c Capture) SortKey() string { return c.Key + " " + c.Timestamp }

// LineSortKey is SortKey read off an index line without parsing it: its
// first two space-separated fields (the whole line if it has fewer).
func LineSortKey(line string) string {
	if i := strings.IndexByte(line, ' '); i >= 0 {
		if j := strings.IndexByte(line[i+1:], ' '); j >= 0 {
			return line[:i+1+j]
		}
	}
	return line
}

// IsRevisit reports whether the capture is a WARC revisit record.
func (c Capture) IsRevisit() bool { return c.Mime == "warc/revisit" }

// Line renders the capture as one CDXJ line (without the trailing newline),
// with the field order and JSON spacing pywb uses. Empty mime/status/digest
// fields are left out, as pywb leaves out "-" values.
func (c Capture) Line() string {
	var b strings.Builder
	b.Grow(len(c.Key) + len(c.URL) + len(c.Filename) + 128)
	b.WriteString(c.Key)
	b.WriteByte(' ')
	b.WriteString(c.Timestamp)
	b.WriteString(` {"url": `)
	writeJSONString(&b, c.URL)
	field := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(`, "`)
		b.WriteString(name)
		b.WriteString(`": `)
		writeJSONString(&b, value)
	}
	field("mime", c.Mime)
	field("status", c.Status)
	field("digest", c.Digest)
	field("length", strconv.FormatInt(c.Length, 10))
	field("offset", strconv.FormatInt(c.Offset, 10))
	field("filename", c.Filename)
	b.WriteByte('}')
	return b.String()
}

// writeJSONString writes s as a JSON string the way Python's json.dumps does
// (ASCII only: other characters as \uXXXX escapes), so lines match pywb's byte for byte.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r >= 0x7f:
			if r == utf8.RuneError {
				r = 0xfffd
			}
			if r > 0xffff { // surrogate pair, as Python writes it
				r -= 0x10000
				for _, u := range []rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff} {
					b.WriteString(`\u`)
					b.WriteByte(hex[u>>12&0xf])
					b.WriteByte(hex[u>>8&0xf])
					b.WriteByte(hex[u>>4&0xf])
					b.WriteByte(hex[u&0xf])
				}
				continue
			}
			b.WriteString(`\u`)
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// Parse reads one CDXJ line (with or without its trailing newline). It accepts
// any JSON key order and numbers given as strings or numbers.
func Parse(line string) (Capture, error) {
	line = strings.TrimRight(line, "\r\n")
	key, rest, ok := strings.Cut(line, " ")
	if !ok {
		return Capture{}, fmt.Errorf("cdxj line %q: no timestamp after the key", truncate(line))
	}
	ts, js, ok := strings.Cut(rest, " ")
	if !ok {
		return Capture{}, fmt.Errorf("cdxj line %q: no JSON block after the timestamp", truncate(line))
	}
	if len(ts) < 4 || strings.Trim(ts, "0123456789") != "" {
		return Capture{}, fmt.Errorf("cdxj line %q: timestamp %q is not digits", truncate(line), ts)
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		return Capture{}, fmt.Errorf("cdxj line %q: JSON block: %w", truncate(line), err)
	}
	c := Capture{Key: key, Timestamp: ts}
	str := func(name string) (string, error) {
		raw, ok := fields[name]
		if !ok {
			return "", nil
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", fmt.Errorf("cdxj line %q: field %q: %w", truncate(line), name, err)
			}
			return s, nil
		}
		return string(raw), nil
	}
	num := func(name string) (int64, error) {
		s, err := str(name)
		if err != nil || s == "" || s == "-" {
			return 0, err
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cdxj line %q: field %q: %q is not an integer", truncate(line), name, s)
		}
		return n, nil
	}
	var err error
	for _, f := range []struct {
		name string
		dst  *string
	}{{"url", &c.URL}, {"mime", &c.Mime}, {"status", &c.Status}, {"digest", &c.Digest}, {"filename", &c.Filename}} {
		if *f.dst, err = str(f.name); err != nil {
			return Capture{}, err
		}
		if *f.dst == "-" {
			*f.dst = ""
		}
	}
	if c.Length, err = num("length"); err != nil {
		return Capture{}, err
	}
	if c.Offset, err = num("offset"); err != nil {
		return Capture{}, err
	}
	return c, nil
}

func truncate(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
