package evaluate

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/report"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

// OptionsDir is where `eval --options` writes its extractions.
const OptionsDir = "options"

// RecallCutoff is the n of the options comparison's recall at n.
const RecallCutoff = 200

// A FocusVariant is one row of the options comparison: a strategy and
// changes to the specification's focusing options (specs.Focus).
type FocusVariant struct {
	Name        string
	Description string
	Strategy    string // "" keeps the spec's (ctf by default)
	Apply       func(s *specs.Spec)
	// Oracle marks the label oracle (OracleVariant): its extraction is
	// the graph crawl, and its row the oracle's collection on that graph.
	Oracle bool
	// Researcher (After > 0) makes the row a simulated researcher's
	// (researcher.go): the default, labelled after After documents.
	Researcher Researcher
}

// The building blocks of the variants: each is one option of the seeds,
// with the parameters their authors used. The paper's rows and the rows of
// one option start from the paper's preset (focus: paper), so that each
// measures that option alone; "default" and its candidates start from the
// specification as given (the default preset unless it names another).
var (
	paper       = func(s *specs.Spec) { s.UsePreset(specs.PresetPaper, nil) }
	anchorLinks = func(s *specs.Spec) { s.Focus.LinkPriority = specs.LinkPriority{Parent: 0.4, Anchor: 0.6} }
	anchorCtx   = func(s *specs.Spec) {
		s.Focus.LinkPriority = specs.LinkPriority{Parent: 0.1, Anchor: 0.5, Context: 0.4}
	}
	linkDates    = func(s *specs.Spec) { s.Focus.LinkDates = true }
	average      = func(s *specs.Spec) { s.Focus.Combine = specs.CombineAverage }
	last         = func(s *specs.Spec) { s.Focus.Combine = specs.CombineLast }
	intent       = func(s *specs.Spec) { s.Focus.TemporalIntent = IntentFor(s) }
	gate         = func(s *specs.Spec) { s.Focus.FollowThreshold = specs.FollowThreshold{Auto: true} }
	depth3       = func(s *specs.Spec) { s.Focus.MaxDepth = 3 }
	perHost      = func(s *specs.Spec) { s.MaxPerHost = max(1, s.BatchSize/10) }
	noListings   = func(s *specs.Spec) { s.Focus.CountListingPages = false }
	listings     = func(s *specs.Spec) { s.Focus.CountListingPages = true }
	noPages      = func(s *specs.Spec) { s.Focus.FollowPagination = false }
	noTemplate   = func(s *specs.Spec) { s.Focus.DiscountTemplateLinks = false }
	withTemplate = func(s *specs.Spec) { s.Focus.DiscountTemplateLinks = true }
	noPreEvent   = func(s *specs.Spec) { s.Focus.DiscountPreEventLinks = false }
	noPostEvent  = func(s *specs.Spec) { s.Focus.DiscountPostEventLinks = false }
	preEventStep = func(s *specs.Spec) {
		s.Focus.DiscountPreEventLinks, s.Focus.PreEventRule = true, specs.PreEventStep
	}
	preEventTempR = func(s *specs.Spec) {
		s.Focus.DiscountPreEventLinks, s.Focus.PreEventRule = true, specs.PreEventTempR
	}
	// previousDefault is the default preset with listing pages counted,
	// pagination links ranked by their text and no date discounts.
	previousDefault = func(s *specs.Spec) {
		s.UsePreset(specs.PresetDefault, nil)
		s.Focus.CountListingPages, s.Focus.FollowPagination, s.Focus.DiscountTemplateLinks = true, false, false
		s.Focus.DiscountPreEventLinks, s.Focus.DiscountPostEventLinks = false, false
	}
	allLinks = func(s *specs.Spec) { s.Outlinks = specs.OutlinksAll }
	copies   = func(s *specs.Spec) { s.Focus.FollowCanonical = false }
	learn    = func(s *specs.Spec) { s.Focus.LearnLinks = true }
	// feedback: Rocchio with the usual β and the 10 best documents.
	feedback = func(s *specs.Spec) {
		s.Focus.Feedback = specs.Feedback{Documents: 10, Beta: specs.DefaultFeedbackBeta, Parent: true}
	}
	feedbackTexts = func(s *specs.Spec) { feedback(s); s.Focus.Feedback.Parent = false }
	feedback20    = func(s *specs.Spec) { feedback(s); s.Focus.Feedback.Documents, s.Focus.Feedback.Beta = 20, 1 }
	// lookAhead: each round reads f·K candidates and keeps the K best by
	// their TopicR (specs look_ahead).
	lookAhead   = func(f int) func(*specs.Spec) { return func(s *specs.Spec) { s.Focus.LookAhead = f } }
	combination = []func(*specs.Spec){anchorCtx, linkDates, average, noListings, allLinks}
)

