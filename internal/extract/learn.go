package extract

import (
	"encoding/json"
	"fmt"

	"github.com/recrawl/recrawl/scoring"
)

// Learning during the crawl (specs learn_links): the apprentice link model
// (scoring.LinkModel) of round r is a pure function of the results of the
// rounds before r, in collection order: LinkLearner adds them one by one.
// Both engines keep a LinkLearner beside their run state and add every
// result as they commit it (a resumed run re-adds its finished rounds'
// results), so the model needs no state file of its own and resume is
// exact. The sequential engine (one URL per round) reads the learner
// between two URLs; the Beam driver passes a snapshot of it to each round
// (LinkModelJSON), so that K = 1 gives the sequential engine's model at
// every step.

// LinkLearner trains the link model from committed results.
type LinkLearner struct {
	model scoring.LinkModel
	// anchors: the anchor text of the first followed link to each SURT
	// key, in collection order (the link's features when its target is
	// fetched).
	anchors map[string]string
}

// Add learns from one committed result: the links of a fetched page
// give their anchors; a fetched page (collected or listing, not a seed) is
// an example: the priority it was selected with, and its relevance under
// the strategy.
func (l *LinkLearner) Add(r Result) {
	if l.anchors == nil {
		l.anchors = map[string]string{}
	}
	if d := r.Document; d != nil && (r.Outcome == OutcomeCollected || r.Outcome == OutcomeListing) && r.Entry.Depth > 0 {
		y := d.Relevance
		if d.Listing { // navigation, not an article of the event: what the collection wants is articles
			y = 0
		}
		l.model.Add(scoring.LinkFeatures(r.Entry.URL, l.anchors[r.Entry.Key]), r.Entry.Priority, y)
	}
	for _, k := range r.Links {
		if _, ok := l.anchors[k.Key]; !ok && k.Followed && k.Anchor != "" {
			l.anchors[k.Key] = k.Anchor
		}
	}
}

// Model is the learner's model; it changes with Add (the sequential
// engine reads it between steps).
func (l *LinkLearner) Model() *scoring.LinkModel { return &l.model }

// ModelJSON is a snapshot of the model for a Beam round (Go's encoding
// sorts map keys and writes floats that read back exactly, so equal models
// give equal bytes).
func (l *LinkLearner) ModelJSON() (string, error) {
	b, err := json.Marshal(&l.model)
	if err != nil {
		return "", fmt.Errorf("link model: %w", err)
	}
	return string(b), nil
}

// DecodeLinkModel reads a snapshot written by ModelJSON ("" gives nil:
// no learning).
func DecodeLinkModel(s string) (*scoring.LinkModel, error) {
	if s == "" {
		return nil, nil
	}
	var m scoring.LinkModel
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("link model: %w", err)
	}
	return &m, nil
}
