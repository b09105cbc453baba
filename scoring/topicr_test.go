package scoring

import (
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	eventStart = time.Date(2010, 4, 14, 0, 0, 0, 0, time.UTC)
	eventScope = TimeScope{Start: eventStart, End: InclusiveEnd(eventStart.AddDate(0, 0, 7)), Lead: 0, Cooldown: 30 * 24 * time.Hour}
)

// volcanoConfig has two English reference documents:
//
//	A = "volcano eruption" → volcano, erupt, "volcano erupt"
//	B = "volcano ash"      → volcano, ash,   "volcano ash"
//
// With idf 1 their sum is volcano 2 and 1 for the other four terms, norm
// √8. Each of A and B has cosine (2+1+1)/(√3·√8) = 4/√24 to it, so the
// normaliser is 4/√24.
func volcanoConfig() Config {
	return Config{
		DefaultLanguage: "en",
		References:      []ReferenceText{{Text: "volcano eruption", Language: "en"}, {Text: "volcano ash"}},
		Time:            eventScope,
		Alpha:           DefaultAlpha,
	}
}

func mustScorer(t testing.TB, cfg Config) *Scorer {
	t.Helper()
	s, err := NewScorer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTopicRByHand(t *testing.T) {
	inside := eventStart.Add(time.Hour)
	s := mustScorer(t, volcanoConfig())
	ref := s.References()[0]
	if ref.Language != "en" || ref.Documents != 2 || !near(ref.Vector.Norm(), math.Sqrt(8)) || !near(ref.Normalizer, 4/math.Sqrt(24)) {
		t.Fatalf("reference %s: %d documents, norm %v, normaliser %v; want en, 2, √8, 4/√24", ref.Language, ref.Documents, ref.Vector.Norm(), ref.Normalizer)
	}
	tests := []struct {
		text           string
		cosine, topicR float64
		matched        int
	}{
		// "ash cloud": ash, cloud, "ash cloud"; only ash is shared.
		{"ash cloud", 1 / math.Sqrt(24), 0.25, 1},
		// A reference document scores its own cosine: TopicR 1.
		{"volcano eruption", 4 / math.Sqrt(24), 1, 3},
		// volcano, ash, cloud, "volcano ash", "ash cloud": 4/(√8·√5);
		// divided by 4/√24 that is √(24/40).
		{"volcano ash cloud", 4 / math.Sqrt(40), math.Sqrt(0.6), 3},
		// tf 2 for volcano and ash: (1+ln2)·(2+1) + 1 over the norms;
		// above the normaliser, so clipped to 1.
		{"volcano ash. volcano ash", (3*(1+math.Ln2) + (1 + math.Ln2)) / (math.Sqrt(8) * math.Sqrt(3) * (1 + math.Ln2)), 1, 3},
		{"glacier flood", 0, 0, 0},
	}
	for _, tt := range tests {
		sc := s.Score(tt.text, "en", inside)
		if !near(sc.Cosine, tt.cosine) || !near(sc.TopicR, tt.topicR) || sc.Matched != tt.matched || sc.Reason != "" {
			t.Errorf("Score(%q): cosine %v, TopicR %v, matched %d, reason %q; want %v, %v, %d", tt.text, sc.Cosine, sc.TopicR, sc.Matched, sc.Reason, tt.cosine, tt.topicR, tt.matched)
		}
		if sc.TempR != 1 || !near(sc.TTR, 0.5*sc.TopicR+0.5) || sc.Priority != sc.TTR {
			t.Errorf("Score(%q): TempR %v, TTR %v, Priority %v", tt.text, sc.TempR, sc.TTR, sc.Priority)
		}
	}
}

func TestTopicRWithoutNormalisation(t *testing.T) {
	cfg := volcanoConfig()
	cfg.RawCosine = true
	s := mustScorer(t, cfg)
	if got := s.References()[0].Normalizer; got != 1 {
		t.Errorf("normaliser %v, want 1", got)
	}
	if got := s.Score("ash cloud", "en", eventStart).TopicR; !near(got, 1/math.Sqrt(24)) {
		t.Errorf("raw TopicR %v, want 1/√24", got)
	}
}

// With TopN 2 the reference keeps volcano (2) and, of the four terms of
// weight 1, "ash" (first by term). A: 2/(√5·√3), B: 3/(√5·√3), so the
// normaliser is 2.5/√15 and "ash cloud" (cosine 1/√15) gets 0.4.
func TestTopicRTopN(t *testing.T) {
	cfg := volcanoConfig()
	cfg.TopN = 2
	s := mustScorer(t, cfg)
	ref := s.References()[0]
	if want := []Entry{{"ash", 1}, {"volcano", 2}}; !reflect.DeepEqual(ref.Vector.Entries(), want) {
		t.Fatalf("reference %v, want %v", ref.Vector.Entries(), want)
	}
	if got := s.Score("ash cloud", "en", eventStart).TopicR; !near(got, 0.4) {
		t.Errorf("TopicR %v, want 0.4", got)
	}
}

func TestTopicRReasons(t *testing.T) {
	s := mustScorer(t, volcanoConfig())
	tests := []struct {
		text, lang string
		t          time.Time
		reason     string
	}{
		{"", "en", eventStart, ReasonEmptyText},
		{"  \n\t ", "en", eventStart, ReasonEmptyText},
		{"The of and it's", "en", eventStart, ReasonNoTerms},
		{"\x00\x01 -- 1 2 3 ++ x", "en", eventStart, ReasonNoTerms},
		{"volcano", "en", time.Time{}, ReasonNoDocumentTime},
		{"", "en", time.Time{}, ReasonNoDocumentTime + "; " + ReasonEmptyText},
	}
	for _, tt := range tests {
		sc := s.Score(tt.text, tt.lang, tt.t)
		if sc.Reason != tt.reason {
			t.Errorf("Score(%q).Reason = %q, want %q", tt.text, sc.Reason, tt.reason)
		}
	}
	if sc := s.Score("", "en", eventStart); sc.TopicR != 0 || sc.TempR != 1 || sc.TTR != 0.5 {
		t.Errorf("empty text: %+v", sc)
	}
	if sc := s.Score("volcano", "en", time.Time{}); sc.TempR != 0 || sc.TopicR == 0 {
		t.Errorf("no time: %+v", sc)
	}
}

func TestScorerLanguages(t *testing.T) {
	cfg := volcanoConfig()
	cfg.References = append(cfg.References, ReferenceText{Text: "Der Ausbruch des Vulkans. Die Asche des Vulkans.", Language: "de-DE"})
	s := mustScorer(t, cfg)
	if got := len(s.References()); got != 2 {
		t.Fatalf("%d references, want de and en", got)
	}
	tests := []struct{ lang, text, wantLang string }{
		{"de", "Asche des Vulkans", "de"},
		{"de-AT", "Asche des Vulkans", "de"},
		{"en", "volcano ash", "en"},
		{"it", "volcano ash", "en"}, // Italian has an analyzer but no reference: default language
		{"zh", "volcano ash", "en"},
		{"", "volcano ash", "en"},
	}
	for _, tt := range tests {
		sc := s.Score(tt.text, tt.lang, eventStart)
		if sc.Language != tt.wantLang || sc.TopicR <= 0 {
			t.Errorf("Score(%q, %q): language %q TopicR %v; want %q and > 0", tt.text, tt.lang, sc.Language, sc.TopicR, tt.wantLang)
		}
	}
}

// Precomputed vectors (the original's referenceVectors) are restemmed:
// the original's light stemmer kept "-ung", Snowball removes it.
func TestPrecomputedReferenceVector(t *testing.T) {
	s := mustScorer(t, Config{
		DefaultLanguage:  "de",
		ReferenceVectors: map[string]map[string]float64{"de": {"schiffsfuhrung": 3, "wahl": 2, "kapitan": 1, "der": 5}},
		Time:             eventScope,
		Alpha:            1,
	})
	ref := s.References()[0]
	if want := map[string]float64{"schiffsfuhr": 3, "wahl": 2, "kapitan": 1}; !reflect.DeepEqual(ref.Vector.Map(), want) || !ref.Precomputed || ref.Normalizer != 1 {
		t.Fatalf("reference %v (precomputed %v, normaliser %v), want %v", ref.Vector.Map(), ref.Precomputed, ref.Normalizer, want)
	}
	sc := s.Score("Die Schiffsführung und der Kapitän", "de", eventStart)
	// Document: schiffsfuhr, kapitan (not adjacent: "und der"); weights 1.
	if want := (3.0 + 1) / (math.Sqrt(14) * math.Sqrt(2)); !near(sc.TopicR, want) || sc.Matched != 2 {
		t.Errorf("TopicR %v matched %d, want %v and 2", sc.TopicR, sc.Matched, want)
	}
}

func TestNewScorerErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"no default language", func(c *Config) { c.DefaultLanguage = "" }},
		{"unsupported default language", func(c *Config) { c.DefaultLanguage = "zh" }},
		{"alpha above 1", func(c *Config) { c.Alpha = 1.5 }},
		{"negative alpha", func(c *Config) { c.Alpha = -0.1 }},
		{"end before start", func(c *Config) { c.Time.End = c.Time.Start.Add(-time.Hour) }},
		{"no topical scope", func(c *Config) { c.References = nil }},
		{"NaN weight", func(c *Config) { c.ReferenceVectors = map[string]map[string]float64{"en": {"a": math.NaN()}} }},
	}
	for _, tt := range tests {
		cfg := volcanoConfig()
		tt.edit(&cfg)
		if _, err := NewScorer(cfg); err == nil {
			t.Errorf("%s: NewScorer succeeded", tt.name)
		}
	}
}

