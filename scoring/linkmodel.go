package scoring

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The link model is an online "apprentice" in the sense of Chakrabarti et
// al. (WWW 2002): it learns, from the pages a crawl has already fetched and
// scored, which links lead to relevant pages. Each training example is one
// fetched page: the features of the link that led to it (its URL and the
// anchor text of the first link to it), the priority p the crawl gave that
// link, and the page's relevance y under the strategy.
//
// The crawl chose its examples by p, so a feature that merely co-occurs
// with a high p (the URL pattern of the links whose anchors named the
// event) would look predictive when it is not. The model therefore learns
// what p gets wrong: it fits y ≈ a·p + b over all examples (least squares)
// and gives each feature the smoothed mean of the residuals of its
// examples,
//
//	r_f = Σ (y − a·p − b) / (n_f + LinkModelPrior),
//
// so a feature seen rarely stays near 0. A link's lift is the sum over the
// feature groups (host, URL words, path shape, numbers, anchor words) of the
// mean r_f of the group's features the model has seen (the words of one URL
// or anchor are one piece of evidence, not one per word), and its learned
// priority is p + lift, the lift bounded by ±LinkModelMaxLift. A listing
// page is an example of relevance 0 (internal/extract.LinkLearner). The
// features are
// generic web evidence, not rules of one site: the target's host, the words
// of its URL path and query, the shape of its path (/2009/09/27/word:
// "d4/d2/d2/w"), the 4-digit numbers of its path (years), and the words of
// its anchor text.
//
// The state is sums only (of y, p, p², p·y per model and of y and p per
// feature), so the same examples added in the same order give the same
// bytes; callers add them in collection order.

// LinkModelPrior is the weight, in examples, of the residual 0 in a
// feature's mean residual.
const LinkModelPrior = 3

// LinkModelMinExamples is the number of examples below which the model
// makes no prediction (Lift's ok is false).
const LinkModelMinExamples = 20

// linkModelMinSlope: with a fitted slope a below it, p says too little
// about y for its scale to carry a lift (no prediction).
const linkModelMinSlope = 0.05

// LinkModelMaxFeatures bounds the model's memory: features first seen after
// this many are not learned.
const LinkModelMaxFeatures = 200000

// FeatureStat is one feature's examples: their number, and the sums of
// their relevance and their priority.
type FeatureStat struct {
	N    int     `json:"n"`
	SumY float64 `json:"y"`
	SumP float64 `json:"p"`
}

// LinkModel is the apprentice's state.
type LinkModel struct {
	N int `json:"n"`
	// Sums of the examples' y, p, p² and p·y.
	Sums     [4]float64             `json:"sums"`
	Features map[string]FeatureStat `json:"features"`
}

// Add learns one example: a link with features fs and priority p led to a
// page of relevance y.
func (m *LinkModel) Add(fs []string, p, y float64) {
	if m.Features == nil {
		m.Features = map[string]FeatureStat{}
	}
	m.N++
	m.Sums[0] += y
	m.Sums[1] += p
	m.Sums[2] += p * p
	m.Sums[3] += p * y
	for _, f := range fs {
		st, ok := m.Features[f]
		if !ok && len(m.Features) >= LinkModelMaxFeatures {
			continue
		}
		st.N++
		st.SumY += y
		st.SumP += p
		m.Features[f] = st
	}
}

// fit is the least-squares line y ≈ a·p + b of the examples (ok false when
// there are too few, or p varies too little or says too little about y).
func (m *LinkModel) fit() (a, b float64, ok bool) {
	if m == nil || m.N < LinkModelMinExamples {
		return 0, 0, false
	}
	n := float64(m.N)
	my, mp := m.Sums[0]/n, m.Sums[1]/n
	varP := m.Sums[2]/n - mp*mp
	if varP <= 1e-12 {
		return 0, 0, false
	}
	a = (m.Sums[3]/n - mp*my) / varP
	if a < linkModelMinSlope {
		return 0, 0, false
	}
	return a, my - a*mp, true
}

// Adjust is the learned priority of a link with features fs and priority
// p: p + lift (see the package doc), at least 0; p itself while the model
// cannot predict.
func (m *LinkModel) Adjust(fs []string, p float64) float64 {
	a, b, ok := m.fit()
	if !ok {
		return p
	}
	lift := 0.0
	group, sum, n := "", 0.0, 0
	flush := func() {
		if n > 0 {
			lift += sum / float64(n)
		}
		sum, n = 0, 0
	}
	for _, f := range fs { // sorted: a group's features are adjacent
		g, _, _ := strings.Cut(f, ":")
		if g != group {
			flush()
			group = g
		}
		if st, ok := m.Features[f]; ok {
			sum += (st.SumY - a*st.SumP - b*float64(st.N)) / (float64(st.N) + LinkModelPrior)
			n++
		}
	}
	flush()
	return max(0, p+min(max(lift, -LinkModelMaxLift), LinkModelMaxLift))
}

// LinkModelMaxLift bounds the lift a link's features can add to (or take
// from) its priority.
const LinkModelMaxLift = 0.1

// LinkFeatures are the features of a link to rawURL with anchor text
// anchor, sorted and without duplicates.
func LinkFeatures(rawURL, anchor string) []string {
	var fs []string
	if u, err := url.Parse(rawURL); err == nil {
		host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
		if host != "" {
			fs = append(fs, "host:"+host)
		}
		var shape []string
		for _, seg := range strings.Split(u.EscapedPath(), "/") {
			if seg == "" {
				continue
			}
			if isDigits(seg) {
				shape = append(shape, "d"+strconv.Itoa(len(seg)))
				if len(seg) == 4 {
					fs = append(fs, "num:"+seg)
				}
				continue
			}
			shape = append(shape, "w")
			for _, w := range words(seg) {
				fs = append(fs, "url:"+w)
			}
		}
		var params []string
		for k, vs := range u.Query() {
			params = append(params, strings.ToLower(k))
			for _, v := range vs {
				for _, w := range words(v) {
					fs = append(fs, "url:"+w)
				}
			}
		}
		slices.Sort(params)
		p := "shape:" + strings.Join(shape, "/")
		if len(params) > 0 {
			p += "?" + strings.Join(params, "&")
		}
		fs = append(fs, p)
	}
	for _, w := range words(anchor) {
		fs = append(fs, "anchor:"+w)
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

// words are the lower-cased runs of letters of s, at least 3 long (URL
// words, anchor words: no analyzer, so no language is needed).
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(w)) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
