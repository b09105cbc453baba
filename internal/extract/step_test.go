package extract

import (
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// TestScoreCountsTruncation: a body cut while reading marks the result
// whatever its outcome; a missing one says so in its reason, a collected
// one in its document; a body cut by the parser's own limit is marked too.
func TestScoreCountsTruncation(t *testing.T) {
	p := focusProcessor(t, Focus{})
	e := Entry{Key: "example,news)/a", URL: "http://news.example/a", Depth: 1, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	sel := Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}
	page := focusPage(300)
	for _, tc := range []struct {
		name      string
		f         Fetched
		limit     int
		outcome   string
		truncated bool
	}{
		{"whole", Fetched{Selected: sel, ContentType: "text/html", Body: page}, 0, OutcomeCollected, false},
		{"cut by the reader", Fetched{Selected: sel, ContentType: "text/html", Body: page, Truncated: true}, 0, OutcomeCollected, true},
		{"cut by the parser", Fetched{Selected: sel, ContentType: "text/html", Body: page}, 1000, OutcomeCollected, true},
		{"cut, not HTML", Fetched{Selected: sel, ContentType: "image/png", Body: []byte("\x89PNG"), Truncated: true}, 0, OutcomeMissing, true},
	} {
		p.Settings.MaxDocumentBytes = tc.limit
		r := p.Score(tc.f)
		if r.Outcome != tc.outcome || r.BodyTruncated != tc.truncated {
			t.Errorf("%s: outcome %s, body truncated %v; want %s, %v", tc.name, r.Outcome, r.BodyTruncated, tc.outcome, tc.truncated)
		}
		if r.Document != nil && r.Document.Truncated != tc.truncated {
			t.Errorf("%s: document truncated %v; want %v", tc.name, r.Document.Truncated, tc.truncated)
		}
		if r.Outcome == OutcomeMissing && tc.truncated && !strings.Contains(r.Reason, "cut at max_document_bytes") {
			t.Errorf("%s: reason %q does not say the body was cut", tc.name, r.Reason)
		}
	}
}
