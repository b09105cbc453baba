package evaluate

import (
	"net/url"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
)

// TemplateScore is one run's precision and recall on the hosts of one site
// template (labels with a template column: a generated archive with
// templates). A crawl that cannot cross a template's layout scores 0 there,
// whatever it finds elsewhere.
type TemplateScore struct {
	Template string `json:"template"`
	// R is the number of relevant labels on the template's hosts.
	R int `json:"r"`
	// PrecisionAtR: the relevant share of the run's first R documents
	// from the template's hosts.
	PrecisionAtR float64 `json:"precision_at_r"`
	// RecallAtN: the share of the R found in the run's first n documents.
	RecallAtN float64 `json:"recall_at_n"`
}

// Templates returns the site templates of the labels, sorted (nil when the
// labels have no template column).
func (l *Labels) Templates() []string {
	var out []string
	for _, lab := range l.Items {
		if lab.Template != "" && !slices.Contains(out, lab.Template) {
			out = append(out, lab.Template)
		}
	}
	slices.Sort(out)
	return out
}

// hostKey is a host without "www." and port, lower-cased: a label's and a
// document's host compare by it.
func hostKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// ScoreTemplates breaks a run's precision at R and recall at n down by the
// site template of the hosts (Label.Template). Documents on hosts without a
// labelled article count for no template.
func ScoreTemplates(docs []collection.Document, l *Labels, n int) []TemplateScore {
	templates := l.Templates()
	if len(templates) == 0 {
		return nil
	}
	hostTemplate := map[string]string{}
	byTemplate := map[string][]Label{}
	for _, lab := range l.Items {
		if lab.Template == "" {
			continue
		}
		hostTemplate[hostKey(lab.URL)] = lab.Template
		byTemplate[lab.Template] = append(byTemplate[lab.Template], lab)
	}
	var out []TemplateScore
	for _, t := range templates {
		sub, err := NewLabels(byTemplate[t])
		if err != nil { // the keys were computed when the labels were read
			continue
		}
		ts := TemplateScore{Template: t, R: sub.Relevant()}
		if ts.R == 0 {
			out = append(out, ts)
			continue
		}
		var own []collection.Document // the run's documents on the template's hosts
		for i := range docs {
			if hostTemplate[hostKey(docs[i].URL)] == t {
				own = append(own, docs[i])
			}
		}
		ts.PrecisionAtR = ScoreLabels(own, sub).Found.At(ts.R) / float64(ts.R)
		first := docs[:min(n, len(docs))]
		ts.RecallAtN = ScoreLabels(first, sub).Found.Final() / float64(ts.R)
		out = append(out, ts)
	}
	return out
}
