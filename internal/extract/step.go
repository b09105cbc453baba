package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/surt"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/specs"
)

// Reason codes for URLs that go to missing (missing.jsonl's reason_code,
// and the counters of a run). Those of a record that could not be read are
// the fetcher's (archive.RecordError's kinds).
const (
	ReasonNotInIndex      = "not-in-index"
	ReasonNoUsable        = "no-usable-capture"
	ReasonStaleIndex      = archive.ReasonStaleIndex
	ReasonCorruptRecord   = archive.ReasonCorruptRecord
	ReasonUnsafeFilename  = archive.ReasonUnsafeFilename
	ReasonNotHTML         = "not-html"
	ReasonTooDeep         = "nested-too-deep"
	ReasonArchiveFileGone = archive.ReasonArchiveFileGone
	ReasonBadRedirect     = "redirect-without-target"
	ReasonRedirected      = "redirected"
	ReasonDisallowedRedir = "redirect-target-not-allowed"
	// ReasonCanonicalCopy: the page's canonical link names another URL,
	// which was followed instead (specs follow_canonical); counted with
	// the redirects.
	ReasonCanonicalCopy = "canonical-copy"
)

// Outcomes of one step.
const (
	OutcomeCollected = "collected"
	OutcomeMissing   = "missing"
	OutcomeRedirect  = "redirect"
	// OutcomeListing: a listing page, followed but not counted in the
	// collection (specs count_listing_pages: false).
	OutcomeListing = "listing"
)

// Settings are the extraction parameters a step needs.
type Settings struct {
	Interval         Interval
	AllOutlinks      bool // follow all links, not only those of the main content
	MaxDocumentBytes int
	DefaultLanguage  string
	// URLAllowed applies the spec's allow/deny lists; nil allows everything.
	URLAllowed func(rawURL string) bool
	// Archives are the names of the archives in the order given (nil: one
	// unnamed archive); see SelectSnapshotIn.
	Archives []string
	// Focus are the focusing options beyond the paper (zero value: the
	// paper's method).
	Focus Focus
}

// Focus are the focusing options of a step (specs.Focus, resolved).
type Focus struct {
	// Links weighs an outlink's priority; the zero value means the paper's
	// rule (the parent's relevance), as does {Parent: 1}.
	Links scoring.LinkWeights
	// LinkDates: a date in an outlink's URL gives it its own TempR.
	LinkDates bool
	// Combine: how an entry's priorities from several parents combine.
	Combine Combination
	// Intent boosts links dated in busy months.
	Intent specs.TemporalIntent
	// FollowThreshold: documents with a TTR below it have no outlinks
	// followed (0: no gate).
	FollowThreshold float64
	// MaxDepth: outlinks deeper than this do not enter the frontier (0: no
	// limit).
	MaxDepth int
	// SkipListings: listing pages are followed but not counted.
	SkipListings bool
	// FollowCanonical: a page whose canonical link names another URL is a
	// copy; the canonical URL is followed instead (Processor.canonical).
	FollowCanonical bool
	// FollowPagination: a listing page's links to other pages of its list
	// get at least the listing page's own priority.
	FollowPagination bool
	// TemplateLinks: a page's outlinks to its own host count towards
	// their targets' Entry.HostLinks, so that the links a host repeats on
	// its pages are ranked lower (Entry.SelectionPriority).
	TemplateLinks bool
	// PreEvent (specs discount_pre_event_links; zero Before: off): the
	// engines look each URL up in the snapshot index when it first enters
	// the frontier and mark it FirstCapturePreEvent, with the factor it is
	// ranked with, when its first usable capture is before PreEvent.Before
	// (FirstCaptureOf, MarkFirstCapture).
	PreEvent PreEventRule
	// PostEventAfter (specs discount_post_event_links; zero: off): an
	// outlink whose URL is dated after it is ranked with
	// PreEventLinkFactor of its priority (Processor.linkPriority).
	PostEventAfter time.Time
	// LearnLinks: an outlink's priority is mixed with the link model's
	// prediction (Processor.LinkModel; learn.go).
	LearnLinks bool
	// Feedback: relevance feedback into the reference vector that scores
	// the links (Processor.Feedback; learn.go); Documents 0: off.
	Feedback scoring.FeedbackConfig
}

