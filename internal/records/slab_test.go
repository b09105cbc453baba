package records

import (
	"bytes"
	"fmt"
	"testing"
)

// TestSlabStringsStayValid: strings made over many chunks, small and large,
// keep their bytes while the slab goes on, and the source bytes may change.
func TestSlabStringsStayValid(t *testing.T) {
	var sl slab
	var got, want []string
	buf := make([]byte, 0, 64)
	for i := range 20000 {
		want = append(want, fmt.Sprintf("field-%d:%0*d", i, i%40, i))
		buf = append(buf[:0], want[i]...)
		got = append(got, sl.string(buf))
		clear(buf) // the caller's buffer is reused
	}
	big := make([]byte, slabChunk)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	wantBig := string(big)
	gotBig := sl.string(big)
	clear(big)
	if sl.string(nil) != "" {
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

// TestIndexFieldsOnlyAllocations: in the index's mode a record's strings
// cost no allocation of their own (a few per chunk of slabChunk bytes).
func TestIndexFieldsOnlyAllocations(t *testing.T) {
	var data []byte
	for i := range 400 {
		data = append(data, fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/%d\r\n"+
			"WARC-Date: 2020-01-02T03:04:05Z\r\nWARC-Record-ID: <urn:uuid:%d>\r\nContent-Type: application/http; msgtype=response\r\n"+
			"Content-Length: 49\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nhello\r\n\r\n", i, i)...)
	}
	run := func() {
		it, err := NewIterator(bytes.NewReader(data), "x.warc", nil)
		if err != nil {
			t.Fatal(err)
		}
		it.ReuseRecords()
		it.IndexFieldsOnly()
		for {
			rec, err := it.Next()
			if err != nil {
				break
			}
			if rec.Timestamp != "20200102030405" || rec.HTTP == nil || rec.HTTP.StatusCode() != "200" {
				t.Fatalf("record %+v", rec)
			}
		}
	}
	allocs := testing.AllocsPerRun(5, run)
	t.Logf("%.0f allocations for 400 records", allocs)
	if allocs > 60 {
		t.Errorf("%.0f allocations for 400 records; want a few per chunk, none per record", allocs)
	}
}
