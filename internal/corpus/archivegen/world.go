package archivegen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The archive's time frame. Background articles are published uniformly in
// [bgStart, bgEnd]; captures happen in [captureStart, captureEnd].
var (
	bgStart      = day(2007, 1, 1)
	bgEnd        = day(2013, 6, 30)
	captureStart = day(2007, 1, 15)
	captureEnd   = day(2013, 12, 31)
	cookieLawDay = day(2011, 5, 25) // cookie banners appear on captures after this day
)

const secondsPerDay = 86400

// day returns the Unix time (seconds) of midnight UTC of a date.
func day(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() }

func parseDay(s string) int64 {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(fmt.Sprintf("archivegen: bad built-in date %q: %v", s, err))
	}
	return t.Unix()
}

// slotCount is the length of the repeating pattern that assigns article ids to
// topics: id → slot id%slotCount → topic. The k-th article of a topic is found
// without search, and article dates grow with k inside each topic.
const slotCount = 4096

type topicKind uint8

const (
	kindBackground topicKind = iota
	kindEvent                // articles about an event (grade 2)
	kindMention              // background articles that mention an event (grade 1)
)

// topic is one slice of the article id space.
type topic struct {
	idx     int
	kind    topicKind
	slug    string
	bg      int    // background topic index (kindBackground), or home section of an event
	event   *Event // kindEvent, kindMention
	v       [2]*vocab
	section [2]string
	share   float64

	slots []int // slots of this topic, ascending
	n     int64 // number of archived articles (ids < pages)
	hosts cumulative
}

// Event is one of the synthetic events the archive covers.
type Event struct {
	Index       int
	Slug        string
	Description string
	Start, End  int64 // Unix seconds of the first and the last (inclusive) day
	LeadDays    float64
	AfterDays   float64
	Names       [2]string // name as a noun phrase per language
	Keywords    [2][]string
	topic       *topic // its kindEvent topic
	mention     *topic // its kindMention topic
	homeBG      int    // background topic whose section lists it
	mentionedIn []int
	v           [2]*vocab
}

// StartDate and EndDate format the event interval as YYYY-MM-DD.
func (e *Event) StartDate() string { return time.Unix(e.Start, 0).UTC().Format("2006-01-02") }
func (e *Event) EndDate() string   { return time.Unix(e.End, 0).UTC().Format("2006-01-02") }

// world is the whole synthetic web: the fixed tables (topics, hosts, slot
// assignment) from which every page is derived.
type world struct {
	seed      uint64
	pages     int64 // archived article ids are [0, pages)
	templates bool  // Config.Templates: hosts have site templates (assignTemplates)
	generic   [2]*vocab
	topics    []*topic
	bgs       []*topic
	events    []*Event
	hosts     []*Host

	slotTopic [slotCount]int32
	slotRank  [slotCount]int32

	authors [2][]string
}

