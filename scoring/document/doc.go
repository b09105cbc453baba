// Package document turns an archived HTTP response into what scoring and
// crawling need: title, main text, language, outlinks with anchor text and
// whether they lie in the main content, and the publication date with the
// place it was found (method.md §2 "document time" and "main text", §3 steps
// 4-5).
//
// Parse is the entry point. It checks the content type (non-HTML gives an
// error wrapping ErrNotHTML), cuts the body to Options.MaxBytes
// (Document.Truncated), decodes it to UTF-8 (decode.go), parses it once with
// golang.org/x/net/html and flattens the tree into records in document order
// (page.go). Every later step reads those records; the tree is never walked
// again:
//
//   - maintext.go drops boilerplate and takes the best container of text, as
//     Readability does; the <h1> headline is Document.Title.
//   - links.go resolves links against <base href> and the page URL and keeps
//     one Link per target in document order; InMain marks the main content.
//   - doctime.go reads meta tags, JSON-LD, microdata, Dublin Core, <time>, the
//     URL, datelines and stated dates in a fixed order; datepolicy.go chooses
//     among them, with go-htmldate (htmldate.go) settling disagreements and
//     asked when they find nothing. Every date names its source; Published is
//     the UTC instant, PublishedDay the day as the page shows it.
//   - language.go identifies the language from title and main text.
//
// The output depends only on the input bytes, the URL and the options: dates
// are bounded by Options.CaptureTime, never by the clock. The measurements
// behind these choices (main text against go-trafilatura, dates on 324 real
// pages, cost per page) are in docs/documents.md.
package document
