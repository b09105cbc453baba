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
// scored, which links lead to relevant pages, and predicts the relevance of
// a link's target before it is fetched. Each training example is one
// fetched page: the features of the link that led to it (its URL and the
// anchor text of the first link to it) and the page's relevance under the
// strategy. With μ the mean relevance of all examples and
//
//	m_f = (sum_f + LinkModelPrior·μ) / (n_f + LinkModelPrior)
//
// each feature's smoothed mean relevance (a feature seen rarely stays near
// μ), the prediction for a link is μ + Σ_f (m_f − μ) over its features,
// clipped to [0, 1]: features that say nothing (a host or path shape shared
// by relevant and irrelevant pages) add about 0, and each informative one
// moves the prediction by what it is worth. The features are generic web evidence, not rules of one
// site: the target's host, the words of its URL path and query, the shape
// of its path (/2009/09/27/word: "d4/d2/d2/w"), the 4-digit numbers of its
// path (years), and the words of its anchor text.
//
// The model is a sum of counts, so it does not depend on the order in
// which examples are added beyond float addition: callers add them in
// collection order, and the same examples give the same bytes.

// LinkModelPrior is the weight of the global mean in a feature's mean (in
// examples).
const LinkModelPrior = 3

// LinkModelMinExamples is the number of examples below which the model
// makes no prediction (Predict's ok is false).
const LinkModelMinExamples = 20

// LinkModelMaxFeatures bounds the model's memory: features first seen after
// this many are not learned.
const LinkModelMaxFeatures = 200000

// FeatureStat is one feature's examples: their number and relevance sum.
type FeatureStat struct {
	N   int     `json:"n"`
	Sum float64 `json:"sum"`
}

// LinkModel is the apprentice's state.
type LinkModel struct {
	N        int                    `json:"n"`
	Sum      float64                `json:"sum"`
	Features map[string]FeatureStat `json:"features"`
}

// Add learns one example: a link with features fs led to a page of
// relevance y.
func (m *LinkModel) Add(fs []string, y float64) {
	if m.Features == nil {
		m.Features = map[string]FeatureStat{}
	}
	m.N++
	m.Sum += y
	for _, f := range fs {
		st, ok := m.Features[f]
		if !ok && len(m.Features) >= LinkModelMaxFeatures {
			continue
		}
		st.N++
		st.Sum += y
		m.Features[f] = st
	}
}

// Predict is the model's relevance estimate for a link with features fs,
// and whether the model has enough examples to make one.
func (m *LinkModel) Predict(fs []string) (float64, bool) {
	if m == nil || m.N < LinkModelMinExamples {
		return 0, false
	}
	mu := m.Sum / float64(m.N)
	p := mu
	for _, f := range fs {
		if st, ok := m.Features[f]; ok {
			p += (st.Sum+LinkModelPrior*mu)/(float64(st.N)+LinkModelPrior) - mu
		}
	}
	return min(max(p, 0), 1), true
}

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