// onPaper applies fs to the paper's preset.
func onPaper(fs ...func(*specs.Spec)) func(*specs.Spec) {
	return apply(append([]func(*specs.Spec){paper}, fs...)...)
}

func apply(fs ...func(*specs.Spec)) func(*specs.Spec) {
	return func(s *specs.Spec) {
		for _, f := range fs {
			f(s)
		}
	}
}

// BestCombination names the combination of options that measured best on
// the demo archive (scripts/demo-options.sh measures it); it keeps the paper's
// strategies and changes how outlinks are prioritised and what is counted.
const BestCombination = "best"

// DefaultVariant names the row of the specification as given (the default
// focus unless the specification names another).
const DefaultVariant = "default"

// UnfocusedListingsVariant names the unfocused crawl that counts listing
// pages (the second baseline of the 2× check): breadth-first over every link
// with the listing pages (home, section, tag pages) counted, as the
// paper's collection rules count them. The row "unfocused" is the
// specification as given under the unfocused strategy, so it leaves them
// out, like the default.
const UnfocusedListingsVariant = "unfocused+listings"

// PreviousDefaultVariant names the row of the default preset without
// follow_pagination and with listing pages counted.
const PreviousDefaultVariant = "previous-default"

// FocusVariants are the rows of the options comparison, in order. The first
// is the paper's ctf; "unfocused" is the baseline of recall; the "best"
// rows apply the best combination under ctf, cf and tf to check that the
// paper's ordering of the strategies survives it; the last, the label
// oracle, is the ceiling the others are judged against (oracle.go).
var FocusVariants = []FocusVariant{
	{Name: "ctf", Description: "the paper's CT-F (focus: paper; alpha from the spec)", Apply: paper},
	{Name: "unfocused", Description: "breadth-first over every link (outlinks: all), no relevance", Strategy: "unfocused", Apply: allLinks},
	{Name: UnfocusedListingsVariant, Description: "the unfocused crawl that counts listing pages: outlinks: all, listing pages counted (count_listing_pages: true: home, section and tag pages take slots of the collection)", Strategy: "unfocused", Apply: apply(allLinks, listings)},
	{Name: DefaultVariant, Description: "the specification as given: the default focus (every link, each ranked by link_priority {parent: 0.1, anchor: 0.5, context: 0.4}) unless it sets another"},
	{Name: "default+link-dates", Description: "the default with link_dates: true", Apply: linkDates},
	{Name: "default+listings", Description: "the default with count_listing_pages: true (listing pages take slots of the collection)", Apply: listings},
	{Name: "default+no-pagination", Description: "the default with follow_pagination: false (a list's next pages ranked by their anchor text)", Apply: noPages},
	{Name: "default+template-links", Description: "the default with discount_template_links: true (links repeated on five or more pages of their host ranked at half their priority)", Apply: withTemplate},
	{Name: "default+no-template-links", Description: "the default with discount_template_links: false (links repeated on many pages of their host ranked as any other)", Apply: noTemplate},
	{Name: "default+no-pre-event-links", Description: "the default with discount_pre_event_links: false (links to pages first captured long before the event ranked as any other)", Apply: noPreEvent},
	{Name: "default+no-post-event-links", Description: "the default with discount_post_event_links: false (links whose URL is dated more than two cooldown_times after the event ranked as any other)", Apply: noPostEvent},
	{Name: "default+pre-event-step", Description: "the default with pre_event_rule: step (links first captured more than two lead_times before the event ranked at a quarter of their priority)", Apply: preEventStep},
	{Name: "default+pre-event-tempr", Description: "the default with pre_event_rule: tempr (links first captured before the event ranked with the TempR of their first capture)", Apply: preEventTempR},
	{Name: PreviousDefaultVariant, Description: "the default with follow_pagination false, count_listing_pages true and no template or date discounts", Apply: previousDefault},
	{Name: "default+average", Description: "the default with combine: average", Apply: average},
	{Name: "default+learn", Description: "the default with learn_links: true (an apprentice link model learned during the crawl)", Apply: learn},
	{Name: "default+feedback", Description: "the default with feedback {documents: 10, beta: 0.5}: the 10 best documents so far enrich the reference vector that scores the links (their texts and the parent's topical term)", Apply: feedback},
	{Name: "default+feedback-texts", Description: "the default with feedback {documents: 10, beta: 0.5, parent: false}: the enriched vector scores the links' texts only", Apply: feedbackTexts},
	{Name: "default+feedback+learn", Description: "the default with feedback {documents: 10, beta: 0.5} and learn_links: true", Apply: apply(feedback, learn)},
	{Name: "default+feedback-20", Description: "the default with feedback {documents: 20, beta: 1}: more documents, weighed as much as the reference", Apply: feedback20},
	{Name: "default+look-ahead-2", Description: "the default with look_ahead: 2 (each round reads twice batch_size candidates and keeps the batch_size documents of highest TopicR; the others go back to the frontier ranked by it)", Apply: lookAhead(2)},
	{Name: "default+look-ahead-4", Description: "the default with look_ahead: 4 (each round reads four times batch_size candidates and keeps the batch_size documents of highest TopicR)", Apply: lookAhead(4)},
	{Name: "default+copies", Description: "the default with follow_canonical: false (print and AMP copies are collected)", Apply: copies},
	{Name: "anchor", Description: "the paper with link_priority {parent: 0.4, anchor: 0.6} (Wu & Hou)", Apply: onPaper(anchorLinks)},
	{Name: "anchor+context", Description: "the paper with link_priority {parent: 0.1, anchor: 0.5, context: 0.4} (ARCOMEM's document, anchor and paragraph)", Apply: onPaper(anchorCtx)},
	{Name: "link-dates", Description: "the paper with link_dates: true (Wu & Hou)", Apply: onPaper(linkDates)},
	{Name: "average", Description: "the paper with combine: average (ARCOMEM)", Apply: onPaper(average)},
	{Name: "last", Description: "the paper with combine: last (ARCOMEM)", Apply: onPaper(last)},
	{Name: "intent", Description: "the paper with temporal_intent from the event's temporal scope (Wu & Hou, δ = 0.4)", Apply: onPaper(intent)},
	{Name: "gate", Description: "the paper with follow_threshold: auto (Klein et al., 10 splits 60/40)", Apply: onPaper(gate)},
	{Name: "max-depth-3", Description: "the paper with max_depth: 3", Apply: onPaper(depth3)},
	{Name: "per-host", Description: "the paper with max_per_host: batch_size/10 (ARCOMEM's bl)", Apply: onPaper(perHost)},
	{Name: "no-listings", Description: "the paper with count_listing_pages: false", Apply: onPaper(noListings)},
	{Name: "all-links", Description: "the paper with outlinks: all (the paper's priority for every link of the page)", Apply: onPaper(allLinks)},
	{Name: "anchor+context+all-links", Description: "anchor+context with outlinks: all (Wu & Hou score every link by its anchor): the default's options", Apply: onPaper(anchorCtx, allLinks)},
	{Name: BestCombination, Description: "anchor+context, link-dates, average, no-listings, outlinks: all (best on the generator before its site templates)", Apply: onPaper(combination...)},
	{Name: BestCombination + "-cf", Description: "the best combination under cf", Strategy: "cf", Apply: onPaper(combination...)},
	{Name: BestCombination + "-tf", Description: "the best combination under tf", Strategy: "tf", Apply: onPaper(combination...)},
	{Name: "cf", Description: "the paper's C-F", Strategy: "cf", Apply: paper},
	{Name: "tf", Description: "the paper's T-F", Strategy: "tf", Apply: paper},
	researcherVariant(Researcher{After: 50, Labels: 10}),
	researcherVariant(Researcher{After: 50, Labels: 20}),
	researcherVariant(Researcher{After: 100, Labels: 10}),
	researcherVariant(Researcher{After: 100, Labels: 20}),
	researcherVariant(Researcher{After: 50, Labels: 10, Pick: PickLow}),
	researcherVariant(Researcher{After: 100, Labels: 20, Pick: PickLow}),
	researcherVariant(Researcher{After: 100, Labels: 20, Pick: PickSpread}),
	researcherVariant(Researcher{After: 50, Labels: 10, Base: "default+look-ahead-2"}),
	researcherVariant(Researcher{After: 100, Labels: 20, Base: "default+look-ahead-2"}),
	{Name: OracleVariant, Description: "the ceiling: a crawl that knows the labels, on the link graph of an unfocused crawl of every link", Strategy: "unfocused", Apply: oracleGraph, Oracle: true},
}

