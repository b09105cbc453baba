package specs

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder walks the parsed YAML/JSON tree field by field, so that every
// problem is found (not only the first), named by its path and line.
type decoder struct {
	problems []Problem
	warnings []string
	noSeeds  bool // accept a specification with nothing to start a crawl from
}

func (d *decoder) add(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.problems = append(d.problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// resolve follows YAML aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			return fmt.Sprintf("string %q", n.Value)
		}
		return n.Value
	}
	return "document"
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// fields walks mapping n at path ("" for the top level), calls the handler
// of each known key with its value, and reports unknown and repeated keys.
// Null values count as absent.
func (d *decoder) fields(n *yaml.Node, path string, handlers map[string]func(v *yaml.Node)) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.add(n, "%s: expected a mapping of fields, not a %s", path, kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		name := k.Value
		if line, dup := seen[name]; dup {
			d.add(k, "%s: given twice (first on line %d)", join(path, name), line)
			continue
		}
		seen[name] = k.Line
		h, ok := handlers[name]
		if !ok {
			where := "at top level"
			if path != "" {
				where = "in " + path
			}
			d.add(k, "unknown field %q %s%s", name, where, suggest(name, handlers))
			continue
		}
		if !isNull(v) {
			h(v)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// suggest returns ` (did you mean "x"?)` for the known field closest to
// name, if it is close.
func suggest(name string, handlers map[string]func(v *yaml.Node)) string {
	best, bestDist := "", 3
	for k := range handlers {
		if dist := editDistance(strings.ToLower(name), k); dist < bestDist || dist == bestDist && best != "" && k < best {
			best, bestDist = k, dist
		}
	}
	if best == "" || bestDist > len(name)/2 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// str returns the value of a scalar field.
func (d *decoder) str(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode {
		d.add(v, "%s: expected a string, not a %s", field, kindName(v))
		return "", false
	}
	return v.Value, true
}

// integer parses a whole number that is at least lo.
func (d *decoder) integer(v *yaml.Node, field string, lo int64) (int64, bool) {
	s, ok := d.str(v, field)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		d.add(v, "%s: %q is not a whole number", field, s)
		return 0, false
	}
	if n < lo {
		d.add(v, "%s: %d is less than %d", field, n, lo)
		return 0, false
	}
	return n, true
}

// number parses a finite number.
func (d *decoder) number(v *yaml.Node, field string) (float64, bool) {
	s, ok := d.str(v, field)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		d.add(v, "%s: %q is not a finite number", field, s)
		return 0, false
	}
	return f, true
}

func (d *decoder) boolean(v *yaml.Node, field string) (bool, bool) {
	s, ok := d.str(v, field)
	if !ok {
		return false, false
	}
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	d.add(v, "%s: %q is not true or false", field, s)
	return false, false
}

// list calls item for each element of a sequence with its path.
func (d *decoder) list(v *yaml.Node, field string, item func(n *yaml.Node, path string)) {
	if v.Kind != yaml.SequenceNode {
		d.add(v, "%s: expected a list, not a %s", field, kindName(v))
		return
	}
	for i, n := range v.Content {
		item(resolve(n), fmt.Sprintf("%s[%d]", field, i))
	}
}

// strings returns a list of non-empty strings.
func (d *decoder) strings(v *yaml.Node, field string) []string {
	out := []string{}
	d.list(v, field, func(n *yaml.Node, path string) {
		if s, ok := d.str(n, path); ok {
			if strings.TrimSpace(s) == "" {
				d.add(n, "%s: is empty", path)
				return
			}
			out = append(out, s)
		}
	})
	return out
}

// entries calls item for each key/value pair of a mapping whose keys are
// data (languages, terms), not field names.
func (d *decoder) entries(v *yaml.Node, field string, item func(k, v *yaml.Node)) {
	if v.Kind != yaml.MappingNode {
		d.add(v, "%s: expected a mapping, not a %s", field, kindName(v))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i]
		if seen[k.Value] {
			d.add(k, "%s: key %q given twice", field, k.Value)
			continue
		}
		seen[k.Value] = true
		item(k, resolve(v.Content[i+1]))
	}
}

var (
	namePattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	languagePattern = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)
)

func (d *decoder) name(v *yaml.Node, field string) string {
	s, ok := d.str(v, field)
	if ok && !namePattern.MatchString(s) {
		d.add(v, "%s: %q must consist of letters, digits, '.', '_' and '-' (it names output files)", field, s)
	}
	return s
}

// language validates a language code (ISO 639, optionally with subtags).
func (d *decoder) language(n *yaml.Node, field, s string) string {
	if !languagePattern.MatchString(s) {
		d.add(n, "%s: %q is not a language code such as de, en or pt-BR", field, s)
	}
	return s
}