func newWorld(seed uint64, pages int64, nEvents int) (*world, error) {
	if pages < 1 {
		return nil, fmt.Errorf("pages must be at least 1, got %d", pages)
	}
	if nEvents < 0 || nEvents > len(eventSrcs) {
		return nil, fmt.Errorf("events must be between 0 and %d, got %d", len(eventSrcs), nEvents)
	}
	w := &world{seed: seed, pages: pages}
	w.generic = [2]*vocab{genericSrc[0].build(), genericSrc[1].build()}
	w.authors = [2][]string{
		wordList("Sarah Mitchell|James Porter|Emily Clarke|Daniel Hughes|Laura Bennett|Michael Grant|Rachel Adams|Tom Fletcher|Helen Ward|Chris Doyle"),
		wordList("Katrin Müller|Stefan Schäfer|Julia Hoffmann|Andreas Weiß|Claudia Becker|Jörg Fischer|Sabine Krüger|Markus Wagner|Nicole Schröder|Thomas Köhler"),
	}
	bgWeights := map[string]float64{"politics": 1.3, "economy": 1.2, "sports": 1.3, "science": 0.8, "technology": 1.0, "food": 0.7, "travel": 0.8, "culture": 0.9, "health": 0.7, "local": 1.0}
	bgIndex := map[string]int{}
	const eventShare, mentionShare = 0.045, 0.015
	bgTotal := 0.0
	for _, s := range backgroundSrc {
		bgTotal += bgWeights[s.slug]
	}
	bgShare := 1 - float64(nEvents)*(eventShare+mentionShare)
	for i, s := range backgroundSrc {
		t := &topic{idx: len(w.topics), kind: kindBackground, slug: s.slug, bg: i, section: s.section,
			v: [2]*vocab{s.v[0].build(), s.v[1].build()}, share: bgShare * bgWeights[s.slug] / bgTotal}
		bgIndex[s.slug] = i
		w.topics = append(w.topics, t)
		w.bgs = append(w.bgs, t)
	}
	for i, s := range eventSrcs[:nEvents] {
		e := &Event{Index: i, Slug: s.slug, Description: s.description, Start: parseDay(s.start), End: parseDay(s.end),
			LeadDays: s.leadDays, AfterDays: s.afterDays}
		e.v = [2]*vocab{s.v[0].build(), s.v[1].build()}
		for l := range 2 {
			e.Names[l] = e.v[l].name
			e.Keywords[l] = e.v[l].keywords
		}
		for _, m := range s.mentionedIn {
			bi, ok := bgIndex[m]
			if !ok {
				return nil, fmt.Errorf("event %s: unknown background topic %q", s.slug, m)
			}
			e.mentionedIn = append(e.mentionedIn, bi)
		}
		e.homeBG = e.mentionedIn[0]
		w.events = append(w.events, e)
	}
	for _, e := range w.events {
		e.topic = &topic{idx: len(w.topics), kind: kindEvent, slug: e.Slug, bg: e.homeBG, event: e, v: e.v,
			section: w.bgs[e.homeBG].section, share: eventShare}
		w.topics = append(w.topics, e.topic)
	}
	for _, e := range w.events {
		e.mention = &topic{idx: len(w.topics), kind: kindMention, slug: e.Slug + "-mention", bg: e.homeBG, event: e, v: e.v,
			section: w.bgs[e.homeBG].section, share: mentionShare}
		w.topics = append(w.topics, e.mention)
	}
	w.assignSlots()
	w.hosts = makeHosts(w, hostCount(pages))
	for _, t := range w.topics {
		for _, h := range w.hosts {
			t.hosts.add(h.Index, h.weight[t.idx])
		}
		if t.hosts.empty() {
			for _, h := range w.hosts {
				t.hosts.add(h.Index, 1)
			}
		}
	}
	return w, nil
}

// hostCount scales the number of hosts with the number of articles: about 40
// for a few thousand pages, more for large archives.
func hostCount(pages int64) int {
	switch {
	case pages < 2000:
		return max(12, min(40, int(pages/50)))
	default:
		return 40 + int(pages/25000)
	}
}

// assignSlots gives every topic a share of the slots (largest remainder) and
// shuffles them so topics interleave in id order.
func (w *world) assignSlots() {
	counts := make([]int, len(w.topics))
	type rem struct {
		frac float64
		i    int
	}
	var rems []rem
	total := 0
	for i, t := range w.topics {
		x := t.share * slotCount
		counts[i] = int(x)
		total += counts[i]
		rems = append(rems, rem{x - math.Floor(x), i})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].frac > rems[b].frac })
	for k := 0; total < slotCount; k++ {
		counts[rems[k%len(rems)].i]++
		total++
	}
	perm := make([]int32, 0, slotCount)
	for i, c := range counts {
		for range c {
			perm = append(perm, int32(i))
		}
	}
	r := newRNG(w.seed, streamTopic, 0)
	for i := len(perm) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	for s, ti := range perm {
		t := w.topics[ti]
		w.slotTopic[s] = ti
		w.slotRank[s] = int32(len(t.slots))
		t.slots = append(t.slots, s)
	}
	for _, t := range w.topics {
		w.setCount(t)
	}
}

func (w *world) setCount(t *topic) {
	m := int64(len(t.slots))
	full, rest := w.pages/slotCount, int(w.pages%slotCount)
	n := full * m
	for _, s := range t.slots {
		if s < rest {
			n++
		}
	}
	t.n = n
}

// topicOf returns the topic of an article id and the article's index in it.
func (w *world) topicOf(id int64) (*topic, int64) {
	s := id % slotCount
	t := w.topics[w.slotTopic[s]]
	return t, (id/slotCount)*int64(len(t.slots)) + int64(w.slotRank[s])
}

