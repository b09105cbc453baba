package document

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"

	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
)

// conformanceCapture is the capture time assumed for the real pages of
// ../shared/conformance/dates (they carry none): after the last labelled
// date, the same bound for every extractor.
var conformanceCapture = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)

// datedPage is one row of ../shared/conformance/dates/labels.tsv.
type datedPage struct {
	url, file, date string
}

func readDatedPages(t testing.TB, dir string) []datedPage {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pages []datedPage
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue // header
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			t.Fatalf("labels.tsv line %d: %d columns, want 3", line, len(cols))
		}
		pages = append(pages, datedPage{cols[0], cols[1], cols[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pages
}

func gunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// policyFamily is every datePolicy TestDateConformance compares, simplest
// first (the split-half check prefers the earlier of two equally good ones).
func policyFamily() []datePolicy {
	var fam []datePolicy
	for _, fb := range []libraryMode{libraryOff, libraryFast, libraryExtensive} {
		for _, rules := range []struct{ corroborate, shownUpdate bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
			fam = append(fam, datePolicy{fallback: fb, corroborate: rules.corroborate, shownUpdate: rules.shownUpdate})
		}
	}
	return fam
}

func (pol datePolicy) String() string {
	s := [...]string{"our sources alone", "our sources, then go-htmldate fast", "our sources, then go-htmldate extensive"}[pol.fallback]
	if pol.corroborate {
		s += " + corroborate"
	}
	if pol.shownUpdate {
		s += " + shown update"
	}
	return s
}

// datedResult is what one page gives: right or not per policy of the
// family, and for go-htmldate alone.
type datedResult struct {
	policyRight         []bool
	extRight, fastRight bool
}

// TestDateConformance measures, in one run on the 324 real labelled pages of
// ../shared/conformance/dates, the publication day of this package (per
// source and per policy of the family), of go-htmldate in extensive mode and
// of go-htmldate in fast mode, and prints the tables quoted in the package
// documentation. A page counts as right when the extracted day, in the
// page's own time zone, is the labelled day. Then it checks that the choice
// of the default policy generalises: over many random splits of the pages
// into two halves, the policy that is best on one half is scored on the
// other. It fails when the default policy is less accurate than go-htmldate's
// extensive search in the same run, or when the policies chosen on one half
// are, on average over the splits, less accurate on the other half than the
// library.
func TestDateConformance(t *testing.T) {
	dir := sharedtest.Path(t, "conformance/dates")
	pages := readDatedPages(t, dir)
	if len(pages) < 300 {
		t.Fatalf("%s: %d labelled pages, want the 324 of the development set", dir, len(pages))
	}
	family := policyFamily()
	def := slices.Index(family, defaultDatePolicy)
	if def < 0 {
		t.Fatalf("defaultDatePolicy %v is not in the family", defaultDatePolicy)
	}
	type tally struct{ n, right, extRight int }
	perSource := map[string]*tally{}
	results := make([]datedResult, len(pages))
	var tParse, tOwn, tFast, tExt time.Duration
	var misses, changes strings.Builder
	for pi, dp := range pages {
		body := gunzipFile(t, filepath.Join(dir, "pages", dp.file))
		decoded, _ := Decode(body, "text/html")
		u, err := url.Parse(dp.url)
		if err != nil {
			t.Fatalf("labels.tsv: url %q: %v", dp.url, err)
		}

		start := time.Now()
		root, err := html.Parse(bytes.NewReader(decoded))
		tParse += time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v", dp.file, err)
		}

		// This package: the date step after the shared analysis, as in Parse.
		p := analyze(root, len(decoded))
		p.selectMain()
		text := p.mainText()
		lang, _, _ := identifyLanguage(p.title(), text, p.languageHint(), Options{})
		ctx := dateContext{url: u, capture: conformanceCapture, mainText: text, languages: dateLanguages(lang, p.languageHint())}
		start = time.Now()
		_, day, src := p.publication(ctx, defaultDatePolicy)
		tOwn += time.Since(start)
		// The other policies (go-htmldate's answers are kept in p: asked once).
		res := &results[pi]
		for _, pol := range family {
			_, d, _ := p.publication(ctx, pol)
			res.policyRight = append(res.policyRight, d == dp.date)
		}
		if _, base, _ := p.publication(ctx, datePolicy{fallback: libraryExtensive}); base != day {
			verdict := "both wrong"
			if day == dp.date {
				verdict = "won"
			} else if base == dp.date {
				verdict = "lost"
			}
			fmt.Fprintf(&changes, "%-50.50s label %s first source %s, now %s (%s): %s\n", dp.url, dp.date, base, day, src, verdict)
		}

		if src == "" {
			src = "(none)"
		}
		ts := perSource[src]
		if ts == nil {
			ts = &tally{}
			perSource[src] = ts
		}
		ts.n++
		if day == dp.date {
			ts.right++
		}

		opts := htmldate.Options{URL: dp.url, UseOriginalDate: true, MinDate: minPlausible,
			MaxDate: conformanceCapture.Add(24 * time.Hour), SkipExtensiveSearch: true}
		start = time.Now()
		rf, _ := htmldate.FromDocument(root, opts)
		tFast += time.Since(start)
		opts.SkipExtensiveSearch = false
		start = time.Now()
		re, _ := htmldate.FromDocument(root, opts)
		tExt += time.Since(start)
		fDay, eDay := "", ""
		if !rf.DateTime.IsZero() {
			fDay = rf.DateTime.Format(time.DateOnly)
		}
		if !re.DateTime.IsZero() {
			eDay = re.DateTime.Format(time.DateOnly)
		}
		res.fastRight = fDay == dp.date
		res.extRight = eDay == dp.date
		if res.extRight {
			ts.extRight++
		}
		if day != dp.date {
			fmt.Fprintf(&misses, "%-60.60s label %s ours %-10s %-34s extensive %s\n", dp.url, dp.date, day, src, eDay)
		}
	}

	n := len(pages)
	count := func(idx []int, right func(r *datedResult) bool) int {
		c := 0
		for _, i := range idx {
			if right(&results[i]) {
				c++
			}
		}
		return c
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	policyRight := func(k int) func(r *datedResult) bool { return func(r *datedResult) bool { return r.policyRight[k] } }
	ext := count(all, func(r *datedResult) bool { return r.extRight })
	fast := count(all, func(r *datedResult) bool { return r.fastRight })
	own := count(all, policyRight(def))

	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	var table strings.Builder
	fmt.Fprintf(&table, "publication day on %d real pages (%s)\n", n, dir)
	fmt.Fprintf(&table, "| extractor | right | accuracy | ms/page |\n|---|---|---|---|\n")
	fmt.Fprintf(&table, "| this package (default: %v) | %d | %.3f | %.3f |\n", defaultDatePolicy, own, float64(own)/float64(n), per(tOwn))
	fmt.Fprintf(&table, "| go-htmldate extensive | %d | %.3f | %.3f |\n", ext, float64(ext)/float64(n), per(tExt))
	fmt.Fprintf(&table, "| go-htmldate fast | %d | %.3f | %.3f |\n", fast, float64(fast)/float64(n), per(tFast))
	fmt.Fprintf(&table, "| (bare html.Parse) | | | %.3f |\n", per(tParse))
	fmt.Fprintf(&table, "\npolicies of this package:\n| policy | right | accuracy |\n|---|---|---|\n")
	for k, pol := range family {
		c := count(all, policyRight(k))
		fmt.Fprintf(&table, "| %v | %d | %.3f |\n", pol, c, float64(c)/float64(n))
	}
	fmt.Fprintf(&table, "\nthis package per source (default policy):\n| source | pages | right | accuracy | go-htmldate extensive right on these pages |\n|---|---|---|---|---|\n")
	var sources []string
	for s := range perSource {
		sources = append(sources, s)
	}
	sort.Slice(sources, func(i, j int) bool {
		a, b := perSource[sources[i]], perSource[sources[j]]
		if a.n != b.n {
			return a.n > b.n
		}
		return sources[i] < sources[j]
	})
	for _, s := range sources {
		ts := perSource[s]
		fmt.Fprintf(&table, "| %s | %d | %d | %.3f | %d |\n", s, ts.n, ts.right, float64(ts.right)/float64(ts.n), ts.extRight)
	}

	// Split halves: choose the best policy of the family on one half (the
	// earlier on ties), score it on the other half, beside the default
	// policy and go-htmldate extensive on that same half.
	const splits = 200
	rng := rand.New(rand.NewPCG(17, 324))
	var heldChosen, heldDefault, heldExt, heldPages int
	chosenDefault, worseThanExt := 0, 0
	chosen := map[int]int{}
	for range splits {
		perm := rng.Perm(n)
		for _, halves := range [2][2][]int{{perm[:n/2], perm[n/2:]}, {perm[n/2:], perm[:n/2]}} {
			fit, held := halves[0], halves[1]
			best, bestRight := 0, -1
			for k := range family {
				if c := count(fit, policyRight(k)); c > bestRight {
					best, bestRight = k, c
				}
			}
			chosen[best]++
			if best == def {
				chosenDefault++
			}
			c := count(held, policyRight(best))
			e := count(held, func(r *datedResult) bool { return r.extRight })
			heldChosen += c
			heldDefault += count(held, policyRight(def))
			heldExt += e
			heldPages += len(held)
			if c < e {
				worseThanExt++
			}
		}
	}
	fmt.Fprintf(&table, "\nsplit halves (%d random splits, each half used once to choose and once to score: %d choices):\n", splits, 2*splits)
	fmt.Fprintf(&table, "| on the held-out half | accuracy |\n|---|---|\n")
	fmt.Fprintf(&table, "| the policy chosen on the other half | %.4f |\n", float64(heldChosen)/float64(heldPages))
	fmt.Fprintf(&table, "| the default policy | %.4f |\n", float64(heldDefault)/float64(heldPages))
	fmt.Fprintf(&table, "| go-htmldate extensive | %.4f |\n", float64(heldExt)/float64(heldPages))
	fmt.Fprintf(&table, "chosen on the fitting half: ")
	for k, pol := range family {
		if chosen[k] > 0 {
			fmt.Fprintf(&table, "%v %d times; ", pol, chosen[k])
		}
	}
	fmt.Fprintf(&table, "\nthe chosen policy was less accurate than go-htmldate extensive on the held-out half in %d of %d choices\n", worseThanExt, 2*splits)
	t.Log("\n" + table.String())
	t.Log("pages where the default policy's rules change the first source's day:\n" + changes.String())
	if testing.Verbose() {
		t.Log("misses:\n" + misses.String())
	}
	if own < ext {
		t.Errorf("this package is right on %d pages, go-htmldate extensive on %d: behind the library", own, ext)
	}
	if heldChosen < heldExt {
		t.Errorf("split halves: policies chosen on one half are right on %d held-out pages, go-htmldate extensive on %d", heldChosen, heldExt)
	}
}
