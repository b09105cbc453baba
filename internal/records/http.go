package records

import (
	"errors"
	"fmt"
	"strings"

	"github.com/recrawl/recrawl/internal/records/stream"
)

// parseHTTP parses the HTTP head of the block when pywb would.
func (it *Iterator) parseHTTP(rec *Record) {
	switch rec.Type {
	case "response", "request", "revisit":
	default:
		return
	}
	if it.block.n == 0 || !(strings.HasPrefix(rec.TargetURI, "http:") || strings.HasPrefix(rec.TargetURI, "https:")) {
		return
	}
	first, _ := it.block.readLine()
	status := it.latin1(trimRightSpace(first)) // ASCII white space: the same as trimming latin1(first)
	if status == "" {
		return
	}
	h := it.newHTTP()
	// The first token and the rest, for requests as for responses: warcio
	// splits so when it does not verify the line (verify_http=False, as
	// pywb's indexer reads), so a request line with a method outside the
	// standard verbs ("GETX /x HTTP/1.1") keeps its method, GETX.
	proto, rest, _ := strings.Cut(status, " ")
	h.Protocol, h.StatusLine = proto, strings.TrimSpace(rest)
	var hc headerCap
	hb := &it.hb
	hb.reset()
	hb.only = nil
	if it.indexOnly {
		hb.only = indexHTTPField
	}
	for {
		l, err := it.block.readLine()
		if len(l) == 0 || isBlank(l) {
			break
		}
		tooLong := errors.Is(err, stream.ErrLineTooLong)
		if !hc.over(l, tooLong) {
			hb.add(l)
		}
		if tooLong {
			// The rest of the line: read on to the head's end.
			for errors.Is(err, stream.ErrLineTooLong) || err == nil && l[len(l)-1] != '\n' {
				if l, err = it.block.readLine(); len(l) == 0 {
					break
				}
			}
			continue
		}
		if err != nil {
			break
		}
	}
	h.Header = it.header(&it.httpHeader)
	if hc.cut != nil {
		// Reported once the WARC header's own problems are.
		rec.Damage = fmt.Errorf("the HTTP head %w", hc.cut)
		it.skip(Skip{Offset: rec.Offset, Kind: KindHeaderTooLong, Err: fmt.Errorf("%w; the record is left out", rec.Damage)})
	}
	if h.StatusLine == "" && hb.fields == 0 {
		return // an empty head counts as none (warcio)
	}
	rec.HTTP = h
}