// articleID returns the id of the j-th article of a topic. j >= t.n gives ids
// of articles that exist (are linked to) but were never archived.
func (w *world) articleID(t *topic, j int64) int64 {
	m := int64(len(t.slots))
	return (j/m)*slotCount + int64(t.slots[j%m])
}

// hostOf returns the host an article belongs to.
func (w *world) hostOf(t *topic, id int64) *Host {
	return w.hosts[t.hosts.choose(unit(hash3(w.seed, streamHost, uint64(id))))]
}

// pubTime returns the publication time of the j-th article of a topic. Inside
// a topic the publication day never decreases with j.
func (w *world) pubTime(t *topic, j, id int64) int64 {
	var u float64
	if j < t.n {
		u = (float64(j) + 0.5) / float64(t.n)
	} else {
		u = unit(hash3(w.seed, streamArticle, uint64(id)))
	}
	d := w.pubDay(t, u)
	tod := int64(hash3(w.seed, streamArticle+100, uint64(id))%(15*3600)) + 6*3600 // 06:00–21:00
	return d + tod
}

// pubDay is the quantile function of a topic's publication-day distribution.
func (w *world) pubDay(t *topic, u float64) int64 {
	clampDay := func(x float64) int64 {
		d := int64(math.Floor(x/secondsPerDay)) * secondsPerDay
		return min(max(d, bgStart-365*secondsPerDay), bgEnd)
	}
	if t.kind == kindBackground {
		return clampDay(float64(bgStart) + u*float64(bgEnd-bgStart+secondsPerDay-1))
	}
	e := t.event
	lead, during, after := 0.25, 0.45, 0.30
	leadMean, afterMean := e.LeadDays*secondsPerDay, e.AfterDays*secondsPerDay
	if t.kind == kindMention {
		lead, during, after = 0.15, 0.30, 0.55
		leadMean, afterMean = 2*leadMean+30*secondsPerDay, 3*afterMean+60*secondsPerDay
	}
	start, endNext := float64(e.Start), float64(e.End+secondsPerDay)
	switch {
	case u < lead:
		v := u / lead // 0 = far before, 1 = at the start
		return clampDay(start - truncExpQuantile(1-v, leadMean, 4*leadMean) - 1)
	case u < lead+during:
		v := (u - lead) / during
		return clampDay(start + v*(endNext-start-1))
	default:
		_ = after
		v := (u - lead - during) / after
		return clampDay(endNext + truncExpQuantile(v, afterMean, 5*afterMean))
	}
}

// truncExpQuantile is the quantile of an exponential distribution with the
// given mean, truncated at limit.
func truncExpQuantile(v, mean, limit float64) float64 {
	return -mean * math.Log(1-v*(1-math.Exp(-limit/mean)))
}

// lastBefore returns the number of articles of a topic published on or
// before the day of time t (articles [0, result) qualify by day).
func (w *world) lastBefore(t *topic, at int64) int64 {
	dayAt := at - at%secondsPerDay
	return int64(sort.Search(int(t.n), func(j int) bool {
		return w.pubDay(t, (float64(j)+0.5)/float64(t.n)) > dayAt
	}))
}

// Date sources: where an article states its publication date.
type dateSource uint8

const (
	dsMeta     dateSource = 1 << iota // <meta property="article:published_time">
	dsJSONLD                          // JSON-LD datePublished
	dsTime                            // <time datetime>
	dsURL                             // /2009/09/27/ in the URL
	dsDateline                        // only in the text
)

var dateSourceNames = []struct {
	ds   dateSource
	name string
}{{dsMeta, "meta"}, {dsJSONLD, "jsonld"}, {dsTime, "time"}, {dsURL, "url"}, {dsDateline, "dateline"}}

