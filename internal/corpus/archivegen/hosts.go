package archivegen

import (
	"strconv"
	"strings"
)

// HostKind is the editorial character of a host; it decides which topics the
// host covers and how its pages look.
type HostKind uint8

const (
	kindNews HostKind = iota
	kindRegional
	kindBlog
	kindSports
	kindScience
	kindTech
	kindFood
	kindFinance
	kindWiki
)

var hostKindNames = []string{"news", "regional", "blog", "sports", "science", "tech", "food", "finance", "wiki"}

func (k HostKind) String() string { return hostKindNames[k] }

// urlStyle is how a host lays out article URLs.
type urlStyle uint8

const (
	styleSection urlStyle = iota // /politics/slug-id36.html
	styleDated                   // /2009/09/27/slug-id36.html
	styleQuery                   // /article.php?section=politics&id=123
	styleBlog                    // /2009/09/slug-id36/
	styleWiki                    // /wiki/Title_id36
	styleGerman                  // /politik/slug-a-123.html
)

// charset is how a host encodes and declares its pages.
type charset uint8

const (
	charsetUTF8         charset = iota // UTF-8, declared in header and meta
	charsetUTF8Meta                    // UTF-8, declared only in a meta tag
	charsetLatin1Header                // ISO-8859-1, declared only in the HTTP header
	charsetLatin1Meta                  // ISO-8859-1, declared only in a meta http-equiv tag
)

func (c charset) latin1() bool { return c == charsetLatin1Header || c == charsetLatin1Meta }

// layout is the page template family.
type layout uint8

const (
	layoutHTML5 layout = iota // <header>, <nav>, <main>, <article>, <aside>, <footer>
	layoutDiv                 // <div id="header">, <div id="content">, …
	layoutTable               // a 2005-style table layout
)

// Host is one web site of the synthetic web.
type Host struct {
	Index       int
	Name        string // host name as archived, e.g. "www.harbourherald.com"
	Alt         string // the www/non-www twin that links sometimes use
	Title       string // display name
	Kind        HostKind
	Lang        int
	Charset     charset
	URLStyle    urlStyle
	Layout      layout
	dateProfile dateSource
	relLinks    bool // links to the same host are root-relative
	baseHref    bool // pages carry <base href> and use document-relative links
	period      int64
	phase       int64
	server      string
	ip          string
	weight      []float64 // per topic
	sections    []int     // background topics with a section page
	styles      [2]string // inline style sheet before and after the 2011 redesign
	// Template is how the host builds its article pages (Config.Templates).
	Template  Template
	navTopics []string // keywords of the events its navigation menu names (tag pages)
}

// hostKindCycle fixes the kind and language of host i, so any host count gets
// a mix and host i is the same whatever the size.
var hostKindCycle = []struct {
	kind HostKind
	lang int
}{
	{kindNews, langEN}, {kindNews, langDE}, {kindBlog, langEN}, {kindRegional, langDE}, {kindSports, langEN},
	{kindScience, langDE}, {kindWiki, langEN}, {kindNews, langDE}, {kindTech, langEN}, {kindFood, langDE},
	{kindFinance, langEN}, {kindBlog, langDE}, {kindNews, langEN}, {kindRegional, langEN}, {kindSports, langDE},
	{kindScience, langEN}, {kindWiki, langDE}, {kindBlog, langEN}, {kindFood, langEN}, {kindTech, langDE},
	{kindFinance, langDE}, {kindNews, langEN}, {kindRegional, langDE}, {kindBlog, langDE}, {kindNews, langDE},
	{kindSports, langEN}, {kindScience, langEN}, {kindBlog, langEN}, {kindRegional, langEN}, {kindNews, langDE},
	{kindTech, langEN}, {kindFood, langDE}, {kindBlog, langDE}, {kindNews, langEN}, {kindFinance, langDE},
	{kindSports, langDE}, {kindScience, langDE}, {kindRegional, langDE}, {kindBlog, langEN}, {kindNews, langEN},
}

