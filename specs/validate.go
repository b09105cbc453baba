package specs

import (
	"fmt"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Validate checks s against every rule of the format and returns all
// problems, each naming its field (Problem.Field), in a fixed order; nil
// means s is valid. Parse and Load call it on what they decoded (and give
// the problems their lines); a program that changes a loaded Spec (flag
// overrides, evaluation variants) calls it again before using it, so that
// a broken combination is reported up front, not inside a worker.
func (s *Spec) Validate() []Problem {
	var v validation
	v.bounds(reflect.ValueOf(s).Elem(), "")
	v.name(s.Name)
	v.temporalScope(s.Event)
	v.topicalScope(s)
	v.extraction(s)
	v.analysis(s)
	v.precomputed(s)
	return v.problems
}

// name checks the spec's name, which names output files.
func (v *validation) name(name string) {
	if name == "" {
		v.add("name", "missing")
	} else if !namePattern.MatchString(name) {
		v.add("name", "%q must consist of letters, digits, '.', '_' and '-' (it names output files)", name)
	}
}

// temporalScope checks the event interval.
func (v *validation) temporalScope(e Event) {
	switch {
	case e.Start.IsZero() && e.End.IsZero():
		v.add("event", "missing (event.start and event.end, e.g. 2009-09-27)")
	case e.Start.IsZero():
		v.add("event.start", "missing")
	case e.End.Time.Before(e.Start.Time):
		v.addMsg("event.end", fmt.Sprintf("event.end (%s) is before event.start (%s)", e.End, e.Start))
	}
}

// topicalScope checks the reference documents, the keywords and the seeds.
func (v *validation) topicalScope(s *Spec) {
	for i, r := range s.ReferenceDocuments {
		v.referenceDocument(fmt.Sprintf("reference_documents[%d]", i), r)
	}
	if n := s.Keywords.Len(); n > MaxKeywords {
		v.add("keywords", "%d keywords, more than the %d a specification may have", n, MaxKeywords)
	}
	for _, lang := range sortedKeys(s.Keywords) {
		path := "keywords"
		if lang != AllLanguages {
			path += "." + lang
			v.language(path, "keywords", lang)
		}
		for i, w := range s.Keywords[lang] {
			if strings.TrimSpace(w) == "" {
				v.add(fmt.Sprintf("%s[%d]", path, i), "is empty")
			}
		}
	}
	if len(s.ReferenceDocuments) == 0 && len(s.ReferenceVectors) == 0 {
		v.add("reference_documents", "at least one reference document is needed (or precomputed reference_vectors)")
	}
	if len(s.Seeds) == 0 && len(s.ReferenceDocuments) > 0 &&
		!slices.ContainsFunc(s.ReferenceDocuments, func(r ReferenceDocument) bool { return r.URL != "" || r.File != "" }) {
		v.add("seeds", "none given, and no reference document is a url or file whose outlinks could serve as seeds")
	}
	for i, u := range s.Seeds {
		v.httpURL(fmt.Sprintf("seeds[%d]", i), u)
	}
}

// referenceDocument checks one reference document, at path.
func (v *validation) referenceDocument(path string, r ReferenceDocument) {
	sources := 0
	for _, src := range []string{r.URL, r.File, r.Text} {
		if src != "" {
			sources++
		}
	}
	if sources != 1 {
		v.add(path, "needs exactly one of url, file, text (has %d)", sources)
	}
	if r.URL != "" {
		v.httpURL(path+".url", r.URL)
	}
	if r.Text != "" && strings.TrimSpace(r.Text) == "" {
		v.add(path+".text", "is empty")
	}
	if r.Language != "" {
		v.language(path+".language", path+".language", r.Language)
	}
}

// extraction checks the strategy, alpha, the host lists, the outlinks, the
// document size limit and the focus options.
func (v *validation) extraction(s *Spec) {
	if !s.Strategy.Valid() {
		v.add("strategy", "%q is not one of %s", s.Strategy, joinStrategies())
	}
	if !(s.Alpha >= 0 && s.Alpha <= 1) {
		v.add("alpha", "%v is outside [0, 1]", s.Alpha)
	}
	for _, list := range []struct {
		field string
		hosts []string
	}{{"allow", s.Allow}, {"deny", s.Deny}} {
		for i, h := range list.hosts {
			if _, err := parseHostEntry(h); err != nil {
				v.add(fmt.Sprintf("%s[%d]", list.field, i), "%v", err)
			}
		}
	}
	if s.Outlinks != OutlinksMain && s.Outlinks != OutlinksAll {
		v.add("outlinks", "%q is not one of main, all", s.Outlinks)
	}
	if s.MaxDocumentBytes <= 0 {
		v.add("max_document_bytes", "%d must be positive", s.MaxDocumentBytes)
	}
	v.focus(s)
}

// analysis checks the languages and the default language.
func (v *validation) analysis(s *Spec) {
	for i, l := range s.Languages {
		v.language(fmt.Sprintf("languages[%d]", i), fmt.Sprintf("languages[%d]", i), l)
	}
	switch {
	case s.DefaultLanguage == "":
		v.add("default_language", "is empty")
	case !languagePattern.MatchString(s.DefaultLanguage):
		v.language("default_language", "default_language", s.DefaultLanguage)
	case len(s.Languages) > 0 && !slices.Contains(s.Languages, s.DefaultLanguage):
		v.add("default_language", "%q is not one of languages %v", s.DefaultLanguage, s.Languages)
	}
}

// precomputed checks the precomputed reference vectors and correction
// factors.
func (v *validation) precomputed(s *Spec) {
	for _, lang := range sortedKeys(s.ReferenceVectors) {
		path := "reference_vectors." + lang
		v.language(path, "reference_vectors", lang)
		vec := s.ReferenceVectors[lang]
		if len(vec) == 0 {
			v.add(path, "the vector is empty")
		}
		for _, term := range sortedKeys(vec) {
			switch w := vec[term]; {
			case !(w >= 0) || math.IsInf(w, 0):
				v.add(path+"."+term, "%v is negative (a weight is a term's tf·idf, 0 or more)", w)
			case w > MaxReferenceWeight:
				v.add(path+"."+term, "%v is beyond %g (a weight is a term's tf·idf, a few hundred at most)", w, float64(MaxReferenceWeight))
			}
		}
	}
	for _, lang := range sortedKeys(s.CorrectionFactors) {
		path := "correction_factors." + lang
		v.language(path, "correction_factors", lang)
		if f := s.CorrectionFactors[lang]; !(f > 0) || math.IsInf(f, 0) {
			v.add(path, "%v is not positive (it divides TopicR)", f)
		}
	}
}

// focus checks the focus options (focus.go).
func (v *validation) focus(s *Spec) {
	f := s.Focus
	w := f.LinkPriority
	for i, x := range []float64{w.Parent, w.Anchor, w.Context} {
		if !(x >= 0) || math.IsInf(x, 0) {
			v.add("link_priority."+[]string{"parent", "anchor", "context"}[i], "%v is negative", x)
		}
	}
	if !(w.Parent+w.Anchor+w.Context > 0) {
		v.add("link_priority", "at least one of parent, anchor and context must be positive (Wu & Hou use parent 0.4, anchor 0.6)")
	}
	if !slices.Contains([]Combine{CombineMax, CombineAverage, CombineLast}, f.Combine) {
		v.add("combine", "%q is not one of max, average, last", f.Combine)
	}
	if !slices.Contains([]PreEventRule{"", PreEventStep, PreEventTempR}, f.PreEventRule) { // "": a spec built in code, the default
		v.add("pre_event_rule", "%q is not one of step, tempr", f.PreEventRule)
	}
	if f.TemporalIntent.Months != nil { // given, perhaps empty
		peak := 0.0
		for _, m := range sortedKeys(f.TemporalIntent.Months) {
			x := f.TemporalIntent.Months[m]
			switch {
			case !monthPattern.MatchString(m):
				v.addMsg("temporal_intent.months."+m, fmt.Sprintf("temporal_intent.months: %q is not a month such as 2009-09", m))
			case !(x >= 0) || math.IsInf(x, 0):
				v.add("temporal_intent.months."+m, "%v is negative", x)
			default:
				peak = max(peak, x)
			}
		}
		if peak <= 0 {
			v.add("temporal_intent.months", "needs at least one month with a positive weight, e.g. {2009-09: 10}")
		}
	}
	if fb := f.Feedback; !fb.IsZero() {
		if !(fb.Beta >= 0) || math.IsInf(fb.Beta, 0) {
			v.add("feedback.beta", "%v is negative", fb.Beta)
		}
		if !(fb.Gamma >= 0) || math.IsInf(fb.Gamma, 0) {
			v.add("feedback.gamma", "%v is negative", fb.Gamma)
		}
		if !(fb.Beta+fb.Gamma > 0) {
			v.add("feedback", "beta or gamma must be positive (Rocchio's weights; beta 0.5 is usual)")
		}
		if s.Strategy == StrategyUnfocused {
			v.add("feedback", "the unfocused strategy uses no priorities; remove feedback or choose ctf, cf or tf")
		}
	}
	if t := f.FollowThreshold; !t.Auto && !(t.Value >= 0 && t.Value <= 1) {
		v.add("follow_threshold", "%v is neither \"auto\" nor a number in [0, 1]", t.Value)
	}
	_, preset, known := PresetValues(f.Preset)
	if !known {
		v.add("focus", "%q is not one of %s, %s", f.Preset, PresetDefault, PresetPaper)
	}
	// The preset's own weights are no choice of the user's; the unfocused
	// strategy just ignores them.
	if s.Strategy == StrategyUnfocused && !w.IsPaper() && w != preset.LinkPriority {
		v.add("link_priority", "the unfocused strategy uses no priorities; remove link_priority or choose ctf, cf or tf")
	}
	if f.FollowThreshold.Auto && len(s.ReferenceDocuments) < 2 {
		v.add("follow_threshold", "auto needs at least 2 reference documents to split into 60%% and 40%% (have %d)", len(s.ReferenceDocuments))
	}
}

// validation collects Validate's problems.
type validation struct{ problems []Problem }

func (v *validation) add(field, format string, args ...any) {
	v.addMsg(field, join(field, fmt.Sprintf(format, args...)))
}

func (v *validation) addMsg(field, msg string) {
	v.problems = append(v.problems, Problem{Field: field, Msg: msg})
}

// bounds checks the min and max tags of the integer fields of struct value
// sv.
func (v *validation) bounds(sv reflect.Value, path string) {
	for _, f := range fieldsOf(sv.Type()) {
		fv := sv.FieldByIndex(f.index)
		switch {
		case f.hasMin && fv.Int() < f.min:
			v.add(child(path, f.name), "%d is less than %d", fv.Int(), f.min)
		case f.hasMax && fv.Int() > f.max:
			v.add(child(path, f.name), "%d is more than %d", fv.Int(), f.max)
		}
	}
}

// language checks a language code (ISO 639, optionally with subtags); at is
// the field to report, name the one the message names.
func (v *validation) language(at, name, s string) {
	if !languagePattern.MatchString(s) {
		v.addMsg(at, join(name, fmt.Sprintf("%q is not a language code such as de, en or pt-BR", s)))
	}
}

func (v *validation) httpURL(field, s string) {
	if err := checkHTTPURL(s); err != nil {
		v.add(field, "%v", err)
	}
}

var (
	namePattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	languagePattern = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)
)

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

func joinStrategies() string {
	var names []string
	for _, s := range Strategies {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
