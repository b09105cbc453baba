package extract

import (
	"encoding/json"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/scoring"
)

// The outputs of an extraction in OUT: their names and the types of their
// lines (the driver writes them, pipelines/extract/outputs.go; the
// collection WARC and its index, internal/archive).
const (
	DocumentsFile  = "documents.jsonl"
	MissingFile    = "missing.jsonl"
	LinksFile      = "links.tsv"
	RoundsFile     = "rounds.jsonl"
	RunFile        = "run.json"
	CollectionWARC = archive.CollectionWARC // written by archive.WriteCollection
	CollectionCDXJ = archive.CollectionCDXJ
	// ListingsFile holds the listing pages that were followed but not
	// counted (specs count_listing_pages: false); written only then.
	ListingsFile = "listings.jsonl"
)

// RoundStats is one line of rounds.jsonl.
type RoundStats struct {
	Round                int     `json:"round"`
	FrontierSize         int     `json:"frontier_size"` // unseen URLs in the frontier when the round started
	Selected             int     `json:"selected"`
	Collected            int     `json:"collected"`
	Missing              int     `json:"missing"`
	Redirects            int     `json:"redirects"`
	Listings             int     `json:"listings,omitempty"`    // listing pages followed, not counted
	AccumulatedRelevance float64 `json:"accumulated_relevance"` // sum of topic_r over the collection so far
	URLsConsidered       int     `json:"urls_considered"`       // |seen| + |frontier| after the round
	// Links are the outlinks of the round's pages and what became of them.
	Links   LinkStats `json:"links"`
	Seconds float64   `json:"seconds"`
}

// MissingURL is one line of missing.jsonl.
type MissingURL struct {
	URL        string  `json:"url"`
	SURT       string  `json:"surt"`
	Path       string  `json:"path"`
	Depth      int     `json:"depth"`
	Parent     string  `json:"parent,omitempty"`
	Priority   float64 `json:"priority"`
	Round      int     `json:"round"`
	ReasonCode string  `json:"reason_code"`
	Reason     string  `json:"reason"`
}

// Totals summarise a run in run.json.
type Totals struct {
	Collected      int              `json:"collected"`
	Listings       int              `json:"listings,omitempty"`
	Missing        int              `json:"missing"`
	Redirects      int              `json:"redirects"`
	Frontier       int              `json:"frontier"`
	URLsConsidered int              `json:"urls_considered"`
	Rounds         int              `json:"rounds"`
	Relevance      float64          `json:"accumulated_relevance"`
	MissingReasons map[string]int   `json:"missing_reasons"`
	Counters       map[string]int64 `json:"counters,omitempty"`
	StopReason     string           `json:"stop_reason"`
	// Links are the outlinks of the run's pages and what became of them.
	Links LinkStats `json:"links"`
	// Starvation explains a run whose frontier emptied before target_size
	// (extract.Starvation); absent otherwise.
	Starvation string `json:"starvation,omitempty"`
}

// RunInfo is run.json.
type RunInfo struct {
	Spec     json.RawMessage   `json:"spec"`
	Strategy string            `json:"strategy"`
	Engine   string            `json:"engine"`
	Flags    map[string]string `json:"flags"`
	Versions map[string]string `json:"versions"`
	// Archives lists the named archives with the documents taken from
	// each (absent for a single unnamed archive).
	Archives []ArchiveUse `json:"archives,omitempty"`
	// Gate is the calibration of an automatic follow_threshold: the
	// threshold, its parts and every split with its seed.
	Gate *scoring.Calibration `json:"follow_threshold_calibration,omitempty"`
	// Listings: the run does not count listing pages, so listings.jsonl
	// is written (even when empty); not part of run.json.
	Listings bool    `json:"-"`
	Totals   Totals  `json:"totals"`
	Seconds  float64 `json:"seconds"`
}

// ResultSource replays a run's results in collection order; it may be
// called more than once.
type ResultSource func(yield func(Result) error) error
