package records

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSlabStringsStayValid: strings made over many chunks, small and large,
// keep their bytes while the slab goes on, and the source bytes may change.
func TestSlabStringsStayValid(t *testing.T) {
	var sl Slab
	var got, want []string
	buf := make([]byte, 0, 64)
	for i := range 20000 {
		want = append(want, fmt.Sprintf("field-%d:%0*d", i, i%40, i))
		buf = append(buf[:0], want[i]...)
		got = append(got, sl.String(buf))
		clear(buf) // the caller's buffer is reused
	}
	big := make([]byte, SlabChunk)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	wantBig := string(big)
	gotBig := sl.String(big)
	clear(big)
	if sl.String(nil) != "" {
		t.Error("the empty string is not empty")
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d = %q, want %q", i, got[i], want[i])
		}
	}
	if gotBig != wantBig {
		t.Fatal("a string larger than a chunk changed")
	}
}

// TestAppend: strings made by appending to the slab stay valid over many
// chunks, as do those larger than a chunk's share; an error gives no
// string and leaves the slab's strings as they were; a nil Slab allocates.
func TestAppend(t *testing.T) {
	var sl Slab
	var got, want []string
	for i := range 20000 {
		w := strings.Repeat("k", i%50) + fmt.Sprint(i)
		if i%1000 == 0 {
			w = strings.Repeat("L", SlabChunk) // its own allocation
		}
		s, err := sl.Append(len(w), func(dst []byte) ([]byte, error) { return append(dst, w...), nil })
		if err != nil {
			t.Fatal(err)
		}
		got, want = append(got, s), append(want, w)
		if i%7 == 0 {
			boom := errors.New("boom")
			if s, err := sl.Append(8, func(dst []byte) ([]byte, error) { return append(dst, "partial"...), boom }); s != "" || err != boom {
				t.Fatalf("on an error: %q, %v", s, err)
			}
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d = %q, want %q", i, got[i], want[i])
		}
	}
	var none *Slab
	if s, err := none.Append(3, func(dst []byte) ([]byte, error) { return append(dst, "abc"...), nil }); s != "abc" || err != nil {
		t.Errorf("nil Slab: Append = %q, %v", s, err)
	}
	if s := none.String([]byte("abc")); s != "abc" {
		t.Errorf("nil Slab: String = %q", s)
	}
}
