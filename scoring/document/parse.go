package document

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// DefaultMaxBytes is the size cap applied when Options.MaxBytes is zero.
const DefaultMaxBytes = 5 << 20

// ErrNotHTML is returned (wrapped) by Parse for responses whose content type is
// not HTML.
var ErrNotHTML = errors.New("not an HTML document")

// ErrTooDeep is returned (wrapped) by Parse for pages nested deeper than the
// HTML parser accepts (golang.org/x/net/html refuses more than 512 open
// elements).
var ErrTooDeep = errors.New("elements nested deeper than 512")

// Reasons given in Document.Reason when a parsed page has no usable text.
const (
	ReasonEmpty    = "empty body"
	ReasonNoText   = "no main text"
	ReasonFrameset = "frameset without text"
)

// Options configure Parse. The zero value is usable.
type Options struct {
	// MaxBytes caps the body size; longer bodies are cut before decoding and
	// parsing, and Document.Truncated is set. Zero means DefaultMaxBytes; a
	// negative value means no cap.
	MaxBytes int

	// DefaultLanguage (ISO 639-1) is used when the language of the text cannot
	// be identified reliably and the page declares none.
	DefaultLanguage string

	// CaptureTime is the time the page was archived (WARC-Date). When set,
	// publication dates later than CaptureTime + 1 day are rejected as
	// implausible.
	CaptureTime time.Time

	// LinkContext sets Link.Context, the text around each link.
	LinkContext bool

	// NoDates leaves the publication date out (Published, PublishedDay and
	// PublishedSource stay empty): for programs that want the text alone,
	// such as the index's dictionary, and need no DateLibrary.
	NoDates bool
}

// Link is one outgoing link of a page.
type Link struct {
	// URL is absolute (resolved against <base href> and the page URL), has no
	// fragment and uses the http or https scheme.
	URL string
	// Anchor is the link text with whitespace collapsed, or the alt text of
	// an image inside the link when the link has no text.
	Anchor string
	// InMain reports whether the link lies inside the main content (the part
	// of the page that MainText was taken from) rather than navigation,
	// header, footer, sidebars, ads or link lists.
	InMain bool
	// Context is the text of the block element (paragraph, list item, table
	// cell) around the first link to URL, at most 1,000 bytes; set only
	// with Options.LinkContext.
	Context string
}

// Document is what scoring and crawling need from one archived HTML page.
type Document struct {
	Title    string
	MainText string

	// Language is an ISO 639-1 code, LanguageSource says where it came from
	// (LanguageFromText, LanguageFromMarkup, LanguageFromDefault or "" when
	// unknown) and LanguageConfidence is the identifier's confidence in [0, 1]
	// when the source is LanguageFromText, 0 otherwise.
	Language           string
	LanguageSource     string
	LanguageConfidence float64

	// Outlinks in document order, one per target URL.
	Outlinks []Link

	// Canonical is the absolute http(s) URL of the page's first <link
	// rel="canonical">, resolved against <base href> and the page URL; ""
	// when there is none. It may name the page itself.
	Canonical string

	// Published is the publication instant found in the page (UTC), zero if
	// none; PublishedDay is its calendar day as the page shows it, in the
	// page's own time zone (YYYY-MM-DD, "" if none): 2009-09-27T23:30-04:00
	// is Published 2009-09-28T03:30Z and PublishedDay 2009-09-27.
	// PublishedSource names the place it was found (see the Source*
	// constants), "" if none.
	Published       time.Time
	PublishedDay    string
	PublishedSource string

	// Charset is the name of the character encoding the body was decoded from.
	Charset string

	// Truncated is set when the body was longer than Options.MaxBytes.
	Truncated bool

	// Listing reports a listing page (home, section, tag page): many links
	// and little text of its own (see listing.go). LinkShare is the share
	// of link text in the page's visible text.
	Listing   bool
	LinkShare float64

	// Reason says why there is no usable text; "" when MainText is usable.
	Reason string
}

// Text is the text a document is scored on, and whose terms the index's
// dictionary counts: the title, a line break (so no bigram spans title and
// text), the main text.
func (d *Document) Text() string {
	if d.Title == "" {
		return d.MainText
	}
	return d.Title + "\n" + d.MainText
}

