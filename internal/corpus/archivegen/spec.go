package archivegen

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// SpecDoc is the collection specification written for each event, with the
// field names of the method (§1).
type SpecDoc struct {
	Name               string              `yaml:"name"`
	Description        string              `yaml:"description"`
	ReferenceDocuments []RefDoc            `yaml:"reference_documents"`
	Keywords           map[string][]string `yaml:"keywords"`
	Event              SpecEvent           `yaml:"event"`
	LeadTime           string              `yaml:"lead_time"`
	CooldownTime       string              `yaml:"cooldown_time"`
	Seeds              []string            `yaml:"seeds"`
	TargetSize         int64               `yaml:"target_size"`
	Strategy           string              `yaml:"strategy"`
	Languages          []string            `yaml:"languages"`
	DefaultLanguage    string              `yaml:"default_language"`
}

// RefDoc is an inline reference document.
type RefDoc struct {
	Text     string `yaml:"text"`
	Language string `yaml:"language"`
}

// SpecEvent is the event interval (end inclusive).
type SpecEvent struct {
	Start string `yaml:"start"`
	End   string `yaml:"end"`
}

// writeSpecs writes specs/<event>.yaml for every event. Seeds are archived
// URLs: the home pages of the hosts that cover the event most, one of their
// section and tag pages, and two articles about the event.
func writeSpecs(w *world, p *plan, dir string, written int64) error {
	for _, e := range w.events {
		doc := w.spec(e, p, written)
		b, err := yaml.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encode spec %s: %w", e.Slug, err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Slug+".yaml"), b, 0o644); err != nil {
			return fmt.Errorf("write spec %s: %w", e.Slug, err)
		}
	}
	return nil
}

func (w *world) spec(e *Event, p *plan, written int64) SpecDoc {
	doc := SpecDoc{
		Name:            e.Slug,
		Description:     e.Description,
		Keywords:        map[string][]string{"en": e.Keywords[langEN], "de": e.Keywords[langDE]},
		Event:           SpecEvent{Start: e.StartDate(), End: e.EndDate()},
		LeadTime:        "P" + strconv.Itoa(int(e.LeadDays)) + "D",
		CooldownTime:    "P" + strconv.Itoa(int(e.AfterDays)) + "D",
		TargetSize:      max(e.topic.n, 10),
		Strategy:        "ctf",
		Languages:       []string{"en", "de"},
		DefaultLanguage: "en",
	}
	for i, lang := range []int{langEN, langDE, langEN} {
		doc.ReferenceDocuments = append(doc.ReferenceDocuments, RefDoc{Text: w.referenceText(e, lang, i), Language: langCodes[lang]})
	}
	// Hosts by how much they cover the event (ties: lower index).
	hosts := slices.Clone(w.hosts)
	slices.SortStableFunc(hosts, func(a, b *Host) int {
		wa, wb := a.weight[e.topic.idx], b.weight[e.topic.idx]
		switch {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return 0
	})
	for _, h := range hosts[:min(3, len(hosts))] {
		doc.Seeds = append(doc.Seeds, "http://"+h.Name+"/")
	}
	top := hosts[0]
	for i := range p.lists {
		lp := &p.lists[i]
		if lp.host == top && lp.page == 1 && (lp.kind == listSection && lp.bg == e.homeBG || lp.kind == listTag && lp.topics[0] == e.topic) {
			doc.Seeds = append(doc.Seeds, lp.url(w))
		}
	}
	for _, frac := range []float64{0.35, 0.55} {
		for j := int64(frac * float64(e.topic.n)); j >= 0; j-- {
			if id := w.articleID(e.topic, j); id < written {
				doc.Seeds = append(doc.Seeds, w.article(id).url)
				break
			}
		}
	}
	return doc
}

// referenceText writes an encyclopedia-style summary of an event, from its
// vocabulary but with its own random stream, so it is no archived page.
func (w *world) referenceText(e *Event, lang, i int) string {
	g := &textGen{r: newRNG(w.seed, streamRefDoc, uint64(e.Index*16+i)), lang: lang, topic: e.v[lang], generic: w.generic[lang], pTopic: 0.6}
	var b []byte
	b = append(b, capitalize(e.Names[lang])...)
	if lang == langDE {
		b = append(b, " fand vom "...)
		b = appendDate(b, e.Start, langDE, 1)
		b = append(b, " bis zum "...)
		b = appendDate(b, e.End, langDE, 1)
		b = append(b, " statt."...)
	} else {
		b = append(b, " took place from "...)
		b = appendDate(b, e.Start, langEN, 1)
		b = append(b, " to "...)
		b = appendDate(b, e.End, langEN, 1)
		b = append(b, '.')
	}
	target := 300 + g.r.intn(200)
	for s := 1; g.words < target; s++ {
		if s%5 == 0 {
			b = append(b, "\n\n"...)
		} else {
			b = append(b, ' ')
		}
		b = g.sentence(b)
	}
	return strings.TrimSpace(string(b))
}