// hostNames are name stems per kind and language; later hosts of the same
// kind get a number.
var hostNames = map[HostKind][2][]string{
	kindNews:     {wordList("harbourherald.com|dailychronicle.com|morningpost.co.uk|globetribune.com|capitalobserver.com|eveningcourier.com|thenationalgazette.com"), wordList("nordkurier-online.de|rheinische-rundschau.de|spreezeitung.de|mainanzeiger.de|elbnachrichten.de|isarbote.de|westpost.de")},
	kindRegional: {wordList("riversidetimes.com|valleygazette.com|coastalnews.co.uk"), wordList("stadtanzeiger-kl.de|tagblatt-am-see.de|heimatbote.de|kreiszeitung-nord.de")},
	kindBlog:     {wordList("quietdesk.blogstream.com|greenkitchen.blogstream.com|wanderingnotes.blogstream.com|policywonk.blogstream.com|pixelpath.blogstream.com"), wordList("kuechengefluester.blogwelt.de|fernweh.blogwelt.de|politikbeobachter.blogwelt.de|netzgedanken.blogwelt.de")},
	kindSports:   {wordList("ballzone.com|matchdayreport.com"), wordList("torjaeger.de|sportschau-aktuell.de")},
	kindScience:  {wordList("sciencewire.org|naturedaily.org"), wordList("wissenschaft-aktuell.de|forschungsblatt.de")},
	kindTech:     {wordList("techpulse.com|gadgetline.com"), wordList("digitalwelt.de|netzticker.de")},
	kindFood:     {wordList("dinnerbell.com|pantrystories.com"), wordList("kochtopf.de|gutes-essen.de")},
	kindFinance:  {wordList("marketwatcher.com|streetledger.com"), wordList("boersenblatt.de|finanzkurier.de")},
	kindWiki:     {wordList("en.wikiverse.org"), wordList("de.wikiverse.org")},
}

func makeHosts(w *world, n int) []*Host {
	used := map[string]int{}
	hosts := make([]*Host, 0, n)
	for i := range n {
		kc := hostKindCycle[i%len(hostKindCycle)]
		r := newRNG(w.seed, streamHost+1000, uint64(i))
		h := &Host{Index: i, Kind: kc.kind, Lang: kc.lang}
		names := hostNames[kc.kind][kc.lang]
		k := used[kc.kind.String()+langCodes[kc.lang]]
		used[kc.kind.String()+langCodes[kc.lang]]++
		name := names[k%len(names)]
		if round := k / len(names); round > 0 {
			stem, tld, _ := strings.Cut(name, ".")
			name = stem + strconv.Itoa(round+1) + "." + tld
		}
		h.Title = hostTitle(name)
		www := kc.kind != kindBlog && kc.kind != kindWiki && r.chance(0.75)
		if www {
			h.Name, h.Alt = "www."+name, name
		} else {
			h.Name, h.Alt = name, "www."+name
		}
		if kc.lang == langDE {
			h.Charset = []charset{charsetUTF8, charsetLatin1Header, charsetUTF8Meta, charsetLatin1Meta}[used["de"]%4]
			used["de"]++
		} else if r.chance(0.3) {
			h.Charset = charsetUTF8Meta
		}
		h.Layout = layout(r.intn(3))
		h.relLinks = r.chance(0.6)
		h.baseHref = r.chance(0.2)
		h.period = int64(60+r.intn(120)) * secondsPerDay
		h.phase = int64(r.intn(int(h.period)))
		h.server = pick(&r, []string{"Apache/2.2.3 (CentOS)", "Apache/2.2.16 (Debian)", "nginx/0.7.67", "Microsoft-IIS/7.5", "lighttpd/1.4.28", "Apache"})
		h.ip = "10." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250) + "." + strconv.Itoa(1+r.intn(250))
		h.URLStyle, h.dateProfile = hostStyle(kc.kind, kc.lang, &r)
		if kc.kind == kindWiki {
			h.Layout = layoutDiv
		}
		h.weight = hostWeights(w, h, &r)
		for _, bg := range w.bgs {
			if h.weight[bg.idx] > 0 {
				h.sections = append(h.sections, bg.idx)
			}
		}
		h.styles = [2]string{w.hostStyle(h, 0), w.hostStyle(h, day(2011, 1, 1))}
		hosts = append(hosts, h)
	}
	return hosts
}

