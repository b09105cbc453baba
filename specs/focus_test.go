package specs

import (
	"math"
	"strings"
	"testing"
	"time"
)

const focusBase = `name: f
event: {start: 2009-09-27}
lead_time: P30D
cooldown_time: P30D
reference_documents: [{text: one}, {text: two}]
seeds: ['http://a.example/']
`

func TestFocusPresets(t *testing.T) {
	written := func(s *Spec) string {
		t.Helper()
		var buf strings.Builder
		if err := s.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	focusFields := []string{"focus:", "link_priority", "combine", "follow_threshold", "count_listing_pages", "max_depth", "link_dates", "follow_canonical", "follow_pagination", "discount_template_links", "discount_pre_event_links", "discount_post_event_links"}

	// The default: every link, each ranked by its own evidence.
	s, err := Parse([]byte(focusBase), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Focus.Preset != PresetDefault || s.Outlinks != OutlinksAll || s.Focus.IsPaper() ||
		s.Focus.LinkPriority != (LinkPriority{Parent: 0.1, Anchor: 0.5, Context: 0.4}) || s.Focus.CountListingPages ||
		!s.Focus.FollowCanonical || !s.Focus.FollowPagination || s.Focus.DiscountTemplateLinks || !s.Focus.DiscountPreEventLinks || !s.Focus.DiscountPostEventLinks {
		t.Errorf("defaults: outlinks %s, %+v", s.Outlinks, s.Focus)
	}
	for _, field := range focusFields {
		if w := written(s); strings.Contains(w, field) {
			t.Errorf("a default spec writes %s:\n%s", field, w)
		}
	}
	roundTrip(t, s)

	// focus: paper is the paper's method, and writes only its name.
	p, err := Parse([]byte(focusBase+"focus: paper\n"), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Focus.IsPaper() || p.Focus.String() != "paper" || p.Focus.FollowCanonical || p.Focus.FollowPagination || p.Focus.DiscountTemplateLinks || p.Focus.DiscountPreEventLinks || p.Focus.DiscountPostEventLinks || p.Outlinks != OutlinksMain || p.Focus.Preset != PresetPaper {
		t.Errorf("focus: paper gives outlinks %s, %+v", p.Outlinks, p.Focus)
	}
	w := written(p)
	for _, field := range focusFields[1:] {
		if strings.Contains(w, field) {
			t.Errorf("a paper spec writes %s:\n%s", field, w)
		}
	}
	if !strings.Contains(w, "focus: paper") || !strings.Contains(w, "outlinks: main") {
		t.Errorf("a paper spec does not say so:\n%s", w)
	}
	roundTrip(t, p)

	// Fields given change the preset's values, before or after focus.
	for _, doc := range []string{"link_dates: true\noutlinks: all\nfocus: paper\n", "focus: paper\nlink_dates: true\noutlinks: all\n"} {
		q, err := Parse([]byte(focusBase+doc), "f.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if !q.Focus.LinkDates || q.Outlinks != OutlinksAll || !q.Focus.LinkPriority.IsPaper() || q.Focus.Preset != PresetPaper {
			t.Errorf("%q: outlinks %s, %+v", doc, q.Outlinks, q.Focus)
		}
		roundTrip(t, q)
	}
	// optionSpec parses the focus fields doc and checks that the spec
	// writes the field as given (wrote) and reads back the same.
	optionSpec := func(doc, wrote string) *Spec {
		t.Helper()
		o, err := Parse([]byte(focusBase+doc), "f.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if w := written(o); !strings.Contains(w, wrote) {
			t.Errorf("%q does not write %q:\n%s", doc, wrote, w)
		}
		roundTrip(t, o)
		return o
	}
	// The paper's preset with the pre-event discount is no longer the paper.
	pe := optionSpec("focus: paper\ndiscount_pre_event_links: true\n", "discount_pre_event_links: true")
	if pe.Focus.IsPaper() || !pe.Focus.DiscountPreEventLinks || !strings.Contains(pe.Focus.String(), "discount_pre_event_links") {
		t.Errorf("paper + discount_pre_event_links: %+v (%s)", pe.Focus, pe.Focus.String())
	}
	// So is the paper's preset with the post-event discount, and a default
	// spec that turns it off writes it.
	po := optionSpec("focus: paper\ndiscount_post_event_links: true\n", "discount_post_event_links: true")
	if po.Focus.IsPaper() || !po.Focus.DiscountPostEventLinks || !strings.Contains(po.Focus.String(), "discount_post_event_links") {
		t.Errorf("paper + discount_post_event_links: %+v (%s)", po.Focus, po.Focus.String())
	}
	// The template-link discount is off in both presets; a default spec that turns it on writes it.
	tl := optionSpec("discount_template_links: true\n", "discount_template_links: true")
	if !tl.Focus.DiscountTemplateLinks || tl.Focus.Preset != PresetDefault || !strings.Contains(tl.Focus.String(), "discount_template_links") {
		t.Errorf("default + discount_template_links: %+v (%s)", tl.Focus, tl.Focus.String())
	}
	off := optionSpec("discount_post_event_links: false\n", "discount_post_event_links: false")
	if off.Focus.DiscountPostEventLinks || !off.Focus.DiscountPreEventLinks {
		t.Errorf("default + discount_post_event_links: false: %+v", off.Focus)
	}
	// A default spec that sets a field back to the paper's value writes it.
	r, err := Parse([]byte(focusBase+"outlinks: main\nlink_priority: {parent: 1}\n"), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w := written(r); !strings.Contains(w, "outlinks: main") || !strings.Contains(w, "link_priority") {
		t.Errorf("paper values under the default are not written:\n%s", w)
	}
	roundTrip(t, r)
	// The unfocused strategy ignores the default link priority.
	if _, err := Parse([]byte(focusBase+"strategy: unfocused\n"), "f.yaml"); err != nil {
		t.Errorf("unfocused with the default focus: %v", err)
	}
	if _, err := Parse([]byte(focusBase+"focus: papers\n"), "f.yaml"); err == nil || !strings.Contains(err.Error(), `focus: "papers" is not one of default, paper`) {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestFocusParse(t *testing.T) {
	s, err := Parse([]byte(focusBase+`link_priority: {parent: 0.4, anchor: 0.6}
follow_threshold: 0.25
combine: last
`), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Focus
	if f.LinkPriority != (LinkPriority{Parent: 0.4, Anchor: 0.6}) || !f.LinkPriority.UsesText() {
		t.Errorf("link_priority = %+v", f.LinkPriority)
	}
	if f.FollowThreshold != (FollowThreshold{Value: 0.25}) || f.Combine != CombineLast || f.IsPaper() {
		t.Errorf("focus = %+v", f)
	}
}

func TestFocusErrors(t *testing.T) {
	_, err := Parse([]byte(focusBase+`link_priority: {parent: 0, anchr: 1}
combine: median
temporal_intent: {months: {2009-13: 1, 2009-09: -1}}
follow_threshold: sometimes
max_depth: -1
count_listing_pages: perhaps
`), "f.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`unknown field "anchr" in link_priority (did you mean "anchor"?)`,
		`link_priority: at least one of parent, anchor and context must be positive`,
		`combine: "median" is not one of max, average, last`,
		`temporal_intent.months: "2009-13" is not a month`,
		`temporal_intent.months.2009-09: -1 is negative`,
		`temporal_intent.months: needs at least one month with a positive weight`,
		`follow_threshold: "sometimes" is neither "auto" nor a number in [0, 1]`,
		`max_depth: -1 is less than 0`,
		`count_listing_pages: "perhaps" is not true or false`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	_, err = Parse([]byte(strings.Replace(focusBase, "[{text: one}, {text: two}]", "[{text: one}]", 1)+"follow_threshold: auto\n"), "f.yaml")
	if err == nil || !strings.Contains(err.Error(), "follow_threshold: auto needs at least 2 reference documents") {
		t.Errorf("auto gate with one reference: %v", err)
	}
	_, err = Parse([]byte(focusBase+"strategy: unfocused\nlink_priority: {anchor: 1}\n"), "f.yaml")
	if err == nil || !strings.Contains(err.Error(), "unfocused strategy uses no priorities") {
		t.Errorf("unfocused with link_priority: %v", err)
	}
}

func TestTemporalIntentFactor(t *testing.T) {
	ti := TemporalIntent{Months: map[string]float64{"2009-09": 10, "2009-10": 5}, MinPriority: 0.4}
	sep := time.Date(2009, 9, 27, 0, 0, 0, 0, time.UTC)
	oct := time.Date(2009, 10, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		p    float64
		t    time.Time
		want float64
	}{
		{0.5, sep, math.E},             // the busiest month: e
		{0.5, oct, math.Exp(0.5)},      // half as busy
		{0.39, sep, 1},                 // below δ: no boost
		{0.5, sep.AddDate(0, 3, 0), 1}, // a month without weight
		{0.5, time.Time{}, 1},          // no date
	} {
		if got := ti.Factor(c.p, c.t); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Factor(%v, %v) = %v, want %v", c.p, c.t, got, c.want)
		}
	}
	if (TemporalIntent{}).Factor(1, sep) != 1 {
		t.Error("no distribution must not boost")
	}
}
