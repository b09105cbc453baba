package lookup

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/zipnum"
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

// writeSegmentedZipNum writes the captures of c as a base and segments
// (capture i in part i % parts) of small ZipNum blocks, listed in
// index.files, and returns the folder.
func writeSegmentedZipNum(t *testing.T, c *corpus, parts int) string {
	t.Helper()
	dir := t.TempDir()
	var files []IndexedFile
	for p := range parts {
		seg := ""
		if p > 0 {
			seg = SegmentName(p)
		}
		name := fmt.Sprintf("file-%d.warc.gz", p)
		var lines []string
		for i, cp := range c.captures {
			if i%parts == p {
				cp.Filename = name
				lines = append(lines, cp.Line())
			}
		}
		slices.Sort(lines)
		if err := zipnum.Build(SegmentDir(dir, seg), zipnum.Lines(lines), len(lines)/2+1, 50); err != nil {
			t.Fatal(err)
		}
		files = append(files, IndexedFile{Name: name, Segment: seg})
	}
	if err := WriteFileList(context.Background(), dir, &FileList{Header: FileListHeader{Format: KindZipNum, Shards: 2}, Files: files}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSegmentedIndexCacheBudget: the ZipNum parts of a segmented index keep
// their blocks in one cache, so the blocks held by all of them together
// stay within the index's budget, however many parts it has.
func TestSegmentedIndexCacheBudget(t *testing.T) {
	c := genCorpus(3000, 5)
	dir := writeSegmentedZipNum(t, c, 6)
	const budget = 64 << 10 // the blocks of the parts inflate to about 1 MB
	idx, err := openFileIndexCache(context.Background(), Spec{Kind: KindZipNum, Location: dir}, budget)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	s, ok := idx.(*segmentedIndex)
	if !ok {
		t.Fatalf("opened a %T, want a segmented index", idx)
	}
	for i := 0; i < len(c.keys); i += 200 {
		if _, err := s.Lookup(context.Background(), c.keys[i:min(i+200, len(c.keys))]); err != nil {
			t.Fatal(err)
		}
	}
	var held, inflated int64
	for _, p := range s.parts {
		r := p.idx.(zipnumIndex).r
		held += r.CachedBytes()
		inflated += r.InflatedBytes()
	}
	if inflated <= 2*budget {
		t.Fatalf("the look-ups inflated %d bytes: too few to test a budget of %d", inflated, budget)
	}
	if held == 0 || held > budget {
		t.Errorf("the %d parts hold %d bytes of blocks together, want 1..%d (the index's budget)", len(s.parts), held, budget)
	}
}

// countingIndex is an Index that counts the look-ups it is asked for.
type countingIndex struct {
	Index
	lookups int
}

func (c *countingIndex) Lookup(ctx context.Context, keys []string) (map[string][]cdxj.Capture, error) {
	c.lookups++
	return c.Index.Lookup(ctx, keys)
}

// TestSegmentedIndexSkipsPartsOutOfRange: a part whose key range (its
// first and last keys) cannot hold any key of a batch is not asked, and
// the answers are those of one index of all the captures.
func TestSegmentedIndexSkipsPartsOutOfRange(t *testing.T) {
	c := genCorpus(2000, 7)
	var low, high corpus
	for _, cp := range c.captures {
		if strings.HasPrefix(cp.Key, "com,") {
			low.captures = append(low.captures, cp)
		} else {
			high.captures = append(high.captures, cp)
		}
	}
	dir := t.TempDir()
	var parts []*countingIndex
	s := &segmentedIndex{}
	for i, pc := range []*corpus{fill(&low), fill(&high)} {
		path := filepath.Join(dir, fmt.Sprintf("part-%d.cdxj", i))
		pc.writeCDXJ(t, path)
		idx, err := OpenCDXJ(path, CDXJOptions{})
		if err != nil {
			t.Fatal(err)
		}
		first, last, ranged, err := keyRange(idx)
		if err != nil || !ranged {
			t.Fatalf("key range of %s: %v (ranged %v)", path, err, ranged)
		}
		counted := &countingIndex{Index: idx}
		parts = append(parts, counted)
		s.parts = append(s.parts, openedPart{idx: counted, first: first, last: last, ranged: true})
	}
	defer s.Close()
	var comKeys []string
	for _, k := range c.keys {
		if strings.HasPrefix(k, "com,") {
			comKeys = append(comKeys, k)
		}
	}
	got, err := s.Lookup(context.Background(), comKeys)
	if err != nil {
		t.Fatal(err)
	}
	if parts[0].lookups != 1 || parts[1].lookups != 0 {
		t.Errorf("keys of the first part's range only: the parts were asked %d and %d times, want 1 and 0", parts[0].lookups, parts[1].lookups)
	}
	want := map[string][]cdxj.Capture{}
	for _, k := range comKeys {
		want[k] = fill(c).want[k]
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("look-ups of %d keys: %d found, want %d", len(comKeys), len(got), len(want))
	}
	if _, err := s.Lookup(context.Background(), c.keys); err != nil {
		t.Fatal(err)
	}
	if parts[0].lookups != 2 || parts[1].lookups != 1 {
		t.Errorf("keys of both ranges: the parts were asked %d and %d times in all, want 2 and 1", parts[0].lookups, parts[1].lookups)
	}
}
