package specs

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Spec is a loaded, validated Collection Specification with every default
// filled in. Load, Parse and LoadOriginal produce it; Write and MarshalJSON
// turn it back into the canonical format. This struct is the format: each
// field's tag gives its YAML/JSON name and rules (schema.go), its comment the
// meaning, Defaults its default and Validate its checks; the fields are in
// the order they are written (identity, temporal scope, topical scope,
// extraction, analysis, precomputed data).
type Spec struct {
	// name: identifies the collection (letters, digits, '.', '_', '-'; usable
	// as a file name). Required.
	Name string `yaml:"name" required:""`
	// description: free text for people.
	Description string `yaml:"description,omitempty"`

	// event: the event interval; the end is inclusive.
	Event Event `yaml:"event" required:"event.start and event.end, e.g. 2009-09-27"`
	// lead_time: the half-life of temporal relevance before the event
	// (zero: none, TempR is 0 before the event). Required.
	LeadTime Duration `yaml:"lead_time" required:"an ISO-8601 duration such as P30D; P0D for an event without lead time"`
	// cooldown_time: the half-life after the event (zero: none). Required.
	CooldownTime Duration `yaml:"cooldown_time" required:"an ISO-8601 duration such as P30D; P0D for no cool-down time"`

	// reference_documents: the documents that describe the event; one or
	// more unless ReferenceVectors is given.
	ReferenceDocuments []ReferenceDocument `yaml:"reference_documents,omitempty"`
	// keywords: terms whose weight is boosted (method.md §2), per language
	// or for all languages (key AllLanguages).
	Keywords Keywords `yaml:"keywords,omitempty"`
	// seeds: absolute http(s) URLs to start from. Empty: the outlinks of
	// the reference documents (the paper's way, see SeedsFromReferences).
	Seeds []string `yaml:"seeds,omitempty"`

	// strategy: how the frontier is prioritised.
	Strategy Strategy `yaml:"strategy"`
	// alpha: the weight of TopicR in TTR under strategy ctf, in [0, 1].
	Alpha float64 `yaml:"alpha"`
	// target_size: stop when the collection has this many documents.
	TargetSize int `yaml:"target_size" min:"1"`
	// batch_size: K, the number of frontier URLs taken per round (at most
	// MaxBatchSize).
	BatchSize int `yaml:"batch_size" min:"1" max:"4194303"`
	// max_rounds: stop after this many rounds; 0 means no limit.
	MaxRounds int `yaml:"max_rounds" min:"0"`
	// stop_after_empty_rounds: stop when this many rounds in a row
	// collected no document (every URL they took was missing); 0 means
	// never. A run whose frontier holds only URLs the archive lacks would
	// otherwise go on until the frontier is empty.
	StopAfterEmptyRounds int `yaml:"stop_after_empty_rounds" min:"0"`
	// max_per_host: at most this many URLs of one host per round; 0 means
	// no limit.
	MaxPerHost int `yaml:"max_per_host" min:"0"`
	// allow: hosts or domains to extract from; empty allows every host. An
	// entry matches the host itself and all its subdomains.
	Allow []string `yaml:"allow,omitempty"`
	// deny: hosts or domains never to extract from; wins over Allow.
	Deny []string `yaml:"deny,omitempty"`
	// outlinks: which links of a document enter the frontier.
	Outlinks OutlinkScope `yaml:"outlinks"`
	// Focus holds the optional focusing methods beyond the paper's CT-F
	// (link_priority, link_dates, combine, temporal_intent,
	// follow_threshold, calibration_splits, max_depth, count_listing_pages:
	// top-level fields of the format); the defaults are the paper's method.
	Focus Focus `yaml:",inline"`
	// max_document_bytes: payloads are truncated to this many bytes before
	// text extraction (a number, or a size such as 5MiB).
	MaxDocumentBytes int64 `yaml:"max_document_bytes" spec:"bytes"`

	// languages: the languages with an analyzer of their own; a document in
	// another language is analysed as DefaultLanguage. Empty: the
	// languages named by reference documents, keywords and reference
	// vectors (see AllLanguages).
	Languages []string `yaml:"languages,omitempty"`
	// default_language: the fallback analyzer language.
	DefaultLanguage string `yaml:"default_language" spec:"nonempty"`
	// reference_vector_size: the number of top terms kept in a reference
	// vector computed from the reference documents.
	ReferenceVectorSize int `yaml:"reference_vector_size" min:"1"`
	// normalize: divide TopicR by the mean cosine of the reference documents
	// to their reference vector and clip to [0, 1] (method.md §2).
	Normalize bool `yaml:"normalize"`
	// dictionary: optional path of a term<TAB>idf file; without it the index
	// pipeline's document frequencies are used.
	Dictionary string `yaml:"dictionary,omitempty"`
	// DictionaryData is Dictionary's content as Load read it, from the
	// very file it checked, so that a file swapped after Load is never
	// read. nil when not loaded from a file; not part of the format.
	DictionaryData []byte `json:"-" yaml:"-"`

	// reference_vectors: precomputed reference vectors, language → term →
	// weight (≥ 0), used instead of computing them from the reference
	// documents (the original format ships them as referenceVectors).
	ReferenceVectors map[string]map[string]float64 `yaml:"reference_vectors,omitempty"`
	// correction_factors: precomputed normalisation divisors per language
	// (the mean cosine of the reference documents to their vector; the
	// original's correctionFactors). Empty: computed when Normalize is set.
	CorrectionFactors map[string]float64 `yaml:"correction_factors,omitempty"`

	// Path is the file the specification was loaded from ("" if parsed from
	// memory); not part of the format.
	Path string
	// Format is the format it was loaded from; not part of the format.
	Format Format
	// Warnings lists what the loader repaired or dropped (only in the
	// original format, which must load as published); not part of the format.
	Warnings []string
}