// FocusVariantByName returns the variant called name.
func FocusVariantByName(name string) (FocusVariant, bool) {
	for _, v := range FocusVariants {
		if v.Name == name {
			return v, true
		}
	}
	return FocusVariant{}, false
}

// IntentFor derives a temporal intent distribution from a specification
// when it has none: the mean TempR of each month from six months before the
// event to six months after it. A real distribution comes from outside the
// archive (Wu & Hou used query logs); this one encodes only the spec's own
// temporal scope, so it measures the mechanism, not new knowledge.
func IntentFor(s *specs.Spec) specs.TemporalIntent {
	if len(s.Focus.TemporalIntent.Months) > 0 {
		return s.Focus.TemporalIntent
	}
	start, end := s.EventInterval()
	// The scorer's TempR, with the inclusive last instant of the event.
	tempR := func(t time.Time) float64 {
		return scoring.TempR(t, start, end.Add(-1), s.LeadTime.Duration(), s.CooldownTime.Duration())
	}
	months := map[string]float64{}
	first := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -6, 0)
	last := time.Date(end.Year(), end.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 6, 0)
	for m := first; !m.After(last); m = m.AddDate(0, 1, 0) {
		sum, n := 0.0, 0
		for d := m; d.Month() == m.Month(); d = d.AddDate(0, 0, 1) {
			sum += tempR(d.Add(12 * time.Hour))
			n++
		}
		if w := math.Round(sum/float64(n)*1000) / 1000; w > 0 {
			months[m.Format("2006-01")] = w
		}
	}
	return specs.TemporalIntent{Months: months, MinPriority: specs.DefaultIntentMinPriority}
}

