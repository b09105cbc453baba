package collection

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
)

// Writer writes the line files of a collection into its output directory:
// documents.jsonl, missing.jsonl, links.tsv (its header first) and, when
// asked for, listings.jsonl. Each file appears whole when Close succeeds
// and not at all after Abort or a failed Close (storage.Create).
type Writer struct {
	docs, missing, links, listings *lineFile
}

// Create opens the line files in out; withListings also opens
// listings.jsonl (written even when no listing page comes).
func Create(ctx context.Context, out string, withListings bool) (*Writer, error) {
	w := &Writer{}
	var err error
	if w.docs, err = newLineFile(ctx, storage.Join(out, DocumentsFile)); err != nil {
		return nil, err
	}
	if w.missing, err = newLineFile(ctx, storage.Join(out, MissingFile)); err != nil {
		w.Abort()
		return nil, err
	}
	if w.links, err = newLineFile(ctx, storage.Join(out, LinksFile)); err != nil {
		w.Abort()
		return nil, err
	}
	w.links.w.WriteString(LinksHeader + "\n")
	if withListings {
		if w.listings, err = newLineFile(ctx, storage.Join(out, ListingsFile)); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// WriteDocument appends a line to documents.jsonl.
func (w *Writer) WriteDocument(d *Document) error { return w.docs.json(d) }

// WriteListing appends a line to listings.jsonl; the Writer must have been
// created with listings.
func (w *Writer) WriteListing(d *Document) error {
	if w.listings == nil {
		return fmt.Errorf("write %s: not opened (collection.Create without listings)", ListingsFile)
	}
	return w.listings.json(d)
}

// WriteMissing appends a line to missing.jsonl.
func (w *Writer) WriteMissing(m *Missing) error { return w.missing.json(m) }

// WriteLink appends a line to links.tsv. Tabs and line breaks in the
// source, target and anchor become spaces.
func (w *Writer) WriteLink(l Link) error {
	_, err := fmt.Fprintf(w.links.w, "%s\t%s\t%s\t%t\n", tsvField(l.Source), tsvField(l.Target), tsvField(l.Anchor), l.InCollection)
	return err
}

// Close finishes every file; after the first that fails, the rest are
// abandoned and its error is returned.
func (w *Writer) Close() error {
	var err error
	for _, lf := range w.files() {
		if err != nil {
			lf.abort()
		} else if cerr := lf.close(); cerr != nil {
			err = cerr
		}
	}
	return err
}

// Abort abandons every file.
func (w *Writer) Abort() {
	for _, lf := range w.files() {
		lf.abort()
	}
}

func (w *Writer) files() []*lineFile {
	var out []*lineFile
	for _, lf := range []*lineFile{w.docs, w.missing, w.links, w.listings} {
		if lf != nil {
			out = append(out, lf)
		}
	}
	return out
}

// WriteRounds writes rounds.jsonl into out.
func WriteRounds(ctx context.Context, out string, rounds []Round) error {
	var b bytes.Buffer
	for _, r := range rounds {
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode %s round %d: %w", RoundsFile, r.Round, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return storage.WriteFile(ctx, storage.Join(out, RoundsFile), b.Bytes())
}

// WriteRunInfo writes run.json into out, indented.
func WriteRunInfo(ctx context.Context, out string, run RunInfo) error {
	b, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", RunFile, err)
	}
	return storage.WriteFile(ctx, storage.Join(out, RunFile), append(b, '\n'))
}

var tsvReplacer = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func tsvField(s string) string { return tsvReplacer.Replace(s) }

type lineFile struct {
	path string
	sw   storage.Writer
	w    *bufio.Writer
}

func newLineFile(ctx context.Context, p string) (*lineFile, error) {
	sw, err := storage.Create(ctx, p)
	if err != nil {
		return nil, err
	}
	return &lineFile{path: p, sw: sw, w: bufio.NewWriterSize(sw, 1<<20)}, nil
}

func (l *lineFile) json(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode a line of %s: %w", l.path, err)
	}
	l.w.Write(b)
	return l.w.WriteByte('\n')
}

func (l *lineFile) close() error {
	if err := l.w.Flush(); err != nil {
		l.sw.Abort()
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	return l.sw.Close()
}

func (l *lineFile) abort() { l.sw.Abort() }