// Defaults returns the specification defaults; Parse starts from them, so
// this is the one place they are written down:
//
//   - strategy ctf and alpha 0.5: the paper's CT-F with topic and time
//     equally important (§5);
//   - target_size 100000: where the paper stopped each crawl (§7);
//   - batch_size 100: a round's fixed cost (a join with the snapshot index,
//     one pipeline stage) is shared by 100 fetches, while priorities are
//     still refreshed every 100 documents, so the collection stays close to
//     the sequential algorithm (K = 1); the paper's 100000 documents take
//     1000 rounds or more;
//   - max_rounds 0 (no limit) and max_per_host 0 (no limit): the paper's
//     loop stops only on target_size or an empty frontier;
//   - stop_after_empty_rounds 100: with the default batch_size that is
//     10,000 missing URLs in a row, which only a frontier the archive does
//     not hold produces;
//   - outlinks and the focus options (Focus) from PresetDefault (focus:
//     default): every link of the page, each ranked by its own evidence
//     (link_priority {parent: 0.1, anchor: 0.5, context: 0.4}), link_dates
//     false, combine max, listing pages followed but not counted, a
//     list's next pages with its priority, canonical copies followed
//     (method.md §3.5; focus:
//     paper is the paper's method: outlinks main, link_priority {parent:
//     1});
//   - max_document_bytes 5 MiB: larger HTML pages are rare and mostly
//     generated listings; truncation keeps one record from dominating memory;
//   - reference_vector_size 100, normalize true: as the original;
//   - no temporal_intent (its min_priority 0.4 when one is given), no
//     follow_threshold (calibration_splits 10 when it is auto), max_depth 0
//     (no limit);
//   - default_language: the first of languages, else of the reference
//     documents' languages, else of the keywords' languages, else "en" (this
//     one is derived in Parse, not set here);
//   - everything else empty; lead_time, cooldown_time, event.start, name and
//     a topical scope have no default and must be given.
func Defaults() Spec {
	outlinks, focus, _ := PresetValues(PresetDefault)
	return Spec{
		Strategy:             StrategyCTF,
		Alpha:                0.5,
		TargetSize:           100000,
		BatchSize:            100,
		MaxRounds:            0,
		StopAfterEmptyRounds: 100,
		MaxPerHost:           0,
		Outlinks:             outlinks,
		MaxDocumentBytes:     5 << 20,
		ReferenceVectorSize:  100,
		Normalize:            true,
		Focus:                focus,
	}
}

// MaxReferenceWeight is the largest weight of a term in reference_vectors.
// A tf·idf weight is at most a few hundred (70 in the authors' 31
// specifications); a weight beyond this is a mistake, and far larger ones
// overflow when squared.
const MaxReferenceWeight = 1e9

// MaxBatchSize is the largest batch_size: a URL's discovery order encodes
// its parent's rank in the round in 22 bits (internal/extract.Order).
const MaxBatchSize = 1<<22 - 1

