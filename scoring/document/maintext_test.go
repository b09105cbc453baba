package document

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// minMeanF1 and minPageF1 are the quality the main-text extractor must keep
// on the labelled pages (token F1 against the hand-written label).
const (
	minMeanF1 = 0.95
	minPageF1 = 0.80
)

// TestMainTextEvaluation compares our extractor with go-trafilatura on the
// labelled pages: token precision, recall and F1 against the label, and time
// per page relative to the bare html.Parse of the same (decoded) bytes. It
// prints the table quoted in the package documentation.
func TestMainTextEvaluation(t *testing.T) {
	const runs = 5
	var sumOwn, sumTraf [3]float64
	var tParse, tOwn, tTraf time.Duration
	var table strings.Builder
	fmt.Fprintf(&table, "%-32s %6s %6s %6s   %6s %6s %6s\n", "page", "P", "R", "F1", "trafP", "trafR", "trafF1")
	for _, lp := range labelledPages {
		body := lp.html(t)
		want := lp.mainText(t)
		u, _ := url.Parse(lp.url)
		decoded, _ := Decode(body, lp.ctype)

		var doc *Document
		start := time.Now()
		for range runs {
			var err error
			doc, err = Parse(body, lp.ctype, lp.url, Options{CaptureTime: lp.captureTime()})
			if err != nil {
				t.Fatalf("%s: %v", lp.name, err)
			}
		}
		tOwn += time.Since(start)

		start = time.Now()
		for range runs {
			if _, err := html.Parse(bytes.NewReader(decoded)); err != nil {
				t.Fatal(err)
			}
		}
		tParse += time.Since(start)

		var traf string
		for range runs {
			root, _ := html.Parse(bytes.NewReader(decoded))
			start = time.Now()
			res, err := trafilatura.ExtractDocument(root, trafilatura.Options{
				OriginalURL: u, ExcludeComments: true, HtmlDateMode: trafilatura.Disabled,
			})
			tTraf += time.Since(start)
			traf = ""
			if err == nil {
				traf = res.ContentText
			}
		}

		p, r, f := tokenPRF(doc.MainText, want)
		tp, tr, tf := tokenPRF(traf, want)
		sumOwn[0], sumOwn[1], sumOwn[2] = sumOwn[0]+p, sumOwn[1]+r, sumOwn[2]+f
		sumTraf[0], sumTraf[1], sumTraf[2] = sumTraf[0]+tp, sumTraf[1]+tr, sumTraf[2]+tf
		fmt.Fprintf(&table, "%-32s %6.3f %6.3f %6.3f   %6.3f %6.3f %6.3f\n", lp.name, p, r, f, tp, tr, tf)
		if f < minPageF1 {
			t.Errorf("%s: F1 %.3f < %.2f\n--- got:\n%s\n--- want:\n%s", lp.name, f, minPageF1, doc.MainText, want)
		}
	}
	n := float64(len(labelledPages))
	fmt.Fprintf(&table, "%-32s %6.3f %6.3f %6.3f   %6.3f %6.3f %6.3f\n", "mean",
		sumOwn[0]/n, sumOwn[1]/n, sumOwn[2]/n, sumTraf[0]/n, sumTraf[1]/n, sumTraf[2]/n)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n / runs }
	fmt.Fprintf(&table, "ms/page: html.Parse %.3f, Parse (whole step, incl. its html.Parse) %.3f (%.2fx), trafilatura after html.Parse %.3f (%.2fx)\n",
		per(tParse), per(tOwn), float64(tOwn)/float64(tParse), per(tTraf), float64(tTraf)/float64(tParse))
	t.Log("\n" + table.String())
	if mean := sumOwn[2] / n; mean < minMeanF1 {
		t.Errorf("mean F1 %.3f < %.2f", mean, minMeanF1)
	}
}
