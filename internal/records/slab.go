// Slab (this file) makes many small, short-lived strings out of large shared
// chunks: one allocation per chunk instead of one per string. The indexer
// uses it for each record's header fields, status line, timestamp and SURT
// key (internal/records IndexFieldsOnly, internal/cdxj).
//
// The bytes of a chunk are never written again once a string was made of
// them, so the strings stay valid and immutable for as long as they are
// referenced; a string kept keeps its whole chunk alive, which is why it
// suits strings that live for a record or two.

package records

import "unsafe"

// SlabChunk is the size of the chunks strings are made in. A string that may
// be longer than SlabChunk/8 gets its own allocation.
const SlabChunk = 64 << 10

// Slab makes strings in shared chunks. The zero Slab is ready to use; a nil
// *Slab makes each string with its own allocation.
type Slab struct{ buf []byte }

// reserve makes room for n more bytes in the current chunk (a new chunk
// when it has too little), and reports false when n is too large for one.
func (s *Slab) reserve(n int) bool {
	if n > cap(s.buf)-len(s.buf) {
		if n > SlabChunk/8 {
			return false
		}
		s.buf = make([]byte, 0, SlabChunk)
	}
	return true
}

// String returns string(b); b may change afterwards.
func (s *Slab) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s == nil || !s.reserve(len(b)) {
		return string(b)
	}
	start := len(s.buf)
	s.buf = append(s.buf, b...)
	return unsafe.String(&s.buf[start], len(b))
}

// Append returns, as a string, the bytes fill appends to the slice it is
// given, making them in the slab: room is the most fill may append (more
// is safe, only no longer in the shared chunk). fill must only append to
// its argument; on an error, Append returns it and no string.
func (s *Slab) Append(room int, fill func(dst []byte) ([]byte, error)) (string, error) {
	if s == nil || !s.reserve(room) {
		b, err := fill(nil)
		if err != nil || len(b) == 0 {
			return "", err
		}
		return unsafe.String(&b[0], len(b)), nil // b is fill's own new slice
	}
	start := len(s.buf)
	b, err := fill(s.buf)
	if err != nil {
		return "", err
	}
	s.buf = b
	if len(b) == start {
		return "", nil
	}
	return unsafe.String(&b[start], len(b)-start), nil
}