// FallbackLanguage is the default_language when nothing in the
// specification names a language.
const FallbackLanguage = "en"

// A ReferenceDocument is one document of the topical scope: exactly one of
// URL (resolved through the snapshot index), File (a local file, HTML or plain
// text) or Text (inline text).
type ReferenceDocument struct {
	URL  string `json:"url,omitempty" yaml:"url,omitempty" spec:"nonempty"`
	File string `json:"file,omitempty" yaml:"file,omitempty" spec:"nonempty"`
	Text string `json:"text,omitempty" yaml:"text,omitempty" spec:"nonempty"`
	// Language of the document; not given: detected, else DefaultLanguage.
	Language string `json:"language,omitempty" yaml:"language,omitempty" spec:"nonempty"`
	// Data is File's content as Load read it, from the very file it
	// checked: at most max_document_bytes and one byte more (which says
	// the file is longer). nil when not loaded from a file; not part of
	// the format.
	Data []byte `json:"-" yaml:"-"`
}

// Event is the event interval [Start, End], End inclusive.
type Event struct {
	Start Bound `json:"start" yaml:"start" required:""`
	End   Bound `json:"end" yaml:"end"`
}

// EventInterval returns the event as the half-open interval [start, end) in
// UTC: start is the first instant of event.start; end is the first instant
// after event.end, i.e. the next midnight when event.end is a date (the whole
// end day is inside) and event.end plus one nanosecond when it is a date-time.
// A time t is inside the event iff !t.Before(start) && t.Before(end).
func (s *Spec) EventInterval() (start, end time.Time) {
	return s.Event.Start.First(), s.Event.End.After()
}

// InEvent reports whether t lies inside the event interval (end inclusive).
func (s *Spec) InEvent(t time.Time) bool {
	start, end := s.EventInterval()
	return !t.Before(start) && t.Before(end)
}

// Strategy is a frontier prioritisation (method.md §2).
type Strategy string

// The strategies of the paper.
const (
	StrategyCTF       Strategy = "ctf"       // TTR = alpha*TopicR + (1-alpha)*TempR
	StrategyCF        Strategy = "cf"        // TopicR only (alpha = 1)
	StrategyTF        Strategy = "tf"        // TempR only (alpha = 0)
	StrategyUnfocused Strategy = "unfocused" // breadth-first in discovery order
)

// Strategies lists the valid strategies.
var Strategies = []Strategy{StrategyCTF, StrategyCF, StrategyTF, StrategyUnfocused}

// Valid reports whether st is one of Strategies.
func (st Strategy) Valid() bool { return slices.Contains(Strategies, st) }

// EffectiveAlpha returns the weight of TopicR in TTR under the spec's
// strategy: Alpha for ctf, 1 for cf, 0 for tf. focused is false for
// unfocused, which uses no relevance at all; alpha is then 0 and meaningless.
func (s *Spec) EffectiveAlpha() (alpha float64, focused bool) {
	switch s.Strategy {
	case StrategyCF:
		return 1, true
	case StrategyTF:
		return 0, true
	case StrategyUnfocused:
		return 0, false
	default:
		return s.Alpha, true
	}
}

// RoundsExhausted reports whether max_rounds stops the extraction after
// completed rounds (never when MaxRounds is 0).
func (s *Spec) RoundsExhausted(completed int) bool {
	return s.MaxRounds > 0 && completed >= s.MaxRounds
}

// OutlinkScope says which links of an extracted document enter the frontier.
type OutlinkScope string

// The outlink scopes.
const (
	// OutlinksMain takes the links of the main content only, not those of
	// navigation, header, footer, sidebars and ads (method.md §3.5).
	OutlinksMain OutlinkScope = "main"
	// OutlinksAll takes every link of the page.
	OutlinksAll OutlinkScope = "all"
)

// SeedsFromReferences reports whether the seeds are to be derived from the
// outlinks of the reference documents (seeds is empty).
func (s *Spec) SeedsFromReferences() bool { return len(s.Seeds) == 0 }

