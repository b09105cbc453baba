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
	"unsafe"
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

// LineSortKeyBytes is LineSortKey for a line held as bytes: a prefix of
// line, without a copy.
func LineSortKeyBytes(line []byte) []byte {
	return line[:len(LineSortKey(unsafe.String(unsafe.SliceData(line), len(line))))]
}

// IsRevisit reports whether the capture is a WARC revisit record.
func (c Capture) IsRevisit() bool { return c.Mime == "warc/revisit" }

// Line renders the capture as one CDXJ line (without the trailing newline),
// with the field order and JSON spacing pywb uses. Empty mime/status/digest
// fields are left out, as pywb leaves out "-" values.
func (c Capture) Line() string {
	return string(c.AppendLine(make([]byte, 0, len(c.Key)+len(c.URL)+len(c.Filename)+160)))
}

// AppendLine appends the line Line returns to b (without a newline): the
// index pipeline builds its batches of lines with it, without a string per
// line.
func (c Capture) AppendLine(b []byte) []byte {
	b = append(b, c.Key...)
	b = append(b, ' ')
	b = append(b, c.Timestamp...)
	b = append(b, ` {"url": `...)
	b = appendJSONString(b, c.URL)
	b = appendField(b, "mime", c.Mime)
	b = appendField(b, "status", c.Status)
	b = appendField(b, "digest", c.Digest)
	b = append(b, `, "length": "`...)
	b = strconv.AppendInt(b, c.Length, 10)
	b = append(b, `", "offset": "`...)
	b = strconv.AppendInt(b, c.Offset, 10)
	b = append(b, '"')
	b = appendField(b, "filename", c.Filename)
	return append(b, '}')
}

// appendField appends `, "name": "value"`, or nothing for an empty value.
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, `, "`...)
	b = append(b, name...)
	b = append(b, `": `...)
	return appendJSONString(b, value)
}

// appendJSONString appends s as a JSON string the way Python's json.dumps
// does (ASCII only: other characters as \uXXXX escapes), so lines match
// pywb's byte for byte.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		// The common case: a run of printable ASCII, copied at once.
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\' {
			j++
		}
		b = append(b, s[i:j]...)
		if i = j; i >= len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		default: // r < 0x20 || r >= 0x7f
			if r == utf8.RuneError {
				r = 0xfffd
			}
			if r > 0xffff { // surrogate pair, as Python writes it
				r -= 0x10000
				for _, u := range [2]rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff} {
					b = append(b, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
				}
				continue
			}
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		}
	}
	return append(b, '"')
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

// IsHTML reports whether a capture's media type (Capture.Mime) is an HTML
// page.
func IsHTML(mime string) bool {
	m := strings.ToLower(strings.TrimSpace(mime))
	return m == "text/html" || m == "application/xhtml+xml"
}
