package extract

import (
	"encoding/json"
	"fmt"

	"github.com/recrawl/recrawl/scoring"
)

// Learning during the crawl (specs learn_links and feedback): the
// apprentice link model (scoring.LinkModel) and the relevance feedback set
// (scoring.FeedbackSet) of round r are pure functions of the results of
// the rounds before r, in collection order: Learner adds them one by one.
// Both engines keep a Learner beside their run state and add every result
// as they commit it (a resumed run re-adds its finished rounds' results,
// which carry their documents' feedback terms), so what is learned needs
// no state file of its own and resume is exact. The sequential engine (one
// URL per round) hands the learner's state to its Processor between two
// URLs (Processor.Use); the Beam driver passes a snapshot of it to each
// round (Learner.JSON, round.Config.Learned), so that K = 1 gives the
// sequential engine's state at every step.
//
// A refresh with the researcher's labels (recrawl extract --refresh
// --labels_file) adds a LabelState, stored with the refresh: the labelled
// documents' feedback set moves the reference that scores the links
// (scoring.LabelFeedback: positive documents towards, negative ones away),
// and a labelled page is a link-model example of its label (1 relevant,
// 0 not) instead of its own relevance. The labels do not change while the
// rounds run, so they need no --rounds_per_job=1.

// Learner is what a run learns from its committed results.
type Learner struct {
	links    bool
	feedback scoring.FeedbackConfig
	link     LinkLearner
	set      scoring.FeedbackSet
	labels   *LabelState
}

// LabelState is what the researcher's labels give a refresh: the grade of
// each labelled SURT key (> 0 relevant, 0 not relevant), and the feedback
// set of the labelled documents of the collection (Relevant: the
// positive ones, NonRelevant: the negative ones, each in collection
// order).
type LabelState struct {
	Grades map[string]float64  `json:"grades"`
	Set    scoring.FeedbackSet `json:"feedback"`
}

// SetLabels makes the learner learn with the labels l (before the first
// Add; nil: none).
func (l *Learner) SetLabels(labels *LabelState) {
	l.labels = labels
	if labels != nil {
		l.link.grades = labels.Grades
	}
}

// LearnsBetweenRounds reports whether what is learned changes from one
// round to the next (learn_links, feedback): a Beam job then runs one
// round.
func (l *Learner) LearnsBetweenRounds() bool { return l.links || l.feedback.Documents > 0 }

// NewLearner returns the learner of a step's focus options (Active false
// when they learn nothing).
func NewLearner(f Focus) *Learner {
	return &Learner{links: f.LearnLinks, feedback: f.Feedback}
}

// Active reports whether the learner learns anything.
func (l *Learner) Active() bool { return l.LearnsBetweenRounds() || l.labels != nil }

// Add learns from one committed result (results in collection order).
func (l *Learner) Add(r Result) {
	if l.links {
		l.link.Add(r)
	}
	if l.feedback.Documents > 0 && r.Outcome == OutcomeCollected && r.Document != nil && !r.Document.Listing {
		// A document without terms (no text) is offered all the same:
		// it keeps its place in the collection order of the ties.
		var dt scoring.DocTerms
		if r.FeedbackTerms != nil {
			dt = *r.FeedbackTerms
		}
		if len(dt.Terms) > 0 {
			l.set.Offer(l.feedback, r.Document.Relevance, dt)
		} else {
			l.set.Offered++
		}
	}
}

// Learned is the state a round is scored with: the link model (nil
// without learn_links) and the feedback set (nil without feedback).
type Learned struct {
	LinkModel *scoring.LinkModel   `json:"link_model,omitempty"`
	Feedback  *scoring.FeedbackSet `json:"feedback,omitempty"`
	// Labels is the labelled documents' feedback set (nil without
	// labels).
	Labels *scoring.FeedbackSet `json:"labels,omitempty"`
}

// Learned is the learner's current state (it changes with Add).
func (l *Learner) Learned() Learned {
	var out Learned
	if l.links {
		out.LinkModel = l.link.Model()
	}
	if l.feedback.Documents > 0 {
		out.Feedback = &l.set
	}
	if l.labels != nil {
		out.Labels = &l.labels.Set
	}
	return out
}

// JSON is a snapshot of the learner's state for a Beam round (Go's
// encoding sorts map keys and writes floats that read back exactly, so
// equal states give equal bytes).
func (l *Learner) JSON() (string, error) {
	b, err := json.Marshal(l.Learned())
	if err != nil {
		return "", fmt.Errorf("learned state: %w", err)
	}
	return string(b), nil
}

// DecodeLearned reads a snapshot written by Learner.JSON ("" gives the
// zero Learned: nothing learned).
func DecodeLearned(s string) (Learned, error) {
	var l Learned
	if s == "" {
		return l, nil
	}
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return Learned{}, fmt.Errorf("learned state: %w", err)
	}
	return l, nil
}

// Use sets what the processor scores links with: the link model and the
// reference enriched by the labelled documents (scoring.LabelFeedback)
// or, without labels, by the feedback set (when the focus has feedback).
// Not safe while a Score runs.
func (p *Processor) Use(l Learned) {
	p.LinkModel = l.LinkModel
	p.Feedback = nil
	switch cfg := p.Settings.Focus.Feedback; {
	case l.Labels != nil && len(l.Labels.Relevant)+len(l.Labels.NonRelevant) > 0:
		p.Feedback = p.Scorer.Feedback(l.Labels, scoring.LabelFeedback)
	case cfg.Documents > 0 && l.Feedback != nil && len(l.Feedback.Relevant)+len(l.Feedback.NonRelevant) > 0:
		p.Feedback = p.Scorer.Feedback(l.Feedback, cfg)
	}
}

// LinkLearner trains the link model from committed results.
type LinkLearner struct {
	model scoring.LinkModel
	// anchors: the anchor text of the first followed link to each SURT
	// key, in collection order (the link's features when its target is
	// fetched).
	anchors map[string]string
	// grades: the researcher's labels by SURT key (Learner.SetLabels).
	grades map[string]float64
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
		if g, ok := l.grades[r.Entry.Key]; ok { // the researcher's label, not the crawl's own score
			y = 0
			if g > 0 {
				y = 1
			}
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
