package extract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// Output file names in OUT.
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

// WriteOutputs writes documents.jsonl, missing.jsonl, links.tsv,
// rounds.jsonl, run.json, and with archive.WriteCollection
// collection.warc.gz and collection.cdxj into out, each atomically. The
// driver calls it with the results of either engine, so equal results give
// equal files.
func WriteOutputs(ctx context.Context, out string, results ResultSource, rounds []RoundStats, run RunInfo, f *archive.Fetcher) error {
	inCollection := map[string]bool{}
	hasListings := run.Listings
	if err := results(func(r Result) error {
		if r.Outcome == OutcomeCollected {
			inCollection[r.Entry.Key] = true
		}
		hasListings = hasListings || r.Outcome == OutcomeListing
		return nil
	}); err != nil {
		return err
	}
	docs, err := newLineFile(ctx, storage.Join(out, DocumentsFile))
	if err != nil {
		return err
	}
	missing, err := newLineFile(ctx, storage.Join(out, MissingFile))
	if err != nil {
		docs.abort()
		return err
	}
	links, err := newLineFile(ctx, storage.Join(out, LinksFile))
	if err != nil {
		docs.abort()
		missing.abort()
		return err
	}
	links.w.WriteString("source\ttarget\tanchor\tin_collection\n")
	var listings *lineFile
	if hasListings {
		if listings, err = newLineFile(ctx, storage.Join(out, ListingsFile)); err != nil {
			docs.abort()
			missing.abort()
			links.abort()
			return err
		}
	}
	var collected []archive.Record
	err = results(func(r Result) error {
		switch r.Outcome {
		case OutcomeListing:
			// Not in the collection, so not a node of its link graph.
			return listings.json(r.Document)
		case OutcomeCollected:
			collected = append(collected, collectionRecords(r.Document)...)
			if err := docs.json(r.Document); err != nil {
				return err
			}
			for _, l := range r.Links {
				fmt.Fprintf(links.w, "%s\t%s\t%s\t%t\n", tsvField(r.Entry.URL), tsvField(l.Target), tsvField(l.Anchor), inCollection[l.Key])
			}
		default:
			e := r.Entry
			return missing.json(MissingURL{URL: e.URL, SURT: e.Key, Path: e.Path, Depth: e.Depth, Parent: e.Parent,
				Priority: e.Priority, Round: r.Round, ReasonCode: r.ReasonCode, Reason: r.Reason})
		}
		return nil
	})
	files := []*lineFile{docs, missing, links}
	if listings != nil {
		files = append(files, listings)
	}
	for _, lf := range files {
		if err != nil {
			lf.abort()
		} else if cerr := lf.close(); cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	var rb bytes.Buffer
	for _, r := range rounds {
		line, _ := json.Marshal(r)
		rb.Write(line)
		rb.WriteByte('\n')
	}
	if err := storage.WriteFile(ctx, storage.Join(out, RoundsFile), rb.Bytes()); err != nil {
		return err
	}
	if err := archive.WriteCollection(ctx, out, collected, f); err != nil {
		return err
	}
	runJSON, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run.json: %w", err)
	}
	return storage.WriteFile(ctx, storage.Join(out, RunFile), append(runJSON, '\n'))
}

// collectionRecords are the records a collected document puts into the
// collection WARC: the record its revisit refers to, then its own.
func collectionRecords(d *Document) []archive.Record {
	own := archive.Record{URL: d.URL, Archive: d.Archive, File: d.Filename, Offset: d.Offset, Length: d.Length}
	if !d.Revisit {
		return []archive.Record{own}
	}
	payload := archive.Record{URL: d.URL, Archive: d.Archive, File: d.PayloadFile, Offset: d.PayloadOffset, Length: d.PayloadLength}
	return []archive.Record{payload, own}
}

func tsvField(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

type lineFile struct {
	sw storage.Writer
	w  *bufio.Writer
}

func newLineFile(ctx context.Context, p string) (*lineFile, error) {
	sw, err := storage.Create(ctx, p)
	if err != nil {
		return nil, err
	}
	return &lineFile{sw: sw, w: bufio.NewWriterSize(sw, 1<<20)}, nil
}

func (l *lineFile) json(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.w.Write(b)
	return l.w.WriteByte('\n')
}

func (l *lineFile) close() error {
	if err := l.w.Flush(); err != nil {
		l.sw.Abort()
		return err
	}
	return l.sw.Close()
}

func (l *lineFile) abort() { l.sw.Abort() }
