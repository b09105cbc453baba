package extract

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/specs"
)

// Explanation is what `recrawl explain` prints: why a page got its score.
type Explanation struct {
	URL              string                     `json:"url"`
	Language         string                     `json:"language"`
	LanguageSource   string                     `json:"language_source"`
	DocumentTime     string                     `json:"document_time"` // the instant (UTC) TempR uses
	DocumentDate     string                     `json:"document_date"` // its day as the page shows it, in the page's time zone
	DocumentTimeFrom string                     `json:"document_time_source"`
	TempR            float64                    `json:"temp_r"`
	TopicR           float64                    `json:"topic_r"`
	TTR              float64                    `json:"ttr"`
	Alpha            float64                    `json:"alpha"`
	Strategy         string                     `json:"strategy"`
	Relevance        float64                    `json:"relevance"`
	Cosine           float64                    `json:"cosine"`
	Normalizer       float64                    `json:"normalizer"`
	Normalization    string                     `json:"normalization"` // "on", or "off: why"
	Reason           string                     `json:"reason,omitempty"`
	Title            string                     `json:"title"`
	MainTextChars    int                        `json:"main_text_chars"`
	Outlinks         int                        `json:"outlinks"`
	Terms            []scoring.TermContribution `json:"top_terms"`
}

// explainCommand scores one HTML file against a spec and prints the
// explanation as JSON.
func explainCommand(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	specPath := fs.String("spec", "", "Collection Specification (YAML, JSON or the original format)")
	htmlPath := fs.String("html", "", "the HTML page to explain (a file; - for standard input)")
	pageURL := fs.String("url", "", "the URL the page was captured from (resolves links, may carry a date)")
	captureTime := fs.String("capture_time", "", "capture time, RFC 3339 or 14-digit timestamp (the fallback document time)")
	contentType := fs.String("content_type", "text/html", "the Content-Type header of the page (its charset is honoured)")
	var indexes, archives, specRoots listFlag
	fs.Var(&specRoots, "spec_root", "a folder the spec's reference document files and dictionary may be in besides the spec's own folder (repeatable)")
	fs.Var(&indexes, "index", "snapshot index, for reference documents given as URLs (cdxj:FILE, zipnum:DIR, bigtable:P/I/T); repeated as NAME=SPEC for several archives")
	fs.Var(&archives, "archive", "archive locations, comma-separated, for reference documents given as URLs; repeated as NAME=LOCATIONS for several archives")
	dictionary := fs.String("dictionary", "", "IDF dictionary or document-frequency file, or a directory of df-LANG.tsv files (default: the spec's, else df-*.tsv next to --index)")
	terms := fs.Int("terms", 20, "number of top contributing terms to print")
	cli.Alias(fs, "capture-time", "capture_time")
	cli.Alias(fs, "content-type", "content_type")
	fs.Usage = func() {
		cli.Print(fs.Output(), "usage: recrawl explain --spec SPEC --html FILE --url URL --capture_time TIME [flags]\n(prints why the page gets its score, as JSON)", fs, nil, "")
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	for _, d := range cli.Deprecated(fs) {
		fmt.Fprintln(os.Stderr, d)
	}
	for name, v := range map[string]string{"--spec": *specPath, "--html": *htmlPath, "--url": *pageURL, "--capture_time": *captureTime} {
		if v == "" {
			return fmt.Errorf("explain: %s is required", name)
		}
	}
	ct, err := parseTime(*captureTime)
	if err != nil {
		return fmt.Errorf("explain: --capture_time: %w", err)
	}
	if err := checkExplainFlags(fs.Args(), *specPath, *htmlPath, *dictionary, *terms, specRoots); err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	spec, err := specs.LoadToScore(*specPath, specRoots...)
	if err != nil {
		return err
	}
	// Read through max_document_bytes, as the extraction reads a record.
	var page io.ReadCloser = os.Stdin
	if *htmlPath != "-" {
		if page, err = storage.Open(ctx, *htmlPath); err != nil {
			return fmt.Errorf("explain: --html: %w", err)
		}
		defer page.Close()
	}
	limit := spec.MaxDocumentBytes
	if limit <= 0 {
		limit = document.DefaultMaxBytes
	}
	body, err := io.ReadAll(io.LimitReader(page, limit+1))
	if err != nil {
		return fmt.Errorf("explain: --html: %w", err)
	}
	if int64(len(body)) > limit {
		body = body[:limit]
		fmt.Fprintf(os.Stderr, "explain: --html: the page is longer than max_document_bytes (%d bytes) and was cut there, as the extraction cuts it\n", limit)
	}
	var unread string // why normalisation is off although the spec asks for it
	if len(indexes) == 0 && len(archives) == 0 {
		if spec, unread = withoutURLReferences(spec); unread != "" {
			fmt.Fprintln(os.Stderr, "explain: normalisation off: "+unread)
		}
	}
	job := &extract.Job{Spec: spec}
	if job.Sources, err = sourcesFromFlags(indexes, archives); err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	if len(indexes) > 0 || len(archives) > 0 {
		if err := checkArchives(job); err != nil {
			return fmt.Errorf("explain: %w", err)
		}
	}
	if err := attachDictionaries(ctx, job, *dictionary); err != nil {
		return err
	}
	var idx lookup.Index
	if job.HasIndex() {
		if idx, err = job.OpenIndex(ctx); err != nil {
			return err
		}
		defer idx.Close()
	}
	if _, err := resolveReferences(ctx, job, idx); err != nil {
		return err
	}
	scorer, err := job.NewScorer(ctx)
	if err != nil {
		return err
	}
	e, err := Explain(scorer, spec, body, *contentType, *pageURL, ct, *terms)
	if err != nil {
		return err
	}
	if unread != "" {
		e.Normalization = "off: " + unread
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(e)
}

// withoutURLReferences is what explain scores with when there is no index
// to read reference documents given by URL: the spec without them, TopicR
// then the raw cosine to the spec's precomputed reference vectors (the
// original specifications carry them) and to its other reference documents.
// why says so in one line; it is "" when the spec has no URL references.
// Normalisation is off because its divisor, the mean cosine of the reference
// documents, needs all of them.
func withoutURLReferences(spec *specs.Spec) (*specs.Spec, string) {
	var kept []specs.ReferenceDocument
	for _, rd := range spec.ReferenceDocuments {
		if rd.URL == "" {
			kept = append(kept, rd)
		}
	}
	dropped := len(spec.ReferenceDocuments) - len(kept)
	if dropped == 0 || len(kept) == 0 && len(spec.ReferenceVectors) == 0 {
		return spec, "" // nothing to drop, or nothing left to score against
	}
	s := *spec
	s.ReferenceDocuments = kept
	s.Normalize = false
	return &s, fmt.Sprintf("%d reference document(s) given by URL cannot be read without --index and --archive; TopicR is the raw cosine to the spec's reference vectors and text references", dropped)
}

// Explain scores one page exactly as an extraction step does and says why.
func Explain(scorer *scoring.Scorer, spec *specs.Spec, body []byte, contentType, pageURL string, captureTime time.Time, n int) (*Explanation, error) {
	doc, err := document.Parse(body, contentType, pageURL, document.Options{
		MaxBytes: int(spec.MaxDocumentBytes), DefaultLanguage: spec.DefaultLanguage, CaptureTime: captureTime,
	})
	if err != nil {
		return nil, err
	}
	docTime, docDay, source := extract.DocumentTime(doc, captureTime)
	text := doc.Text()
	sc := scorer.Score(text, doc.Language, docTime)
	ex := scorer.Explain(text, doc.Language, n)
	reason := sc.Reason
	if doc.Reason != "" {
		reason = doc.Reason
	}
	return &Explanation{
		URL: pageURL, Language: sc.Language, LanguageSource: doc.LanguageSource,
		DocumentTime: docTime.Format(time.RFC3339), DocumentDate: docDay, DocumentTimeFrom: source,
		TempR: sc.TempR, TopicR: sc.TopicR, TTR: sc.TTR, Alpha: scorer.Alpha(), Strategy: scorer.Strategy().String(),
		Relevance: sc.Priority, Cosine: sc.Cosine, Normalizer: ex.Normalizer, Normalization: normalization(spec), Reason: reason,
		Title: doc.Title, MainTextChars: len(doc.MainText), Outlinks: len(doc.Outlinks), Terms: ex.Terms,
	}, nil
}

func normalization(spec *specs.Spec) string {
	if spec.Normalize {
		return "on"
	}
	return "off: the spec sets normalize: false"
}

// parseTime reads RFC 3339 or a 4-14 digit archive timestamp.
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if strings.Trim(s, "0123456789") == "" {
		return extract.CaptureTime(s)
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor a 14-digit timestamp", s)
}