// OptionRow is one variant's result in the options comparison.
type OptionRow struct {
	Name, Description string
	Documents         int
	// Accumulated is the final accumulated relevance, AccumulatedCommon
	// the value after CommonN documents (comparable between rows).
	Accumulated, AccumulatedCommon float64
	// PrecisionAtR and RecallAt200 against the labels; their ratios to
	// the paper's ctf and to the unfocused run.
	PrecisionAtR, RecallAtN    float64
	PrecisionVsCTF, RecallVsUn float64
	// RankedPrecisionAtR and RankedRecallAtN are those of the ranked view:
	// the collection by decreasing relevance score (RankedByRelevance;
	// the oracle's row keeps its order, the ideal one).
	RankedPrecisionAtR, RankedRecallAtN float64
	Listings                            int // listing pages followed but not counted
	Seconds                             float64
	// Starvation explains a run whose frontier emptied before its target.
	Starvation string
	// ByTemplate breaks precision and recall down by site template (labels
	// with a template column).
	ByTemplate []TemplateScore
}

// OptionsTable is the options comparison of one specification.
type OptionsTable struct {
	Spec    string
	R       int // relevant labels
	N       int // the recall cutoff
	CommonN int
	Rows    []OptionRow
}

// RunOptions runs the extraction of specPath once per variant into
// dir/NAME, and compares them against labels (required: precision and
// recall need them). names selects variants ("all" or empty: every one;
// ctf and unfocused are always run, as the baselines).
func RunOptions(ctx context.Context, extract Extractor, specPath string, labels *Labels, dir string, names []string) (*OptionsTable, error) {
	if extract == nil {
		return nil, fmt.Errorf("options: no extractor")
	}
	if labels == nil || labels.Relevant() == 0 {
		return nil, fmt.Errorf("options: needs --labels_file with relevant URLs (and --event) for precision and recall")
	}
	variants, err := selectVariants(names)
	if err != nil {
		return nil, err
	}
	t := &OptionsTable{Spec: specPath, R: labels.Relevant(), N: RecallCutoff}
	runs := make([]*Run, len(variants))
	for i, v := range variants {
		out := filepath.Join(dir, v.Name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, fmt.Errorf("options: %w", err)
		}
		slog.Info("options extraction", "variant", v.Name, "out", out)
		start := time.Now()
		if v.Researcher.After > 0 {
			if err := runResearcher(ctx, extract, specPath, labels, out, v); err != nil {
				return nil, fmt.Errorf("options: %s (%s): %w", specPath, v.Name, err)
			}
		} else if err := extract(ctx, specPath, Overrides{Strategy: v.Strategy, Variant: v.Name}, out); err != nil {
			return nil, fmt.Errorf("options: extract %s (%s): %w", specPath, v.Name, err)
		}
		r, err := ReadRun(out)
		if err != nil {
			return nil, fmt.Errorf("options: %w", err)
		}
		if v.Oracle {
			// The same K and target as the variants (ctf, run first).
			k, target := runs[0].Spec.BatchSize, runs[0].Spec.TargetSize
			if r.Documents, r.Info.Totals.Listings, err = labelOracleRun(r, labels, k, target); err != nil {
				return nil, fmt.Errorf("options: %w", err)
			}
		}
		runs[i] = r
		t.Rows = append(t.Rows, OptionRow{Name: v.Name, Description: v.Description, Documents: len(r.Documents),
			Listings: r.Info.Totals.Listings, Seconds: time.Since(start).Seconds(), Starvation: r.Info.Totals.Starvation})
		if r.Spec.Name != "" {
			t.Spec = r.Spec.Name
		}
	}
	t.CommonN = math.MaxInt
	for _, r := range runs {
		t.CommonN = min(t.CommonN, len(r.Documents))
	}
	for i, r := range runs {
		row := &t.Rows[i]
		acc := AccumulatedRelevance(r.Documents)
		row.Accumulated, row.AccumulatedCommon = acc.Final(), acc.At(t.CommonN)
		m := ScoreLabels(r.Documents, labels)
		row.PrecisionAtR = m.Found.At(t.R) / float64(t.R)
		row.RecallAtN = m.Found.At(t.N) / float64(t.R)
		row.ByTemplate = ScoreTemplates(r.Documents, labels, t.N)
		ranked := r.Documents
		if !variants[i].Oracle {
			ranked = RankedByRelevance(r.Documents)
		}
		rm := ScoreLabels(ranked, labels)
		row.RankedPrecisionAtR = rm.Found.At(t.R) / float64(t.R)
		row.RankedRecallAtN = rm.Found.At(t.N) / float64(t.R)
	}
	for i := range t.Rows {
		t.Rows[i].PrecisionVsCTF = ratio(t.Rows[i].PrecisionAtR, t.Rows[0].PrecisionAtR)
		t.Rows[i].RecallVsUn = ratio(t.Rows[i].RecallAtN, t.Rows[1].RecallAtN)
	}
	return t, nil
}

