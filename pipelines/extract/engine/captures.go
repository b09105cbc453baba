package engine

import (
	"strings"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// detachCaptures copies the strings of captures out of the index's memory.
// A ZipNum look-up returns captures whose strings are slices of the
// decompressed block they were found in (about 1 MB); a collected document
// that keeps its capture's timestamp would keep that whole block alive, and
// the sequential engine keeps every result until the outputs are written:
// 20,000 documents held some 600 MB of blocks the index cache had long
// dropped. The Beam engine's results are decoded from the round's files and
// hold nothing of the index.
func detachCaptures(cs []cdxj.Capture) []cdxj.Capture {
	out := make([]cdxj.Capture, len(cs))
	for i, c := range cs {
		c.Key, c.Timestamp, c.URL = strings.Clone(c.Key), strings.Clone(c.Timestamp), strings.Clone(c.URL)
		c.Mime, c.Status, c.Digest = strings.Clone(c.Mime), strings.Clone(c.Status), strings.Clone(c.Digest)
		c.Filename, c.Archive = strings.Clone(c.Filename), strings.Clone(c.Archive)
		out[i] = c
	}
	return out
}
