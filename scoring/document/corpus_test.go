package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

// labelledPage is a test page written for this package (testdata/pages) with
// its true main text (the .txt file next to it), publication day and
// language.
type labelledPage struct {
	name    string
	url     string
	ctype   string // HTTP Content-Type header
	date    string // publication day (UTC), "" if the page has none
	lang    string
	capture string // capture day
}

var labelledPages = []labelledPage{
	{"01-en-news-semantic", "http://www.dailycourier.example.com/world/storm-floods-northern-coast", "text/html; charset=utf-8", "2009-09-27", "en", "2009-10-01"},
	{"02-de-news-divsoup", "http://www.rn.example.de/politik/bildung/ganztagsschulen-einigung.html", "text/html", "2009-10-12", "de", "2009-10-20"},
	{"03-en-blog-wordpress", "http://hillsandvalleys.example.org/2009/09/27/a-walk-around-llyn-padarn/", "text/html; charset=UTF-8", "2009-09-27", "en", "2010-06-01"},
	{"04-de-table-latin1", "http://www.heimatblatt.example.de/politik/artikel.php?id=4711", "text/html", "2009-09-27", "de", "2009-09-28"},
	{"05-en-listing", "http://www.dailycourier.example.com/science/", "text/html", "", "en", "2009-11-02"},
	{"06-de-blog-comments", "http://gartenglueck.example.de/kompost/wurmkiste/", "text/html", "2009-03-05", "de", "2009-04-01"},
	{"07-en-news-updated-jsonld-graph", "http://businesspost.example.com/companies/ferry-takeover", "text/html", "2009-10-01", "en", "2009-10-05"},
	{"08-de-news-lead-inlinebox", "http://www.stadtanzeiger.example.de/stadt/verkehrskonzept-beschlossen-1.48213", "text/html", "2010-03-18", "de", "2010-03-19"},
	{"09-en-press-release-plain", "http://www.npf.example.org/news/release.cfm?id=933", "text/html", "2009-09-27", "en", "2009-12-01"},
	{"10-de-wiki-nodate", "http://rheinwiki.example.de/wiki/Hochwasserschutz_am_Mittelrhein", "text/html; charset=utf-8", "", "de", "2009-10-10"},
	{"11-en-magazine-aspnet-form", "http://www.countylife.example.co.uk/features/feature.aspx?id=812", "text/html; charset=utf-8", "2009-11-14", "en", "2009-12-01"},
	{"12-de-regional-microdata", "http://www.kreisbote.example.de/lokales/nordstadt/grossbrand-lagerhalle-1234567.html", "text/html", "2011-06-22", "de", "2011-06-23"},
	{"13-en-short-linkheavy", "http://www.citytimes.example.com/news/20090927/council-approves-footbridge", "text/html", "2009-09-27", "en", "2009-09-29"},
	{"14-de-press-moreteasers", "http://www.wirtschaftsdienst.example.de/unternehmen/hofmann-rekordumsatz", "text/html", "2010-03-23", "de", "2010-04-01"},
	{"15-en-council-notice", "http://www.westbury.example.gov.uk/parking/permits/online-applications", "text/html", "2010-09-15", "en", "2011-03-01"},
	{"16-de-sport-consent", "http://www.sportecho.example.de/fussball/oberliga/derby-rheinhausen", "text/html", "2012-11-03", "de", "2012-11-04"},
}

func (lp labelledPage) html(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pages", lp.name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (lp labelledPage) mainText(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pages", lp.name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (lp labelledPage) captureTime() time.Time {
	return mustDay(lp.capture)
}

func mustDay(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// tokens splits text into lower-case words (letter and digit runs).
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// tokenPRF is the bag-of-words precision, recall and F1 of got against want.
func tokenPRF(got, want string) (p, r, f float64) {
	g, w := tokens(got), tokens(want)
	counts := map[string]int{}
	for _, t := range w {
		counts[t]++
	}
	common := 0
	for _, t := range g {
		if counts[t] > 0 {
			counts[t]--
			common++
		}
	}
	if len(g) > 0 {
		p = float64(common) / float64(len(g))
	}
	if len(w) > 0 {
		r = float64(common) / float64(len(w))
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}
