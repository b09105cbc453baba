package extract

import (
	"context"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
)

// writeOutputs writes a run's collection into out (package collection's
// files and, with archive.WriteCollection, collection.warc.gz and
// collection.cdxj), each atomically. withListings writes listings.jsonl
// even when no listing page was followed. It is called with the results of
// either engine, so equal results give equal files.
func writeOutputs(ctx context.Context, out string, results extract.ResultSource, rounds []collection.Round, run collection.RunInfo, withListings bool, f *archive.Fetcher) error {
	inCollection := map[string]bool{}
	// A URL missing in one round and resolved again by a refresh has a
	// later result: missing.jsonl lists only the latest.
	latestMissing := map[string]int{}
	i := 0
	if err := results(func(r extract.Result) error {
		if r.Outcome == extract.OutcomeCollected {
			inCollection[r.Entry.Key] = true
		}
		if r.Outcome == extract.OutcomeMissing || latestMissing[r.Entry.Key] > 0 {
			latestMissing[r.Entry.Key] = i + 1
		}
		i++
		withListings = withListings || r.Outcome == extract.OutcomeListing
		return nil
	}); err != nil {
		return err
	}
	w, err := collection.Create(ctx, out, withListings)
	if err != nil {
		return err
	}
	var collected []archive.Record
	i = 0
	err = results(func(r extract.Result) error {
		i++
		switch r.Outcome {
		case extract.OutcomeListing:
			// Not in the collection, so not a node of its link graph.
			return w.WriteListing(r.Document)
		case extract.OutcomeCollected:
			collected = append(collected, collectionRecords(r.Document)...)
			if err := w.WriteDocument(r.Document); err != nil {
				return err
			}
			for _, l := range r.Links {
				if err := w.WriteLink(collection.Link{Source: r.Entry.URL, Target: l.Target, Anchor: l.Anchor, InCollection: inCollection[l.Key]}); err != nil {
					return err
				}
			}
		default:
			if last := latestMissing[r.Entry.Key]; last > 0 && last != i {
				return nil // resolved again later
			}
			e := r.Entry
			return w.WriteMissing(&collection.Missing{URL: e.URL, SURT: e.Key, Path: e.Path, Depth: e.Depth, Parent: e.Parent,
				Priority: e.Priority, Round: r.Round, ReasonCode: r.ReasonCode, Reason: r.Reason})
		}
		return nil
	})
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := collection.WriteRounds(ctx, out, rounds); err != nil {
		return err
	}
	if err := archive.WriteCollection(ctx, out, collected, f); err != nil {
		return err
	}
	return collection.WriteRunInfo(ctx, out, run)
}

// collectionRecords are the records a collected document puts into the
// collection WARC: the record its revisit refers to, then its own.
func collectionRecords(d *collection.Document) []archive.Record {
	own := archive.Record{URL: d.URL, Archive: d.Archive, File: d.Filename, Offset: d.Offset, Length: d.Length}
	if !d.Revisit {
		return []archive.Record{own}
	}
	payload := archive.Record{URL: d.URL, Archive: d.Archive, File: d.PayloadFile, Offset: d.PayloadOffset, Length: d.PayloadLength}
	return []archive.Record{payload, own}
}
