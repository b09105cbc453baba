package archivegen

import (
	"math"
	"slices"
	"strings"
)

// recKind is what a record holds.
type recKind uint8

const (
	recArticle      recKind = iota // an article, 200 (a response, or a revisit when refersTo != 0)
	recArticle404                  // a later capture of a deleted article
	recAlias                       // 301 from an article's old URL to its canonical URL
	recList                        // a home, section or tag page (revisit when refersTo != 0)
	recHostRedirect                // 301 from http://host.com/ to http://www.host.com/
	recCSS                         // the host's style sheet (revisit when refersTo != 0)
	recImage                       // an article's image
	recPhantom404                  // 404 for a linked article that was never archived
	recPrint                       // the print variant of an article (TemplateAMPPrint)
	recAMP                         // the AMP variant of an article (TemplateAMPPrint)
)

// recSpec describes one capture; the record is rendered from it alone.
type recSpec struct {
	t        int64 // capture time (Unix seconds)
	kind     recKind
	id       int64 // article id; list page index for recList; host index for recHostRedirect and recCSS
	version  int64 // boilerplate bucket (articles, lists), design version (CSS)
	refersTo int64 // capture time of the record this one revisits, 0 if none
	gzip     bool  // body sent with Content-Encoding: gzip
}

func specLess(a, b recSpec) int {
	switch {
	case a.t != b.t:
		return cmpInt(a.t, b.t)
	case a.kind != b.kind:
		return cmpInt(int64(a.kind), int64(b.kind))
	default:
		return cmpInt(a.id, b.id)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// articleRecords plans the captures of an archived article: 1–4 captures over
// the years after publication (identical payloads become revisits), sometimes
// a final 404, a redirect from an old URL, and its image.
func (w *world) articleRecords(a *article, out []recSpec) []recSpec {
	h := a.host
	r := newRNG(w.seed, streamCapture, uint64(a.id))
	n := 1
	switch x := r.float(); {
	case x < 0.4:
	case x < 0.7:
		n = 2
	case x < 0.9:
		n = 3
	default:
		n = 4
	}
	t := max(a.pub, captureStart) + 300 + int64(r.exp(4*secondsPerDay))
	t = min(t, captureEnd-int64(r.intn(secondsPerDay)))
	times := []int64{t}
	for len(times) < n {
		if r.chance(0.45) {
			t += 3600 + int64(r.intn(14*secondsPerDay)) // a re-crawl soon after
		} else {
			t += 30*secondsPerDay + int64(r.exp(250*secondsPerDay))
		}
		if t > captureEnd {
			break
		}
		times = append(times, t)
	}
	dead := len(times) >= 2 && r.chance(0.05)
	var runStart, prev int64 = 0, math.MinInt64
	for i, t := range times {
		v := h.bucket(t)
		if dead && i == len(times)-1 {
			out = append(out, recSpec{t: t, kind: recArticle404, id: a.id, version: v})
			break
		}
		s := recSpec{t: t, kind: recArticle, id: a.id, version: v,
			gzip: hash3(w.seed, streamCapture+1, uint64(a.id)^uint64(v)<<40)%100 < 3}
		if v == prev {
			s.refersTo = runStart
		} else {
			runStart, prev = t, v
		}
		out = append(out, s)
	}
	if a.alias != "" {
		out = append(out, recSpec{t: times[0] - 2 - int64(r.intn(20)), kind: recAlias, id: a.id})
	}
	if a.image {
		out = append(out, recSpec{t: times[0] + 1 + int64(r.intn(5)), kind: recImage, id: a.id})
	}
	if h.Template == TemplateAMPPrint { // the crawler followed the print and AMP links right away
		v := h.bucket(times[0])
		out = append(out, recSpec{t: times[0] + 7, kind: recPrint, id: a.id, version: v},
			recSpec{t: times[0] + 8, kind: recAMP, id: a.id, version: v})
	}
	return out
}

// plan holds the listing pages and the other non-article units, and assigns
// them to the blocks of article ids, so that the output interleaves them.
type plan struct {
	lists        []listPage
	phantomStart []int64 // per topic: first phantom unit index (prefix sums)
	units        int64   // list units + phantom units
	blockSize    int64   // articles per block
	blocks       int64
	stride       int64 // permutes the listing pages
	deadStride   int64 // permutes the dead links
}

func (w *world) newPlan() *plan {
	p := &plan{}
	for _, h := range w.hosts {
		p.lists = append(p.lists, listPage{host: h, kind: listHome, page: 1, pages: 1})
		for _, s := range h.sections {
			ts := w.sectionTopics(s)
			exp := 0.0
			for _, t := range ts {
				x := float64(t.n) * hostShare(h, t)
				if t.kind == kindMention {
					x /= float64(len(t.event.mentionedIn))
				}
				exp += x
			}
			pages := min(max(int(math.Ceil(exp/20)), 1), 50)
			for pg := 1; pg <= pages; pg++ {
				p.lists = append(p.lists, listPage{host: h, kind: listSection, bg: s, topics: ts, page: pg, pages: pages, perPage: 20})
			}
		}
		for _, t := range w.hostTopics(h) {
			if t.kind == kindMention || len(t.v[h.Lang].keywords) == 0 {
				continue
			}
			exp := float64(t.n) * hostShare(h, t)
			if exp < 3 {
				continue // a host tags only what it writes about
			}
			pages := min(max(int(math.Ceil(exp/30)), 1), 30)
			for pg := 1; pg <= pages; pg++ {
				p.lists = append(p.lists, listPage{host: h, kind: listTag, bg: -1, topics: []*topic{t}, keyword: t.v[h.Lang].keywords[0], page: pg, pages: pages, perPage: 30})
			}
		}
	}
	p.units = int64(len(p.lists))
	for _, t := range w.topics {
		p.phantomStart = append(p.phantomStart, p.units)
		p.units += (t.n/4 + 8 + 7) / 8
	}
	// Blocks of up to 512 articles: the unit of output ordering and the
	// granularity at which --target-bytes stops.
	p.blockSize = min(512, max(16, w.pages/100))
	p.blocks = max(1, (w.pages+p.blockSize-1)/p.blockSize)
	p.stride = coprimeStride(int64(len(p.lists)))
	p.deadStride = coprimeStride(p.units - int64(len(p.lists)))
	return p
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func hostShare(h *Host, t *topic) float64 {
	if t.hosts.empty() {
		return 0
	}
	return h.weight[t.idx] / t.hosts.cum[len(t.hosts.cum)-1]
}

// blockUnits returns the non-article units of block b. Listing pages are
// spread over the first three quarters of the blocks, so that an archive cut
// short by TargetBytes still has every home, section and tag page (spec
// seeds point at them); dead links over all blocks.
func (p *plan) blockUnits(b int64) []int64 {
	lists := int64(len(p.lists))
	var out []int64
	if lb := p.listBlocks(); b < lb {
		for u := b * lists / lb; u < (b+1)*lists/lb; u++ {
			out = append(out, u*p.stride%lists)
		}
	}
	dead := p.units - lists
	for u := b * dead / p.blocks; u < (b+1)*dead/p.blocks; u++ {
		out = append(out, lists+u*p.deadStride%dead)
	}
	slices.Sort(out)
	return out
}

// listBlocks is the number of blocks that carry listing pages.
func (p *plan) listBlocks() int64 { return max(1, p.blocks*3/4) }

// coprimeStride returns a stride that permutes [0, n).
func coprimeStride(n int64) int64 {
	s := int64(1000003)
	for n > 0 && gcd(s, n) != 1 {
		s += 2
	}
	return s
}

// unitRecords plans the captures of a non-article unit.
func (w *world) unitRecords(p *plan, u int64, out []recSpec) []recSpec {
	if u < int64(len(p.lists)) {
		return w.listRecords(p, u, out)
	}
	ti := 0
	for ti+1 < len(p.phantomStart) && p.phantomStart[ti+1] <= u {
		ti++
	}
	t := w.topics[ti]
	j := t.n + 8*(u-p.phantomStart[ti])
	id := w.articleID(t, j)
	r := newRNG(w.seed, streamCapture, uint64(id))
	at := max(w.pubTime(t, j, id), captureStart) + 3600 + int64(r.exp(60*secondsPerDay))
	at = min(at, captureEnd)
	return append(out, recSpec{t: at, kind: recPhantom404, id: id, version: w.hostOf(t, id).bucket(at)})
}

func (w *world) listRecords(p *plan, u int64, out []recSpec) []recSpec {
	lp := &p.lists[u]
	h := lp.host
	r := newRNG(w.seed, streamCapture+2, uint64(u))
	span := float64(captureEnd - captureStart)
	var times []int64
	switch lp.kind {
	case listHome:
		k := int(min(max(w.pages/int64(len(w.hosts)*3), 4), 150))
		for i := range k {
			times = append(times, captureStart+int64((float64(i)+r.float())*span/float64(k)))
		}
	default:
		k := 1 + r.intn(2)
		if lp.page == 1 {
			k = 2 + r.intn(3)
		}
		for range k {
			if t := lp.topics[0]; t.event != nil && r.chance(0.7) {
				e := t.event
				lo := float64(e.Start) - 2*e.LeadDays*secondsPerDay
				hi := float64(e.End) + 3*e.AfterDays*secondsPerDay
				times = append(times, int64(lo+r.float()*(hi-lo)))
			} else {
				times = append(times, captureStart+int64(r.float()*span))
			}
		}
	}
	for i, t := range times {
		times[i] = min(max(t, captureStart), captureEnd-60)
	}
	slices.Sort(times)
	// Some captures are repeated within hours; on the same day and in the
	// same bucket the payload is identical, so they become revisits.
	for _, t := range times {
		s := recSpec{t: t, kind: recList, id: u, version: h.bucket(t)}
		out = append(out, s)
		if r.chance(0.12) {
			t2 := t + 1800 + int64(r.intn(6*3600))
			d := recSpec{t: t2, kind: recList, id: u, version: h.bucket(t2)}
			if t2/secondsPerDay == t/secondsPerDay && d.version == s.version {
				d.refersTo = t
			}
			out = append(out, d)
		}
	}
	if lp.kind == listHome {
		first := times[0]
		if strings.HasPrefix(h.Name, "www.") {
			out = append(out, recSpec{t: first - 1 - int64(r.intn(3)), kind: recHostRedirect, id: int64(h.Index)})
		}
		// The style sheet, fetched with the first home page captures.
		var prevDesign int64 = -1
		var runStart int64
		for i, t := range times {
			if i == 4 {
				break
			}
			design := int64(0)
			if t >= day(2011, 1, 1) {
				design = 1
			}
			s := recSpec{t: t + 1, kind: recCSS, id: int64(h.Index), version: design}
			if design == prevDesign {
				s.refersTo = runStart
			} else {
				prevDesign, runStart = design, t+1
			}
			out = append(out, s)
		}
	}
	return out
}
