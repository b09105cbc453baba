//go:build isal && cgo

package inflate

/*
#cgo LDFLAGS: -lisal
#include <stdint.h>
#include <stdlib.h>
#include <isa-l/igzip_lib.h>

typedef struct {
	int ret;
	uint32_t consumed, produced;
	int finished;
	int held; // input bytes ISA-L keeps in its own buffer
} rc_result;

static struct inflate_state *rc_new(void) {
	struct inflate_state *s = malloc(sizeof(struct inflate_state));
	if (s != NULL) isal_inflate_init(s);
	return s;
}

static void rc_reset(struct inflate_state *s) {
	isal_inflate_reset(s);
	s->crc_flag = ISAL_GZIP_NO_HDR_VER; // the header is read in Go; ISA-L checks the trailer
}

// rc_inflate runs one isal_inflate call over the given buffers. No pointer
// to them is kept after it returns.
static rc_result rc_inflate(struct inflate_state *s, uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len) {
	rc_result r;
	s->next_in = in;
	s->avail_in = in_len;
	s->next_out = out;
	s->avail_out = out_len;
	r.ret = isal_inflate(s);
	r.consumed = in_len - s->avail_in;
	r.produced = out_len - s->avail_out;
	r.finished = s->block_state == ISAL_BLOCK_FINISH;
	r.held = s->tmp_in_size;
	s->next_in = NULL;
	s->next_out = NULL;
	s->avail_in = 0;
	return r;
}
*/
import "C"

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"
)

// Engine names the inflater of this build.
const Engine = "isal"

// New returns a Member of this build's engine.
func New() Member {
	m := &isalMember{}
	m.state = C.rc_new()
	if m.state == nil {
		panic("inflate: out of memory for an ISA-L inflate state")
	}
	runtime.AddCleanup(m, func(s *C.struct_inflate_state) { C.free(unsafe.Pointer(s)) }, m.state)
	return m
}

// isalMember inflates with ISA-L. The gzip header is read in Go, exactly as
// klauspost/compress reads it, so both engines accept and refuse the same
// members; ISA-L inflates the deflate data and checks the trailer (CRC-32
// and size) from a window peeked from src, and src is advanced by exactly
// the bytes it consumed (ISA-L gives back what it read ahead).
type isalMember struct {
	state *C.struct_inflate_state
	src   *bufio.Reader
	done  bool
	err   error
	// header gathers a gzip header longer than src holds at once.
	header []byte
}

// CorruptError reports deflate data ISA-L could not decode.
type CorruptError struct{ Code int }

func (e CorruptError) Error() string {
	return fmt.Sprintf("flate: corrupt input (ISA-L inflate error %d)", e.Code)
}

func (m *isalMember) Reset(src *bufio.Reader) error {
	m.src, m.done, m.err = src, false, nil
	C.rc_reset(m.state)
	if err := m.readHeader(); err != nil {
		m.err = err
		return err
	}
	return nil
}

// readHeader reads a gzip header (RFC 1952) with ParseHeader, which makes
// klauspost/compress's gzip.Reader's checks, and gives that reader's
// errors. It offers ParseHeader what src holds without taking it, and
// takes from src exactly the header's bytes; a header longer than what src
// holds at once is gathered in m.header.
func (m *isalMember) readHeader() error {
	r := m.src
	taken := m.header[:0] // header bytes taken from src before the last peek
	need := FixedHeaderLen
	for {
		ahead, perr := r.Peek(min(need-len(taken), r.Size()))
		if n := r.Buffered(); n > len(ahead) {
			ahead, _ = r.Peek(n) // all src holds, read or not by that peek
		}
		b := ahead
		if len(taken) > 0 {
			b = append(taken, ahead...)
		}
		h, err := ParseHeader(b)
		var short *ShortHeaderError
		switch {
		case err == nil:
			r.Discard(h.Len - len(taken))
			m.header = taken[:0]
			return nil
		case !errors.As(err, &short):
			return ErrHeader // gzip.Reader's error, without ParseHeader's detail
		case perr != nil:
			return headerCutOff(short, perr)
		}
		// The header is longer than b: all of ahead is header.
		taken = append(taken, ahead...)
		r.Discard(len(ahead))
		need = short.Need
	}
}

// errHeld: ISA-L ended a member inside input it had copied into its own
// buffer, so where the member ends is unknown. Reads are sized so that this
// cannot happen (the input offered always exceeds the output asked for by
// 1 KB, or reaches the end of the file); it is checked all the same,
// because an index with a wrong member end is a wrong index.
var errHeld = errors.New("inflate: ISA-L ended a member inside its own input buffer")

func (m *isalMember) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	if m.done {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Output at most half the window: even stored (uncompressed) blocks
	// then leave input in the window when the output is full, so ISA-L
	// never runs dry in the middle of a member except at the end of the
	// file.
	window := m.src.Size()
	if len(p) > window/2 {
		p = p[:window/2]
	}
	for {
		// What src holds when that is enough for len(p) bytes of output
		// even from stored blocks; else a full window (bufio then moves
		// the rest to the front and reads more, a copy worth avoiding).
		want := m.src.Buffered()
		if want < len(p)+1024 {
			want = window
		}
		in, perr := m.src.Peek(want)
		if len(in) == 0 {
			m.err = NoEOF(perr)
			if perr == nil || perr == io.EOF {
				m.err = io.ErrUnexpectedEOF
			}
			return 0, m.err
		}
		r := C.rc_inflate(m.state, (*C.uint8_t)(unsafe.Pointer(&in[0])), C.uint32_t(len(in)),
			(*C.uint8_t)(unsafe.Pointer(&p[0])), C.uint32_t(len(p)))
		m.src.Discard(int(r.consumed))
		n := int(r.produced)
		if r.ret == C.ISAL_INCORRECT_CHECKSUM {
			m.err = ErrChecksum
			return n, m.err
		}
		if r.ret < 0 {
			m.err = CorruptError{Code: int(r.ret)}
			return n, m.err
		}
		if r.finished != 0 {
			if r.held != 0 {
				m.err = errHeld
				return n, m.err
			}
			m.done = true
			return n, io.EOF
		}
		if n > 0 {
			return n, nil
		}
		if perr != nil {
			// All the input there is was offered, no output came, and
			// the member has not ended.
			m.err = io.ErrUnexpectedEOF
			if perr != io.EOF {
				m.err = perr
			}
			return 0, m.err
		}
		if r.consumed == 0 {
			m.err = fmt.Errorf("inflate: ISA-L made no progress on %d bytes of input", len(in))
			return 0, m.err
		}
	}
}
