package scoring

import (
	"fmt"
	"strings"
)

// Strategy is the relevance that orders the frontier of an extraction.
// The zero value is CTF, the paper's method.
type Strategy uint8

const (
	// CTF orders by TTR with the specification's alpha.
	CTF Strategy = iota
	// CF orders by topical relevance only (TTR with alpha = 1).
	CF
	// TF orders by temporal relevance only (TTR with alpha = 0).
	TF
	// Unfocused uses no relevance: the frontier is breadth-first in
	// discovery order, and Priority is 0 for every document.
	Unfocused
)

var strategyNames = [...]string{CTF: "ctf", CF: "cf", TF: "tf", Unfocused: "unfocused"}

// Strategies returns all strategies, in declaration order.
func Strategies() []Strategy { return []Strategy{CTF, CF, TF, Unfocused} }

// String returns the specification name: "ctf", "cf", "tf" or
// "unfocused".
func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", uint8(s))
}

// ParseStrategy parses a strategy name, ignoring case and the paper's
// hyphen ("CT-F", "C-F", "T-F").
func ParseStrategy(name string) (Strategy, error) {
	key := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "")
	for s, n := range strategyNames {
		if key == n {
			return Strategy(s), nil
		}
	}
	return 0, fmt.Errorf("scoring: unknown strategy %q (want ctf, cf, tf or unfocused)", name)
}

// MarshalText implements encoding.TextMarshaler.
func (s Strategy) MarshalText() ([]byte, error) {
	if int(s) >= len(strategyNames) {
		return nil, fmt.Errorf("scoring: invalid strategy %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Strategy) UnmarshalText(text []byte) error {
	v, err := ParseStrategy(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Priority is the relevance of a document under a strategy, which its
// outlinks inherit in the frontier: TTR with alpha for CTF, topicR for CF,
// tempR for TF, and 0 for Unfocused (whose frontier ignores priorities and
// keeps discovery order).
func Priority(s Strategy, topicR, tempR, alpha float64) float64 {
	switch s {
	case CTF:
		return TTR(alpha, topicR, tempR)
	case CF:
		return TTR(1, topicR, tempR)
	case TF:
		return TTR(0, topicR, tempR)
	default:
		return 0
	}
}