// paperLinks reports whether every outlink gets the parent's relevance.
func (f Focus) paperLinks() bool {
	return !f.LinkDates && (f.Links == scoring.LinkWeights{} || f.Links == scoring.LinkWeights{Parent: 1})
}

// Processor runs one step of Algorithm 1 for one frontier entry: select a
// snapshot, read it, score it, and produce its outlinks. The sequential
// engine and the Beam rounds both call it.
type Processor struct {
	Settings Settings
	Scorer   *scoring.Scorer
	Fetcher  *archive.Fetcher
	// LinkModel is the link model learned from the rounds before the
	// current one (Focus.LearnLinks; nil: none yet). The engines set it
	// between rounds; Score only reads it.
	LinkModel *scoring.LinkModel
	// Feedback is the reference enriched by the documents of the rounds
	// before the current one (Focus.Feedback; nil: none yet). Set by Use.
	Feedback *scoring.Feedback
}

// Outlink is one outlink of a fetched page as the step found it: its
// target and what became of it (the collection's links.tsv holds the
// outlinks of the collected documents, collection.Link).
type Outlink struct {
	Target   string `json:"target"`
	Key      string `json:"surt"`
	Anchor   string `json:"anchor"`
	InMain   bool   `json:"in_main"`
	Followed bool   `json:"followed"` // passed the outlink scope and allow/deny filters
	// NotFollowed is why a link that is not Followed was left out (the
	// LinkNot* reasons).
	NotFollowed string `json:"not_followed,omitempty"`
}

// Result is the outcome of one step.
type Result struct {
	Entry      Entry                `json:"entry"`
	Round      int                  `json:"round"`
	Rank       int                  `json:"rank"`
	Outcome    string               `json:"outcome"`
	ReasonCode string               `json:"reason_code,omitempty"`
	Reason     string               `json:"reason,omitempty"`
	Document   *collection.Document `json:"document,omitempty"`
	Links      []Outlink            `json:"links,omitempty"`
	// FeedbackTerms is a collected document's evidence for relevance
	// feedback (Focus.Feedback on; not for listing pages), read by
	// Learner.Add from the committed results.
	FeedbackTerms *scoring.DocTerms `json:"feedback_terms,omitempty"`
	// NewEntries are the frontier candidates this step discovered: followed
	// outlinks and a redirect target, with priority, depth, path, parent and
	// discovery order set. Whether they are unseen is for the engine to check.
	NewEntries []Entry `json:"new_entries,omitempty"`
	// UnparsableOutlinks counts the outlinks of a collected document that
	// have no SURT key (e.g. a port out of range): they cannot be looked up
	// and are dropped, counted in run.json (CounterUnparsableOutlinks).
	UnparsableOutlinks int `json:"unparsable_outlinks,omitempty"`
	// BodyTruncated: the record's body was over max_document_bytes and was
	// cut while reading, whatever the outcome (a collected document also
	// has Document.Truncated; a missing one says so in its Reason);
	// counted in run.json (CounterTruncatedBodies).
	BodyTruncated bool `json:"body_truncated,omitempty"`
}

// CounterUnparsableOutlinks is the run.json counter of outlinks dropped
// because they have no SURT key.
const CounterUnparsableOutlinks = "unparsable_outlinks"

// CounterTruncatedBodies is the run.json counter of records whose body was
// cut at max_document_bytes (Result.BodyTruncated).
const CounterTruncatedBodies = "truncated_bodies"

// HostOf returns the lower-cased host of a URL ("" if unparsable).
func HostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// NewEntry makes a frontier entry for a URL, or an error if it has no SURT key.
func NewEntry(rawURL string, priority float64, depth int, path, parent string, order Order) (Entry, error) {
	key, err := surt.Key(rawURL)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Key: key, URL: rawURL, Priority: priority, Depth: depth, Path: path, Parent: parent, Order: order, Host: HostOf(rawURL)}, nil
}