func (d dateSource) String() string {
	var parts []string
	for _, n := range dateSourceNames {
		if d&n.ds != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// article is everything about one article that can be known without
// rendering it.
type article struct {
	id       int64
	topic    *topic
	j        int64
	main     *topic // topic whose vocabulary the text uses (background for mentions)
	event    *Event // nil for background articles
	grade    int    // 2 about the event, 1 mentions it, 0 neither
	host     *Host
	lang     int
	pub      int64
	dates    dateSource
	title    string
	url      string // canonical URL, as archived
	path     string // path (and query) of url
	alias    string // old URL that redirects to url, or ""
	archived bool
	wiki     bool
	words    int
	image    bool
}

// article derives an article from its id.
func (w *world) article(id int64) article {
	t, j := w.topicOf(id)
	h := w.hostOf(t, id)
	a := article{id: id, topic: t, j: j, main: t, host: h, lang: h.Lang, archived: id < w.pages, wiki: h.Kind == kindWiki}
	r := newRNG(w.seed, streamArticle, uint64(id))
	switch t.kind {
	case kindEvent:
		a.event, a.grade = t.event, 2
	case kindMention:
		a.event, a.grade = t.event, 1
		a.main = w.bgs[w.mentionMain(t, id)]
	}
	a.pub = w.pubTime(t, j, id)
	a.dates = h.dateProfile
	for _, n := range dateSourceNames {
		if a.dates&n.ds != 0 && n.ds != dsURL && r.chance(0.08) {
			a.dates &^= n.ds
		}
	}
	if h.URLStyle == styleDated {
		a.dates |= dsURL
	}
	// Article length: 300–1500 words, more short ones than long ones.
	a.words = 300 + int(1200*math.Pow(r.float(), 1.6))
	a.image = r.chance(0.25) && !a.wiki
	a.title = w.articleTitle(&a)
	a.path = w.articlePath(&a)
	a.url = "http://" + h.Name + a.path
	if r.chance(0.08) {
		a.alias = "http://" + h.Name + "/go/" + strconv.FormatInt(id, 36)
	}
	return a
}

// mentionMain returns the background topic of a kindMention article.
func (w *world) mentionMain(t *topic, id int64) int {
	m := t.event.mentionedIn
	return m[hash3(w.seed, streamTopic+7, uint64(id))%uint64(len(m))]
}

// articleTitle renders the title of an article (deterministic per id).
func (w *world) articleTitle(a *article) string {
	g := w.newTextGen(a, streamText+1000)
	if a.wiki {
		return g.wikiTitle()
	}
	return g.title()
}

// slug turns a title into a URL path segment: lower-case ASCII words.
func slugify(s string, maxWords int) string {
	var b strings.Builder
	words := 0
	inWord := false
	for _, r := range strings.ToLower(s) {
		var rep string
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			rep = string(r)
		case r == 'ä':
			rep = "ae"
		case r == 'ö':
			rep = "oe"
		case r == 'ü':
			rep = "ue"
		case r == 'ß':
			rep = "ss"
		case r == 'é' || r == 'è':
			rep = "e"
		default:
			if inWord {
				inWord = false
			}
			continue
		}
		if !inWord {
			if words == maxWords {
				break
			}
			if words > 0 {
				b.WriteByte('-')
			}
			words++
			inWord = true
		}
		b.WriteString(rep)
	}
	return b.String()
}

func (w *world) articlePath(a *article) string {
	h := a.host
	title := a.title
	id36 := strconv.FormatInt(a.id, 36)
	pub := time.Unix(a.pub, 0).UTC()
	section := a.main.section[h.Lang]
	switch h.URLStyle {
	case styleDated:
		return pub.Format("/2006/01/02/") + slugify(title, 7) + "-" + id36 + ".html"
	case styleQuery:
		// Archived with the parameters unsorted; links often sort them.
		return "/article.php?section=" + section + "&id=" + strconv.FormatInt(a.id, 10)
	case styleBlog:
		return pub.Format("/2006/01/") + slugify(title, 6) + "-" + id36 + "/"
	case styleWiki:
		t := strings.ReplaceAll(strings.Join(strings.Fields(title), "_"), "/", "_")
		return "/wiki/" + wikiEscape(t) + "_" + id36
	case styleGerman:
		return "/" + section + "/" + slugify(title, 6) + "-a-" + strconv.FormatInt(a.id, 10) + ".html"
	default: // styleSection
		return "/" + section + "/" + slugify(title, 7) + "-" + id36 + ".html"
	}
}

// wikiEscape percent-encodes what a wiki would in a title path.
func wikiEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.', c == ',', c == '(', c == ')':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