// AllLanguages returns Languages if given, else every language the
// specification names (reference documents, keywords, reference vectors,
// correction factors), and always DefaultLanguage; sorted, without
// duplicates.
func (s *Spec) AllLanguages() []string {
	set := map[string]bool{s.DefaultLanguage: true}
	if len(s.Languages) > 0 {
		for _, l := range s.Languages {
			set[l] = true
		}
	} else {
		for _, d := range s.ReferenceDocuments {
			if d.Language != "" {
				set[d.Language] = true
			}
		}
		for l := range s.Keywords {
			if l != AllLanguages {
				set[l] = true
			}
		}
		for l := range s.ReferenceVectors {
			set[l] = true
		}
		for l := range s.CorrectionFactors {
			set[l] = true
		}
	}
	delete(set, "")
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// AnalyzerLanguage returns the language whose analyzer is used for a document
// detected as lang: lang itself if it is one of AllLanguages, else
// DefaultLanguage (method.md §2).
func (s *Spec) AnalyzerLanguage(lang string) string {
	if lang != "" && slices.Contains(s.AllLanguages(), lang) {
		return lang
	}
	return s.DefaultLanguage
}

// AllLanguages is the Keywords key for keywords that apply to every language.
const AllLanguages = "*"

// Keywords maps a language (or AllLanguages) to its keywords, in the order
// written.
type Keywords map[string][]string

// For returns the keywords that apply to documents in lang: those for all
// languages followed by those for lang, without duplicates.
func (k Keywords) For(lang string) []string {
	var out []string
	seen := map[string]bool{}
	for _, key := range []string{AllLanguages, lang} {
		for _, w := range k[key] {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
		if lang == AllLanguages {
			break
		}
	}
	return out
}

// Len returns the number of keywords over all languages.
func (k Keywords) Len() int {
	n := 0
	for _, ws := range k {
		n += len(ws)
	}
	return n
}

// Format is a specification file format.
type Format string

// The formats Load understands.
const (
	FormatYAML     Format = "yaml"     // this package's format in YAML
	FormatJSON     Format = "json"     // this package's format in JSON
	FormatOriginal Format = "original" // the original authors' JSON
)

// MaxKeywords is the most keywords a specification may have, over all
// languages: the authors' 31 specifications have 119 to 1,318.
const MaxKeywords = 20000

// decodeNode reads a list (keywords for all languages) or a mapping from
// language, or "*", to a list; more than MaxKeywords is one problem, found
// before any keyword is decoded.
func (k *Keywords) decodeNode(d *decoder, n *yaml.Node, path string) {
	if count := keywordNodes(n); count > MaxKeywords {
		d.add(n, path, "%d keywords, more than the %d a specification may have", count, MaxKeywords)
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		var all []string
		d.list(n, reflect.ValueOf(&all).Elem(), path)
		*k = Keywords{AllLanguages: all}
	case yaml.MappingNode:
		var m map[string][]string
		d.entries(n, reflect.ValueOf(&m).Elem(), path)
		*k = m
	default:
		d.add(n, path, "expected a list of keywords or a mapping from language (or \"*\") to keywords, not a %s", kindName(n))
	}
}

// keywordNodes counts the items of a keyword list, or of the lists of a
// mapping from language to keywords.
func keywordNodes(n *yaml.Node) int {
	switch n.Kind {
	case yaml.SequenceNode:
		return len(n.Content)
	case yaml.MappingNode:
		count := 0
		for i := 1; i < len(n.Content); i += 2 {
			if v := resolve(n.Content[i]); v != nil && v.Kind == yaml.SequenceNode {
				count += len(v.Content)
			}
		}
		return count
	}
	return 0
}

// canonical is how Keywords are written: a plain list when they are for
// all languages only.
func (k Keywords) canonical() any {
	if all, ok := k[AllLanguages]; ok && len(k) == 1 {
		return all
	}
	return map[string][]string(k)
}

// MarshalYAML writes keywords for all languages only as a list.
func (k Keywords) MarshalYAML() (any, error) { return k.canonical(), nil }

// MarshalJSON writes keywords for all languages only as a list.
func (k Keywords) MarshalJSON() ([]byte, error) { return json.Marshal(k.canonical()) }

// ByteSize is a number of bytes, written as a whole number or with a unit:
// B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024). An
// int64 field tagged spec:"bytes" is read as a ByteSize.
type ByteSize int64

// UnmarshalText parses a size such as 5242880, 5MiB or 500KB.
func (b *ByteSize) UnmarshalText(p []byte) error {
	n, err := parseSize(string(p))
	if err != nil {
		return err
	}
	*b = ByteSize(n)
	return nil
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
