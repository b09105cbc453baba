package specs

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Focus holds the focusing methods of the related systems (seeds 001
// ARCOMEM, 002 Klein et al., 004 Wu & Hou) that a specification can use.
// Its defaults come from a preset (focus: default or paper, PresetValues);
// the fields given in the specification change the preset's values.
type Focus struct {
	// focus: the preset the other focus fields (and outlinks) start from.
	Preset Preset
	// link_priority: the priority of each outlink is
	// parent·relevance(parent) + anchor·TopicR(anchor text) +
	// context·TopicR(paragraph around the link), the parent's relevance
	// taken with the link's TempR (see LinkDates). Wu & Hou use parent
	// 0.4, anchor 0.6. Zero value: parent 1, the paper.
	LinkPriority LinkPriority
	// link_dates: a date in an outlink's URL (/2009/09/27/, 20090927,
	// /2009/09/) gives the link its own TempR before it is fetched (Wu &
	// Hou); links without one take their parent's document time.
	LinkDates bool
	// combine: how the priorities an outlink receives from several parents
	// combine: max (the paper), average or last (ARCOMEM found average best
	// for the harvest rate).
	Combine Combine
	// temporal_intent: a monthly distribution of interest in the event; the
	// priority p of a link dated in month m is multiplied by
	// exp(λ_m / max λ) when p ≥ min_priority (Wu & Hou's δ).
	TemporalIntent TemporalIntent
	// follow_threshold: the relevance gate of Klein et al.: only documents
	// whose TTR is at or above the threshold have their outlinks followed;
	// seeds and listing pages are exempt (they are judged by their links). A number, or "auto" to calibrate it from the
	// reference documents (CalibrationSplits random 60/40 splits).
	FollowThreshold FollowThreshold
	// calibration_splits: the number of random splits of an automatic
	// follow_threshold.
	CalibrationSplits int
	// max_depth: outlinks deeper than this many links from a seed do not
	// enter the frontier; 0 means no limit.
	MaxDepth int
	// count_listing_pages: false follows listing pages (home, section, tag
	// pages: many links, little own text) without counting them in the
	// collection, so that target_size buys articles (they are written to
	// listings.jsonl instead of documents.jsonl).
	CountListingPages bool
}

// Preset names a set of focusing defaults (specification field focus).
type Preset string

// The presets.
const (
	// PresetDefault follows every link a reader could follow (outlinks:
	// all) and ranks each by its own evidence: link_priority {parent:
	// 0.1, anchor: 0.5, context: 0.4}, listing pages counted. Measured on
	// an independent archive of real news text and on every site template
	// of the generated archive (README §6), it was the most robust choice;
	// the further options of the generator's best combination (link_dates,
	// combine: average, count_listing_pages: false) lost on the real
	// archive.
	PresetDefault Preset = "default"
	// PresetPaper is the paper's CT-F, reproduced exactly: main-content
	// outlinks only, each with its parent's relevance (max over parents),
	// listing pages counted. On sites whose links between articles sit in
	// "related stories" boxes it runs dry after its seeds.
	PresetPaper Preset = "paper"
)

// presetFields are the specification fields a preset sets.
var presetFields = []string{"outlinks", "link_priority", "link_dates", "combine", "count_listing_pages"}

// PresetValues returns the outlink scope and the focusing options of a
// preset (ok false for an unknown name).
func PresetValues(p Preset) (OutlinkScope, Focus, bool) {
	f := Focus{Preset: p, Combine: CombineMax, CalibrationSplits: DefaultCalibrationSplits, CountListingPages: true}
	switch p {
	case PresetDefault:
		f.LinkPriority = LinkPriority{Parent: 0.1, Anchor: 0.5, Context: 0.4}
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
}

// DefaultCalibrationSplits is Klein et al.'s number of 60/40 splits.
const DefaultCalibrationSplits = 10

// DefaultIntentMinPriority is Wu & Hou's δ.
const DefaultIntentMinPriority = 0.4

// IsPaper reports whether f is the paper's method: no option changes what
// outlinks get or which are followed.
func (f Focus) IsPaper() bool {
	return f.LinkPriority.IsPaper() && !f.LinkDates && (f.Combine == "" || f.Combine == CombineMax) &&
		len(f.TemporalIntent.Months) == 0 && !f.FollowThreshold.Set() && f.MaxDepth == 0 && f.CountListingPages
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

// TemporalIntent is a monthly distribution of interest in the event.
type TemporalIntent struct {
	// Months maps "YYYY-MM" to a non-negative weight λ.
	Months map[string]float64 `json:"months,omitempty" yaml:"months,omitempty"`
	// MinPriority is δ: links with a lower priority are not boosted.
	MinPriority float64 `json:"min_priority,omitempty" yaml:"min_priority,omitempty"`
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

// focusHandlers decodes the focus fields of the top level into f.
func (d *decoder) focusHandlers(f *Focus) map[string]func(v *yaml.Node) {
	return map[string]func(v *yaml.Node){
		"focus": func(v *yaml.Node) {
			if s, ok := d.str(v, "focus"); ok {
				f.Preset = Preset(s)
				if _, _, known := PresetValues(f.Preset); !known {
					d.add(v, "focus: %q is not one of %s, %s", s, PresetDefault, PresetPaper)
				}
			}
		},
		"link_priority": func(v *yaml.Node) {
			w := LinkPriority{}
			weight := func(field string, dst *float64) func(v *yaml.Node) {
				return func(v *yaml.Node) {
					if x, ok := d.number(v, field); ok {
						if x < 0 {
							d.add(v, "%s: %v is negative", field, x)
						}
						*dst = x
					}
				}
			}
			d.fields(v, "link_priority", map[string]func(v *yaml.Node){
				"parent":  weight("link_priority.parent", &w.Parent),
				"anchor":  weight("link_priority.anchor", &w.Anchor),
				"context": weight("link_priority.context", &w.Context),
			})
			if w.Parent+w.Anchor+w.Context <= 0 {
				d.add(v, "link_priority: at least one of parent, anchor and context must be positive (Wu & Hou use parent 0.4, anchor 0.6)")
			}
			f.LinkPriority = w
		},
		"link_dates": func(v *yaml.Node) {
			if b, ok := d.boolean(v, "link_dates"); ok {
				f.LinkDates = b
			}
		},
		"combine": func(v *yaml.Node) {
			if s, ok := d.str(v, "combine"); ok {
				f.Combine = Combine(s)
				if !slices.Contains([]Combine{CombineMax, CombineAverage, CombineLast}, f.Combine) {
					d.add(v, "combine: %q is not one of max, average, last", s)
				}
			}
		},
		"temporal_intent": func(v *yaml.Node) {
			ti := TemporalIntent{MinPriority: DefaultIntentMinPriority}
			d.fields(v, "temporal_intent", map[string]func(v *yaml.Node){
				"months": func(v *yaml.Node) {
					ti.Months = map[string]float64{}
					d.entries(v, "temporal_intent.months", func(k, v *yaml.Node) {
						field := "temporal_intent.months." + k.Value
						if !monthPattern.MatchString(k.Value) {
							d.add(k, "%s: %q is not a month such as 2009-09", "temporal_intent.months", k.Value)
							return
						}
						if x, ok := d.number(v, field); ok {
							if x < 0 {
								d.add(v, "%s: %v is negative", field, x)
							}
							ti.Months[k.Value] = x
						}
					})
				},
				"min_priority": func(v *yaml.Node) {
					if x, ok := d.number(v, "temporal_intent.min_priority"); ok {
						ti.MinPriority = x
					}
				},
			})
			if ti.Peak() <= 0 {
				d.add(v, "temporal_intent.months: needs at least one month with a positive weight, e.g. {2009-09: 10}")
			}
			f.TemporalIntent = ti
		},
		"follow_threshold": func(v *yaml.Node) {
			s, ok := d.str(v, "follow_threshold")
			if !ok {
				return
			}
			if s == "auto" {
				f.FollowThreshold = FollowThreshold{Auto: true}
				return
			}
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
				d.add(v, "follow_threshold: %q is neither \"auto\" nor a number in [0, 1]", s)
				return
			}
			f.FollowThreshold = FollowThreshold{Value: x}
		},
		"calibration_splits": func(v *yaml.Node) {
			f.CalibrationSplits = d.intField(v, "calibration_splits", 1, f.CalibrationSplits)
		},
		"max_depth": func(v *yaml.Node) { f.MaxDepth = d.intField(v, "max_depth", 0, f.MaxDepth) },
		"count_listing_pages": func(v *yaml.Node) {
			if b, ok := d.boolean(v, "count_listing_pages"); ok {
				f.CountListingPages = b
			}
		},
	}
}

// focusFile is the focus part of the canonical layout: the preset (when
// not the default) and what differs from it.
type focusFile struct {
	Preset            Preset          `json:"focus,omitempty" yaml:"focus,omitempty"`
	LinkPriority      *LinkPriority   `json:"link_priority,omitempty" yaml:"link_priority,omitempty"`
	LinkDates         *bool           `json:"link_dates,omitempty" yaml:"link_dates,omitempty"`
	Combine           Combine         `json:"combine,omitempty" yaml:"combine,omitempty"`
	TemporalIntent    *TemporalIntent `json:"temporal_intent,omitempty" yaml:"temporal_intent,omitempty"`
	FollowThreshold   any             `json:"follow_threshold,omitempty" yaml:"follow_threshold,omitempty"`
	CalibrationSplits int             `json:"calibration_splits,omitempty" yaml:"calibration_splits,omitempty"`
	MaxDepth          int             `json:"max_depth,omitempty" yaml:"max_depth,omitempty"`
	CountListingPages *bool           `json:"count_listing_pages,omitempty" yaml:"count_listing_pages,omitempty"`
}

func (f Focus) toFile() focusFile {
	_, base, ok := PresetValues(f.Preset)
	if !ok {
		_, base, _ = PresetValues(PresetDefault)
	}
	out := focusFile{MaxDepth: f.MaxDepth}
	if base.Preset != PresetDefault {
		out.Preset = base.Preset
	}
	if f.LinkPriority != base.LinkPriority {
		w := f.LinkPriority
		out.LinkPriority = &w
	}
	if f.LinkDates != base.LinkDates {
		b := f.LinkDates
		out.LinkDates = &b
	}
	if f.Combine != base.Combine {
		out.Combine = f.Combine
	}
	if len(f.TemporalIntent.Months) > 0 {
		ti := f.TemporalIntent
		out.TemporalIntent = &ti
	}
	switch {
	case f.FollowThreshold.Auto:
		out.FollowThreshold = "auto"
	case f.FollowThreshold.Value > 0:
		out.FollowThreshold = f.FollowThreshold.Value
	}
	if f.FollowThreshold.Auto && f.CalibrationSplits != DefaultCalibrationSplits {
		out.CalibrationSplits = f.CalibrationSplits
	}
	if f.CountListingPages != base.CountListingPages {
		b := f.CountListingPages
		out.CountListingPages = &b
	}
	return out
}

// checkFocus checks rules across focus fields.
func (d *decoder) checkFocus(s *Spec, root *yaml.Node) {
	given := map[string]bool{}
	if root = resolve(root); root != nil && root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			given[root.Content[i].Value] = !isNull(resolve(root.Content[i+1]))
		}
	}
	if s.Focus.Preset != PresetDefault {
		s.UsePreset(s.Focus.Preset, func(field string) bool { return given[field] })
	}
	if s.Strategy == StrategyUnfocused && given["link_priority"] && !s.Focus.LinkPriority.IsPaper() {
		d.add(root, "link_priority: the unfocused strategy uses no priorities; remove link_priority or choose ctf, cf or tf")
	}
	if s.Focus.FollowThreshold.Auto && len(s.ReferenceDocuments) < 2 {
		d.add(root, "follow_threshold: auto needs at least 2 reference documents to split into 60%% and 40%% (have %d)", len(s.ReferenceDocuments))
	}
}

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
	return fmt.Sprint(parts)
}
