package lookup

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Spec
		path string
	}{
		{"cdxj:/data/index.cdxj", Spec{KindCDXJ, "/data/index.cdxj"}, "/data/index.cdxj"},
		{"zipnum:gs://b/idx", Spec{KindZipNum, "gs://b/idx"}, "gs://b/idx"},
		{"zipnum:/i/a=b:c.idx", Spec{KindZipNum, "/i/a=b:c.idx"}, "/i/a=b:c.idx"}, // only the first ':' separates
		{"bigtable:p/i/t", Spec{KindBigtable, "p/i/t"}, ""},
	} {
		got, err := ParseSpec(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
			continue
		}
		if got.String() != tc.text {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.text)
		}
		if got.Path() != tc.path {
			t.Errorf("%+v.Path() = %q, want %q", got, got.Path(), tc.path)
		}
	}
	for text, want := range map[string]string{
		"":                "want cdxj:FILE",
		"/data/idx":       "want cdxj:FILE",
		"cdxj:":           "want cdxj:FILE",
		"warc:/data/a":    `unknown kind "warc"`,
		"national=cdxj:x": `unknown kind "national=cdxj"`,
	} {
		if _, err := ParseSpec(text); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "index "+`"`+text+`"`) {
			t.Errorf("ParseSpec(%q): %v; want an error quoting it with %q", text, err, want)
		}
	}
}
