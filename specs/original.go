package specs

import (
	"fmt"

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
	s := Defaults()
	var hasTime, hasVectors bool
	var timeNode *yaml.Node
	d.fields(root, "", map[string]func(v *yaml.Node){
		"name":        func(v *yaml.Node) { s.Name = d.name(v, "name") },
		"description": func(v *yaml.Node) { s.Description, _ = d.str(v, "description") },
		"seedUrls": func(v *yaml.Node) {
			s.Seeds = []string{}
			d.list(v, "seedUrls", func(n *yaml.Node, path string) {
				u, ok := d.str(n, path)
				if !ok {
					return
				}
				// The published files contain a few unusable seeds (e.g. a
				// host with an escaped path, wolympics2010.json); the
				// original passed them on and found no capture. They are
				// dropped here, with a warning, so every Seeds entry parses.
				if err := checkHTTPURL(u); err != nil {
					d.warnings = append(d.warnings, fmt.Sprintf("line %d: %s: %v; seed dropped", n.Line, path, err))
					return
				}
				s.Seeds = append(s.Seeds, u)
			})
		},
		"referenceDocuments": func(v *yaml.Node) {
			d.list(v, "referenceDocuments", func(n *yaml.Node, path string) {
				if u, ok := d.str(n, path); ok {
					s.ReferenceDocuments = append(s.ReferenceDocuments, ReferenceDocument{URL: d.httpURL(n, path, u)})
				}
			})
		},
		"referenceTime": func(v *yaml.Node) {
			hasTime, timeNode = true, v
			var has [4]bool
			d.fields(v, "referenceTime", map[string]func(v *yaml.Node){
				"start":           func(v *yaml.Node) { s.Event.Start, has[0] = d.bound(v, "referenceTime.start"), true },
				"end":             func(v *yaml.Node) { s.Event.End, has[1] = d.bound(v, "referenceTime.end"), true },
				"beforeFuzziness": func(v *yaml.Node) { s.LeadTime, has[2] = d.duration(v, "referenceTime.beforeFuzziness"), true },
				"afterFuzziness":  func(v *yaml.Node) { s.CooldownTime, has[3] = d.duration(v, "referenceTime.afterFuzziness"), true },
			})
			for i, f := range []string{"start", "end", "beforeFuzziness", "afterFuzziness"} {
				if !has[i] {
					d.add(v, "referenceTime.%s: missing", f)
				}
			}
		},
		"referenceVectors": func(v *yaml.Node) {
			hasVectors = true
			s.ReferenceVectors = d.vectors(v, "referenceVectors", func(vn *yaml.Node, path string) *yaml.Node {
				var elements *yaml.Node
				d.fields(vn, path, map[string]func(v *yaml.Node){
					"elements": func(v *yaml.Node) { elements = v },
				})
				if elements == nil && vn.Kind == yaml.MappingNode {
					d.add(vn, "%s.elements: missing", path)
				}
				return elements
			})
		},
		"keywords": func(v *yaml.Node) {
			s.Keywords = Keywords{}
			d.entries(v, "keywords", func(kn, vn *yaml.Node) {
				lang := normalizeLocale(kn.Value)
				d.language(kn, "keywords", lang)
				if !isNull(vn) {
					s.Keywords[lang] = d.strings(vn, "keywords."+kn.Value)
				}
			})
		},
		"defaultLanguage": func(v *yaml.Node) {
			if l, ok := d.str(v, "defaultLanguage"); ok {
				s.DefaultLanguage = d.language(v, "defaultLanguage", normalizeLocale(l))
			}
		},
		"correctionFactors": func(v *yaml.Node) { s.CorrectionFactors = d.factors(v, "correctionFactors") },
	})
	if s.Name == "" {
		d.add(root, "name: missing")
	}
	if !hasTime {
		d.add(root, "referenceTime: missing")
	}
	if !hasVectors {
		// The Java constructor requires it (Objects.requireNonNull).
		d.add(root, "referenceVectors: missing")
	}
	d.checkTemporal(&s, timeNode, "referenceTime.start", "referenceTime.end")
	d.checkTopical(&s, root, nil, nil)
	s.DefaultLanguage = defaultLanguage(&s)
	return &s
}
