package specs

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// original decodes the original authors' JSON format
// (de.l3s.gossen.crawler.ArchiveCrawlSpecification, read with Jackson):
//
//	{"name": "election2009",
//	 "description": "Bundestagswahl 2009",
//	 "seedUrls": ["http://...", ...],
//	 "referenceDocuments": ["https://de.wikipedia.org/w/Bundestagswahl_2009"],
//	 "referenceTime": {"start": "2009-09-27", "end": "2009-09-27",
//	                   "beforeFuzziness": "P180D", "afterFuzziness": "P30D"},
//	 "referenceVectors": {"de": {"elements": {"wahlkampf": 7.2, ...}}},
//	 "keywords": {"de": ["Angela Merkel", ...]},
//	 "defaultLanguage": "de",
//	 "correctionFactors": {"de": 0.31}}
//
// Every field of the Java class is mapped; the 31 published files use all but
// correctionFactors. Like Jackson's default, unknown fields are an error.
// Mapping:
//   - seedUrls → Seeds, except seeds that are not absolute http(s) URLs,
//     which are dropped with a warning (Spec.Warnings); referenceDocuments (URL strings) → ReferenceDocuments
//     with URL set and no language (the original detected it);
//   - referenceTime start/end (dates; the original treats the end day as
//     inside, as we do) → Event; beforeFuzziness → LeadTime, afterFuzziness →
//     CooldownTime (java.time.Period text, which ParseDuration accepts);
//   - referenceVectors locale → {elements: term → weight} → ReferenceVectors
//     as given (already truncated to the original's 100 terms);
//   - keywords locale → list → Keywords under that language. (The original
//     matched the union of all languages' keywords in every language; with
//     one language per file, as in all 31, that is the same.)
//   - defaultLanguage → DefaultLanguage; correctionFactors → CorrectionFactors
//     (the original divided TopicR by them, 1.0 when absent);
//   - Java Locale keys such as de_DE become language tags such as de-DE.
//
// Everything else (strategy, alpha, sizes, ...) takes the Defaults.
func (d *decoder) original(root *yaml.Node) *Spec {
	var o originalSpec
	d.decode(root, reflect.ValueOf(&o).Elem(), "")
	s := Defaults()
	s.Name, s.Description = o.Name, o.Description
	for i, u := range o.SeedURLs {
		// The published files contain a few unusable seeds (e.g. a host
		// with an escaped path, wolympics2010.json); the original passed
		// them on and found no capture. They are dropped here, with a
		// warning, so every Seeds entry parses.
		if err := checkHTTPURL(u); err != nil {
			path := fmt.Sprintf("seedUrls[%d]", i)
			s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: %s: %v; seed dropped", d.at[path].value.Line, path, err))
			continue
		}
		s.Seeds = append(s.Seeds, u)
	}
	if o.SeedURLs != nil && s.Seeds == nil {
		s.Seeds = []string{}
	}
	for _, u := range o.ReferenceDocuments {
		s.ReferenceDocuments = append(s.ReferenceDocuments, ReferenceDocument{URL: u})
	}
	t := o.ReferenceTime
	s.Event = Event{Start: t.Start, End: t.End}
	s.LeadTime, s.CooldownTime = t.BeforeFuzziness, t.AfterFuzziness
	if o.ReferenceVectors != nil {
		s.ReferenceVectors = map[string]map[string]float64{}
		for lang, v := range o.ReferenceVectors {
			s.ReferenceVectors[lang] = v.Elements
		}
	}
	if o.Keywords != nil {
		s.Keywords = Keywords{}
		for lang, k := range o.Keywords {
			s.Keywords[normalizeLocale(lang)] = k
		}
	}
	s.DefaultLanguage = normalizeLocale(o.DefaultLanguage)
	s.CorrectionFactors = o.CorrectionFactors
	s.complete(func(string) bool { return o.DefaultLanguage != "" })
	return &s
}

// originalSpec is the original format (ArchiveCrawlSpecification).
type originalSpec struct {
	Name               string                    `yaml:"name" required:""`
	Description        string                    `yaml:"description"`
	SeedURLs           []string                  `yaml:"seedUrls"`
	ReferenceDocuments []string                  `yaml:"referenceDocuments"`
	ReferenceTime      originalTime              `yaml:"referenceTime" required:""`
	ReferenceVectors   map[string]originalVector `yaml:"referenceVectors" required:""` // the Java constructor requires it
	Keywords           map[string][]string       `yaml:"keywords"`
	DefaultLanguage    string                    `yaml:"defaultLanguage"`
	CorrectionFactors  map[string]float64        `yaml:"correctionFactors"`
}

// originalTime is the original's referenceTime.
type originalTime struct {
	Start           Bound    `yaml:"start" required:""`
	End             Bound    `yaml:"end" required:""`
	BeforeFuzziness Duration `yaml:"beforeFuzziness" required:""`
	AfterFuzziness  Duration `yaml:"afterFuzziness" required:""`
}

// originalVector is one of the original's referenceVectors.
type originalVector struct {
	Elements map[string]float64 `yaml:"elements" required:""`
}

// originalNames names the fields of Validate's problems as the original
// format does.
var (
	originalNames = strings.NewReplacer(
		"event.start", "referenceTime.start", "event.end", "referenceTime.end", "event", "referenceTime",
		"lead_time", "referenceTime.beforeFuzziness", "cooldown_time", "referenceTime.afterFuzziness",
		"reference_documents", "referenceDocuments", "reference_vectors", "referenceVectors",
		"correction_factors", "correctionFactors", "default_language", "defaultLanguage", "seeds", "seedUrls")
	originalURL     = regexp.MustCompile(`^referenceDocuments\[([0-9]+)\]\.url`)
	originalWeights = regexp.MustCompile(`^referenceVectors\.([^.]+)\.`)
)

// originalProblems renames the fields of problems found in a Spec decoded
// from the original format.
func originalProblems(probs []Problem) []Problem {
	for i, p := range probs {
		field := originalURL.ReplaceAllString(originalNames.Replace(p.Field), "referenceDocuments[$1]")
		// The weights are below "elements" in the file.
		field = originalWeights.ReplaceAllString(field, "referenceVectors.$1.elements.")
		if rest, ok := strings.CutPrefix(p.Msg, p.Field+": "); ok {
			p.Msg = join(field, rest)
		} else {
			p.Msg = originalNames.Replace(p.Msg)
		}
		p.Field = field
		probs[i] = p
	}
	return probs
}
