package scoring

// LinkWeights weigh the parts of an outlink's priority (Wu & Hou; ARCOMEM):
// the relevance of the page the link is on, of its anchor text, and of the
// paragraph around it. The paper's CT-F is {Parent: 1}.
type LinkWeights struct {
	Parent, Anchor, Context float64
}

// TextTopicR is the TopicR of a short text (an anchor, a paragraph) in lang:
// the cosine of its term vector to the reference vector, normalised as for
// documents. An empty text, or one without terms, has TopicR 0.
func (s *Scorer) TextTopicR(text, lang string) float64 {
	var sc Score
	s.topicR(&sc, text, lang)
	return sc.TopicR
}

// LinkPriority is the priority of one outlink before it is fetched (the
// formula of Wu & Hou, with ARCOMEM's paragraph term):
//
//	Parent·P(TopicR(parent), tempR) + Anchor·TextTopicR(anchor) + Context·TextTopicR(context)
//
// where P is the strategy's relevance of the parent (Priority) with the
// link's temporal relevance tempR: TempR of a date in the link's URL, else
// the parent's TempR. The anchor and context terms are topical only (a link
// has no time of its own beyond its URL); they are analysed in the parent's
// language lang. With weights {Parent: 1} and the parent's TempR it is the
// parent's Priority, the paper's rule.
func (s *Scorer) LinkPriority(parent Score, w LinkWeights, anchor, context, lang string, tempR float64) float64 {
	return s.LinkTexts(lang).Priority(parent, w, anchor, context, tempR)
}

// LinkTexts scores the anchor and context texts of one document's links in
// lang, each distinct text once: the links of a paragraph share its text,
// and anchors such as "read more" repeat. Not safe for concurrent use.
type LinkTexts struct {
	s      *Scorer
	fb     *Feedback // the texts are scored against its references (nil: the scorer's)
	lang   string
	topicR map[string]float64
}

// LinkTexts returns an empty LinkTexts for a document in lang.
func (s *Scorer) LinkTexts(lang string) *LinkTexts {
	return &LinkTexts{s: s, lang: lang, topicR: map[string]float64{}}
}

// TopicR is TextTopicR(text, lang), computed once per text.
func (t *LinkTexts) TopicR(text string) float64 {
	r, ok := t.topicR[text]
	if !ok {
		if t.fb != nil {
			r = t.fb.TopicR(text, t.lang)
		} else {
			r = t.s.TextTopicR(text, t.lang)
		}
		t.topicR[text] = r
	}
	return r
}

// Priority is Scorer.LinkPriority with this document's texts.
func (t *LinkTexts) Priority(parent Score, w LinkWeights, anchor, context string, tempR float64) float64 {
	p := w.Parent * Priority(t.s.strategy, parent.TopicR, tempR, t.s.alpha)
	if w.Anchor > 0 {
		p += w.Anchor * t.TopicR(anchor)
	}
	if w.Context > 0 {
		p += w.Context * t.TopicR(context)
	}
	return p
}