// Scores are bit-identical across runs, across orders of the reference
// documents and keywords, and across goroutines.
func TestScorerDeterminism(t *testing.T) {
	refs := []ReferenceText{
		{Text: "Der Vulkan Eyjafjallajökull auf Island brach am 14. April 2010 aus. Die Aschewolke legte den Flugverkehr in Europa lahm.", Language: "de"},
		{Text: "Wegen der Aschewolke des Vulkans wurden Flughäfen in Deutschland gesperrt. Die Flugsicherung verhängte ein Flugverbot.", Language: "de"},
		{Text: "Eyjafjallajökull eruption: the ash cloud closed European airspace.", Language: "en"},
		{Text: "Island: Vulkanausbruch unter dem Gletscher, Schmelzwasser und Asche.", Language: "de"},
	}
	keywords := []string{"Aschewolke", "Eyjafjallajökull", "Flugverbot", "Island"}
	build := func(order []int, kwOrder []int) *Scorer {
		cfg := Config{DefaultLanguage: "de", Time: eventScope, Alpha: 0.5, Keywords: map[string][]string{}}
		for _, i := range order {
			cfg.References = append(cfg.References, refs[i])
		}
		for _, i := range kwOrder {
			cfg.Keywords["de"] = append(cfg.Keywords["de"], keywords[i])
		}
		return mustScorer(t, cfg)
	}
	base := build([]int{0, 1, 2, 3}, []int{0, 1, 2, 3})
	shuffled := build([]int{3, 1, 2, 0}, []int{2, 0, 3, 1})
	for i, r := range base.References() {
		o := shuffled.References()[i]
		if !reflect.DeepEqual(r.Vector.Entries(), o.Vector.Entries()) || math.Float64bits(r.Normalizer) != math.Float64bits(o.Normalizer) {
			t.Errorf("reference %s differs with shuffled inputs", r.Language)
		}
	}
	docs := []string{
		"Flugverbot wegen Aschewolke: Der Vulkan auf Island stößt weiter Asche aus.",
		"Die Bundestagswahl findet im September statt.",
		strings.Repeat("Aschewolke über Europa. ", 50),
	}
	at := eventStart.AddDate(0, 0, 20)
	want := make([]Score, len(docs))
	for i, d := range docs {
		want[i] = base.Score(d, "de", at)
		if again := base.Score(d, "de", at); again != want[i] {
			t.Errorf("second Score(%q) = %+v, first %+v", d, again, want[i])
		}
		if other := shuffled.Score(d, "de", at); other != want[i] {
			t.Errorf("Score(%q) with shuffled inputs = %+v, want %+v", d, other, want[i])
		}
	}
	if !(want[0].TopicR > want[1].TopicR) {
		t.Errorf("volcano text TopicR %v not above election text %v", want[0].TopicR, want[1].TopicR)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				i := (g + n) % len(docs)
				if got := base.Score(docs[i], "de", at); got != want[i] {
					t.Errorf("concurrent Score = %+v, want %+v", got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
