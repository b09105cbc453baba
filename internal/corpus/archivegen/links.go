package archivegen

import (
	"slices"
	"strconv"
	"strings"
)

// relatedIDs picks the ids of the articles an article links to from its text.
// Links have topical locality (mostly the same topic, and for event articles
// the same event, on the same host or across hosts), temporal locality (mostly
// older articles), and some point at articles that were never archived.
func (w *world) relatedIDs(a *article, r *rng, n int) []int64 {
	out := make([]int64, 0, n)
	for len(out) < n {
		var id int64
		x := r.float()
		switch {
		case x < 0.06:
			id = w.phantom(a.topic, r)
		case a.topic.kind == kindEvent && x < 0.78, a.topic.kind == kindBackground && x < 0.83:
			id = w.nearby(a, a.topic, r)
		case a.topic.kind == kindEvent && x < 0.86:
			id = w.nearby(a, a.event.mention, r)
		case a.topic.kind == kindMention && x < 0.45:
			id = w.nearby(a, a.event.topic, r)
		case a.topic.kind == kindMention && x < 0.85:
			id = w.nearby(a, w.bgs[a.main.bg], r)
		case x < 0.93 && len(w.events) > 0:
			id = w.nearby(a, pick(r, w.events).topic, r)
		default:
			id = w.nearby(a, pick(r, w.topics), r)
		}
		if id >= 0 && id != a.id && !slices.Contains(out, id) {
			out = append(out, id)
		} else if r.chance(0.3) {
			n-- // give up on this one rather than loop
		}
	}
	return out
}

// phantom returns an article of a topic that is linked to but was never
// archived. Every eighth phantom has a 404 capture.
func (w *world) phantom(t *topic, r *rng) int64 {
	return w.articleID(t, t.n+int64(r.intn(int(t.n/4)+8)))
}

// isPhantom404 reports whether a never-archived article has a 404 capture.
func (w *world) isPhantom404(t *topic, j int64) bool { return j >= t.n && (j-t.n)%8 == 0 }

// nearby picks an article of topic t published around a's date, preferring
// a's host (wiki articles link only within the wiki). Returns -1 if t has no
// archived articles.
func (w *world) nearby(a *article, t *topic, r *rng) int64 {
	if t.n == 0 {
		return -1
	}
	// Centre: the index in t whose date is closest to a's date.
	centre := w.lastBefore(t, a.pub)
	spread := t.n/40 + 5
	sameHost := a.wiki || r.chance(0.4)
	sameLang := r.chance(0.85)
	var id int64 = -1
	for try := 0; try < 40; try++ {
		d := int64(r.exp(float64(spread))) + 1
		if r.chance(0.25) {
			d = -d // a later article (pages are updated with new links)
		}
		j := centre - d
		if try > 20 {
			j = int64(r.intn(int(t.n)))
		}
		if j < 0 || j >= t.n {
			continue
		}
		id = w.articleID(t, j)
		h := w.hostOf(t, id)
		if sameHost && h == a.host || !sameHost && (!sameLang || h.Lang == a.lang || try > 30) {
			return id
		}
	}
	if a.wiki {
		return -1
	}
	return id
}

// href renders a link from a page on host src to url. The form varies the way
// real pages do: absolute, root-relative, document-relative against <base>,
// protocol-relative, and forms that only match after SURT canonicalisation.
func (w *world) href(src *Host, targetHost *Host, path string, r *rng) string {
	x := r.float()
	if targetHost == src {
		switch {
		case src.baseHref && x < 0.6:
			return path[1:] // resolved against <base href="http://host/">
		case src.relLinks && x < 0.75:
			return path
		}
	}
	switch {
	case x < 0.06:
		return surtVariant(targetHost, path)
	case x < 0.12:
		return "//" + targetHost.Name + path
	}
	return "http://" + targetHost.Name + path
}

// surtVariant writes a URL that differs from the archived one but has the
// same SURT key: the www twin of the host in upper case, the default port,
// the query parameters in another order, and a fragment.
func surtVariant(h *Host, path string) string {
	p, q, hasQuery := strings.Cut(path, "?")
	if hasQuery {
		parts := strings.Split(q, "&")
		slices.Reverse(parts)
		p += "?" + strings.Join(parts, "&")
	}
	return "http://" + strings.ToUpper(h.Alt) + ":80" + p + "#top"
}

// linkTo renders a link to an article: sometimes through its redirecting
// alias, otherwise through href.
func (w *world) linkTo(src *Host, a *article, r *rng) string {
	if a.alias != "" && r.chance(0.3) {
		return a.alias
	}
	return w.href(src, a.host, a.path, r)
}

// listing selects the n articles of host h in the given topics that a listing
// page at time at shows, newest first, after skipping skip of them. For
// kindMention topics only articles whose text is about background topic bg
// are listed (bg < 0: all).
func (w *world) listing(h *Host, topics []*topic, bg int, at int64, skip, n int) []int64 {
	type item struct {
		pub int64
		id  int64
	}
	var items []item
	for _, t := range topics {
		wt := h.weight[t.idx]
		if wt <= 0 || t.n == 0 {
			continue
		}
		p := wt / t.hosts.cum[len(t.hosts.cum)-1]
		j := w.lastBefore(t, at) - 1 - int64(float64(skip)/p)
		found := 0
		for steps := 0; j >= 0 && found < n && steps < 20000; steps, j = steps+1, j-1 {
			id := w.articleID(t, j)
			if w.hostOf(t, id) != h {
				continue
			}
			if t.kind == kindMention && bg >= 0 && w.mentionMain(t, id) != bg {
				continue
			}
			pub := w.pubTime(t, j, id)
			if pub > at {
				continue
			}
			items = append(items, item{pub, id})
			found++
		}
	}
	slices.SortFunc(items, func(a, b item) int {
		if a.pub != b.pub {
			return int(b.pub - a.pub)
		}
		return int(a.id - b.id)
	})
	out := make([]int64, 0, n)
	for _, it := range items {
		if len(out) == n {
			break
		}
		out = append(out, it.id)
	}
	return out
}

// sectionTopics are the topics a section page of background topic bg lists.
func (w *world) sectionTopics(bg int) []*topic {
	ts := []*topic{w.bgs[bg]}
	for _, e := range w.events {
		if e.homeBG == bg {
			ts = append(ts, e.topic)
		}
		if slices.Contains(e.mentionedIn, bg) {
			ts = append(ts, e.mention)
		}
	}
	return ts
}

// hostTopics are all topics a host covers.
func (w *world) hostTopics(h *Host) []*topic {
	var ts []*topic
	for _, t := range w.topics {
		if h.weight[t.idx] > 0 {
			ts = append(ts, t)
		}
	}
	return ts
}

// unarchivedPaths are same-host paths that pages link to but no crawler
// captured.
func unarchivedPath(h *Host, r *rng, id int64) string {
	switch r.intn(6) {
	case 0:
		return "/print/" + strconv.FormatInt(id, 10)
	case 1:
		return "/login?return=%2F"
	case 2:
		return "/rss.xml"
	case 3:
		return "/newsletter/subscribe"
	case 4:
		return "/search?q=" + strconv.FormatInt(id%1000, 10)
	default:
		return "/comments/" + strconv.FormatInt(id, 10) + "#respond"
	}
}
