package records

import (
	"bytes"
	"fmt"
	"testing"
)

// TestIndexFieldsOnlyAllocations: in the index's mode a record's strings
// cost no allocation of their own (a few per chunk of slab.Chunk bytes).
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
