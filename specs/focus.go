package specs

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Focus holds the focusing methods of the related systems (seeds 001
// ARCOMEM, 002 Klein et al., 004 Wu & Hou) that a specification can use.
// Its defaults come from a preset (focus: default or paper, PresetValues);
// the fields given in the specification change the preset's values.
type Focus struct {
	// focus: the preset the other focus fields (and outlinks) start from
	// (written when not the default).
	Preset Preset `yaml:"focus,omitempty" spec:"omitdefault"`
	// link_priority: the priority of each outlink is
	// parent·relevance(parent) + anchor·TopicR(anchor text) +
	// context·TopicR(paragraph around the link), the parent's relevance
	// taken with the link's TempR (see LinkDates). Wu & Hou use parent
	// 0.4, anchor 0.6; the paper is parent 1. Weights not given are 0;
	// not given at all: the preset's.
	LinkPriority LinkPriority `yaml:"link_priority" spec:"omitdefault"`
	// link_dates: a date in an outlink's URL (/2009/09/27/, 20090927,
	// /2009/09/) gives the link its own TempR before it is fetched (Wu &
	// Hou); links without one take their parent's document time.
	LinkDates bool `yaml:"link_dates" spec:"omitdefault"`
	// combine: how the priorities an outlink receives from several parents
	// combine: max (the paper), average or last (ARCOMEM found average best
	// for the harvest rate).
	Combine Combine `yaml:"combine,omitempty" spec:"omitdefault"`
	// temporal_intent: a monthly distribution of interest in the event; the
	// priority p of a link dated in month m is multiplied by
	// exp(λ_m / max λ) when p ≥ min_priority (Wu & Hou's δ).
	TemporalIntent TemporalIntent `yaml:"temporal_intent,omitempty"`
	// follow_threshold: the relevance gate of Klein et al.: only documents
	// whose TTR is at or above the threshold have their outlinks followed;
	// seeds and listing pages are exempt (they are judged by their links).
	// A number, or "auto" to calibrate it from the reference documents
	// (CalibrationSplits random 60/40 splits).
	FollowThreshold FollowThreshold `yaml:"follow_threshold,omitempty"`
	// calibration_splits: the number of random splits of an automatic
	// follow_threshold (written only then).
	CalibrationSplits int `yaml:"calibration_splits" min:"1" spec:"omitdefault"`
	// max_depth: outlinks deeper than this many links from a seed do not
	// enter the frontier; 0 means no limit.
	MaxDepth int `yaml:"max_depth" min:"0" spec:"omitdefault"`
	// count_listing_pages: false follows listing pages (home, section, tag
	// pages: many links, little own text) without counting them in the
	// collection, so that target_size buys articles (they are written to
	// listings.jsonl instead of documents.jsonl).
	CountListingPages bool `yaml:"count_listing_pages" spec:"omitdefault"`
	// follow_canonical: a page whose <link rel="canonical"> names another
	// URL (a print or AMP copy, a tracking-parameter variant) is a copy:
	// the canonical URL enters the frontier in its place, with its
	// priority, as a redirect's target does, and the copy is not
	// collected (missing.jsonl, reason canonical-copy). A page reached
	// through a canonical link is collected whatever its own canonical
	// says, so that two pages naming each other are not both lost.
	FollowCanonical bool `yaml:"follow_canonical" spec:"omitdefault"`
	// follow_pagination: a listing page's link to another page of the
	// same list (?page=2, /page/3/: document.SamePagedList) gets the
	// listing page's own priority, at least: the list goes on with the
	// interest it was read with, though "2" or "next" names no topic.
	FollowPagination bool `yaml:"follow_pagination" spec:"omitdefault"`
	// discount_template_links: a URL that five or more fetched pages of
	// its own host link to is a template link of the site ("most read",
	// latest news, footer link farms: the same links on every page) and is
	// ranked with half its priority (extract.Entry.SelectionPriority): the
	// parent's relevance and the paragraph around such a link say nothing
	// about where it leads. Off in both presets: under the default's link
	// priority such a link is ranked mostly by its own anchor, and with
	// the date discounts the halving lowered the mean P@R on every event
	// it changed, on both archive families (docs/focus.md).
	DiscountTemplateLinks bool `yaml:"discount_template_links" spec:"omitdefault"`
	// discount_pre_event_links: an outlink whose URL's first usable capture
	// (HTTP 200 HTML) in the archives is well before the event's start
	// leads to a page that existed before the event (the first capture is
	// an upper bound on a page's publication date), so it is unlikely to
	// be about it, and is ranked lower (pre_event_rule;
	// extract.Entry.SelectionPriority). Each URL is looked up in the
	// snapshot index once, when it first enters the frontier; seeds are
	// exempt.
	DiscountPreEventLinks bool `yaml:"discount_pre_event_links" spec:"omitdefault"`
	// pre_event_rule: how discount_pre_event_links ranks a pre-event link:
	// step (the default): a quarter of its priority when the first capture
	// is more than two lead_times before the start, else nothing; tempr:
	// its priority times the TempR of its first capture when that is
	// before the start (an upper bound on the page's own TempR; measured
	// below step on the generated archives).
	PreEventRule PreEventRule `yaml:"pre_event_rule,omitempty" spec:"omitdefault"`
	// discount_post_event_links: an outlink whose URL carries a date
	// (/2009/09/27/, 20090927, /2009/09/) more than two cooldown_times
	// after the event's end leads to a page published long after the
	// event, most often about another one, and is ranked with a quarter
	// of its priority (the TempR at that threshold). A URL's date is
	// where a link's page was filed, so no look-up is needed; a link
	// without one is ranked as before.
	DiscountPostEventLinks bool `yaml:"discount_post_event_links" spec:"omitdefault"`
	// learn_links: learn during the crawl which links lead to relevant
	// pages (an online apprentice over the target URL's host, words and
	// path shape and the anchor's words, trained on the pages fetched in
	// earlier rounds) and mix its prediction into every outlink's
	// priority. Needs rounds_per_job 1 with the Beam engine.
	LearnLinks bool `yaml:"learn_links" spec:"omitdefault"`
	// feedback: relevance feedback during the crawl (Rocchio): after every
	// round the documents collected so far with the highest relevance
	// (documents of them; relevance above 0; ties: the earlier) move the
	// reference vector towards their words, q' = q/|q| + beta·mean(d/|d|)
	// − gamma·mean of the as many least relevant documents, and later
	// links are scored against q': their anchor and context texts, and
	// with parent also their parent's topical term. The documents' own
	// scores (topic_r, ttr, relevance) stay those against the
	// specification's reference vector. Needs rounds_per_job 1 with the
	// Beam engine.
	Feedback Feedback `yaml:"feedback,omitempty"`
	// look_ahead: each round reads the chosen capture of look_ahead times
	// batch_size frontier URLs (the best by link priority), scores them,
	// and keeps the batch_size documents of highest topical relevance
	// (TopicR); the documents it does not keep go back to the frontier,
	// ranked by their TopicR, neither collected nor followed until a round
	// keeps them. Missing URLs, redirects and listing pages among them are
	// kept, as without look-ahead. 0 and 1: no look-ahead. It costs
	// look_ahead − 1 extra reads per kept URL. max_per_host caps the
	// URLs a round reads, and so those it keeps. The unfocused strategy
	// ignores it.
	LookAhead int `yaml:"look_ahead" min:"0" max:"64" spec:"omitdefault"`
}

// Feedback are the parameters of relevance feedback (Focus.Feedback).
type Feedback struct {
	// Documents is the number of relevant (and non-relevant) documents
	// fed back; 0 turns feedback off.
	Documents int `json:"documents" yaml:"documents" min:"0" max:"1000"`
	// Beta weighs the relevant documents (DefaultFeedbackBeta when not
	// given), Gamma the non-relevant ones (0: none).
	Beta  float64 `json:"beta" yaml:"beta"`
	Gamma float64 `json:"gamma" yaml:"gamma"`
	// Parent: q' also scores the parent's topical relevance in a link's
	// priority (true when not given); false: only the link's texts.
	Parent bool `json:"parent" yaml:"parent"`
}

// IsZero reports whether feedback is off (nothing to write).
func (f Feedback) IsZero() bool { return f.Documents == 0 }

// DefaultFeedbackBeta is Rocchio's β of a feedback that gives none.
const DefaultFeedbackBeta = 0.5

// Preset names a set of focusing defaults (specification field focus).
type Preset string

// The presets.
const (
	// PresetDefault follows every link a reader could follow (outlinks:
	// all) and ranks each by its own evidence: link_priority {parent:
	// 0.1, anchor: 0.5, context: 0.4}. Listing pages are followed but not
	// counted (count_listing_pages false: the same pages are fetched in the
	// same order, only they leave the collection), the next pages of a
	// list keep its priority (follow_pagination), and a page whose
	// canonical link names another URL is a copy whose canonical is
	// followed instead (follow_canonical), and a link to a page first
	// captured more than two lead_times before the event is ranked with a
	// quarter of its priority (discount_pre_event_links), as is a link
	// whose URL is dated more than two cooldown_times after its end
	// (discount_post_event_links). Links a host repeats on its pages are
	// ranked as any other (discount_template_links false: with the date
	// discounts, the halving lowered P@R on every event it changed).
	// Measured on an independent
	// archive of real news text and on every site template of the
	// generated archive (docs/focus.md).
	PresetDefault Preset = "default"
	// PresetPaper is the paper's CT-F, reproduced exactly: main-content
	// outlinks only, each with its parent's relevance (max over parents),
	// listing pages counted. On sites whose links between articles sit in
	// "related stories" boxes it runs dry after its seeds.
	PresetPaper Preset = "paper"
)

// PresetValues returns the outlink scope and the focusing options of a
// preset (ok false for an unknown name).
func PresetValues(p Preset) (OutlinkScope, Focus, bool) {
	f := Focus{Preset: p, Combine: CombineMax, TemporalIntent: TemporalIntent{MinPriority: DefaultIntentMinPriority},
		CalibrationSplits: DefaultCalibrationSplits, CountListingPages: true, PreEventRule: PreEventStep,
		Feedback: Feedback{Beta: DefaultFeedbackBeta, Parent: true}}
	switch p {
	case PresetDefault:
		f.LinkPriority = LinkPriority{Parent: 0.1, Anchor: 0.5, Context: 0.4}
		f.CountListingPages = false
		f.FollowCanonical = true
		f.FollowPagination = true
		f.DiscountPreEventLinks = true
		f.DiscountPostEventLinks = true
		return OutlinksAll, f, true
	case PresetPaper:
		f.LinkPriority = PaperLinkPriority
		return OutlinksMain, f, true
	}
	return "", Focus{}, false
}

// UsePreset sets the outlink scope and the focusing options of s to those
// of preset p, except the fields given (by specification field name).
func (s *Spec) UsePreset(p Preset, given func(field string) bool) {
	outlinks, f, ok := PresetValues(p)
	if !ok {
		return
	}
	s.Focus.Preset = p
	set := func(field string, apply func()) {
		if given == nil || !given(field) {
			apply()
		}
	}
	set("outlinks", func() { s.Outlinks = outlinks })
	set("link_priority", func() { s.Focus.LinkPriority = f.LinkPriority })
	set("link_dates", func() { s.Focus.LinkDates = f.LinkDates })
	set("combine", func() { s.Focus.Combine = f.Combine })
	set("count_listing_pages", func() { s.Focus.CountListingPages = f.CountListingPages })
	set("follow_canonical", func() { s.Focus.FollowCanonical = f.FollowCanonical })
	set("follow_pagination", func() { s.Focus.FollowPagination = f.FollowPagination })
	set("discount_template_links", func() { s.Focus.DiscountTemplateLinks = f.DiscountTemplateLinks })
	set("discount_pre_event_links", func() { s.Focus.DiscountPreEventLinks = f.DiscountPreEventLinks })
	set("pre_event_rule", func() { s.Focus.PreEventRule = f.PreEventRule })
	set("discount_post_event_links", func() { s.Focus.DiscountPostEventLinks = f.DiscountPostEventLinks })
}

// DefaultCalibrationSplits is Klein et al.'s number of 60/40 splits.
const DefaultCalibrationSplits = 10

// DefaultIntentMinPriority is Wu & Hou's δ.
const DefaultIntentMinPriority = 0.4

// IsPaper reports whether f is the paper's method: no option changes what
// outlinks get or which are followed.
func (f Focus) IsPaper() bool {
	return f.LinkPriority.IsPaper() && !f.LinkDates && (f.Combine == "" || f.Combine == CombineMax) &&
		len(f.TemporalIntent.Months) == 0 && !f.FollowThreshold.Set() && f.MaxDepth == 0 && f.CountListingPages &&
		!f.FollowCanonical && !f.FollowPagination && !f.DiscountTemplateLinks && !f.DiscountPreEventLinks && !f.DiscountPostEventLinks && !f.LearnLinks && f.Feedback.IsZero() && f.LookAhead <= 1
}

// LinkPriority weighs the parts of an outlink's priority.
type LinkPriority struct {
	Parent  float64 `json:"parent" yaml:"parent"`
	Anchor  float64 `json:"anchor" yaml:"anchor"`
	Context float64 `json:"context" yaml:"context"`
}

// PaperLinkPriority gives every outlink its parent's relevance.
var PaperLinkPriority = LinkPriority{Parent: 1}

// IsPaper reports whether the weights are the paper's (parent only, 1).
func (w LinkPriority) IsPaper() bool { return w == PaperLinkPriority }

// UsesText reports whether an outlink's anchor or context text is scored.
func (w LinkPriority) UsesText() bool { return w.Anchor > 0 || w.Context > 0 }

// Combine says how priorities from several parents combine.
type Combine string

// The combinations.
const (
	CombineMax     Combine = "max"
	CombineAverage Combine = "average"
	CombineLast    Combine = "last"
)

// PreEventRule says how discount_pre_event_links ranks a pre-event link.
type PreEventRule string

// The rules.
const (
	// PreEventStep: a link first captured more than two lead_times before
	// the start, times a quarter (the TempR at that threshold).
	PreEventStep PreEventRule = "step"
	// PreEventTempR: a link first captured before the event's start,
	// times the TempR of its first capture.
	PreEventTempR PreEventRule = "tempr"
)

// TemporalIntent is a monthly distribution of interest in the event.
type TemporalIntent struct {
	// Months maps "YYYY-MM" to a non-negative weight λ.
	Months map[string]float64 `json:"months,omitempty" yaml:"months,omitempty" required:"at least one month with a positive weight, e.g. {2009-09: 10}"`
	// MinPriority is δ: links with a lower priority are not boosted
	// (DefaultIntentMinPriority when not given).
	MinPriority float64 `json:"min_priority" yaml:"min_priority"`
}

// Factor returns the boost of a link dated t with priority p: exp(λ/max λ)
// for the month of t, or 1 when there is no distribution, p < MinPriority,
// t is zero or its month has no weight.
func (ti TemporalIntent) Factor(p float64, t time.Time) float64 {
	if len(ti.Months) == 0 || t.IsZero() || p < ti.MinPriority {
		return 1
	}
	lambda := ti.Months[t.UTC().Format("2006-01")]
	peak := ti.Peak()
	if lambda <= 0 || peak <= 0 {
		return 1
	}
	return math.Exp(lambda / peak)
}

// Peak is the largest weight of the distribution, max λ (0 without one).
func (ti TemporalIntent) Peak() float64 {
	peak := 0.0
	for _, v := range ti.Months {
		peak = max(peak, v)
	}
	return peak
}

// FollowThreshold is a fixed relevance gate or one to calibrate.
type FollowThreshold struct {
	Auto  bool
	Value float64 // when not Auto; 0 with Auto false means no gate
}

// Set reports whether a gate is configured.
func (t FollowThreshold) Set() bool { return t.Auto || t.Value > 0 }

// String is the YAML value: "auto", the number, or "" for none.
func (t FollowThreshold) String() string {
	switch {
	case t.Auto:
		return "auto"
	case t.Value > 0:
		return strconv.FormatFloat(t.Value, 'g', -1, 64)
	}
	return ""
}

var monthPattern = regexp.MustCompile(`^(19|20)[0-9]{2}-(0[1-9]|1[0-2])$`)

// decodeNode reads the weights; a weight not given is 0.
func (w *LinkPriority) decodeNode(d *decoder, n *yaml.Node, path string) {
	*w = LinkPriority{}
	d.fields(n, reflect.ValueOf(w).Elem(), path)
}

// IsZero reports whether there is no distribution (nothing to write).
func (ti TemporalIntent) IsZero() bool { return len(ti.Months) == 0 }

// IsZero reports whether no gate is configured (nothing to write).
func (t FollowThreshold) IsZero() bool { return !t.Set() }

// decodeNode reads "auto" or a number in [0, 1].
func (t *FollowThreshold) decodeNode(d *decoder, n *yaml.Node, path string) {
	s, ok := d.scalar(n, path)
	if !ok {
		return
	}
	if s == "auto" {
		*t = FollowThreshold{Auto: true}
		return
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
		d.add(n, path, "%q is neither \"auto\" nor a number in [0, 1]", s)
		return
	}
	*t = FollowThreshold{Value: x}
}

// value is the threshold as written: "auto" or the number.
func (t FollowThreshold) value() any {
	if t.Auto {
		return "auto"
	}
	return t.Value
}

// MarshalYAML writes "auto" or the number.
func (t FollowThreshold) MarshalYAML() (any, error) { return t.value(), nil }

// MarshalJSON writes "auto" or the number.
func (t FollowThreshold) MarshalJSON() ([]byte, error) { return json.Marshal(t.value()) }

// String describes the options that differ from the paper, for logs.
func (f Focus) String() string {
	if f.IsPaper() {
		return "paper"
	}
	var parts []string
	if !f.LinkPriority.IsPaper() {
		parts = append(parts, fmt.Sprintf("link_priority=%g/%g/%g", f.LinkPriority.Parent, f.LinkPriority.Anchor, f.LinkPriority.Context))
	}
	if f.LinkDates {
		parts = append(parts, "link_dates")
	}
	if f.Combine != CombineMax {
		parts = append(parts, "combine="+string(f.Combine))
	}
	if len(f.TemporalIntent.Months) > 0 {
		parts = append(parts, "temporal_intent")
	}
	if f.FollowThreshold.Set() {
		parts = append(parts, "follow_threshold="+f.FollowThreshold.String())
	}
	if f.MaxDepth > 0 {
		parts = append(parts, fmt.Sprintf("max_depth=%d", f.MaxDepth))
	}
	if !f.CountListingPages {
		parts = append(parts, "count_listing_pages=false")
	}
	if f.FollowCanonical {
		parts = append(parts, "follow_canonical")
	}
	if f.FollowPagination {
		parts = append(parts, "follow_pagination")
	}
	if f.DiscountTemplateLinks {
		parts = append(parts, "discount_template_links")
	}
	if f.DiscountPreEventLinks {
		parts = append(parts, "discount_pre_event_links")
		if f.PreEventRule != PreEventStep {
			parts = append(parts, "pre_event_rule="+string(f.PreEventRule))
		}
	}
	if f.DiscountPostEventLinks {
		parts = append(parts, "discount_post_event_links")
	}
	if f.LearnLinks {
		parts = append(parts, "learn_links")
	}
	if f.LookAhead > 1 {
		parts = append(parts, fmt.Sprintf("look_ahead=%d", f.LookAhead))
	}
	if !f.Feedback.IsZero() {
		fb := f.Feedback
		parts = append(parts, fmt.Sprintf("feedback=%d/%g/%g/parent=%t", fb.Documents, fb.Beta, fb.Gamma, fb.Parent))
	}
	return fmt.Sprint(parts)
}
