package inflate

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// The bits of a gzip header's flag byte FLG (RFC 1952 §2.3.1).
const (
	FlagHeaderCRC = 0x02 // FHCRC: a CRC-16 of the header ends it
	FlagExtra     = 0x04 // FEXTRA: an extra field follows the fixed part
	FlagName      = 0x08 // FNAME: a NUL-terminated file name follows
	FlagComment   = 0x10 // FCOMMENT: a NUL-terminated comment follows
	flagsReserved = 0xe0 // must be 0
)

const (
	// FixedHeaderLen is the length of a gzip header's fixed part: ID1,
	// ID2, CM, FLG, MTIME, XFL and OS.
	FixedHeaderLen = 10
	// maxHeaderString is the most bytes, the NUL included, of a name or
	// comment that klauspost/compress's gzip.Reader accepts.
	maxHeaderString = 512
)

// The fields of a gzip header a ShortHeaderError names.
const (
	fieldFixed     = "fixed part"
	fieldExtraLen  = "extra field's length"
	fieldExtra     = "extra field"
	fieldName      = "name"
	fieldComment   = "comment"
	fieldHeaderCRC = "header CRC"
)

// Header is where a gzip member's header ends and what its extra field
// holds, as ParseHeader found them.
type Header struct {
	// Len is the header's length: the member's deflate data starts at its
	// byte Len.
	Len int
	// Extra is the data of the extra field (FEXTRA) without its length,
	// nil if the header has none. It is part of the bytes parsed.
	Extra []byte
}

// A ShortHeaderError is a gzip header cut off by the end of its bytes.
type ShortHeaderError struct {
	Field string // the field the bytes end in: "fixed part", "extra field", "name", …
	Have  int    // the bytes there are
	Need  int    // the least number of bytes the whole header has
}

func (e *ShortHeaderError) Error() string {
	return fmt.Sprintf("gzip header cut off in its %s: %d bytes, at least %d due", e.Field, e.Have, e.Need)
}

// Unwrap makes a ShortHeaderError an io.ErrUnexpectedEOF to errors.Is.
func (e *ShortHeaderError) Unwrap() error { return io.ErrUnexpectedEOF }

// ParseHeader parses the gzip member header (RFC 1952 §2.3) at the start
// of b and returns where it ends and its extra field. It checks what
// klauspost/compress's gzip.Reader checks, in the same order: the magic
// bytes and the deflate method, a name and a comment of at most 511 bytes,
// the header CRC (FHCRC) if there is one, and last the reserved flag bits.
// A bad header is an error wrapping ErrHeader that names the field; b
// ending inside the header is a *ShortHeaderError.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < FixedHeaderLen {
		return Header{}, &ShortHeaderError{Field: fieldFixed, Have: len(b), Need: FixedHeaderLen}
	}
	if b[0] != 0x1f || b[1] != 0x8b {
		return Header{}, fmt.Errorf("%w: magic bytes %#x %#x, want 0x1f 0x8b", ErrHeader, b[0], b[1])
	}
	if b[2] != 8 {
		return Header{}, fmt.Errorf("%w: compression method %d, want 8 (deflate)", ErrHeader, b[2])
	}
	flg := b[3]
	h := Header{Len: FixedHeaderLen}
	if flg&FlagExtra != 0 {
		if len(b) < h.Len+2 {
			return Header{}, &ShortHeaderError{Field: fieldExtraLen, Have: len(b), Need: h.Len + 2}
		}
		end := h.Len + 2 + int(binary.LittleEndian.Uint16(b[h.Len:]))
		if len(b) < end {
			return Header{}, &ShortHeaderError{Field: fieldExtra, Have: len(b), Need: end}
		}
		h.Extra = b[h.Len+2 : end : end]
		h.Len = end
	}
	for _, s := range [...]struct {
		bit   byte
		field string
	}{{FlagName, fieldName}, {FlagComment, fieldComment}} {
		if flg&s.bit == 0 {
			continue
		}
		text := b[h.Len:min(len(b), h.Len+maxHeaderString)]
		switch i := bytes.IndexByte(text, 0); {
		case i >= 0:
			h.Len += i + 1
		case len(text) == maxHeaderString:
			return Header{}, fmt.Errorf("%w: the %s at byte %d has no NUL in its first %d bytes", ErrHeader, s.field, h.Len, maxHeaderString)
		default:
			return Header{}, &ShortHeaderError{Field: s.field, Have: len(b), Need: len(b) + 1}
		}
	}
	if flg&FlagHeaderCRC != 0 {
		if len(b) < h.Len+2 {
			return Header{}, &ShortHeaderError{Field: fieldHeaderCRC, Have: len(b), Need: h.Len + 2}
		}
		want := binary.LittleEndian.Uint16(b[h.Len:])
		if got := uint16(crc32.ChecksumIEEE(b[:h.Len])); got != want {
			return Header{}, fmt.Errorf("%w: header CRC %#x, its %d bytes give %#x", ErrHeader, want, h.Len, got)
		}
		h.Len += 2
	}
	if flg&flagsReserved != 0 {
		return Header{}, fmt.Errorf("%w: reserved flag bits %#x set", ErrHeader, flg&flagsReserved)
	}
	return h, nil
}

// headerCutOff returns the error klauspost/compress's gzip.Reader gives
// for a header that src's read error perr cut off at e: perr itself unless
// it is io.EOF; for io.EOF, io.EOF if there is no header at all or it ends
// in a name or comment (that reader passes on ReadByte's error there), and
// io.ErrUnexpectedEOF elsewhere.
func headerCutOff(e *ShortHeaderError, perr error) error {
	switch {
	case perr != io.EOF:
		return perr
	case e.Have == 0, e.Field == fieldName, e.Field == fieldComment:
		return io.EOF
	default:
		return io.ErrUnexpectedEOF
	}
}