// Selected is a frontier entry with the snapshot selectSnapshot chose.
type Selected struct {
	Entry  Entry
	Round  int
	Rank   int
	Choice Choice
}

// Fetched is a selected snapshot with its record read.
type Fetched struct {
	Selected    Selected
	ContentType string // Content-Type of the HTTP response
	Body        []byte // decoded HTTP entity
	Location    string // Location header (redirects)
	// Truncated: the record's body was longer than max_document_bytes and
	// was cut while reading (Body holds the first max_document_bytes).
	Truncated bool
}

// Process runs the step for entry e, selected as number rank of round, with
// the captures the index holds for e.Key: SelectSnapshot, FetchRecord and
// Score in turn. The error is fatal for the round (an archive file is
// missing); every other problem makes the URL missing with a reason.
func (p *Processor) Process(ctx context.Context, e Entry, captures []cdxj.Capture, round, rank int) (Result, error) {
	sel, done := p.SelectSnapshot(e, captures, round, rank)
	if done != nil {
		return *done, nil
	}
	f, done, err := p.FetchRecord(ctx, sel)
	if err != nil || done != nil {
		if done != nil {
			return *done, err
		}
		return Result{Entry: e, Round: round, Rank: rank}, err
	}
	return p.Score(f), nil
}

func missingResult(e Entry, round, rank int, code, why string) *Result {
	return &Result{Entry: e, Round: round, Rank: rank, Outcome: OutcomeMissing, ReasonCode: code, Reason: why}
}

// SelectSnapshot is step 3: it chooses the capture to use, or finishes the
// URL as missing (the returned *Result).
func (p *Processor) SelectSnapshot(e Entry, captures []cdxj.Capture, round, rank int) (Selected, *Result) {
	choice := SelectSnapshotIn(captures, p.Settings.Interval, p.Settings.Archives)
	if choice.Kind == NoSnapshot {
		code := ReasonNoUsable
		if len(captures) == 0 {
			code = ReasonNotInIndex
		}
		return Selected{}, missingResult(e, round, rank, code, choice.Reason)
	}
	return Selected{Entry: e, Round: round, Rank: rank, Choice: choice}, nil
}

// FetchRecord is step 4's read: the record of the selected snapshot. A
// redirect is finished here (its target is a new frontier entry). The error
// is fatal (missing archive file); record problems finish the URL as missing.
func (p *Processor) FetchRecord(ctx context.Context, sel Selected) (Fetched, *Result, error) {
	e := sel.Entry
	rec, err := p.Fetcher.Read(ctx, sel.Choice.Payload)
	if err != nil {
		var re *archive.RecordError
		if errors.As(err, &re) {
			return Fetched{}, missingResult(e, sel.Round, sel.Rank, re.Kind, re.Err.Error()), nil
		}
		return Fetched{}, nil, err
	}
	f := Fetched{Selected: sel, Body: rec.Body, Truncated: rec.BodyTruncated}
	if rec.HTTP != nil {
		f.ContentType = rec.HTTP.Header.Get("Content-Type")
		f.Location = strings.TrimSpace(rec.HTTP.Header.Get("Location"))
	}
	if sel.Choice.Kind == FollowRedirect {
		r := p.redirect(f)
		return Fetched{}, &r, nil
	}
	return f, nil, nil
}

// Score is the rest of step 4 and step 5's outlinks: main text, outlinks and
// document time; TopicR, TempR and TTR; the outlinks that enter the
// frontier with the document's relevance under the strategy.
func (p *Processor) Score(f Fetched) Result {
	r := p.score(f)
	if f.Truncated || r.Document != nil && r.Document.Truncated {
		r.BodyTruncated = true
		limit := maxBytes(int64(p.Settings.MaxDocumentBytes))
		c := f.Selected.Choice.Payload
		slog.Warn("a body was cut at max_document_bytes; its first bytes are used", "url", f.Selected.Entry.URL,
			"file", c.Filename, "offset", c.Offset, "max_document_bytes", limit, "outcome", r.Outcome)
		if r.Outcome == OutcomeMissing {
			r.Reason += fmt.Sprintf(" (the body was cut at max_document_bytes, %d bytes)", limit)
		}
	}
	return r
}

