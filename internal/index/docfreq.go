// This file decides which captures of an archive the document-frequency
// dictionary counts (the index pipeline's --dictionary step,
// transforms/index.CountDocumentFrequencies): plain Go, the same choice on
// every runner and in every test. The files' names are scoring's
// (scoring.DocFreqFileName).

package index

import (
	"hash/fnv"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// Reasons a capture is not counted as a document of the dictionary.
const (
	SkipBadLine     = "bad-line"     // the CDXJ line does not parse
	SkipRevisit     = "revisit"      // a revisit: its payload is counted at the record it revisits
	SkipNotOK       = "not-200"      // HTTP status other than 200 (redirects, errors, none)
	SkipNotHTML     = "not-html"     // media type, or the sniffed payload, is not HTML
	SkipFetchFailed = "fetch-failed" // the record could not be read at its offset
	SkipParseFailed = "parse-failed" // the payload could not be parsed
	SkipNoText      = "no-text"      // an HTML page without main text or without terms
)

// InDictionarySample reports whether the capture with this SURT key and timestamp is
// in a sample of the given rate. The choice depends on nothing else, so
// every run makes the same one.
func InDictionarySample(key, timestamp string, rate float64) bool {
	if rate >= 1 {
		return true
	}
	if rate <= 0 {
		return false
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	h.Write([]byte{' '})
	h.Write([]byte(timestamp))
	return float64(h.Sum64()>>11)/(1<<53) < rate
}

// CountedInDictionary says whether a capture is a document the dictionary counts, and
// if not, the Skip* reason.
func CountedInDictionary(c cdxj.Capture) (ok bool, reason string) {
	switch {
	case c.IsRevisit():
		return false, SkipRevisit
	case c.Status != "200":
		return false, SkipNotOK
	case !cdxj.IsHTML(c.Mime):
		return false, SkipNotHTML
	}
	return true, ""
}
