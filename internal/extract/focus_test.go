package extract

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

// mergeAll merges entries in the given order.
func mergeAll(es []Entry) Entry {
	m := es[0]
	for _, e := range es[1:] {
		m = Merge(m, e)
	}
	return m
}

func TestMergeCombinations(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range []Combination{CombineMax, CombineAverage, CombineLast} {
		var es []Entry
		sum, best, latest := 0.0, 0.0, 0.0
		for i := 0; i < 9; i++ {
			p := rng.Float64()
			e := Entry{Key: "k", URL: "http://a.example/", Priority: p, Depth: 2 + i, Order: DiscoveryOrder(1+i, 3, 1)}
			if c != CombineMax {
				e = e.WithCombination(c)
			}
			es = append(es, e)
			sum += e.Priority
			best = max(best, e.Priority)
			latest = e.Priority
		}
		want := map[Combination]float64{CombineMax: best, CombineAverage: sum / 9, CombineLast: latest}[c]
		first := mergeAll(es)
		if math.Abs(first.Priority-want) > 1e-9 || first.Depth != 2 || first.Order != es[0].Order {
			t.Errorf("combination %d: priority %v (want %v), depth %d", c, first.Priority, want, first.Depth)
		}
		// Any merge order gives the same entry, bit for bit (Beam merges in
		// any order; the average sums fixed-point values).
		for trial := 0; trial < 20; trial++ {
			perm := append([]Entry(nil), es...)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			// A tree of merges, not only a left fold.
			for len(perm) > 1 {
				i := rng.Intn(len(perm) - 1)
				perm[i] = Merge(perm[i], perm[i+1])
				perm = append(perm[:i+1], perm[i+2:]...)
			}
			if !reflect.DeepEqual(perm[0], first) {
				t.Fatalf("combination %d: merge order changes the result: %+v vs %+v", c, perm[0], first)
			}
		}
	}
	// A seed (no combination) averaged with a discovery counts as one parent.
	seed := Entry{Key: "k", Priority: 1, Order: DiscoveryOrder(0, 0, 1)}
	found := Entry{Key: "k", Priority: 0.5, Order: DiscoveryOrder(2, 0, 1)}.WithCombination(CombineAverage)
	if m := Merge(found, seed); m.Priority != 0.75 || m.Parents != 2 {
		t.Errorf("seed + discovery: %+v", m)
	}
}

// focusPage is an article with an inline link to an event article and one to
// an unrelated article, and 12 navigation links.
func focusPage(words int) []byte {
	var b strings.Builder
	b.WriteString(`<html><head><title>Election night</title></head><body><nav>`)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, `<a href="/section-%d/">Section %d</a> `, i, i)
	}
	b.WriteString(`</nav><article><h1>Election night</h1><p>`)
	for i := 0; i < words/10; i++ {
		b.WriteString("The federal election gave the chancellor's coalition a majority in parliament. ")
	}
	b.WriteString(`</p><p>Read <a href="/2009/09/28/coalition-talks.html">Coalition talks after the federal election</a>
and <a href="/2007/03/01/garden.html">Compost heaps in spring</a>.</p></article></body></html>`)
	return []byte(b.String())
}

