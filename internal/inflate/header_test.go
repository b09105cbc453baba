package inflate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// gzipReaderHeader reads the header of member with klauspost/compress's
// gzip.Reader: its length, its extra field, and the reader's error.
func gzipReaderHeader(member []byte) (int, []byte, error) {
	br := bytes.NewReader(member)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return 0, nil, err
	}
	return len(member) - br.Len(), zr.Header.Extra, nil
}

// withHeaderCRC returns member with a header CRC (FHCRC) added to its
// header, which is hlen bytes long; with bad, a wrong one.
func withHeaderCRC(member []byte, hlen int, bad bool) []byte {
	out := bytes.Clone(member[:hlen])
	out[3] |= FlagHeaderCRC
	crc := uint16(crc32.ChecksumIEEE(out))
	if bad {
		crc ^= 1
	}
	out = binary.LittleEndian.AppendUint16(out, crc)
	return append(out, member[hlen:]...)
}

// TestParseHeaderAgreesWithGzipReader: on members with every combination
// of header fields, and on damaged headers, ParseHeader finds the header's
// end and extra field where klauspost/compress's gzip.Reader does, and
// refuses what it refuses; on every prefix of a header it reports the
// header cut off, with the least length the header has, and headerCutOff
// gives the error that reader gives at the same end of its input.
func TestParseHeaderAgreesWithGzipReader(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	data := randomData(r, 2000, false)
	var members [][]byte
	for _, name := range []string{"", "a.warc", strings.Repeat("n", 511), strings.Repeat("n", 512)} {
		for _, comment := range []string{"", "a comment"} {
			for _, extra := range [][]byte{nil, {}, {'Z', 'S', 1, 0, 7}, bytes.Repeat([]byte{0}, 5000)} {
				m := makeMember(t, data, gzip.DefaultCompression, name, comment, extra).gz
				members = append(members, m)
				if hlen, _, err := gzipReaderHeader(m); err == nil {
					members = append(members, withHeaderCRC(m, hlen, false), withHeaderCRC(m, hlen, true))
				}
			}
		}
	}
	plain := makeMember(t, data, gzip.DefaultCompression, "", "", nil).gz
	for _, damage := range []func(h []byte){
		func(h []byte) { h[0] = 0x1e },
		func(h []byte) { h[1] = 0 },
		func(h []byte) { h[2] = 7 },
		func(h []byte) { h[3] |= 0x20 },
		func(h []byte) { h[3] |= 0x80 },
		func(h []byte) { h[3] |= FlagName }, // a name made of deflate data, cut at its first 0 or not
	} {
		m := bytes.Clone(plain)
		damage(m)
		members = append(members, m)
	}
	headers := 0
	for i, m := range members {
		wantLen, wantExtra, wantErr := gzipReaderHeader(m)
		h, err := ParseHeader(m)
		if (err == nil) != (wantErr == nil) || (err != nil && !errors.Is(err, ErrHeader)) || (wantErr != nil && !errors.Is(wantErr, ErrHeader)) {
			t.Fatalf("member %d: ParseHeader error %v, gzip.Reader's %v", i, err, wantErr)
		}
		if err != nil {
			continue
		}
		headers++
		if h.Len != wantLen || !bytes.Equal(h.Extra, wantExtra) || (h.Extra == nil) != (m[3]&FlagExtra == 0) {
			t.Fatalf("member %d: header of %d bytes, extra field %d bytes; gzip.Reader reads %d and %d", i, h.Len, len(h.Extra), wantLen, len(wantExtra))
		}
		for n := range h.Len {
			_, err := ParseHeader(m[:n])
			var short *ShortHeaderError
			if !errors.As(err, &short) || short.Have != n || short.Need <= n || short.Need > h.Len || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("member %d cut at %d of its header's %d bytes: %v, want a ShortHeaderError", i, n, h.Len, err)
			}
			if _, _, want := gzipReaderHeader(m[:n]); headerCutOff(short, io.EOF) != want {
				t.Fatalf("member %d cut at %d in its %s: error %v, gzip.Reader's %v", i, n, short.Field, headerCutOff(short, io.EOF), want)
			}
		}
	}
	if headers < len(members)/2 {
		t.Errorf("only %d of %d members have a header gzip.Reader reads", headers, len(members))
	}
}

// TestParseHeaderErrorsNameTheField: each error of a bad header says what
// is wrong with it.
func TestParseHeaderErrorsNameTheField(t *testing.T) {
	plain := makeMember(t, []byte("data"), gzip.DefaultCompression, "", "", nil).gz
	named := makeMember(t, []byte("data"), gzip.DefaultCompression, strings.Repeat("n", 600), "", nil).gz
	for _, c := range []struct {
		damage func(h []byte) []byte
		want   string
	}{
		{func(h []byte) []byte { h[1] = 0; return h }, "magic bytes 0x1f 0x0"},
		{func(h []byte) []byte { h[2] = 7; return h }, "compression method 7"},
		{func(h []byte) []byte { h[3] |= 0x40; return h }, "reserved flag bits 0x40"},
		{func(h []byte) []byte { return withHeaderCRC(h, FixedHeaderLen, true) }, "header CRC"},
		{func([]byte) []byte { return bytes.Clone(named) }, "the name at byte 10 has no NUL in its first 512 bytes"},
	} {
		_, err := ParseHeader(c.damage(bytes.Clone(plain)))
		if !errors.Is(err, ErrHeader) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want ErrHeader saying %q", err, c.want)
		}
	}
	_, err := ParseHeader(plain[:FixedHeaderLen-1])
	if want := "gzip header cut off in its fixed part: 9 bytes, at least 10 due"; err == nil || err.Error() != want {
		t.Errorf("a cut header: error %v, want %q", err, want)
	}
}