// httpURL validates an absolute http(s) URL.
func (d *decoder) httpURL(n *yaml.Node, field, s string) string {
	if err := checkHTTPURL(s); err != nil {
		d.add(n, "%s: %v", field, err)
	}
	return s
}

func checkHTTPURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

func (d *decoder) duration(v *yaml.Node, field string) Duration {
	s, ok := d.str(v, field)
	if !ok {
		return Duration{}
	}
	dur, err := ParseDuration(s)
	if err != nil {
		d.add(v, "%s: %v", field, err)
	}
	return dur
}

func (d *decoder) bound(v *yaml.Node, field string) Bound {
	s, ok := d.str(v, field)
	if !ok {
		return Bound{}
	}
	b, err := ParseBound(s)
	if err != nil {
		d.add(v, "%s: %v", field, err)
	}
	return b
}

// spec decodes this package's format.
func (d *decoder) spec(root *yaml.Node) *Spec {
	s := Defaults()
	var (
		hasLead, hasCooldown, hasEvent, hasStart bool
		eventNode, seedsNode, refsNode           *yaml.Node
	)
	handlers := map[string]func(v *yaml.Node){
		"name": func(v *yaml.Node) { s.Name = d.name(v, "name") },
		"description": func(v *yaml.Node) {
			s.Description, _ = d.str(v, "description")
		},
		"reference_documents": func(v *yaml.Node) {
			refsNode = v
			s.ReferenceDocuments = []ReferenceDocument{}
			d.list(v, "reference_documents", func(n *yaml.Node, path string) {
				s.ReferenceDocuments = append(s.ReferenceDocuments, d.referenceDocument(n, path))
			})
		},
		"keywords": func(v *yaml.Node) { s.Keywords = d.keywords(v, "keywords") },
		"event": func(v *yaml.Node) {
			hasEvent, eventNode = true, v
			d.fields(v, "event", map[string]func(v *yaml.Node){
				"start": func(v *yaml.Node) { s.Event.Start, hasStart = d.bound(v, "event.start"), true },
				"end":   func(v *yaml.Node) { s.Event.End = d.bound(v, "event.end") },
			})
		},
		"lead_time":     func(v *yaml.Node) { s.LeadTime, hasLead = d.duration(v, "lead_time"), true },
		"cooldown_time": func(v *yaml.Node) { s.CooldownTime, hasCooldown = d.duration(v, "cooldown_time"), true },
		"seeds": func(v *yaml.Node) {
			seedsNode = v
			s.Seeds = []string{}
			d.list(v, "seeds", func(n *yaml.Node, path string) {
				if u, ok := d.str(n, path); ok {
					s.Seeds = append(s.Seeds, d.httpURL(n, path, u))
				}
			})
		},
		"strategy": func(v *yaml.Node) {
			if st, ok := d.str(v, "strategy"); ok {
				s.Strategy = Strategy(st)
				if !s.Strategy.Valid() {
					d.add(v, "strategy: %q is not one of %s", st, joinStrategies())
				}
			}
		},
		"alpha": func(v *yaml.Node) {
			if a, ok := d.number(v, "alpha"); ok {
				s.Alpha = a
				if a < 0 || a > 1 {
					d.add(v, "alpha: %v is outside [0, 1]", a)
				}
			}
		},
		"target_size":  func(v *yaml.Node) { s.TargetSize = d.intField(v, "target_size", 1, s.TargetSize) },
		"batch_size":   func(v *yaml.Node) { s.BatchSize = d.intField(v, "batch_size", 1, s.BatchSize) },
		"max_rounds":   func(v *yaml.Node) { s.MaxRounds = d.intField(v, "max_rounds", 0, s.MaxRounds) },
		"max_per_host": func(v *yaml.Node) { s.MaxPerHost = d.intField(v, "max_per_host", 0, s.MaxPerHost) },
		"allow":        func(v *yaml.Node) { s.Allow = d.hosts(v, "allow") },
		"deny":         func(v *yaml.Node) { s.Deny = d.hosts(v, "deny") },
		"outlinks": func(v *yaml.Node) {
			if o, ok := d.str(v, "outlinks"); ok {
				s.Outlinks = OutlinkScope(o)
				if s.Outlinks != OutlinksMain && s.Outlinks != OutlinksAll {
					d.add(v, "outlinks: %q is not one of main, all", o)
				}
			}
		},
		"max_document_bytes": func(v *yaml.Node) {
			if str, ok := d.str(v, "max_document_bytes"); ok {
				n, err := parseSize(str)
				if err != nil {
					d.add(v, "max_document_bytes: %v", err)
				} else {
					s.MaxDocumentBytes = n
				}
			}
		},
		"languages": func(v *yaml.Node) {
			s.Languages = []string{}
			d.list(v, "languages", func(n *yaml.Node, path string) {
				if l, ok := d.str(n, path); ok && !slices.Contains(s.Languages, l) {
					s.Languages = append(s.Languages, d.language(n, path, l))
				}
			})
		},
		"default_language": func(v *yaml.Node) {
			if l, ok := d.str(v, "default_language"); ok {
				s.DefaultLanguage = d.language(v, "default_language", l)
				if s.DefaultLanguage == "" {
					d.add(v, "default_language: is empty")
				}
			}
		},
		"reference_vector_size": func(v *yaml.Node) {
			s.ReferenceVectorSize = d.intField(v, "reference_vector_size", 1, s.ReferenceVectorSize)
		},
		"normalize": func(v *yaml.Node) {
			if b, ok := d.boolean(v, "normalize"); ok {
				s.Normalize = b
			}
		},
		"dictionary": func(v *yaml.Node) { s.Dictionary, _ = d.str(v, "dictionary") },
		"reference_vectors": func(v *yaml.Node) {
			s.ReferenceVectors = d.vectors(v, "reference_vectors", func(v *yaml.Node, _ string) *yaml.Node { return v })
		},
		"correction_factors": func(v *yaml.Node) { s.CorrectionFactors = d.factors(v, "correction_factors") },
	}
	for name, h := range d.focusHandlers(&s.Focus) {
		handlers[name] = h
	}
	d.fields(root, "", handlers)

	// Required fields and rules across fields.
	if s.Name == "" {
		d.add(root, "name: missing")
	}
	switch {
	case !hasEvent:
		d.add(root, "event: missing (event.start and event.end, e.g. 2009-09-27)")
	case !hasStart:
		d.add(eventNode, "event.start: missing")
	}
	d.checkTemporal(&s, eventNode, "event.start", "event.end")
	if !hasLead {
		d.add(root, "lead_time: missing (an ISO-8601 duration such as P30D; P0D for an event without lead time)")
	}
	if !hasCooldown {
		d.add(root, "cooldown_time: missing (an ISO-8601 duration such as P30D; P0D for no cool-down time)")
	}
	d.checkTopical(&s, root, refsNode, seedsNode)
	d.checkFocus(&s, root)
	s.DefaultLanguage = defaultLanguage(&s)
	if len(s.Languages) > 0 && s.DefaultLanguage != "" && !slices.Contains(s.Languages, s.DefaultLanguage) {
		d.add(root, "default_language: %q is not one of languages %v", s.DefaultLanguage, s.Languages)
	}
	return &s
}

