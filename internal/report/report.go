// Package report renders the evaluation of extraction runs as one
// self-contained HTML page, report.html.
//
// Design:
//   - The page carries everything it shows: CSS in a <style> element, plots
//     as inline SVG (gonum/plot's output with its XML prolog removed), one
//     inline script (script.go), no fonts, images, scripts or style sheets
//     from elsewhere. It can be mailed, archived or opened from a file
//     system without a network.
//   - The researcher labels the listed documents on the page: one click
//     marks a document relevant or not relevant. Served by "recrawl serve"
//     (internal/replay), the marks go to the server's labels file; opened
//     as a file, they stay in the browser and download as labels.tsv.
//   - Each run's documents list in crawl order, or by relevance with the
//     page's toggle (rows.go).
//   - The package is presentation only. Its input, Page, holds display-ready
//     values; internal/evaluate computes them and builds the Page, so this
//     package depends on nothing of the extraction and the layout can change
//     without touching the numbers.
//   - Output is deterministic: the same Page renders to the same bytes
//     (html/template, slices only, no clock; a generation time is printed
//     only when the caller passes one).
//   - Undefined numbers (NaN, e.g. a ratio without an unfocused run) print
//     as "–".
package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
)

// Page is everything report.html shows.
type Page struct {
	Title     string
	Generated string // e.g. an RFC 3339 time; empty: not printed
	Spec      Spec
	Runs      []Run
	// Archives: the runs that read several archives (archives.go).
	Archives []ArchiveShare
	// CommonN is the document count up to which the runs' areas are
	// compared.
	CommonN int
	// Labels describes the labelled data ("" without labels).
	Labels string
	// Cutoffs are the column heads of the P@n/R@n table (with labels).
	Cutoffs []string
	Plots   []Plot
	Table3  *Table3
	// Options is the focusing options comparison (nil: not run).
	Options *Options
	Details []Detail
	// ReplayNote, when set, is printed above the documents: how their
	// links open (e.g. through "extract serve").
	ReplayNote string
}

// Options is the comparison of the focusing options beyond the paper
// (extract eval --options).
type Options struct {
	Spec    string
	R, N    int
	CommonN int
	Rows    []OptionRow
	// Templates name the site templates of the per-template table (none:
	// no table); each row's ByTemplate is parallel to it.
	Templates []string
}

// OptionRow is one variant.
type OptionRow struct {
	Name, Description              string
	Documents, Listings            int
	Accumulated, AccumulatedCommon float64
	PrecisionAtR, PrecisionVsCTF   float64
	RecallAtN, RecallVsUn          float64
	Best                           bool
	ByTemplate                     []TemplateCell
}

// TemplateCell is a variant's precision at R and recall on one template's hosts.
type TemplateCell struct{ PrecisionAtR, RecallAtN float64 }

// Spec is the collection specification as shown.
type Spec struct {
	Name, Description    string
	EventStart, EventEnd string
	LeadTime, Cooldown   string
	Keywords             []string
	Seeds                int
	SeedsFromReferences  bool
	References           int
	Strategies           []string // of the runs
	Alpha                float64
	TargetSize           int
	BatchSize            int
}

// Run is one row of the runs table.
type Run struct {
	Name, Strategy, Dir string
	Documents           int
	Total, Mean         float64
	Area, AreaCommon    float64
	URLsConsidered      int
	RatioVsUnfocused    float64 // NaN: no unfocused run
	Missing             int
	Rounds              int
	At                  []AtN // with labels, parallel to Page.Cutoffs
	// Starvation explains a run whose frontier emptied before its target
	// size ("" otherwise).
	Starvation string
}

// AtN is precision, recall and nDCG at one cutoff.
type AtN struct {
	Precision, Recall, NDCG float64
	Short                   bool // the run has fewer documents than the cutoff
}

// Plot is one figure.
type Plot struct {
	Title, Caption string
	SVG            []byte // a complete SVG document
	Files          []string
}

// Table3 is the effect of the temporal parameters and of keywords.
type Table3 struct {
	FixedHalfLife string
	Columns       []string
	Rows          []Table3Row
	Average       []float64
}

// Table3Row is one event.
type Table3Row struct {
	Event string
	Cells []Table3Cell
}

// Table3Cell is one comparison.
type Table3Cell struct {
	Ratio, RatioCommon float64
	With, Without      float64
	WithDocs, WoDocs   int
	Note               string
}

// Detail is the per-run section: top documents and missing URLs.
type Detail struct {
	Name string
	// Top are the documents the run's table lists: its TopN of highest
	// topic_r and its TopN of highest relevance score (see Rows).
	Top          []TopDocument
	TopN         int
	Missing      []collection.Missing
	MissingTotal int
	Reasons      []ReasonCount
}

// TopDocument is one row of a top-documents table: a document of the
// collection with its label grade and replay link.
type TopDocument struct {
	collection.Document
	Grade string // label grade, "" without labels
	// ReplayURL opens the archived page in a replay service ("": no
	// link); see WaybackURL.
	ReplayURL string
}

// WaybackURL is the address of one capture in a wayback service under
// base (pywb's scheme: BASE/TIMESTAMP/URL, e.g.
// http://localhost:8080/coll/20130601000000/http://example.com/). An
// empty base or timestamp gives "".
func WaybackURL(base, timestamp, url string) string {
	if base == "" || timestamp == "" {
		return ""
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + timestamp + "/" + url
}

// ReasonCount is a count of missing URLs by reason code.
type ReasonCount struct {
	Code  string
	Count int
}

var prolog = regexp.MustCompile(`(?s)\A.*?(<svg[\s>])`)

// inlineSVG turns an SVG document into an element for an HTML page: the XML
// prolog and comments before <svg are dropped and the pt-sized width and
// height become a viewBox-scaled, width-limited element through CSS.
func inlineSVG(b []byte) (template.HTML, error) {
	loc := prolog.FindSubmatchIndex(b)
	if loc == nil {
		return "", fmt.Errorf("plot is not an SVG document (no <svg element)")
	}
	body := bytes.TrimSpace(b[loc[2]:])
	return template.HTML(body), nil
}

func num(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

var funcs = template.FuncMap{
	"f1":  func(x float64) string { return num(x, 1) },
	"f2":  func(x float64) string { return num(x, 2) },
	"f3":  func(x float64) string { return num(x, 3) },
	"svg": inlineSVG,
}

var page = template.Must(template.New("report").Funcs(funcs).Parse(pageTemplate))

// Render writes the page as HTML.
func Render(w io.Writer, p *Page) error {
	var buf bytes.Buffer
	if err := page.Execute(&buf, p); err != nil {
		return fmt.Errorf("render report %q: %w", p.Title, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFile renders the page to path.
func WriteFile(path string, p *Page) error {
	var buf bytes.Buffer
	if err := Render(&buf, p); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
