package scoring

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func linkTestConfig() Config {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	return Config{
		DefaultLanguage: "en",
		References: []ReferenceText{
			{Text: "The federal election: voters elect the parliament; the chancellor's party wins the election with a coalition.", Language: "en"},
			{Text: "Election night: the coalition of the chancellor gains seats in parliament, turnout at the federal election falls.", Language: "en"},
			{Text: "Parliament after the federal election: coalition talks begin, the chancellor and the opposition negotiate.", Language: "en"},
			{Text: "Voters and turnout: the federal election campaign ends, parties await the result in parliament.", Language: "en"},
			{Text: "The chancellor wins a second term as the coalition secures a majority in the federal election.", Language: "en"},
		},
		Time:     TimeScope{Start: day("2009-09-27"), End: day("2009-09-28"), Lead: 30 * 24 * time.Hour, Cooldown: 30 * 24 * time.Hour},
		Alpha:    0.5,
		Strategy: CTF,
	}
}

func TestLinkPriority(t *testing.T) {
	s, err := NewScorer(linkTestConfig())
	if err != nil {
		t.Fatal(err)
	}
	parent := s.Score("A page about gardening and compost with a note on the election.", "en", time.Date(2009, 9, 1, 0, 0, 0, 0, time.UTC))
	paper := LinkWeights{Parent: 1}
	if got := s.LinkPriority(parent, paper, "coalition talks", "", "en", parent.TempR); got != parent.Priority {
		t.Errorf("paper weights: %v, want the parent's priority %v exactly", got, parent.Priority)
	}
	wu := LinkWeights{Parent: 0.4, Anchor: 0.6}
	relevant := s.LinkPriority(parent, wu, "Coalition talks after the federal election", "", "en", parent.TempR)
	irrelevant := s.LinkPriority(parent, wu, "Compost heaps in autumn", "", "en", parent.TempR)
	if !(relevant > irrelevant) {
		t.Errorf("anchor text does not matter: relevant %v, irrelevant %v", relevant, irrelevant)
	}
	if want := 0.4 * parent.Priority; math.Abs(irrelevant-want) > 1e-12 {
		t.Errorf("irrelevant anchor: %v, want %v", irrelevant, want)
	}
	// A later link date lowers the temporal part.
	if later := s.LinkPriority(parent, wu, "Coalition talks after the federal election", "", "en", 0.1); !(later < relevant) {
		t.Errorf("link TempR 0.1 gives %v, not below %v", later, relevant)
	}
	if got := s.TextTopicR("", "en"); got != 0 {
		t.Errorf("TextTopicR of nothing = %v", got)
	}
}

func TestCalibrate(t *testing.T) {
	cfg := linkTestConfig()
	times := make([]time.Time, len(cfg.References))
	a, err := Calibrate(cfg, times, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Calibrate(cfg, times, 10, 1)
	if !reflect.DeepEqual(a, b) {
		t.Error("calibration is not deterministic")
	}
	if len(a.Splits) != 10 || a.Splits[3].Seed != 4 || len(a.Splits[0].Train) != 3 || len(a.Splits[0].HeldOut) != 2 {
		t.Errorf("splits: %+v", a.Splits[:1])
	}
	if a.TopicR <= 0 || a.TopicR > 1 || a.Threshold != 0.5*a.TopicR || a.Note == "" {
		t.Errorf("no times: threshold %v, th_cont %v, note %q", a.Threshold, a.TopicR, a.Note)
	}
	mean := 0.0
	for _, sp := range a.Splits {
		mean += sp.HeldOutTopicR
	}
	if math.Abs(mean/10-a.TopicR) > 1e-12 {
		t.Errorf("th_cont %v is not the mean of the splits %v", a.TopicR, mean/10)
	}
	// With times: the temporal part is the mean TempR of the training documents.
	for i := range times {
		times[i] = time.Date(2009, 9, 27, 12, 0, 0, 0, time.UTC) // inside the event: TempR 1
	}
	c, _ := Calibrate(cfg, times, 10, 1)
	if c.TempR != 1 || math.Abs(c.Threshold-TTR(0.5, c.TopicR, 1)) > 1e-12 || c.Note != "" {
		t.Errorf("with times: %+v", c)
	}
	if _, err := Calibrate(Config{References: cfg.References[:1]}, times[:1], 10, 1); err == nil {
		t.Error("one reference document calibrated")
	}
}
