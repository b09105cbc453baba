package scoring

import (
	"encoding/json"
	"testing"
)

func TestTTR(t *testing.T) {
	tests := []struct{ alpha, topicR, tempR, want float64 }{
		{0.5, 0.8, 0.2, 0.5},
		{1, 0.8, 0.2, 0.8},
		{0, 0.8, 0.2, 0.2},
		{0.25, 1, 0, 0.25},
	}
	for _, tt := range tests {
		if got := TTR(tt.alpha, tt.topicR, tt.tempR); !near(got, tt.want) {
			t.Errorf("TTR(%v, %v, %v) = %v, want %v", tt.alpha, tt.topicR, tt.tempR, got, tt.want)
		}
	}
}

func TestPriority(t *testing.T) {
	tests := []struct {
		s                    Strategy
		topicR, tempR, alpha float64
		want                 float64
	}{
		{CTF, 0.8, 0.2, 0.5, 0.5},
		{CTF, 0.8, 0.2, 0.25, 0.35},
		{CF, 0.8, 0.2, 0.5, 0.8},
		{TF, 0.8, 0.2, 0.5, 0.2},
		{Unfocused, 0.8, 0.2, 0.5, 0},
	}
	for _, tt := range tests {
		if got := Priority(tt.s, tt.topicR, tt.tempR, tt.alpha); !near(got, tt.want) {
			t.Errorf("Priority(%v, %v, %v, %v) = %v, want %v", tt.s, tt.topicR, tt.tempR, tt.alpha, got, tt.want)
		}
	}
}

func TestParseStrategy(t *testing.T) {
	tests := map[string]Strategy{"ctf": CTF, "CT-F": CTF, "cf": CF, "C-F": CF, " tf ": TF, "Unfocused": Unfocused}
	for in, want := range tests {
		got, err := ParseStrategy(in)
		if err != nil || got != want {
			t.Errorf("ParseStrategy(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "bfs", "ctf2"} {
		if _, err := ParseStrategy(bad); err == nil {
			t.Errorf("ParseStrategy(%q) succeeded", bad)
		}
	}
	for _, s := range Strategies() {
		back, err := ParseStrategy(s.String())
		if err != nil || back != s {
			t.Errorf("round trip of %v: %v, %v", s, back, err)
		}
	}
	var zero Strategy
	if zero != CTF {
		t.Error("the zero Strategy must be CTF, the paper's method")
	}
}

func TestStrategyJSON(t *testing.T) {
	var v struct {
		Strategy Strategy `json:"strategy"`
	}
	if err := json.Unmarshal([]byte(`{"strategy":"t-f"}`), &v); err != nil || v.Strategy != TF {
		t.Fatalf("unmarshal: %v, %v", v.Strategy, err)
	}
	data, err := json.Marshal(v)
	if err != nil || string(data) != `{"strategy":"tf"}` {
		t.Errorf("marshal: %s, %v", data, err)
	}
	if err := json.Unmarshal([]byte(`{"strategy":"best-first"}`), &v); err == nil {
		t.Error("unknown strategy accepted")
	}
	if _, err := json.Marshal(struct{ S Strategy }{Strategy(9)}); err == nil {
		t.Error("invalid strategy marshalled")
	}
}
