package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

func TestIdentifyFile(t *testing.T) {
	dir := t.TempDir()
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	small := []byte("a small file")
	big := make([]byte, 3*IdentityBlockBytes+5)
	for i := range big {
		big[i] = byte(i * 7)
	}
	for _, c := range []struct {
		name       string
		data       []byte
		head, tail string
	}{
		{"small.warc", small, sum(small), sum(small)},
		{"big.warc.gz", big, sum(big[:IdentityBlockBytes]), sum(big[len(big)-IdentityBlockBytes:])},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := IdentifyFile(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		want := FileIdentity{Name: c.name, Size: int64(len(c.data)), Head: c.head, Tail: c.tail}
		if !got.SameFile(want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, want)
		}
	}
	// A change in the middle of a large file is not seen; one in its last
	// block is.
	p := filepath.Join(dir, "big.warc.gz")
	before, _ := IdentifyFile(context.Background(), p)
	big[len(big)-1]++
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := IdentifyFile(context.Background(), p)
	if err != nil || after.SameFile(before) {
		t.Errorf("a changed last byte kept the identity (%v)", err)
	}
	if _, err := IdentifyFile(context.Background(), filepath.Join(dir, "missing.warc")); err == nil {
		t.Error("a missing file has an identity")
	}
}