// selectVariants returns ctf, unfocused and the named variants in the order
// of FocusVariants.
func selectVariants(names []string) ([]FocusVariant, error) {
	want := map[string]bool{"ctf": true, "unfocused": true}
	all := len(names) == 0
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "all" {
			all = true
			continue
		}
		if _, ok := FocusVariantByName(n); !ok {
			return nil, fmt.Errorf("options: unknown variant %q (known: %s, all)", n, variantNames())
		}
		want[n] = true
	}
	var out []FocusVariant
	for _, v := range FocusVariants {
		if all || want[v.Name] {
			out = append(out, v)
		}
	}
	return out, nil
}

// variantNames lists the variants for the flag's help.
func variantNames() string {
	var names []string
	for _, v := range FocusVariants {
		names = append(names, v.Name)
	}
	return strings.Join(names, ", ")
}

// optionsSection is the report's table of the options comparison.
func optionsSection(t *OptionsTable) *report.Options {
	if t == nil {
		return nil
	}
	o := &report.Options{Spec: t.Spec, R: t.R, N: t.N, CommonN: t.CommonN}
	for _, r := range t.Rows {
		o.Rows = append(o.Rows, report.OptionRow{Name: r.Name, Description: r.Description, Documents: r.Documents,
			Listings: r.Listings, Accumulated: r.Accumulated, AccumulatedCommon: r.AccumulatedCommon,
			PrecisionAtR: r.PrecisionAtR, PrecisionVsCTF: r.PrecisionVsCTF, RecallAtN: r.RecallAtN, RecallVsUn: r.RecallVsUn,
			Best: r.Name == DefaultVariant, ByTemplate: templateCells(r.ByTemplate)})
		if len(r.ByTemplate) > 0 && o.Templates == nil {
			for _, ts := range r.ByTemplate {
				o.Templates = append(o.Templates, ts.Template)
			}
		}
	}
	return o
}

