package extract

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/surt"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
)

// Reason codes for URLs that go to missing (missing.jsonl's reason_code,
// and the counters of a run).
const (
	ReasonNotInIndex      = "not-in-index"
	ReasonNoUsable        = "no-usable-capture"
	ReasonStaleIndex      = "stale-index-entry"
	ReasonCorruptRecord   = "corrupt-record"
	ReasonUnsafeFilename  = "filename-outside-archive"
	ReasonNotHTML         = "not-html"
	ReasonBadRedirect     = "redirect-without-target"
	ReasonRedirected      = "redirected"
	ReasonDisallowedRedir = "redirect-target-not-allowed"
)

// Outcomes of one step.
const (
	OutcomeCollected = "collected"
	OutcomeMissing   = "missing"
	OutcomeRedirect  = "redirect"
)

// Settings are the extraction parameters a step needs.
type Settings struct {
	Interval         Interval
	AllOutlinks      bool // follow all links, not only those of the main content
	MaxDocumentBytes int
	DefaultLanguage  string
	// URLAllowed applies the spec's allow/deny lists; nil allows everything.
	URLAllowed func(rawURL string) bool
}

// Processor runs one step of Algorithm 1 for one frontier entry: select a
// snapshot, read it, score it, and produce its outlinks. The sequential
// engine and the Beam rounds both call it.
type Processor struct {
	Settings Settings
	Scorer   *scoring.Scorer
	Fetcher  *Fetcher
}

// Document is one collected document: a line of documents.jsonl.
type Document struct {
	URL           string  `json:"url"`
	SURT          string  `json:"surt"`
	Timestamp     string  `json:"timestamp"`
	Filename      string  `json:"filename"`
	Offset        int64   `json:"offset"`
	Length        int64   `json:"length"`
	Revisit       bool    `json:"revisit,omitempty"`
	PayloadFile   string  `json:"payload_filename,omitempty"`
	PayloadOffset int64   `json:"payload_offset,omitempty"`
	PayloadLength int64   `json:"payload_length,omitempty"`
	Title         string  `json:"title"`
	DocTime       string  `json:"doc_time"`
	DocTimeSource string  `json:"doc_time_source"`
	Language      string  `json:"language"`
	TopicR        float64 `json:"topic_r"`
	TempR         float64 `json:"temp_r"`
	TTR           float64 `json:"ttr"`
	Relevance     float64 `json:"relevance"` // under the run's strategy: what its outlinks inherit
	Priority      float64 `json:"priority"`  // its frontier priority when selected
	Round         int     `json:"round"`
	Rank          int     `json:"rank"` // position in its round
	Depth         int     `json:"depth"`
	Path          string  `json:"path"`
	Parent        string  `json:"parent,omitempty"`
	ScoreReason   string  `json:"score_reason,omitempty"`
	Outlinks      int     `json:"outlinks"`
	Truncated     bool    `json:"truncated,omitempty"`
}

// Link is one outlink of a collected document (a line of links.tsv).
type Link struct {
	Target   string `json:"target"`
	Key      string `json:"surt"`
	Anchor   string `json:"anchor"`
	InMain   bool   `json:"in_main"`
	Followed bool   `json:"followed"` // passed the outlink scope and allow/deny filters
}

