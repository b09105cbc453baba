package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestIdentifyFiles: the identities of many files read at once are those
// of each read alone, in the order of the paths; a file that cannot be
// read is an error naming the first such file.
func TestIdentifyFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 3 * identifyAtOnce {
		p := filepath.Join(dir, fmt.Sprintf("f-%03d.warc", i))
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprint(i), 100+i)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	got, err := IdentifyFiles(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		want, err := IdentifyFile(context.Background(), p)
		if err != nil || got[i] != want {
			t.Errorf("%s: %+v, want %+v (%v)", p, got[i], want, err)
		}
	}
	missing := []string{paths[0], filepath.Join(dir, "gone-1.warc"), paths[1], filepath.Join(dir, "gone-2.warc")}
	if _, err := IdentifyFiles(context.Background(), missing); err == nil || !strings.Contains(err.Error(), "gone-1.warc") {
		t.Errorf("with missing files: %v, want an error naming gone-1.warc", err)
	}
}
