package collection

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/scoring"
)

// Document is one collected document: a line of documents.jsonl (and of
// listings.jsonl, for a listing page that is not counted).
type Document struct {
	URL           string  `json:"url"`
	SURT          string  `json:"surt"`
	Timestamp     string  `json:"timestamp"`
	Archive       string  `json:"archive,omitempty"` // the named archive it came from ("" for a single unnamed one)
	Filename      string  `json:"filename"`
	Offset        int64   `json:"offset"`
	Length        int64   `json:"length"`
	Revisit       bool    `json:"revisit,omitempty"`
	PayloadFile   string  `json:"payload_filename,omitempty"`
	PayloadOffset int64   `json:"payload_offset,omitempty"`
	PayloadLength int64   `json:"payload_length,omitempty"`
	Title         string  `json:"title"`
	DocTime       string  `json:"doc_time"` // the instant (UTC) TempR is computed from
	DocDate       string  `json:"doc_date"` // its day as the page shows it (YYYY-MM-DD, the page's time zone)
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
	// Listing marks a listing page (home, section, tag page).
	Listing bool `json:"listing,omitempty"`
	// NotFollowed says why none of its outlinks entered the frontier when
	// a focus option stopped them (the follow_threshold gate).
	NotFollowed string `json:"not_followed,omitempty"`
}

// Missing is one line of missing.jsonl: a URL the extraction wanted but
// found no usable snapshot for.
type Missing struct {
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

// Link is one line of links.tsv: an outlink of a collected document.
type Link struct {
	Source, Target, Anchor string
	// InCollection: the target is a document of the collection.
	InCollection bool
	// Line is its line in links.tsv when read (not written).
	Line int
}

// Round is one line of rounds.jsonl.
type Round struct {
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

// LinkStats count the outlinks of the fetched pages (collected documents
// and listing pages) and what became of them: a part of rounds.jsonl and
// run.json.
type LinkStats struct {
	// Links are the outlinks of the pages, one per distinct target of a
	// page.
	Links int `json:"links"`
	// New are the links that brought a URL into the frontier for the
	// first time.
	New int `json:"new"`
	// NotFollowed counts the other links by reason (extract.LinkNot*).
	NotFollowed map[string]int `json:"not_followed,omitempty"`
}

// String is "1234 links: 80 new; not followed: 1000 not-main-content, …",
// reasons by count, largest first.
func (s LinkStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d links: %d new", s.Links, s.New)
	reasons := make([]string, 0, len(s.NotFollowed))
	for r := range s.NotFollowed {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if d := s.NotFollowed[b] - s.NotFollowed[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for i, r := range reasons {
		if i == 0 {
			b.WriteString("; not followed: ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", s.NotFollowed[r], r)
	}
	return b.String()
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
	Gate    *scoring.Calibration `json:"follow_threshold_calibration,omitempty"`
	Totals  Totals               `json:"totals"`
	Seconds float64              `json:"seconds"`
	// Refreshes lists each refresh of the collection (recrawl extract
	// --refresh): when, on which index state, from which round, how many
	// missing URLs it resolved again and documents it added.
	Refreshes []Refresh `json:"refreshes,omitempty"`
}

// ArchiveUse is one archive of a run with named archives, as run.json
// lists it: where it is and how many documents of the collection came from it.
type ArchiveUse struct {
	Name      string   `json:"name"`
	Index     string   `json:"index"`
	Locations []string `json:"locations"`
	Documents int      `json:"documents"`
}

// Refresh is one refresh of a collection (recrawl extract --refresh), as
// the work directory records it and run.json lists it.
type Refresh struct {
	Number int `json:"number"` // 1, 2, … in the order they were made
	// State is the state the refresh applies at: its first round is round
	// State.
	State int    `json:"first_round"`
	Time  string `json:"time"` // when it was made, UTC, RFC 3339
	// Index are the --index values of the refresh, IndexState the digest
	// of what they held (pipelines/extract.IndexState; "" when it
	// cannot be known, as for Bigtable).
	Index      []string `json:"index"`
	IndexState string   `json:"index_state"`
	// JobDigest is the sha256 of the job it continued with (job.json).
	JobDigest string `json:"job_digest"`
	// ResolvedAgain counts the missing URLs put back into the frontier.
	ResolvedAgain int `json:"resolved_again"`
	// Added is the number of documents the refresh's rounds collected.
	Added int `json:"documents_added"`
	// Labels are the researcher's labels the refresh used (recrawl
	// extract --refresh --labels_file); nil without.
	Labels *RefreshLabels `json:"labels,omitempty"`
	// Reprioritised counts the frontier entries the refresh ranked again
	// with the labels (its frontier replaces the state's); 0 without labels.
	Reprioritised int `json:"frontier_reprioritised,omitempty"`
}

// RefreshLabels is what a refresh with labels used: the file, its
// sha256, and how many of its labels were positive (grade > 0) and
// negative (grade 0) on documents of the collection, and how many name a
// URL the collection does not hold (not used).
type RefreshLabels struct {
	Path            string `json:"path"`
	SHA256          string `json:"sha256"`
	Positive        int    `json:"positive"`
	Negative        int    `json:"negative"`
	NotInCollection int    `json:"not_in_collection"`
}