// Parse decodes body (an HTTP response payload with the given Content-Type
// header value) to UTF-8, parses it once and extracts title, main text,
// language, outlinks and publication date. pageURL is the URL the page was
// captured from; it resolves relative links and may carry a date.
//
// Non-HTML content types give an error wrapping ErrNotHTML. HTML pages without
// usable text give a Document with Reason set and a nil error.
func Parse(body []byte, contentType string, pageURL string, opts Options) (*Document, error) {
	if !opts.NoDates && dateLibrary == nil {
		return nil, fmt.Errorf("parse %s: %w", pageURL, ErrNoDateLibrary)
	}
	if err := checkHTML(body, contentType); err != nil {
		return nil, fmt.Errorf("parse %s: %w", pageURL, err)
	}
	doc := &Document{}
	maxBytes := opts.MaxBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxBytes > 0 && len(body) > maxBytes {
		body = body[:maxBytes]
		doc.Truncated = true
	}
	if len(bytes.TrimSpace(body)) == 0 {
		doc.Reason = ReasonEmpty
		doc.Language, doc.LanguageSource = defaultLanguage(opts)
		return doc, nil
	}

	text, cs := Decode(body, contentType)
	doc.Charset = cs
	root, err := html.Parse(bytes.NewReader(text))
	if err != nil && strings.Contains(err.Error(), "exceeds 512") {
		return nil, fmt.Errorf("parse %s: %w (%v)", pageURL, ErrTooDeep, err)
	}
	if err != nil {
		// html.Parse only fails on reader errors; keep the context anyway.
		return nil, fmt.Errorf("parse %s: html: %w", pageURL, err)
	}
	var base *url.URL
	if pageURL != "" {
		if u, err := url.Parse(pageURL); err == nil {
			base = u
		}
	}
	return fromTree(doc, root, len(text), base, opts), nil
}

// fromTree runs the extraction steps on a parsed tree. Every step reads the
// same tree and the per-node statistics computed once by analyze.
func fromTree(doc *Document, root *html.Node, size int, pageURL *url.URL, opts Options) *Document {
	p := analyze(root, size)
	p.selectMain()
	doc.MainText = p.mainText()
	doc.Title = p.title()
	doc.Outlinks = p.outlinks(pageURL)
	if p.canonical != "" {
		doc.Canonical = resolve(p.base(pageURL), p.canonical)
	}
	doc.LinkShare = p.linkShare()
	doc.Listing = isListing(countWords(doc.MainText), len(doc.Outlinks), doc.LinkShare)
	if doc.Listing && p.listingLinksInMain() {
		doc.Outlinks = p.outlinks(pageURL)
	}
	if opts.LinkContext {
		p.linkContexts(pageURL, doc.Outlinks)
	}
	hint := p.languageHint()
	doc.Language, doc.LanguageSource, doc.LanguageConfidence = identifyLanguage(doc.Title, doc.MainText, hint, opts)
	if !opts.NoDates {
		doc.Published, doc.PublishedDay, doc.PublishedSource = p.publication(dateContext{
			url: pageURL, capture: opts.CaptureTime, mainText: doc.MainText, languages: dateLanguages(doc.Language, hint),
		}, defaultDatePolicy)
	}
	if doc.MainText == "" {
		doc.Reason = ReasonNoText
		if p.frameset {
			doc.Reason = ReasonFrameset
		}
	}
	return doc
}

// htmlTypes are the media types parsed as HTML.
var htmlTypes = map[string]bool{
	"text/html":             true,
	"application/xhtml+xml": true,
	"application/xhtml":     true,
	"text/xhtml":            true,
}

// unknownTypes are Content-Type values that say nothing; the body is sniffed.
var unknownTypes = map[string]bool{
	"":                         true,
	"application/octet-stream": true,
	"unk":                      true,
	"unknown":                  true,
	"text/plain":               true, // many old servers send HTML as text/plain
}

// checkHTML accepts HTML content types and sniffs bodies whose type is
// missing or uninformative.
func checkHTML(body []byte, contentType string) error {
	mt := strings.ToLower(strings.TrimSpace(contentType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	if m, _, err := mime.ParseMediaType(contentType); err == nil {
		mt = m
	}
	if htmlTypes[mt] {
		return nil
	}
	if unknownTypes[mt] {
		sniffed := http.DetectContentType(body)
		if strings.HasPrefix(sniffed, "text/html") {
			return nil
		}
		return fmt.Errorf("content type %q sniffed as %q: %w", contentType, sniffed, ErrNotHTML)
	}
	return fmt.Errorf("content type %q: %w", contentType, ErrNotHTML)
}
