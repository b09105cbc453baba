// Package inflate reads gzip files one member at a time, for an index that
// must know where each member ends: a Member reads the header, inflates the
// data and checks the trailer of one member from a *bufio.Reader, and never
// takes a byte of the next member from it.
//
// Two engines stand behind New, chosen at build time:
//
//   - the default, pure Go (github.com/klauspost/compress): every build,
//     cross-builds and the Dataflow worker binary included;
//   - with `-tags isal` (and cgo), Intel ISA-L's inflate (Debian's
//     libisal-dev, through cgo): about twice as fast per core on the
//     benchmark's archive (scripts/bench.sh machine prints both).
//
// Both give the same bytes and the same errors: gzip.ErrHeader for a bad
// header, gzip.ErrChecksum for a trailer that does not match, and
// io.ErrUnexpectedEOF for a member cut off by the end of the input; corrupt
// deflate data is any other error. The tests hold both engines to that on
// the real archives in ../shared/conformance.
package inflate

import (
	"bufio"
	"errors"
	"io"

	"github.com/klauspost/compress/gzip"
)

// Member inflates one gzip member at a time.
type Member interface {
	// Reset starts the member at src's read position: it reads the gzip
	// header (io.EOF if src is empty, gzip.ErrHeader if it is not one).
	Reset(src *bufio.Reader) error
	// Read reads the member's data. At its end, once the trailer matched,
	// it returns io.EOF, and src is positioned right after the member.
	Read(p []byte) (int, error)
}

// The errors of both engines.
var (
	ErrHeader   = gzip.ErrHeader
	ErrChecksum = gzip.ErrChecksum
)

// NoEOF returns io.ErrUnexpectedEOF for io.EOF and err otherwise: for input
// that ended where more of it was due (inside a member, a header or a run
// of deflate data).
func NoEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