func (p *Processor) score(f Fetched) Result {
	sel := f.Selected
	e, round, rank, choice := sel.Entry, sel.Round, sel.Rank, sel.Choice
	captureTime, err := CaptureTime(choice.Capture.Timestamp)
	if err != nil {
		return *missingResult(e, round, rank, ReasonStaleIndex, err.Error())
	}
	focus := p.Settings.Focus
	doc, err := document.Parse(f.Body, f.ContentType, e.URL, document.Options{
		MaxBytes: p.Settings.MaxDocumentBytes, DefaultLanguage: p.Settings.DefaultLanguage, CaptureTime: captureTime,
		LinkContext: focus.Links.Context > 0,
	})
	if err != nil {
		if errors.Is(err, document.ErrNotHTML) {
			return *missingResult(e, round, rank, ReasonNotHTML, err.Error())
		}
		if errors.Is(err, document.ErrTooDeep) {
			return *missingResult(e, round, rank, ReasonTooDeep, err.Error())
		}
		return *missingResult(e, round, rank, ReasonCorruptRecord, err.Error())
	}
	if focus.FollowCanonical {
		if r, ok := p.canonical(sel, doc.Canonical); ok {
			return r
		}
	}
	docTime, docDay, source := DocumentTime(doc, captureTime)
	text := doc.Text()
	score := p.Scorer.Score(text, doc.Language, docTime)
	reason := score.Reason
	if doc.Reason != "" {
		reason = doc.Reason
	}
	d := &collection.Document{
		URL: e.URL, SURT: e.Key, Timestamp: choice.Capture.Timestamp, Archive: choice.Capture.Archive,
		Filename: choice.Capture.Filename, Offset: choice.Capture.Offset, Length: choice.Capture.Length,
		Revisit: choice.Capture.IsRevisit(),
		Title:   doc.Title, DocTime: docTime.Format(time.RFC3339), DocDate: docDay, DocTimeSource: source,
		Language: doc.Language, TopicR: score.TopicR, TempR: score.TempR, TTR: score.TTR,
		Relevance: score.Priority, Priority: e.SelectionPriority(),
		Round: round, Rank: rank, Depth: e.Depth, Path: e.Path, Parent: e.Parent,
		ScoreReason: reason, Truncated: doc.Truncated || f.Truncated, Listing: doc.Listing,
	}
	if d.Revisit {
		d.PayloadFile, d.PayloadOffset, d.PayloadLength = choice.Payload.Filename, choice.Payload.Offset, choice.Payload.Length
	}
	res := Result{Entry: e, Round: round, Rank: rank, Outcome: OutcomeCollected, Document: d}
	if doc.Listing && focus.SkipListings {
		res.Outcome = OutcomeListing
	}
	if focus.Feedback.Documents > 0 && !doc.Listing {
		if dt, ok := p.Scorer.DocumentTerms(text, doc.Language); ok {
			res.FeedbackTerms = &dt
		}
	}
	follow, gateReason := true, ""
	switch {
	case focus.FollowThreshold > 0 && score.TTR < focus.FollowThreshold && e.Depth > 0 && !doc.Listing:
		// Seeds are the researcher's choice and listing pages are judged
		// by their links, not their little text: the gate applies to
		// the documents found on the way.
		follow, gateReason = false, LinkNotFollowThreshold
		d.NotFollowed = fmt.Sprintf("ttr %.4f below follow_threshold %.4f", score.TTR, focus.FollowThreshold)
	case focus.MaxDepth > 0 && e.Depth >= focus.MaxDepth:
		follow, gateReason = false, LinkNotMaxDepth
		d.NotFollowed = fmt.Sprintf("depth %d: outlinks would exceed max_depth %d", e.Depth, focus.MaxDepth)
	}
	seenHere := map[string]bool{e.Key: true}
	var texts *scoring.LinkTexts // the outlinks' anchors and paragraphs, scored once each
	linkParent := score          // the parent's score the outlinks' priorities start from
	switch {
	case p.Feedback != nil:
		texts = p.Feedback.LinkTexts(score.Language)
		if p.Feedback.Config().Parent {
			linkParent.TopicR = p.Feedback.TopicR(text, doc.Language)
			linkParent.Priority = scoring.Priority(p.Scorer.Strategy(), linkParent.TopicR, linkParent.TempR, p.Scorer.Alpha())
		}
	case !focus.paperLinks():
		texts = p.Scorer.LinkTexts(score.Language)
	}
	for i, l := range doc.Outlinks {
		key, err := surt.Key(l.URL)
		if err != nil {
			res.UnparsableOutlinks++ // an outlink without a SURT key cannot be resolved
			continue
		}
		why := ""
		switch {
		case !follow:
			why = gateReason
		case !p.Settings.AllOutlinks && !l.InMain:
			why = LinkNotMain
		case !p.allowed(l.URL):
			why = LinkNotAllowed
		}
		followed := why == ""
		res.Links = append(res.Links, Outlink{Target: l.URL, Key: key, Anchor: l.Anchor, InMain: l.InMain, Followed: followed, NotFollowed: why})
		if !followed || seenHere[key] {
			continue
		}
		seenHere[key] = true
		priority := p.linkPriority(linkParent, texts, l, docTime)
		if focus.FollowPagination && doc.Listing && document.SamePagedList(e.URL, l.URL) {
			// The list goes on with the interest it was read with.
			priority = max(priority, e.Priority)
		}
		ne := Entry{
			Key: key, URL: l.URL, Priority: priority, Depth: e.Depth + 1, Path: e.Path + "L",
			Parent: e.URL, Order: DiscoveryOrder(round, rank, i+1), Host: HostOf(l.URL),
		}
		if focus.TemplateLinks && ne.Host != "" && ne.Host == e.Host {
			ne.HostLinks = 1 // one more page of its host links to it
		}
		if focus.Combine != CombineMax {
			ne = ne.WithCombination(focus.Combine)
		}
		res.NewEntries = append(res.NewEntries, ne)
	}
	d.Outlinks = len(res.NewEntries)
	return res
}