func focusProcessor(t *testing.T, f Focus) *Processor {
	t.Helper()
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	sc, err := scoring.NewScorer(scoring.Config{
		DefaultLanguage: "en",
		References:      []scoring.ReferenceText{{Text: "The federal election: the chancellor's coalition wins a majority in parliament; coalition talks follow.", Language: "en"}},
		Time:            scoring.TimeScope{Start: day("2009-09-27"), End: day("2009-09-28"), Lead: 30 * 24 * time.Hour, Cooldown: 30 * 24 * time.Hour},
		Alpha:           0.5,
		Strategy:        scoring.CTF,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Processor{Settings: Settings{Focus: f}, Scorer: sc}
}

func scoreFocus(t *testing.T, f Focus, body []byte, depth int) Result {
	t.Helper()
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Depth: depth, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	return focusProcessor(t, f).Score(Fetched{Selected: Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: body})
}

func priorities(r Result) map[string]float64 {
	out := map[string]float64{}
	for _, e := range r.NewEntries {
		out[e.URL[strings.LastIndexByte(e.URL, '/')+1:]] = e.Priority
	}
	return out
}

func TestScoreFocus(t *testing.T) {
	page := focusPage(300)
	paper := scoreFocus(t, Focus{}, page, 1)
	if paper.Outcome != OutcomeCollected || len(paper.NewEntries) != 2 {
		t.Fatalf("paper: %s, %d new entries", paper.Outcome, len(paper.NewEntries))
	}
	for _, e := range paper.NewEntries {
		if e.Priority != paper.Document.Relevance {
			t.Errorf("paper: outlink %s priority %v, want the page's relevance %v", e.URL, e.Priority, paper.Document.Relevance)
		}
	}
	if !reflect.DeepEqual(scoreFocus(t, Focus{Links: scoring.LinkWeights{Parent: 1}}, page, 1), paper) {
		t.Error("link_priority {parent: 1} differs from the paper")
	}

	anchor := priorities(scoreFocus(t, Focus{Links: scoring.LinkWeights{Parent: 0.4, Anchor: 0.6}}, page, 1))
	if !(anchor["coalition-talks.html"] > anchor["garden.html"]) {
		t.Errorf("anchor text does not rank the event link first: %v", anchor)
	}
	dated := priorities(scoreFocus(t, Focus{LinkDates: true}, page, 1))
	if !(dated["coalition-talks.html"] > dated["garden.html"]) {
		t.Errorf("the 2007 URL date does not lower its link: %v", dated)
	}
	ti := specs.TemporalIntent{Months: map[string]float64{"2009-09": 4, "2009-10": 1}, MinPriority: 0}
	boosted := priorities(scoreFocus(t, Focus{Intent: ti, LinkDates: true}, page, 1))
	if math.Abs(boosted["coalition-talks.html"]/dated["coalition-talks.html"]-math.E) > 1e-9 || boosted["garden.html"] != dated["garden.html"] {
		t.Errorf("temporal intent: %v vs %v", boosted, dated)
	}

	gated := scoreFocus(t, Focus{FollowThreshold: 0.99}, page, 1)
	if len(gated.NewEntries) != 0 || !strings.Contains(gated.Document.NotFollowed, "below follow_threshold") || gated.Outcome != OutcomeCollected {
		t.Errorf("gate: %d new entries, %q", len(gated.NewEntries), gated.Document.NotFollowed)
	}
	if seed := scoreFocus(t, Focus{FollowThreshold: 0.99}, page, 0); len(seed.NewEntries) != 2 {
		t.Errorf("the gate stops the links of a seed: %d", len(seed.NewEntries))
	}
	if open := scoreFocus(t, Focus{FollowThreshold: 0.01}, page, 1); len(open.NewEntries) != 2 {
		t.Errorf("a low gate stops links: %d", len(open.NewEntries))
	}
	deep := scoreFocus(t, Focus{MaxDepth: 2}, page, 2)
	if len(deep.NewEntries) != 0 || !strings.Contains(deep.Document.NotFollowed, "max_depth 2") {
		t.Errorf("max_depth: %d new entries at depth 2", len(deep.NewEntries))
	}
	if ok := scoreFocus(t, Focus{MaxDepth: 2}, page, 1); len(ok.NewEntries) != 2 {
		t.Errorf("max_depth 2 stops the links of a depth-1 page")
	}

	avg := scoreFocus(t, Focus{Combine: CombineAverage}, page, 1)
	for _, e := range avg.NewEntries {
		if e.Combine != CombineAverage || e.Parents != 1 {
			t.Errorf("average: entry %+v not prepared", e)
		}
	}

	// A listing page: few words of its own, many links.
	listing := focusPage(20)
	if r := scoreFocus(t, Focus{}, listing, 1); r.Outcome != OutcomeCollected || !r.Document.Listing {
		t.Errorf("listing page counted by default: %s, listing %v", r.Outcome, r.Document.Listing)
	}
	r := scoreFocus(t, Focus{SkipListings: true}, listing, 1)
	if r.Outcome != OutcomeListing || len(r.NewEntries) != 2 {
		t.Errorf("count_listing_pages false: %s with %d new entries", r.Outcome, len(r.NewEntries))
	}
	if r := scoreFocus(t, Focus{SkipListings: true}, page, 1); r.Outcome != OutcomeCollected {
		t.Errorf("an article is not counted: %s", r.Outcome)
	}
}

// TestFollowCanonical: a copy (canonical link to another URL) is not
// collected; its canonical URL is followed with its priority, unless the copy
// was itself reached through a canonical link or the canonical names the page.
func TestFollowCanonical(t *testing.T) {
	withCanonical := func(href string) []byte {
		return []byte(strings.Replace(string(focusPage(300)), "<head>", `<head><link rel="amphtml" href="/amp/x"><link rel="canonical" href="`+href+`">`, 1))
	}
	copyPage := withCanonical("/2009/09/27/night-full.html")
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Priority: 0.7, Depth: 2, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	score := func(f Focus, e Entry, body []byte) Result {
		return focusProcessor(t, f).Score(Fetched{Selected: Selected{Entry: e, Round: 3, Rank: 4, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: body})
	}
	r := score(Focus{FollowCanonical: true}, e, copyPage)
	if r.Outcome != OutcomeRedirect || r.ReasonCode != ReasonCanonicalCopy || r.Document != nil || len(r.NewEntries) != 1 {
		t.Fatalf("copy: %s %s, %d new entries", r.Outcome, r.ReasonCode, len(r.NewEntries))
	}
	ne := r.NewEntries[0]
	if ne.URL != "http://news.example/2009/09/27/night-full.html" || ne.Priority != 0.7 || ne.Depth != 2 || ne.Path != "SLC" ||
		ne.Parent != e.URL || ne.Order != DiscoveryOrder(3, 4, 0) {
		t.Errorf("canonical entry %+v", ne)
	}
	// The paper's method (and follow_canonical off) collects the copy.
	for _, f := range []Focus{{}, {Links: scoring.LinkWeights{Parent: 0.1, Anchor: 0.5, Context: 0.4}}} {
		if r := score(f, e, copyPage); r.Outcome != OutcomeCollected || len(r.NewEntries) != 2 {
			t.Errorf("focus %+v: a copy gives %s", f, r.Outcome)
		}
	}
	// Reached through a canonical link: collected whatever it says.
	via := e
	via.Path = "SLC"
	if r := score(Focus{FollowCanonical: true}, via, copyPage); r.Outcome != OutcomeCollected {
		t.Errorf("a page reached through a canonical link: %s", r.Outcome)
	}
	// A canonical naming the page itself (another spelling, same SURT key).
	if r := score(Focus{FollowCanonical: true}, e, withCanonical("http://www.news.example:80/2009/09/27/night.html#top")); r.Outcome != OutcomeCollected {
		t.Errorf("a canonical naming the page: %s %s", r.Outcome, r.Reason)
	}
	// A canonical outside the allow list is not followed.
	p := focusProcessor(t, Focus{FollowCanonical: true})
	p.Settings.URLAllowed = func(u string) bool { return !strings.Contains(u, "night-full") }
	if r := p.Score(Fetched{Selected: Selected{Entry: e, Round: 3, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}}, ContentType: "text/html", Body: copyPage}); r.Outcome != OutcomeCollected {
		t.Errorf("a denied canonical: %s", r.Outcome)
	}
}

func TestFollowPagination(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Swine flu</title></head><body><h1>Swine flu</h1><ul>`)
	for i := range 20 {
		fmt.Fprintf(&b, `<li><a href="/health/story-%d.html">Compost heaps in autumn, part %d</a></li>`, i, i)
	}
	b.WriteString(`</ul><div class="pagination"><a href="/tag/swine-flu/?page=1">1</a> <a href="/tag/swine-flu/?page=3">3</a> <a href="/tag/volcano/?page=2">2</a></div></body></html>`)
	e := Entry{Key: "example,news)/tag/swine-flu?page=2", URL: "http://news.example/tag/swine-flu/?page=2", Priority: 0.9, Depth: 1, Path: "SL"}
	c := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	priorities := func(f Focus) map[string]float64 {
		p := focusProcessor(t, f)
		p.Settings.AllOutlinks = true // as in the default preset
		r := p.Score(Fetched{Selected: Selected{Entry: e, Round: 1, Choice: Choice{Kind: UseSnapshot, Capture: c, Payload: c}},
			ContentType: "text/html", Body: []byte(b.String())})
		if r.Document == nil || !r.Document.Listing {
			t.Fatalf("the tag page is not a listing page: %s %s", r.Outcome, r.Reason)
		}
		out := map[string]float64{}
		for _, ne := range r.NewEntries {
			out[strings.TrimPrefix(ne.URL, "http://news.example")] = ne.Priority
		}
		return out
	}
	links := scoring.LinkWeights{Parent: 0.1, Anchor: 0.5, Context: 0.4}
	on := priorities(Focus{Links: links, FollowPagination: true})
	off := priorities(Focus{Links: links})
	for _, page := range []string{"/tag/swine-flu/?page=1", "/tag/swine-flu/?page=3"} {
		if on[page] != e.Priority || !(off[page] < e.Priority) {
			t.Errorf("%s: priority %v with follow_pagination (want the listing's %v), %v without", page, on[page], e.Priority, off[page])
		}
	}
	// Another list, and the articles, keep their own priorities.
	for _, u := range []string{"/tag/volcano/?page=2", "/health/story-3.html"} {
		if on[u] != off[u] || on[u] >= e.Priority {
			t.Errorf("%s: %v with follow_pagination, %v without", u, on[u], off[u])
		}
	}
}

func TestTemplateLinks(t *testing.T) {
	// Five pages of news.example link to the same "most read" article,
	// in any merge order: the merged entry counts five host links, and
	// is ranked with half its priority.
	rng := rand.New(rand.NewSource(5))
	for _, c := range []Combination{CombineMax, CombineAverage, CombineLast} {
		var es []Entry
		for i := range TemplateLinkPages {
			e := Entry{Key: "k", URL: "http://news.example/most-read.html", Priority: 0.2 + 0.01*float64(i), Order: DiscoveryOrder(1+i, 2, 7), HostLinks: 1}
			if c != CombineMax {
				e = e.WithCombination(c)
			}
			es = append(es, e)
		}
		merged := mergeAll(es)
		if merged.HostLinks != TemplateLinkPages || merged.SelectionPriority() != merged.Priority*TemplateLinkFactor {
			t.Errorf("combination %d: %d host links, selection priority %v of %v", c, merged.HostLinks, merged.SelectionPriority(), merged.Priority)
		}
		for trial := 0; trial < 10; trial++ {
			perm := append([]Entry(nil), es...)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if m := mergeAll(perm); !reflect.DeepEqual(m, merged) {
				t.Fatalf("combination %d: merge order changes the entry: %+v vs %+v", c, m, merged)
			}
		}
		// One page fewer: not a template link.
		if m := mergeAll(es[1:]); m.SelectionPriority() != m.Priority {
			t.Errorf("combination %d: %d host links discounted", c, m.HostLinks)
		}
	}
	// A template link ranks after a link of lower priority; without host
	// links (the option off, other hosts' links, seeds) nothing changes.
	r := Ranking{Strategy: scoring.CTF}
	widget := Entry{Key: "a", Priority: 0.3, HostLinks: TemplateLinkPages + 3}
	related := Entry{Key: "b", Priority: 0.2, HostLinks: 2}
	if !r.Before(related, widget) || r.Before(widget, related) {
		t.Error("a template link of priority 0.3 must rank after a link of priority 0.2")
	}
	if u := (Ranking{Strategy: scoring.Unfocused}); !u.Before(Entry{Key: "a", Order: 1, HostLinks: 9}, Entry{Key: "b", Order: 2}) {
		t.Error("the unfocused crawl must keep discovery order")
	}

	// The processor counts a page's links to its own host, once per page,
	// only with the option on; the document's priority is the one it was
	// ranked with.
	page := []byte(`<html><head><title>Election night</title></head><body><article><h1>Election night</h1>
<p>The coalition wins a majority in parliament. <a href="/2009/09/28/talks.html">Coalition talks</a> and
<a href="http://other.example/vote.html">the vote</a> and <a href="/2009/09/28/talks.html#more">more talks</a>.</p></article>
<aside><h2>Most read</h2><ul><li><a href="/2009/01/02/garden.html">Compost heaps in autumn</a></li></ul></aside></body></html>`)
	e := Entry{Key: "example,news)/2009/09/27/night.html", URL: "http://news.example/2009/09/27/night.html", Priority: 0.8, Depth: 1, Path: "SL",
		Host: "news.example", HostLinks: TemplateLinkPages}
	cpt := cdxj.Capture{Timestamp: "20090928120000", Filename: "a.warc.gz"}
	links := scoring.LinkWeights{Parent: 0.1, Anchor: 0.5, Context: 0.4}
	hostLinks := func(f Focus) (map[string]int, *collection.Document) {
		p := focusProcessor(t, f)
		p.Settings.AllOutlinks = true
		res := p.Score(Fetched{Selected: Selected{Entry: e, Round: 2, Choice: Choice{Kind: UseSnapshot, Capture: cpt, Payload: cpt}},
			ContentType: "text/html", Body: page})
		if res.Document == nil {
			t.Fatalf("not collected: %s %s", res.Outcome, res.Reason)
		}
		out := map[string]int{}
		for _, ne := range res.NewEntries {
			out[ne.URL] = ne.HostLinks
		}
		return out, res.Document
	}
	on, doc := hostLinks(Focus{Links: links, TemplateLinks: true})
	want := map[string]int{"http://news.example/2009/09/28/talks.html": 1, "http://other.example/vote.html": 0, "http://news.example/2009/01/02/garden.html": 1}
	if !reflect.DeepEqual(on, want) {
		t.Errorf("host links %v, want %v", on, want)
	}
	if doc.Priority != e.Priority*TemplateLinkFactor {
		t.Errorf("document priority %v, want the selection priority %v", doc.Priority, e.Priority*TemplateLinkFactor)
	}
	off, _ := hostLinks(Focus{Links: links})
	for u, n := range off {
		if n != 0 {
			t.Errorf("%s: %d host links with the option off", u, n)
		}
	}
}
