package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/surt"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/specs"
)

// SeedPriority is the priority seeds enter the frontier with: the highest
// relevance, so every seed is taken before any discovered URL.
const SeedPriority = 1.0

// maxReferenceRedirects bounds the redirects followed to a reference document.
const maxReferenceRedirects = 5

// Reference is a resolved reference document.
type Reference struct {
	Text     scoring.ReferenceText
	Source   string   // where it came from: the URL and capture, the file, or "inline text"
	Outlinks []string // its outlinks within the spec's outlink scope
	// Time is its document time (publication date, else capture time)
	// when it has one: zero for inline texts and plain-text files.
	Time time.Time
}

// ResolveReferences reads the spec's reference documents: inline texts as
// given, local or gs:// files (HTML is reduced to its main text), and URLs
// resolved through the snapshot index like any other URL (the capture
// closest to the event among all archives of the job: idx is the job's
// index, a multi-index for several named archives, f its fetcher;
// redirects followed). A reference that cannot be
// read is an error naming it: a collection must not silently lose its
// topical scope.
func ResolveReferences(ctx context.Context, job *Job, idx lookup.Index, f *archive.Fetcher) ([]Reference, error) {
	s := job.Spec
	var refs []Reference
	for i, rd := range s.ReferenceDocuments {
		field := fmt.Sprintf("reference_documents[%d]", i)
		lang := rd.Language
		switch {
		case rd.Text != "":
			refs = append(refs, Reference{Text: scoring.ReferenceText{Text: rd.Text, Language: lang}, Source: "inline text"})
		case rd.File != "":
			data, cut, err := referenceFileData(ctx, rd, maxBytes(s.MaxDocumentBytes))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", field, err)
			}
			ref := Reference{Source: rd.File}
			if cut {
				slog.Warn("a reference document was cut at max_document_bytes; its first bytes are used", "field", field, "file", rd.File,
					"max_document_bytes", maxBytes(s.MaxDocumentBytes))
			}
			if looksLikeHTML(rd.File, data) {
				abs, _ := filepath.Abs(rd.File)
				doc, err := document.Parse(data, "text/html", "file://"+abs, document.Options{DefaultLanguage: s.DefaultLanguage, MaxBytes: int(s.MaxDocumentBytes)})
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", field, rd.File, err)
				}
				ref.Text = scoring.ReferenceText{Text: doc.Text(), Language: firstNonEmpty(lang, doc.Language)}
				ref.Outlinks = scopedOutlinks(doc, s)
				ref.Time = doc.Published
			} else {
				ref.Text = scoring.ReferenceText{Text: string(data), Language: lang}
			}
			refs = append(refs, ref)
		case rd.URL != "":
			ref, err := resolveReferenceURL(ctx, job, idx, f, rd.URL, lang)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", field, err)
			}
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

func resolveReferenceURL(ctx context.Context, job *Job, idx lookup.Index, f *archive.Fetcher, rawURL, lang string) (Reference, error) {
	s := job.Spec
	u := rawURL
	for hop := 0; hop <= maxReferenceRedirects; hop++ {
		key, err := surt.Key(u)
		if err != nil {
			return Reference{}, fmt.Errorf("url %q: %w", u, err)
		}
		found, err := idx.Lookup(ctx, []string{key})
		if err != nil {
			return Reference{}, fmt.Errorf("look up %s: %w", u, err)
		}
		choice := SelectSnapshotIn(found[key], job.Interval(), job.ArchiveNames())
		switch choice.Kind {
		case NoSnapshot:
			return Reference{}, fmt.Errorf("url %s: %s", u, choice.Reason)
		case FollowRedirect:
			p := &Processor{Settings: job.Settings(), Fetcher: f}
			e, _ := NewEntry(u, 0, 0, "S", "", 0)
			_, res, err := p.FetchRecord(ctx, Selected{Entry: e, Choice: choice})
			if err != nil {
				return Reference{}, err
			}
			if res.Outcome != OutcomeRedirect {
				return Reference{}, fmt.Errorf("url %s: %s", u, res.Reason)
			}
			u = res.NewEntries[0].URL
			continue
		}
		rec, err := f.Read(ctx, choice.Payload)
		if err != nil {
			return Reference{}, fmt.Errorf("url %s: %w", u, err)
		}
		ct := ""
		if rec.HTTP != nil {
			ct = rec.HTTP.Header.Get("Content-Type")
		}
		captured, _ := CaptureTime(choice.Capture.Timestamp)
		doc, err := document.Parse(rec.Body, ct, u, document.Options{DefaultLanguage: s.DefaultLanguage, MaxBytes: int(s.MaxDocumentBytes), CaptureTime: captured})
		if err != nil {
			return Reference{}, fmt.Errorf("url %s: %w", u, err)
		}
		if rec.BodyTruncated || doc.Truncated {
			slog.Warn("a reference document was cut at max_document_bytes; its first bytes are used", "url", u,
				"file", choice.Payload.Filename, "offset", choice.Payload.Offset, "max_document_bytes", maxBytes(s.MaxDocumentBytes))
		}
		where := choice.Payload.Filename
		if a := choice.Payload.Archive; a != "" {
			where = a + ":" + where
		}
		docTime, _, _ := DocumentTime(doc, captured)
		return Reference{
			Time:     docTime,
			Text:     scoring.ReferenceText{Text: doc.Text(), Language: firstNonEmpty(lang, doc.Language)},
			Source:   fmt.Sprintf("%s (capture %s in %s)", u, choice.Capture.Timestamp, where),
			Outlinks: scopedOutlinks(doc, s),
		}, nil
	}
	return Reference{}, fmt.Errorf("url %s: more than %d redirects", rawURL, maxReferenceRedirects)
}