func (d *decoder) intField(v *yaml.Node, field string, lo int64, def int) int {
	n, ok := d.integer(v, field, lo)
	if !ok {
		return def
	}
	if int64(int(n)) != n {
		d.add(v, "%s: %d is too large", field, n)
		return def
	}
	return int(n)
}

// checkTemporal defaults event.end to event.start and orders them.
func (d *decoder) checkTemporal(s *Spec, at *yaml.Node, startField, endField string) {
	if s.Event.End.IsZero() {
		s.Event.End = s.Event.Start
	}
	if !s.Event.Start.IsZero() && s.Event.End.Time.Before(s.Event.Start.Time) {
		d.add(at, "%s (%s) is before %s (%s)", endField, s.Event.End, startField, s.Event.Start)
	}
}

// checkTopical requires a topical scope and something to start from.
func (d *decoder) checkTopical(s *Spec, root, refs, seeds *yaml.Node) {
	if refs == nil {
		refs = root
	}
	if len(s.ReferenceDocuments) == 0 && len(s.ReferenceVectors) == 0 {
		d.add(refs, "reference_documents: at least one reference document is needed (or precomputed reference_vectors)")
	}
	if len(s.Seeds) == 0 && len(s.ReferenceDocuments) > 0 && !d.noSeeds {
		linked := slices.ContainsFunc(s.ReferenceDocuments, func(r ReferenceDocument) bool { return r.URL != "" || r.File != "" })
		if !linked {
			if seeds == nil {
				seeds = root
			}
			d.add(seeds, "seeds: none given, and no reference document is a url or file whose outlinks could serve as seeds")
		}
	}
}

