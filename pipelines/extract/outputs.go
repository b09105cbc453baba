package extract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/storage"
)

// writeOutputs writes documents.jsonl, missing.jsonl, links.tsv,
// rounds.jsonl, run.json, and with archive.WriteCollection
// collection.warc.gz and collection.cdxj into out, each atomically (the
// formats: internal/extract/outputs.go). It is called with the results of
// either engine, so equal results give equal files.
func writeOutputs(ctx context.Context, out string, results extract.ResultSource, rounds []extract.RoundStats, run extract.RunInfo, f *archive.Fetcher) error {
	inCollection := map[string]bool{}
	hasListings := run.Listings
	if err := results(func(r extract.Result) error {
		if r.Outcome == extract.OutcomeCollected {
			inCollection[r.Entry.Key] = true
		}
		hasListings = hasListings || r.Outcome == extract.OutcomeListing
		return nil
	}); err != nil {
		return err
	}
	docs, err := newLineFile(ctx, storage.Join(out, extract.DocumentsFile))
	if err != nil {
		return err
	}
	missing, err := newLineFile(ctx, storage.Join(out, extract.MissingFile))
	if err != nil {
		docs.abort()
		return err
	}
	links, err := newLineFile(ctx, storage.Join(out, extract.LinksFile))
	if err != nil {
		docs.abort()
		missing.abort()
		return err
	}
	links.w.WriteString("source\ttarget\tanchor\tin_collection\n")
	var listings *lineFile
	if hasListings {
		if listings, err = newLineFile(ctx, storage.Join(out, extract.ListingsFile)); err != nil {
			docs.abort()
			missing.abort()
			links.abort()
			return err
		}
	}
	var collected []archive.Record
	err = results(func(r extract.Result) error {
		switch r.Outcome {
		case extract.OutcomeListing:
			// Not in the collection, so not a node of its link graph.
			return listings.json(r.Document)
		case extract.OutcomeCollected:
			collected = append(collected, collectionRecords(r.Document)...)
			if err := docs.json(r.Document); err != nil {
				return err
			}
			for _, l := range r.Links {
				fmt.Fprintf(links.w, "%s\t%s\t%s\t%t\n", tsvField(r.Entry.URL), tsvField(l.Target), tsvField(l.Anchor), inCollection[l.Key])
			}
		default:
			e := r.Entry
			return missing.json(extract.MissingURL{URL: e.URL, SURT: e.Key, Path: e.Path, Depth: e.Depth, Parent: e.Parent,
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
	if err := storage.WriteFile(ctx, storage.Join(out, extract.RoundsFile), rb.Bytes()); err != nil {
		return err
	}
	if err := archive.WriteCollection(ctx, out, collected, f); err != nil {
		return err
	}
	runJSON, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run.json: %w", err)
	}
	return storage.WriteFile(ctx, storage.Join(out, extract.RunFile), append(runJSON, '\n'))
}

// collectionRecords are the records a collected document puts into the
// collection WARC: the record its revisit refers to, then its own.
func collectionRecords(d *extract.Document) []archive.Record {
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