func templateCells(ts []TemplateScore) []report.TemplateCell {
	var out []report.TemplateCell
	for _, t := range ts {
		out = append(out, report.TemplateCell{PrecisionAtR: t.PrecisionAtR, RecallAtN: t.RecallAtN})
	}
	return out
}

// optSummary is the options comparison in evaluation.json.
type optSummary struct {
	Spec    string       `json:"spec"`
	R       int          `json:"r"`
	N       int          `json:"recall_cutoff"`
	CommonN int          `json:"common_n"`
	Rows    []optRowJSON `json:"rows"`
}

type optRowJSON struct {
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Documents         int      `json:"documents"`
	Listings          int      `json:"listings,omitempty"`
	Accumulated       float64  `json:"accumulated_relevance"`
	AccumulatedCommon float64  `json:"accumulated_relevance_common"`
	PrecisionAtR      float64  `json:"precision_at_r"`
	PrecisionVsCTF    *float64 `json:"precision_at_r_vs_ctf"`
	RecallAtN         float64  `json:"recall_at_n"`
	RecallVsUnfocused *float64 `json:"recall_at_n_vs_unfocused"`
	// RankedPrecisionAtR, RankedRecallAtN: the ranked view's
	// (OptionRow).
	RankedPrecisionAtR float64 `json:"ranked_precision_at_r"`
	RankedRecallAtN    float64 `json:"ranked_recall_at_n"`
	Seconds            float64 `json:"seconds"`
	Starvation         string  `json:"starvation,omitempty"`
	// ByTemplate: precision and recall per site template.
	ByTemplate []TemplateScore `json:"by_template,omitempty"`
}

func optionsSummary(t *OptionsTable) *optSummary {
	if t == nil {
		return nil
	}
	s := &optSummary{Spec: t.Spec, R: t.R, N: t.N, CommonN: t.CommonN}
	for _, r := range t.Rows {
		s.Rows = append(s.Rows, optRowJSON{Name: r.Name, Description: r.Description, Documents: r.Documents, Listings: r.Listings,
			Accumulated: r.Accumulated, AccumulatedCommon: r.AccumulatedCommon, PrecisionAtR: r.PrecisionAtR,
			PrecisionVsCTF: finite(r.PrecisionVsCTF), RecallAtN: r.RecallAtN, RecallVsUnfocused: finite(r.RecallVsUn), Seconds: r.Seconds,
			RankedPrecisionAtR: r.RankedPrecisionAtR, RankedRecallAtN: r.RankedRecallAtN,
			Starvation: r.Starvation, ByTemplate: r.ByTemplate})
	}
	return s
}