func scopedOutlinks(doc *document.Document, s *specs.Spec) []string {
	var out []string
	for _, l := range doc.Outlinks {
		if (s.Outlinks == specs.OutlinksAll || l.InMain) && s.URLAllowed(l.URL) {
			out = append(out, l.URL)
		}
	}
	return out
}

func looksLikeHTML(name string, data []byte) bool {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".html" || ext == ".htm" || ext == ".xhtml" {
		return true
	}
	head := strings.ToLower(string(data[:min(len(data), 1024)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Seeds returns the initial frontier: the spec's seeds, or, without seeds,
// the outlinks of the reference documents (the paper's way), in order and
// without duplicates (by SURT key). Seeds have depth 0, path "S" and the
// highest priority; their discovery order is their position. With
// discount_pre_event_links they are exempt from it (FirstCaptureExempt):
// the user chose them, and the engines look up only what enters later.
func Seeds(s *specs.Spec, refs []Reference) ([]Entry, error) {
	var urls []string
	fromRefs := len(s.Seeds) == 0
	if fromRefs {
		for _, r := range refs {
			urls = append(urls, r.Outlinks...)
		}
	} else {
		urls = s.Seeds
	}
	var out []Entry
	seen := map[string]bool{}
	for i, u := range urls {
		e, err := NewEntry(u, SeedPriority, 0, "S", "", DiscoveryOrder(0, 0, i))
		if err != nil {
			if fromRefs {
				continue // an unparsable link of a reference page
			}
			return nil, fmt.Errorf("seeds[%d]: %q: %w", i, u, err)
		}
		if seen[e.Key] {
			continue
		}
		seen[e.Key] = true
		if s.Focus.DiscountPreEventLinks {
			e.FirstCapture = FirstCaptureExempt
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		if fromRefs {
			return nil, errors.New("no seeds: the spec has none and its reference documents have no outlinks in scope")
		}
		return nil, errors.New("no seeds")
	}
	return out, nil
}

// maxBytes is the body limit of a spec's max_document_bytes (0: the default).
func maxBytes(specLimit int64) int64 {
	if specLimit <= 0 {
		return document.DefaultMaxBytes
	}
	return specLimit
}

// referenceFileData is the content of a reference document's file: the
// bytes specs.Load read from the file it checked, else the file read now.
func referenceFileData(ctx context.Context, rd specs.ReferenceDocument, limit int64) (data []byte, cut bool, err error) {
	if rd.Data == nil {
		return readReferenceFile(ctx, rd.File, limit)
	}
	if int64(len(rd.Data)) > limit {
		return rd.Data[:limit], true, nil
	}
	return rd.Data, false, nil
}

// readReferenceFile reads at most limit bytes of a reference document's
// file; cut says there was more.
func readReferenceFile(ctx context.Context, name string, limit int64) (data []byte, cut bool, err error) {
	r, err := storage.Open(ctx, name)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}
