package lookup

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// TestSegmentedIndex: an index of a base and two segments listed in
// index.files answers every key as one index of their captures, without
// those of the file removed from the base, while a file of the same name
// added later in a segment keeps its captures; for CDXJ and ZipNum.
func TestSegmentedIndex(t *testing.T) {
	c := genCorpus(3000, 9)
	parts := []string{"", "000001", "000002"}
	byPart := map[string]*corpus{}
	for _, p := range parts {
		byPart[p] = &corpus{want: map[string][]cdxj.Capture{}}
	}
	want := &corpus{want: map[string][]cdxj.Capture{}}
	var files []IndexedFile
	seen := map[string]bool{}
	const removed = "file-006.warc.gz"
	for i, cp := range c.captures {
		n := cp.Offset % 30
		cp.Filename = fmt.Sprintf("file-%03d.warc.gz", n)
		part := parts[n%3]
		if n == 8 && i%2 == 0 { // the same name, in the base (removed) and in segment 000002
			cp.Filename, part = removed, "000002"
		}
		byPart[part].captures = append(byPart[part].captures, cp)
		if id := part + "/" + cp.Filename; !seen[id] {
			seen[id] = true
			files = append(files, IndexedFile{Name: cp.Filename, Segment: part, Removed: part == "" && cp.Filename == removed})
		}
		if part == "" && cp.Filename == removed {
			continue
		}
		want.captures = append(want.captures, cp)
	}
	if byPart[""].captures == nil || !slices.ContainsFunc(files, func(f IndexedFile) bool { return f.Removed }) {
		t.Fatal("no capture of the removed file in the base")
	}
	for _, format := range []string{KindCDXJ, KindZipNum} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range parts {
				pc := fill(byPart[p])
				pdir := SegmentDir(dir, p)
				if err := os.MkdirAll(pdir, 0o755); err != nil {
					t.Fatal(err)
				}
				if format == KindCDXJ {
					pc.writeCDXJ(t, filepath.Join(pdir, CDXJFileName))
				} else {
					pc.writeZipNum(t, pdir)
				}
			}
			if err := WriteFileList(context.Background(), dir, &FileList{Header: FileListHeader{Format: format, Shards: 1}, Files: files}); err != nil {
				t.Fatal(err)
			}
			spec := "zipnum:" + dir
			if format == KindCDXJ {
				spec = "cdxj:" + filepath.Join(dir, CDXJFileName)
			}
			idx, err := Open(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			w := fill(want)
			got, err := idx.Lookup(context.Background(), append(c.keys, "com,none)/"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, w.want) {
				t.Errorf("look-ups of %d keys: %d keys found, want %d", len(c.keys), len(got), len(w.want))
			}
		})
	}
}

// fill makes the sorted lines and the expected look-ups of c's captures.
func fill(c *corpus) *corpus {
	out := &corpus{captures: c.captures, want: map[string][]cdxj.Capture{}}
	for _, cp := range c.captures {
		out.lines = append(out.lines, cp.Line())
		out.want[cp.Key] = append(out.want[cp.Key], cp)
	}
	slices.Sort(out.lines)
	for _, cs := range out.want {
		slices.SortFunc(cs, func(a, b cdxj.Capture) int {
			return cmp.Or(cmp.Compare(a.Timestamp, b.Timestamp), cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Offset, b.Offset))
		})
	}
	return out
}
