package zipnum

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReader opens a ZipNum index made of a fuzzed secondary index and a
// fuzzed shard and looks a key up: a damaged index must give errors, never
// a panic or a hang. The seeds are valid indexes of a few lines, one with
// blocks of segments (and the files
// in internal/zipnum/testdata/fuzz/FuzzReader).
func FuzzReader(f *testing.F) {
	dir := f.TempDir()
	lines := []string{
		`com,example)/ 20140101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "A", "length": "10", "offset": "0", "filename": "a.warc.gz"}`,
		`com,example)/a 20140101000000 {"url": "http://example.com/a", "mime": "text/html", "status": "200", "digest": "B", "length": "10", "offset": "10", "filename": "a.warc.gz"}`,
		`org,example)/ 20150101000000 {"url": "http://example.org/", "mime": "text/html", "status": "200", "digest": "C", "length": "10", "offset": "20", "filename": "b.warc.gz"}`,
	}
	if err := Build(dir, Lines(lines), 10, 2); err != nil {
		f.Fatal(err)
	}
	idxFiles, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	shards, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
	if len(idxFiles) != 1 || len(shards) != 1 {
		f.Fatalf("built %v and %v; want one secondary index and one shard", idxFiles, shards)
	}
	idx, _ := os.ReadFile(idxFiles[0])
	shard, _ := os.ReadFile(shards[0])
	idxName, shardName := filepath.Base(idxFiles[0]), filepath.Base(shards[0])
	f.Add(idx, shard, "com,example)/a")
	f.Add(idx, shard[:len(shard)/2], "org,example)/")
	f.Add([]byte(strings.Replace(string(idx), "\t", " ", 1)), shard, "com,example)/")
	// One block of three segments, with its segment index in the gzip header.
	segDir := f.TempDir()
	if err := BuildSegments(segDir, Lines(lines), 0, 3, 1); err != nil {
		f.Fatal(err)
	}
	segIdx, _ := os.ReadFile(filepath.Join(segDir, "cluster.idx"))
	segShard, _ := os.ReadFile(filepath.Join(segDir, shardName))
	f.Add(segIdx, segShard, "com,example)/a")
	f.Fuzz(func(t *testing.T, idx, shard []byte, key string) {
		d := t.TempDir()
		if os.WriteFile(filepath.Join(d, idxName), idx, 0o644) != nil || os.WriteFile(filepath.Join(d, shardName), shard, 0o644) != nil {
			t.Skip()
		}
		r, err := Open(d, Options{})
		if err != nil {
			return
		}
		defer r.Close()
		r.Lookup([]string{key, "com,example)/"})
		n := 0
		for _, err := range r.Prefix(key) {
			if err != nil || n > 1000 {
				break
			}
			n++
		}
	})
}
