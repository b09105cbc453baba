package zipnum

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// TestParseLineMatchesCDXJParse checks that the fast path of ParseLine gives
// exactly what cdxj.Parse gives, errors included, on lines written by
// cdxj.Capture.Line and on hand-made edge cases.
func TestParseLineMatchesCDXJParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var lines []string
	for range 3000 {
		c := cdxj.Capture{
			Key: pick("com,example)/", "de,bücher)/ä", "org,x)/a?b=c"), Timestamp: pick("20200101000000", "2020", "19960101"),
			URL:  pick("http://example.com/", "http://bücher.de/ä", `http://x/"q"`, "http://x/\\", "http://x/\t"),
			Mime: pick("", "text/html", "warc/revisit"), Status: pick("", "200", "-"), Digest: pick("", "ABC"),
			Length: int64(rng.IntN(3) * 1000), Offset: int64(rng.IntN(1 << 40)), Filename: pick("", "a.warc.gz", "dir/b c.warc"),
		}
		lines = append(lines, c.Line())
	}
	lines = append(lines,
		`k 2020 {"url": "u", "length": "12", "offset": 7}`,
		`k 2020 {"url":"u","status":200,"length":-1}`,
		`k 2020 {"url": "u", "length": "-", "offset": "-", "mime": "-"}`,
		`k 2020 {"url": "u", "length": -}`,
		`k 2020 {"url": "u",}`,
		`k 2020 {"url": "u" "mime": "x"}`,
		`k 2020 {"url": "u", "length": 1.5}`,
		`k 2020 {"url": "u", "length": 1e3}`,
		`k 2020 {"url": "u", "extra": {"a": 1}}`,
		`k 2020 {"url": "u", "extra": null, "ok": true}`,
		`k 2020 {"url": "u", "url": "v"}`,
		`k 2020 {"url": "\u00e4"}`,
		"k 2020 {\"url\": \"\xff\"}",
		`k 2020 {}`,
		`k 2020 { }`,
		`k 2020 {"url": "u"} trailing`,
		`k 2020 {"url": 12345678901234567890}`,
		`k 20x0 {"url": "u"}`,
		`k 202 {"url": "u"}`,
	)
	for _, l := range lines {
		want, werr := cdxj.Parse(l)
		got, gerr := ParseLine(l)
		if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseLine(%q) = %+v, %v\n cdxj.Parse = %+v, %v", l, got, gerr, want, werr)
		}
	}
}

func BenchmarkParseLine(b *testing.B) {
	l := cdxj.Capture{Key: "com,example)/news/2016/article", Timestamp: "20160101120000", URL: "https://www.example.com/news/2016/article",
		Mime: "text/html", Status: "200", Digest: fmt.Sprintf("%032d", 7), Length: 12345, Offset: 987654321, Filename: "crawl/segment-001.warc.gz"}.Line()
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			ParseLine(l)
		}
	})
	b.Run("cdxj.Parse", func(b *testing.B) {
		for b.Loop() {
			cdxj.Parse(l)
		}
	})
}
