package cdxj

import "testing"

// TestAppendJSONString: strings are escaped as Python's json.dumps escapes
// them (the expected values are its output), invalid UTF-8 as U+FFFD.
func TestAppendJSONString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain/path?q=1", `"plain/path?q=1"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\there\nnl\rcr\x01\x1f\x7f", `"tab\there\nnl\rcr\u0001\u001f\u007f"`},
		{"caf\u00e9 \u4e2d\u6587", `"caf\u00e9 \u4e2d\u6587"`},
		{"emoji \U0001F600 end", `"emoji \ud83d\ude00 end"`},
		{"\ufffd", `"\ufffd"`},
		{"bad \xff byte", `"bad \ufffd byte"`},
		{"", `""`},
	} {
		if got := string(appendJSONString([]byte("x"), c.in)); got != "x"+c.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", c.in, got[1:], c.want)
		}
	}
}

// TestAppendLine: AppendLine appends exactly Line, with pywb's field order.
func TestAppendLine(t *testing.T) {
	c := Capture{Key: "com,example)/a", Timestamp: "20090101000000", URL: "http://example.com/a", Mime: "text/html",
		Status: "200", Digest: "ABC", Length: 12, Offset: 345, Filename: "x.warc.gz"}
	want := `com,example)/a 20090101000000 {"url": "http://example.com/a", "mime": "text/html", "status": "200", "digest": "ABC", "length": "12", "offset": "345", "filename": "x.warc.gz"}`
	if got := c.Line(); got != want {
		t.Errorf("Line() = %s\nwant     %s", got, want)
	}
	if got := string(c.AppendLine([]byte("prev\n"))); got != "prev\n"+want {
		t.Errorf("AppendLine appended %q", got)
	}
	c.Mime, c.Status, c.Digest = "", "", ""
	want = `com,example)/a 20090101000000 {"url": "http://example.com/a", "length": "12", "offset": "345", "filename": "x.warc.gz"}`
	if got := c.Line(); got != want {
		t.Errorf("Line() without mime/status/digest = %s\nwant %s", got, want)
	}
}