// linkPriority is the frontier priority of one outlink of a document with
// score parent and time docTime: the document's relevance under the
// strategy (the paper), or the weighted sum of Focus.Links with the link's
// own TempR (texts scores the document's link texts; nil with the paper's
// links); then the temporal intent boost.
func (p *Processor) linkPriority(parent scoring.Score, texts *scoring.LinkTexts, l document.Link, docTime time.Time) float64 {
	focus := p.Settings.Focus
	var urlDate time.Time
	dated := false
	if focus.LinkDates || !focus.PostEventAfter.IsZero() {
		urlDate, dated = document.URLDate(l.URL) // parsed once for both
	}
	postEvent := focus.postEventFactor(urlDate, dated)
	if focus.paperLinks() && len(focus.Intent.Months) == 0 && !focus.LearnLinks && p.Feedback == nil {
		return parent.Priority * postEvent
	}
	priority, linkTime := parent.Priority, docTime
	if !focus.paperLinks() {
		tempR := parent.TempR
		if focus.LinkDates && dated {
			linkTime, tempR = urlDate, p.Scorer.TimeScope().TempR(urlDate)
		}
		w := focus.Links
		if w == (scoring.LinkWeights{}) {
			w.Parent = 1
		}
		priority = texts.Priority(parent, w, l.Anchor, l.Context, tempR)
	}
	if focus.LearnLinks {
		if p.LinkModel != nil {
			priority = p.LinkModel.Adjust(scoring.LinkFeatures(l.URL, l.Anchor), priority)
		}
	}
	return priority * focus.Intent.Factor(priority, linkTime) * postEvent
}