func hostTitle(name string) string {
	stem, _, _ := strings.Cut(name, ".")
	parts := strings.Split(stem, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

func hostStyle(k HostKind, lang int, r *rng) (urlStyle, dateSource) {
	switch k {
	case kindNews:
		if lang == langDE {
			return pick(r, []urlStyle{styleGerman, styleQuery, styleSection}), pick(r, []dateSource{dsDateline, dsMeta | dsDateline, dsTime})
		}
		return pick(r, []urlStyle{styleDated, styleQuery, styleSection}), pick(r, []dateSource{dsMeta | dsJSONLD | dsTime, dsMeta, dsJSONLD | dsTime})
	case kindRegional:
		return pick(r, []urlStyle{styleSection, styleQuery, styleGerman}), pick(r, []dateSource{dsDateline, dsTime, 0})
	case kindBlog:
		return styleBlog, dsTime
	case kindSports:
		return styleSection, pick(r, []dateSource{dsTime, dsDateline})
	case kindScience:
		return styleDated, pick(r, []dateSource{dsJSONLD, dsMeta})
	case kindTech:
		return styleQuery, dsMeta
	case kindFood:
		return styleSection, pick(r, []dateSource{0, dsDateline})
	case kindFinance:
		return styleDated, dsDateline
	default: // wiki
		return styleWiki, 0
	}
}

// hostWeights is how strongly a host covers each topic.
func hostWeights(w *world, h *Host, r *rng) []float64 {
	wt := make([]float64, len(w.topics))
	bg := func(slug string, x float64) {
		for _, t := range w.bgs {
			if t.slug == slug {
				wt[t.idx] = x
			}
		}
	}
	events := func(x float64) {
		for _, e := range w.events {
			wt[e.topic.idx] = x
			wt[e.mention.idx] = x
		}
	}
	event := func(slug string, x float64) {
		for _, e := range w.events {
			if e.Slug == slug {
				wt[e.topic.idx] = x
				wt[e.mention.idx] = x
			}
		}
	}
	switch h.Kind {
	case kindNews:
		for _, t := range w.bgs {
			wt[t.idx] = 1
		}
		events(1.5)
		// The German election is covered mostly by German news sites.
		if h.Lang == langDE {
			event("federal-election-2009", 3)
		}
	case kindRegional:
		bg("local", 3)
		bg("politics", 1)
		bg("economy", 0.7)
		bg("sports", 1)
		bg("culture", 0.5)
		events(0.6)
	case kindBlog:
		topics := []string{"technology", "food", "travel", "culture", "politics", "science"}
		a := topics[r.intn(len(topics))]
		b := topics[r.intn(len(topics))]
		bg(a, 1)
		bg(b, 0.7)
		for _, e := range w.events {
			for _, m := range e.mentionedIn {
				if w.bgs[m].slug == a {
					wt[e.topic.idx] = 0.5
					wt[e.mention.idx] = 0.5
				}
			}
		}
	case kindSports:
		bg("sports", 3)
		bg("health", 0.3)
		event("world-cup-2010", 4)
		event("summer-olympics-2012", 4)
	case kindScience:
		bg("science", 3)
		bg("technology", 1)
		bg("health", 1)
		event("hrafnfell-eruption-2010", 2)
		event("kaminoura-nuclear-accident-2011", 2)
		event("flu-pandemic-2009", 1.5)
		event("meridian-oil-spill-2010", 1.5)
	case kindTech:
		bg("technology", 3)
		bg("science", 0.5)
		bg("economy", 0.5)
	case kindFood:
		bg("food", 3)
		bg("travel", 1)
		bg("health", 0.5)
	case kindFinance:
		bg("economy", 3)
		bg("politics", 1)
		event("harwick-collapse-2008", 3)
		event("meridian-oil-spill-2010", 0.5)
		event("kaminoura-nuclear-accident-2011", 0.5)
	case kindWiki:
		for _, t := range w.bgs {
			wt[t.idx] = 0.25
		}
		for _, e := range w.events {
			wt[e.topic.idx] = 0.8
		}
	}
	return wt
}