// defaultLanguage derives default_language when it is not given.
func defaultLanguage(s *Spec) string {
	if s.DefaultLanguage != "" {
		return s.DefaultLanguage
	}
	if len(s.Languages) > 0 {
		return s.Languages[0]
	}
	for _, r := range s.ReferenceDocuments {
		if r.Language != "" {
			return r.Language
		}
	}
	var langs []string
	for l := range s.Keywords {
		if l != AllLanguages {
			langs = append(langs, l)
		}
	}
	for l := range s.ReferenceVectors {
		langs = append(langs, l)
	}
	if len(langs) > 0 {
		slices.Sort(langs)
		return langs[0]
	}
	return FallbackLanguage
}

func (d *decoder) referenceDocument(n *yaml.Node, path string) ReferenceDocument {
	var r ReferenceDocument
	sources := 0
	d.fields(n, path, map[string]func(v *yaml.Node){
		"url": func(v *yaml.Node) {
			if u, ok := d.str(v, path+".url"); ok {
				r.URL, sources = d.httpURL(v, path+".url", u), sources+1
			}
		},
		"file": func(v *yaml.Node) {
			if f, ok := d.str(v, path+".file"); ok {
				r.File, sources = f, sources+1
			}
		},
		"text": func(v *yaml.Node) {
			if t, ok := d.str(v, path+".text"); ok {
				r.Text, sources = t, sources+1
				if strings.TrimSpace(t) == "" {
					d.add(v, "%s.text: is empty", path)
				}
			}
		},
		"language": func(v *yaml.Node) {
			if l, ok := d.str(v, path+".language"); ok {
				r.Language = d.language(v, path+".language", l)
			}
		},
	})
	if n.Kind == yaml.MappingNode && sources != 1 {
		d.add(n, "%s: needs exactly one of url, file, text (has %d)", path, sources)
	}
	return r
}

// keywords accepts a list (for all languages) or a mapping from language (or
// "*") to a list.
func (d *decoder) keywords(v *yaml.Node, field string) Keywords {
	k := Keywords{}
	switch v.Kind {
	case yaml.SequenceNode:
		k[AllLanguages] = d.strings(v, field)
	case yaml.MappingNode:
		d.entries(v, field, func(kn, vn *yaml.Node) {
			lang := kn.Value
			if lang != AllLanguages {
				d.language(kn, field, lang)
			}
			if !isNull(vn) {
				k[lang] = d.strings(vn, field+"."+lang)
			}
		})
	default:
		d.add(v, "%s: expected a list of keywords or a mapping from language (or \"*\") to keywords, not a %s", field, kindName(v))
	}
	return k
}

func (d *decoder) hosts(v *yaml.Node, field string) []string {
	out := []string{}
	d.list(v, field, func(n *yaml.Node, path string) {
		if s, ok := d.str(n, path); ok {
			h, err := parseHostEntry(s)
			if err != nil {
				d.add(n, "%s: %v", path, err)
				return
			}
			out = append(out, h)
		}
	})
	return out
}

// vectors decodes language → (vector node) → term → weight; elements picks
// the term mapping out of a language's value (the original nests it under
// "elements").
func (d *decoder) vectors(v *yaml.Node, field string, elements func(v *yaml.Node, path string) *yaml.Node) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	d.entries(v, field, func(kn, vn *yaml.Node) {
		lang := normalizeLocale(kn.Value)
		d.language(kn, field, lang)
		path := field + "." + kn.Value
		terms := elements(vn, path)
		if terms == nil {
			return
		}
		vec := map[string]float64{}
		d.entries(terms, path, func(tn, wn *yaml.Node) {
			if w, ok := d.number(wn, path+"."+tn.Value); ok {
				vec[tn.Value] = w
			}
		})
		if len(vec) == 0 {
			d.add(vn, "%s: the vector is empty", path)
		}
		out[lang] = vec
	})
	return out
}

func (d *decoder) factors(v *yaml.Node, field string) map[string]float64 {
	out := map[string]float64{}
	d.entries(v, field, func(kn, vn *yaml.Node) {
		lang := normalizeLocale(kn.Value)
		d.language(kn, field, lang)
		path := field + "." + kn.Value
		if f, ok := d.number(vn, path); ok {
			if f <= 0 {
				d.add(vn, "%s: %v is not positive (it divides TopicR)", path, f)
			}
			out[lang] = f
		}
	})
	return out
}

// normalizeLocale turns a Java Locale string (de, de_DE) into a language tag
// (de, de-DE).
func normalizeLocale(s string) string {
	return strings.ReplaceAll(s, "_", "-")
}

func joinStrategies() string {
	var names []string
	for _, s := range Strategies {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// parseSize parses a byte count: a whole number, optionally followed by a
// unit B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult := map[string]int64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}[strings.ToUpper(unit)]
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || mult == 0 {
		return 0, fmt.Errorf("%q is not a size such as 5242880, 5MiB or 500KB", s)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%q must be positive", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}