// postEventFactor is the factor of a link under discount_post_event_links,
// given its URL's date (document.URLDate; dated false: none):
// PreEventLinkFactor when the URL is dated after PostEventAfter, else 1. A
// date in a URL is where the page was filed (a lower bound on its
// publication date when it names only the month), so a page filed more than
// PostEventHalfLives cooldown_times after the event is most likely about
// another one; its TempR there is the factor. The factor depends on the URL
// alone, so every parent gives the same one.
func (f Focus) postEventFactor(urlDate time.Time, dated bool) float64 {
	if dated && !f.PostEventAfter.IsZero() && urlDate.After(f.PostEventAfter) {
		return PreEventLinkFactor
	}
	return 1
}

// PathCanonical is the path letter of an entry reached through a copy's
// canonical link (specs follow_canonical).
const PathCanonical = "C"

// canonical turns a copy into a redirect-like result: when the page's
// canonical URL has another SURT key than the page, is allowed and the page
// was not itself reached through a canonical link, the canonical URL enters
// the frontier with the page's priority and depth, path + "C", and the page
// is not collected (ok true). The canonical URL's own capture is then
// selected, fetched and scored as any frontier URL: a print or AMP copy
// does not take a slot of the collection, and its article is not reached
// twice.
func (p *Processor) canonical(sel Selected, canonical string) (Result, bool) {
	e := sel.Entry
	if canonical == "" || strings.HasSuffix(e.Path, PathCanonical) || !p.allowed(canonical) {
		return Result{}, false
	}
	ne, err := NewEntry(canonical, e.Priority, e.Depth, e.Path+PathCanonical, e.URL, DiscoveryOrder(sel.Round, sel.Rank, 0))
	if err != nil || ne.Key == e.Key {
		return Result{}, false
	}
	return Result{Entry: e, Round: sel.Round, Rank: sel.Rank, Outcome: OutcomeRedirect, ReasonCode: ReasonCanonicalCopy,
		Reason: "a copy of " + canonical + " (link rel=canonical)", NewEntries: []Entry{ne}}, true
}

func (p *Processor) allowed(rawURL string) bool {
	return p.Settings.URLAllowed == nil || p.Settings.URLAllowed(rawURL)
}

// redirect turns a fetched 3xx capture into a redirect result: its
// Location's target enters the frontier with the redirecting URL's priority
// and depth, path + "R".
func (p *Processor) redirect(f Fetched) Result {
	sel := f.Selected
	e := sel.Entry
	res := Result{Entry: e, Round: sel.Round, Rank: sel.Rank, Outcome: OutcomeMissing}
	loc := f.Location
	base, err1 := url.Parse(e.URL)
	ref, err2 := url.Parse(loc)
	if loc == "" || err1 != nil || err2 != nil {
		res.ReasonCode, res.Reason = ReasonBadRedirect, fmt.Sprintf("%s capture %s has no usable Location header %q", sel.Choice.Payload.Status, sel.Choice.Capture.Timestamp, loc)
		return res
	}
	target := base.ResolveReference(ref)
	target.Fragment = ""
	if target.Scheme != "http" && target.Scheme != "https" {
		res.ReasonCode, res.Reason = ReasonBadRedirect, fmt.Sprintf("redirect to %q", target.String())
		return res
	}
	if !p.allowed(target.String()) {
		res.ReasonCode, res.Reason = ReasonDisallowedRedir, "redirect to "+target.String()
		return res
	}
	ne, err := NewEntry(target.String(), e.Priority, e.Depth, e.Path+"R", e.URL, DiscoveryOrder(sel.Round, sel.Rank, 0))
	if err != nil || ne.Key == e.Key {
		res.ReasonCode, res.Reason = ReasonBadRedirect, fmt.Sprintf("redirect to %q (same URL or no SURT key)", target.String())
		return res
	}
	res.Outcome, res.ReasonCode, res.Reason = OutcomeRedirect, ReasonRedirected, "redirected to "+target.String()
	res.NewEntries = []Entry{ne}
	return res
}
