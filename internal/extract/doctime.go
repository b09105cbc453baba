package extract

import (
	"time"

	"github.com/recrawl/recrawl/scoring/document"
)

// SourceCapture is the document-time source when the page gives no date: the
// capture time (WARC-Date).
const SourceCapture = "capture"

// DocumentTime is a document's time (method.md §2): the publication instant
// found in the page, else the capture time; the day as the page shows it
// (YYYY-MM-DD in the page's own time zone; for the capture time, its UTC day);
// and where it came from. TempR uses the instant; the day is what people
// read on the page and what date labels compare against.
func DocumentTime(doc *document.Document, capture time.Time) (instant time.Time, day, source string) {
	if doc.Published.IsZero() {
		return capture.UTC(), capture.UTC().Format(time.DateOnly), SourceCapture
	}
	return doc.Published.UTC(), doc.PublishedDay, doc.PublishedSource
}
