package document

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// metaScanBytes is how much of the body is searched for a <meta> charset
// declaration. The HTML standard says 1024 bytes; archived pages from the
// 2000s often put long comments or scripts first, so we look further.
const metaScanBytes = 8 << 10

// Decode converts an HTML body to UTF-8 and returns it with the name of the
// encoding it was decoded from. The encoding is taken from, in order:
//
//  1. a byte order mark (the HTML standard puts it before the header);
//  2. the charset parameter of the HTTP Content-Type header;
//  3. a <meta charset> or <meta http-equiv="Content-Type"> in the first 8 KiB;
//  4. sniffing: UTF-8 if the bytes are valid UTF-8, else windows-1252.
//
// A declared encoding is overridden in the two cases that are common in web
// archives and cheap to recognise: a single-byte Latin declaration
// (ISO-8859-1, windows-1252, …) on a body that is valid UTF-8 with multi-byte
// sequences is UTF-8 (Latin-1 text almost never forms valid UTF-8 sequences),
// and a UTF-8 declaration on a body with invalid sequences and no valid
// multi-byte sequence at all is windows-1252 (a server default header on a
// Latin-1 page). Each run of invalid bytes that remains becomes one U+FFFD;
// Decode never fails.
func Decode(body []byte, contentType string) ([]byte, string) {
	name, declared := detectCharset(body, contentType)
	if declared {
		name = correctDeclared(body, name)
	}
	switch name {
	case "utf-8":
		body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
		if utf8.Valid(body) {
			return body, name
		}
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), name
	}
	enc, canonical := charset.Lookup(name)
	if enc == nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8"
	}
	if canonical == "utf-16le" || canonical == "utf-16be" {
		body = stripUTF16BOM(body)
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		// Decoders of x/text replace invalid input; an error here is a
		// transformer failure. Fall back to the bytes as UTF-8.
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8"
	}
	return bytes.ToValidUTF8(out, []byte("\uFFFD")), canonical
}

// detectCharset returns the canonical name of the body's encoding and whether
// it was declared (header or meta) rather than found from a BOM or sniffed.
func detectCharset(body []byte, contentType string) (name string, declared bool) {
	switch {
	case bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		return "utf-8", false
	case bytes.HasPrefix(body, []byte("\xfe\xff")):
		return "utf-16be", false
	case bytes.HasPrefix(body, []byte("\xff\xfe")):
		return "utf-16le", false
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if n := lookup(params["charset"]); n != "" {
			return n, true
		}
	} else if i := strings.Index(strings.ToLower(contentType), "charset="); i >= 0 {
		// Malformed headers such as "text/html; charset=latin1; ;".
		v := strings.Trim(contentType[i+len("charset="):], "\"' ")
		if j := strings.IndexAny(v, "; "); j >= 0 {
			v = v[:j]
		}
		if n := lookup(v); n != "" {
			return n, true
		}
	}
	if n := metaCharset(body); n != "" {
		return n, true
	}
	if utf8.Valid(body) {
		return "utf-8", false
	}
	return "windows-1252", false
}

// lookup maps a charset label to its canonical WHATWG name ("latin1" and
// "iso-8859-1" become "windows-1252", as in browsers); "" if unknown.
func lookup(label string) string {
	if label == "" {
		return ""
	}
	_, name := charset.Lookup(label)
	return name
}

// metaCharset finds a charset declared in a <meta> element before <body> in
// the first metaScanBytes bytes.
func metaCharset(body []byte) string {
	if len(body) > metaScanBytes {
		body = body[:metaScanBytes]
	}
	if !bytes.Contains(bytes.ToLower(body), []byte("charset")) {
		return ""
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, hasAttr := z.TagName()
			if string(tag) == "body" {
				return ""
			}
			if string(tag) != "meta" {
				continue
			}
			var httpEquiv, content, cs string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "charset":
					cs = string(v)
				case "http-equiv":
					httpEquiv = strings.ToLower(string(v))
				case "content":
					content = string(v)
				}
			}
			if n := lookup(cs); n != "" {
				return utf16AsUTF8(n)
			}
			if httpEquiv == "content-type" {
				if _, params, err := mime.ParseMediaType(content); err == nil {
					if n := lookup(params["charset"]); n != "" {
						return utf16AsUTF8(n)
					}
				}
			}
		}
	}
}

// utf16AsUTF8: a meta tag that can be read as ASCII cannot be in UTF-16, so
// the HTML standard reads such a declaration as UTF-8.
func utf16AsUTF8(name string) string {
	if strings.HasPrefix(name, "utf-16") {
		return "utf-8"
	}
	return name
}

// singleByteLatin are encodings whose declaration is often wrong on pages
// that are really UTF-8.
var singleByteLatin = map[string]bool{
	"windows-1252": true, "iso-8859-2": true, "iso-8859-15": true,
	"windows-1250": true, "iso-8859-4": true, "iso-8859-3": true,
}

// correctDeclared overrides a declared encoding contradicted by the bytes
// (see Decode).
func correctDeclared(body []byte, name string) string {
	switch {
	case singleByteLatin[name]:
		if hasMultiByte(body) && utf8.Valid(body) {
			return "utf-8"
		}
	case name == "utf-8":
		if !utf8.Valid(body) && !hasMultiByte(body) {
			return "windows-1252"
		}
	}
	return name
}

// hasMultiByte reports whether body contains at least one valid multi-byte
// UTF-8 sequence.
func hasMultiByte(body []byte) bool {
	for i := 0; i < len(body); {
		if body[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r != utf8.RuneError || size > 1 {
			return true
		}
		i += size
	}
	return false
}

func stripUTF16BOM(b []byte) []byte {
	if bytes.HasPrefix(b, []byte("\xfe\xff")) || bytes.HasPrefix(b, []byte("\xff\xfe")) {
		return b[2:]
	}
	return b
}