// Result is the outcome of one step.
type Result struct {
	Entry      Entry     `json:"entry"`
	Round      int       `json:"round"`
	Rank       int       `json:"rank"`
	Outcome    string    `json:"outcome"`
	ReasonCode string    `json:"reason_code,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Document   *Document `json:"document,omitempty"`
	Links      []Link    `json:"links,omitempty"`
	// NewEntries are the frontier candidates this step discovered: followed
	// outlinks and a redirect target, with priority, depth, path, parent and
	// discovery order set. Whether they are unseen is for the engine to check.
	NewEntries []Entry `json:"new_entries,omitempty"`
}

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

// Process runs the step for entry e, selected as number rank of round, with
// the captures the index holds for e.Key. The error is fatal for the round
// (an archive file is missing); every other problem makes the URL missing
// with a reason.
func (p *Processor) Process(ctx context.Context, e Entry, captures []cdxj.Capture, round, rank int) (Result, error) {
	res := Result{Entry: e, Round: round, Rank: rank}
	missing := func(code, why string) (Result, error) {
		res.Outcome, res.ReasonCode, res.Reason = OutcomeMissing, code, why
		return res, nil
	}
	choice := SelectSnapshot(captures, p.Settings.Interval)
	switch choice.Kind {
	case NoSnapshot:
		if len(captures) == 0 {
			return missing(ReasonNotInIndex, choice.Reason)
		}
		return missing(ReasonNoUsable, choice.Reason)
	case FollowRedirect:
		return p.redirect(ctx, res, choice)
	}
	rec, err := p.Fetcher.Read(ctx, choice.Payload)
	if err != nil {
		var re *RecordError
		if errors.As(err, &re) {
			return missing(re.Kind, re.Err.Error())
		}
		return res, err
	}
	captureTime, err := CaptureTime(choice.Capture.Timestamp)
	if err != nil {
		return missing(ReasonStaleIndex, err.Error())
	}
	contentType := ""
	if rec.HTTP != nil {
		contentType = rec.HTTP.Header.Get("Content-Type")
	}
	doc, err := document.Parse(rec.Body, contentType, e.URL, document.Options{
		MaxBytes: p.Settings.MaxDocumentBytes, DefaultLanguage: p.Settings.DefaultLanguage, CaptureTime: captureTime,
	})
	if err != nil {
		if errors.Is(err, document.ErrNotHTML) {
			return missing(ReasonNotHTML, err.Error())
		}
		return missing(ReasonCorruptRecord, err.Error())
	}
	docTime, source := doc.Published, doc.PublishedSource
	if docTime.IsZero() {
		docTime, source = captureTime, "capture"
	}
	score := p.Scorer.Score(doc.MainText, doc.Language, docTime)
	reason := score.Reason
	if doc.Reason != "" {
		reason = doc.Reason
	}
	d := &Document{
		URL: e.URL, SURT: e.Key, Timestamp: choice.Capture.Timestamp,
		Filename: choice.Capture.Filename, Offset: choice.Capture.Offset, Length: choice.Capture.Length,
		Revisit: choice.Capture.IsRevisit(),
		Title:   doc.Title, DocTime: docTime.UTC().Format(time.RFC3339), DocTimeSource: source,
		Language: doc.Language, TopicR: score.TopicR, TempR: score.TempR, TTR: score.TTR,
		Relevance: score.Priority, Priority: e.Priority,
		Round: round, Rank: rank, Depth: e.Depth, Path: e.Path, Parent: e.Parent,
		ScoreReason: reason, Truncated: doc.Truncated,
	}
	if d.Revisit {
		d.PayloadFile, d.PayloadOffset, d.PayloadLength = choice.Payload.Filename, choice.Payload.Offset, choice.Payload.Length
	}
	res.Outcome, res.Document = OutcomeCollected, d
	seenHere := map[string]bool{e.Key: true}
	for i, l := range doc.Outlinks {
		key, err := surt.Key(l.URL)
		if err != nil {
			continue // unparsable outlink: counted by the engines through Links
		}
		followed := (p.Settings.AllOutlinks || l.InMain) && p.allowed(l.URL)
		res.Links = append(res.Links, Link{Target: l.URL, Key: key, Anchor: l.Anchor, InMain: l.InMain, Followed: followed})
		if !followed || seenHere[key] {
			continue
		}
		seenHere[key] = true
		res.NewEntries = append(res.NewEntries, Entry{
			Key: key, URL: l.URL, Priority: score.Priority, Depth: e.Depth + 1, Path: e.Path + "L",
			Parent: e.URL, Order: DiscoveryOrder(round, rank, i+1), Host: HostOf(l.URL),
		})
	}
	d.Outlinks = len(res.NewEntries)
	return res, nil
}

func (p *Processor) allowed(rawURL string) bool {
	return p.Settings.URLAllowed == nil || p.Settings.URLAllowed(rawURL)
}

// redirect reads a 3xx capture's Location: its target enters the frontier
// with the redirecting URL's priority and depth, path + "R".
func (p *Processor) redirect(ctx context.Context, res Result, choice Choice) (Result, error) {
	e := res.Entry
	res.Outcome = OutcomeMissing
	rec, err := p.Fetcher.Read(ctx, choice.Payload)
	if err != nil {
		var re *RecordError
		if errors.As(err, &re) {
			res.ReasonCode, res.Reason = re.Kind, re.Err.Error()
			return res, nil
		}
		return res, err
	}
	loc := ""
	if rec.HTTP != nil {
		loc = strings.TrimSpace(rec.HTTP.Header.Get("Location"))
	}
	base, err1 := url.Parse(e.URL)
	ref, err2 := url.Parse(loc)
	if loc == "" || err1 != nil || err2 != nil {
		res.ReasonCode, res.Reason = ReasonBadRedirect, fmt.Sprintf("%s capture %s has no usable Location header %q", choice.Payload.Status, choice.Capture.Timestamp, loc)
		return res, nil
	}
	target := base.ResolveReference(ref)
	target.Fragment = ""
	if target.Scheme != "http" && target.Scheme != "https" {
		res.ReasonCode, res.Reason = ReasonBadRedirect, fmt.Sprintf("redirect to %q", target.String())
		return res, nil
	}
	if !p.allowed(target.String()) {
		res.ReasonCode, res.Reason = ReasonDisallowedRedir, "redirect to "+target.String()
		return res, nil
	}
	ne, err := NewEntry(target.String(), e.Priority, e.Depth, e.Path+"R", e.URL, DiscoveryOrder(res.Round, res.Rank, 0))
	if err != nil || ne.Key == e.Key {
		res.ReasonCode, res.Reason = ReasonBadRedirect, fmt.Sprintf("redirect to %q (same URL or no SURT key)", target.String())
		return res, nil
	}
	res.Outcome, res.ReasonCode, res.Reason = OutcomeRedirect, ReasonRedirected, "redirected to "+target.String()
	res.NewEntries = []Entry{ne}
	return res, nil
}
