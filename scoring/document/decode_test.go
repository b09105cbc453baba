package document

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

func latin1(t *testing.T, s string) []byte {
	t.Helper()
	b, err := charmap.ISO8859_1.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecode(t *testing.T) {
	const german = "Größere Überschwemmungen in Düsseldorf: Straßen gesperrt, Bürger evakuiert."
	cp1252, err := charmap.Windows1252.NewEncoder().Bytes([]byte("„Zitat“ – 10 € für Café"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		body        []byte
		contentType string
		wantText    string
		wantCharset string
	}{
		{"latin1 in header", latin1(t, "<html><body><p>"+german+"</p></body></html>"), "text/html; charset=ISO-8859-1", german, "windows-1252"},
		{"latin1 in meta only", latin1(t, `<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p>`+german+"</p></body></html>"), "text/html", german, "windows-1252"},
		{"meta charset after a long comment", latin1(t, "<!--"+strings.Repeat("x", 3000)+`--><html><head><meta charset="latin1"></head><body><p>`+german+"</p></body></html>"), "", german, "windows-1252"},
		{"windows-1252 smart quotes and euro", append(append([]byte(`<html><head><meta charset="windows-1252"></head><body><p>`), cp1252...), "</p></body></html>"...), "text/html", "„Zitat“ – 10 € für Café", "windows-1252"},
		{"utf-8 with BOM beats latin1 header", append([]byte("\xef\xbb\xbf<html><body><p>"), german+"</p></body></html>"...), "text/html; charset=iso-8859-1", german, "utf-8"},
		{"undeclared latin1 sniffed", latin1(t, "<html><body><p>"+german+"</p></body></html>"), "text/html", german, "windows-1252"},
		{"latin1 declared, body is utf-8", []byte("<html><body><p>" + german + "</p></body></html>"), "text/html; charset=iso-8859-1", german, "utf-8"},
		{"utf-8 declared, body is latin1", latin1(t, "<html><body><p>"+german+"</p></body></html>"), "text/html; charset=utf-8", german, "windows-1252"},
		{"utf-16le with BOM", utf16le("<html><body><p>" + german + "</p></body></html>"), "text/html", german, "utf-16le"},
		{"unknown charset label", []byte("<html><body><p>" + german + "</p></body></html>"), "text/html; charset=x-klingon", german, "utf-8"},
	}
	for _, c := range cases {
		got, cs := Decode(c.body, c.contentType)
		if !utf8.Valid(got) {
			t.Errorf("%s: output is not valid UTF-8", c.name)
		}
		if !bytes.Contains(got, []byte(c.wantText)) {
			t.Errorf("%s: %q does not contain %q", c.name, got, c.wantText)
		}
		if cs != c.wantCharset {
			t.Errorf("%s: charset %q, want %q", c.name, cs, c.wantCharset)
		}
	}
}

func TestDecodeInvalidUTF8(t *testing.T) {
	// Valid multi-byte sequences plus stray bytes: stays UTF-8, the stray
	// bytes become U+FFFD (one per run of invalid bytes).
	body := []byte("<html><body><p>Grüße \xff\xfe aus Köln \xc3</p></body></html>")
	got, cs := Decode(body, "text/html; charset=utf-8")
	if cs != "utf-8" || !utf8.Valid(got) || !bytes.Contains(got, []byte("Grüße \uFFFD aus Köln \uFFFD")) {
		t.Errorf("got %q (%s)", got, cs)
	}
	doc, err := Parse(body, "text/html; charset=utf-8", "http://example.com/", Options{})
	if err != nil || !utf8.ValidString(doc.MainText) {
		t.Errorf("Parse: %v, %q", err, doc.MainText)
	}
}

func utf16le(s string) []byte {
	out := []byte{0xff, 0xfe}
	for _, r := range s {
		if r > 0xffff {
			panic("test string outside the BMP")
		}
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func TestLabelledLatin1Page(t *testing.T) {
	lp := labelledPages[3]
	doc, err := Parse(lp.html(t), lp.ctype, lp.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Charset != "windows-1252" || !strings.Contains(doc.MainText, "müssen") || !strings.Contains(doc.MainText, "»schwierigen") {
		t.Errorf("charset %s, text %q", doc.Charset, doc.MainText)
	}
}
