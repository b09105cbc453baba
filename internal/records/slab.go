package records

import "unsafe"

// slabChunk is the size of the chunks a slab copies strings into.
const slabChunk = 64 << 10

// slab makes strings by copying bytes into large shared chunks: one
// allocation per chunk (some 150 records of an index's header fields)
// instead of one per string. The bytes of a chunk are never written again
// once a string was made of them, so the strings stay valid and immutable
// for as long as they are referenced; a string kept keeps its whole chunk
// alive, which is why only the index's mode (IndexFieldsOnly), whose
// strings live for a record or two, uses it.
type slab struct{ buf []byte }

// string returns string(b), from the slab.
func (s *slab) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(s.buf)-len(s.buf) {
		if len(b) > slabChunk/8 {
			return string(b) // a large string gets its own allocation
		}
		s.buf = make([]byte, 0, slabChunk)
	}
	start := len(s.buf)
	s.buf = append(s.buf, b...)
	return unsafe.String(&s.buf[start], len(b))
}
