//go:build !isal

package inflate

import (
	"bufio"

	"github.com/klauspost/compress/gzip"
)

// Engine names the inflater of this build.
const Engine = "go"

// New returns a Member of this build's engine.
func New() Member { return &goMember{} }

// goMember is klauspost/compress's gzip reader, one member at a time: it
// reads through the *bufio.Reader's io.ByteReader, so it never reads past
// the member's end.
type goMember struct{ z gzip.Reader }

func (m *goMember) Reset(src *bufio.Reader) error {
	if err := m.z.Reset(src); err != nil {
		return err
	}
	m.z.Multistream(false)
	return nil
}

func (m *goMember) Read(p []byte) (int, error) { return m.z.Read(p) }
