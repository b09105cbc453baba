package inflate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/recrawl/recrawl/internal/bytecount"
)

// member is one gzip member of a test stream and its data.
type member struct {
	data []byte
	gz   []byte
}

// makeMember compresses data at level (gzip.NoCompression gives stored
// blocks, gzip.HuffmanOnly no matches) with the header fields given.
func makeMember(t *testing.T, data []byte, level int, name, comment string, extra []byte) member {
	t.Helper()
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Name, w.Comment, w.Extra = name, comment, extra
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return member{data: data, gz: b.Bytes()}
}

// randomData is text-like data (compresses about 3:1) or, with noise,
// incompressible bytes.
func randomData(r *rand.Rand, n int, noise bool) []byte {
	b := make([]byte, n)
	if noise {
		r.Read(b)
		return b
	}
	words := []string{"WARC-Type: response\r\n", "<div class=\"post\">", "election ", "Content-Length: ", "2009", "\n"}
	for i := 0; i < n; {
		i += copy(b[i:], words[r.Intn(len(words))])
	}
	return b
}

// TestMembers: a stream of many members (text, incompressible, stored,
// Huffman-only, with and without header fields, headers and data from
// empty to larger than the read window) is read member by member with the data and the exact
// end of each member, for several buffer sizes.
func TestMembers(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var members []member
	levels := []int{gzip.DefaultCompression, gzip.BestSpeed, gzip.NoCompression, gzip.HuffmanOnly, gzip.BestCompression}
	for i := 0; i < 300; i++ {
		n := r.Intn(3000)
		switch i % 10 {
		case 0:
			n = 0
		case 1:
			n = 64<<10 + r.Intn(300<<10)
		}
		name, comment := "", ""
		var extra []byte
		if i%7 == 0 {
			name, comment, extra = fmt.Sprintf("member-%d.warc", i), "a comment", []byte{1, 2, 3, 4}
		}
		if i%50 == 3 { // a header longer than the smaller read window
			name, extra = strings.Repeat("n", 511), bytes.Repeat([]byte{'x'}, 9000)
		}
		members = append(members, makeMember(t, randomData(r, n, i%5 == 0), levels[i%len(levels)], name, comment, extra))
	}
	var stream []byte
	var want []int64
	for _, m := range members {
		stream = append(stream, m.gz...)
		want = append(want, int64(len(stream)))
	}
	for _, size := range []int{4096, 64 << 10} {
		t.Run(fmt.Sprintf("%s/buffer=%d", Engine, size), func(t *testing.T) {
			// The consumed offset: a counting reader below the bufio.Reader.
			cr := bytecount.NewReader(bytes.NewReader(stream))
			src := bufio.NewReaderSize(cr, size)
			m := New()
			out := bufio.NewReaderSize(nil, 64<<10)
			for i, mem := range members {
				if err := m.Reset(src); err != nil {
					t.Fatalf("member %d: Reset: %v", i, err)
				}
				out.Reset(m)
				got, err := io.ReadAll(out)
				if err != nil {
					t.Fatalf("member %d: %v", i, err)
				}
				if !bytes.Equal(got, mem.data) {
					t.Fatalf("member %d: %d bytes inflated, want %d", i, len(got), len(mem.data))
				}
				if end := cr.N() - int64(src.Buffered()); end != want[i] {
					t.Fatalf("member %d: ends at %d, want %d", i, end, want[i])
				}
			}
			if err := m.Reset(src); err != io.EOF {
				t.Errorf("Reset after the last member: %v, want io.EOF", err)
			}
		})
	}
}

// TestErrors: both engines report damage with the same errors.
func TestErrors(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	good := makeMember(t, randomData(r, 50000, false), gzip.DefaultCompression, "", "", nil).gz
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-6] ^= 1
	badSize := bytes.Clone(good)
	badSize[len(badSize)-2] ^= 1
	badMagic := bytes.Clone(good)
	badMagic[1] = 0
	reserved := bytes.Clone(good)
	reserved[3] |= 0x80
	named := makeMember(t, []byte("data"), gzip.DefaultCompression, "a.warc", "", []byte{1, 2, 3, 4}).gz
	longName := makeMember(t, []byte("data"), gzip.DefaultCompression, strings.Repeat("n", 512), "", nil).gz
	badHeaderCRC := withHeaderCRC(named, FixedHeaderLen+2+4+len("a.warc")+1, true)
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"truncated in the data", good[:len(good)/2], io.ErrUnexpectedEOF},
		{"truncated in the trailer", good[:len(good)-3], io.ErrUnexpectedEOF},
		{"truncated in the header", good[:5], io.ErrUnexpectedEOF},
		{"truncated in the extra field", named[:FixedHeaderLen+3], io.ErrUnexpectedEOF},
		{"truncated in the name", named[:FixedHeaderLen+2+4+3], io.EOF}, // as gzip.Reader does
		{"name longer than 511 bytes", longName, ErrHeader},
		{"header CRC mismatch", badHeaderCRC, ErrHeader},
		{"CRC mismatch", badCRC, ErrChecksum},
		{"size mismatch", badSize, ErrChecksum},
		{"not gzip", badMagic, ErrHeader},
		{"reserved flag bits", reserved, ErrHeader},
		{"empty", nil, io.EOF},
	} {
		t.Run(Engine+"/"+c.name, func(t *testing.T) {
			m := New()
			src := bufio.NewReaderSize(bytes.NewReader(c.in), 64<<10)
			err := m.Reset(src)
			if err == nil {
				_, err = io.ReadAll(m)
			}
			if !errors.Is(err, c.want) || err.Error() != c.want.Error() {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
	// Corrupt deflate data: an error, and not one of the above.
	corrupt := bytes.Clone(good)
	for i := 20; i < 60; i++ {
		corrupt[i] = 0xff
	}
	m := New()
	err := m.Reset(bufio.NewReader(bytes.NewReader(corrupt)))
	if err == nil {
		_, err = io.ReadAll(m)
	}
	if err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrHeader) {
		t.Errorf("corrupt data: error %v, want a corrupt-input error", err)
	}
}
