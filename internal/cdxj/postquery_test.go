package cdxj

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/records"
)

func TestPostQuery(t *testing.T) {
	for _, c := range []struct {
		ct, body, want string
	}{
		{"application/x-www-form-urlencoded", "foo=bar&test=a+b%21", "foo=bar&test=a b!"},
		{"application/json", `{"a": 1, "b": [true, null, 2.5], "c": {"a": "x y", "d": 1e20}}`, "a=1&b=True&b.2_=None&b.3_=2.5&a.2_=x+y&d=1e%2B20"},
		{"application/json", `not json`, ""},
		{"text/plain", `{"k": "v"}`, "k=v"},
		{"text/plain", "plain", "__wb_post_data=cGxhaW4="},
		{"application/octet-stream", "\x00\x01", "__wb_post_data=AAE="},
		{"multipart/form-data; boundary=XX", "--XX\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nv 1\r\n--XX--\r\n", "f=v+1"},
	} {
		p := postRequest{method: "POST", contentType: c.ct, contentLength: "1000", hasLength: true}
		got, err := p.query(strings.NewReader(c.body))
		if err != nil || got != c.want {
			t.Errorf("%s %q: %q, %v; want %q", c.ct, c.body, got, err, c.want)
		}
	}
	if got := appendMethodQuery("http://a/b", "POST", "x=1"); got != "http://a/b?__wb_method=POST&x=1" {
		t.Errorf("appendMethodQuery: %q", got)
	}
	if got := appendMethodQuery("http://a/b?c=d", "HEAD", ""); got != "http://a/b?c=d&__wb_method=HEAD" {
		t.Errorf("appendMethodQuery: %q", got)
	}
	if got := appendMethodQuery("http://a/b", "GET", "x"); got != "http://a/b" {
		t.Errorf("appendMethodQuery GET: %q", got)
	}
	for f, want := range map[float64]string{1: "1.0", 2.5: "2.5", 1e16: "1e+16", 1e-5: "1e-05", 0.0001: "0.0001", 123456789.125: "123456789.125"} {
		if got := pyFloat(f); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestNothingReadable(t *testing.T) {
	for name, data := range map[string]string{"empty.warc": "", "garbage.warc": "hello\nworld\n"} {
		var skips []records.Skip
		_, err := IndexFile(bytes.NewReader([]byte(data)), name, IndexOptions{OnSkip: func(s records.Skip) { skips = append(skips, s) }}, func(Capture) error { return nil })
		if !errors.Is(err, records.ErrNoRecords) || len(skips) == 0 || skips[0].File != name {
			t.Errorf("%s: err %v, skips %v", name, err, skips)
		}
	}
}
