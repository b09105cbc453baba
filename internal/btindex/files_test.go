package btindex

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/scoring"
)

func newTable(t *testing.T) (*testServer, *bigtable.Table) {
	t.Helper()
	ts := newTestServer(t)
	if err := EnsureTable(context.Background(), ts.admin, "captures"); err != nil {
		t.Fatal(err)
	}
	return ts, ts.client.Open("captures")
}

func fileID(name string) index.FileIdentity {
	return index.FileIdentity{Name: name, Size: int64(len(name)) * 1000, Head: "h-" + name, Tail: "t-" + name}
}

// TestFileList: listed files read back with every field; a removed file
// keeps its entry, marked, and is in RemovedFiles; unlisting drops it.
func TestFileList(t *testing.T) {
	_, tbl := newTable(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	for i, name := range []string{"a.warc.gz", "b.warc.gz", "c d.warc"} {
		if err := ListFile(ctx, tbl, fileID(name), at, i != 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := ListFile(ctx, tbl, fileID("x/y.warc"), at, false); err == nil {
		t.Error("a name with a slash was listed")
	}
	if err := MarkRemoved(ctx, tbl, "b.warc.gz", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := MarkRemoved(ctx, tbl, "missing.warc", at); err == nil {
		t.Error("removing a file the table does not list succeeded")
	}
	files, err := ReadFiles(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]FileEntry{
		"a.warc.gz": {FileIdentity: fileID("a.warc.gz"), Indexed: at, Dictionary: true},
		"b.warc.gz": {FileIdentity: fileID("b.warc.gz"), Indexed: at, Removed: at.Add(time.Hour)},
		"c d.warc":  {FileIdentity: fileID("c d.warc"), Indexed: at, Dictionary: true},
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("file list\n got  %+v\n want %+v", files, want)
	}
	if removed, err := RemovedFiles(ctx, tbl); err != nil || !reflect.DeepEqual(removed, map[string]bool{"b.warc.gz": true}) {
		t.Errorf("removed files %v, %v; want b.warc.gz", removed, err)
	}
	// Listing again keeps the dictionary cell.
	if err := ListFile(ctx, tbl, fileID("a.warc.gz"), at, false); err != nil {
		t.Fatal(err)
	}
	if err := UnlistFile(ctx, tbl, "c d.warc"); err != nil {
		t.Fatal(err)
	}
	files, err = ReadFiles(ctx, tbl)
	if err != nil || !files["a.warc.gz"].Dictionary || len(files) != 2 {
		t.Errorf("after relisting a.warc.gz and unlisting c d.warc: %+v, %v", files, err)
	}
}

// TestRemoveAndPurge: the captures of a removed file answer no look-up
// from the moment it is removed, while the captures of the same URLs in
// another file still do; a purge deletes exactly the removed file's rows
// and entry, and leaves the look-ups as they were.
func TestRemoveAndPurge(t *testing.T) {
	_, tbl := newTable(t)
	ctx := context.Background()
	// Files f-0 … f-8, and other.warc.gz with URLs of f-*; without the
	// key of 2500 captures.
	cs := slices.DeleteFunc(genCaptures(60, 5), func(c cdxj.Capture) bool { return c.Key == "com,example3)/p1b" })
	load(t, tbl, cs, 100)
	names := map[string]bool{}
	for _, c := range cs {
		names[c.Filename] = true
	}
	for name := range names {
		if err := ListFile(ctx, tbl, fileID(name), time.Now(), false); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	for _, c := range cs {
		keys = append(keys, c.Key)
	}
	lookup := func() map[string][]cdxj.Capture {
		t.Helper()
		got, err := NewReader(tbl, 0).Lookup(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := lookup(); !reflect.DeepEqual(got, expected(cs)) {
		t.Fatal("look-up before any removal differs from the captures loaded")
	}
	const gone = "other.warc.gz"
	kept := slices.DeleteFunc(slices.Clone(cs), func(c cdxj.Capture) bool { return c.Filename == gone })
	if len(kept) == len(cs) {
		t.Fatal("no capture of other.warc.gz: the test would not see a removal")
	}
	if err := MarkRemoved(ctx, tbl, gone, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := expected(kept)
	if got := lookup(); !reflect.DeepEqual(got, want) {
		t.Errorf("after removing %s: %d keys answered, want %d (the captures of the other files)", gone, len(got), len(want))
	}
	rowsBefore, _ := countCells(t, tbl)
	st, err := PurgeRemoved(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 1 || st.CaptureRows != len(cs)-len(kept) {
		t.Errorf("purge: %+v, want 1 file, %d capture rows", st, len(cs)-len(kept))
	}
	rowsAfter, _ := countCells(t, tbl)
	// Its captures, its file-list row and its "~removed" row.
	if rowsBefore-rowsAfter != len(cs)-len(kept)+2 {
		t.Errorf("purge deleted %d rows, want %d", rowsBefore-rowsAfter, len(cs)-len(kept)+2)
	}
	if got := lookup(); !reflect.DeepEqual(got, want) {
		t.Error("look-up after the purge differs from the look-up after the removal")
	}
	files, err := ReadFiles(ctx, tbl)
	if err != nil || len(files) != len(names)-1 {
		t.Errorf("after the purge the file list holds %d files (%v), want %d", len(files), err, len(names)-1)
	}
	if st, err := PurgeRemoved(ctx, tbl); err != nil || st != (PurgeStats{}) {
		t.Errorf("a second purge: %+v, %v; want nothing to do", st, err)
	}
}

// TestPurgeFilterNames: a file name with characters a CDXJ line escapes is
// purged through the scan without a server filter.
func TestPurgeFilterNames(t *testing.T) {
	_, tbl := newTable(t)
	ctx := context.Background()
	cs := genCaptures(20, 9)
	odd := `we"ird.warc.gz`
	for i := range cs {
		if i%3 == 0 {
			cs[i].Filename = odd
		}
	}
	load(t, tbl, cs, 100)
	if err := ListFile(ctx, tbl, fileID(odd), time.Now(), false); err != nil {
		t.Fatal(err)
	}
	if err := MarkRemoved(ctx, tbl, odd, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := PurgeRemoved(ctx, tbl)
	if want := (len(cs) + 2) / 3; err != nil || st.CaptureRows != want {
		t.Errorf("purge of %q: %+v, %v; want %d capture rows", odd, st, err, want)
	}
}

// randomCounts returns the document frequencies of lang in one file:
// docs documents, terms shared between files ("t…") and its own ("name-…").
func randomCounts(lang, name string, docs, terms int) *scoring.DocFreq {
	c := scoring.NewDocFreq(lang)
	c.AddCounts("", 0, int64(docs))
	for i := range terms {
		c.AddCounts(fmt.Sprintf("t%07d", i%5000), int64(1+i%7), 0)
		if i%2 == 0 {
			c.AddCounts(fmt.Sprintf("%s-a-longer-term-%d", name, i), 1, 0)
		}
	}
	return c
}

func writeCounts(t *testing.T, tbl *bigtable.Table, name string, c *scoring.DocFreq) {
	t.Helper()
	ctx := context.Background()
	w, err := NewFileDictionaryWriter(tbl, name, c.Lang)
	if err != nil {
		t.Fatal(err)
	}
	w.AddDocs(c.Docs())
	for _, term := range slices.Sorted(maps.Keys(termsOf(c))) {
		if err := w.Add(ctx, term, c.DF(term)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func termsOf(c *scoring.DocFreq) map[string]bool {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		panic(err)
	}
	out := map[string]bool{}
	for line := range bytes.Lines(buf.Bytes()) {
		if line[0] == '#' {
			continue
		}
		term, _, _ := bytes.Cut(line, []byte("\t"))
		out[string(term)] = true
	}
	return out
}

func docFreqBytes(t *testing.T, c *scoring.DocFreq) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFileDictionaries: the dictionary read from the table is the sum of
// the counts of its listed, live files, pruned at the stored min_df, byte
// for byte what one count of all of them writes; a file's counts count
// only once it is listed, a removed file's drop out, and one file's counts
// span several chunks.
func TestFileDictionaries(t *testing.T) {
	_, tbl := newTable(t)
	ctx := context.Background()
	counts := map[string]*scoring.DocFreq{
		"a.warc.gz": randomCounts("en", "a", 40, 110000), // > 1 chunk
		"b.warc.gz": randomCounts("en", "b", 7, 300),
		"c.warc.gz": randomCounts("en", "c", 3, 50),
		"d.warc.gz": randomCounts("de", "d", 5, 80),
	}
	for name, c := range counts {
		writeCounts(t, tbl, name, c)
	}
	if err := WriteDictionaryMinDF(ctx, tbl, 2); err != nil {
		t.Fatal(err)
	}
	sum := func(lang string, names ...string) []byte {
		s := scoring.NewDocFreq(lang)
		for _, n := range names {
			if err := s.Merge(counts[n]); err != nil {
				t.Fatal(err)
			}
		}
		s.Prune(2)
		return docFreqBytes(t, s)
	}
	check := func(when string, want map[string][]byte) {
		t.Helper()
		langs, err := DictionaryLanguages(ctx, tbl)
		if err != nil || !slices.Equal(langs, slices.Sorted(maps.Keys(want))) {
			t.Errorf("%s: languages %v, %v; want %v", when, langs, err, slices.Sorted(maps.Keys(want)))
		}
		for lang, w := range want {
			got, err := ReadDictionary(ctx, tbl, lang)
			if err != nil || !bytes.Equal(got, w) {
				t.Errorf("%s: %s: %d bytes (%v), want %d bytes", when, lang, len(got), err, len(w))
			}
		}
	}
	// c.warc.gz is written but not listed (a run stopped before listing
	// it): its counts do not count.
	for _, n := range []string{"a.warc.gz", "b.warc.gz", "d.warc.gz"} {
		if err := ListFile(ctx, tbl, fileID(n), time.Now(), true); err != nil {
			t.Fatal(err)
		}
	}
	check("a, b, d listed", map[string][]byte{"en": sum("en", "a.warc.gz", "b.warc.gz"), "de": sum("de", "d.warc.gz")})
	if err := ListFile(ctx, tbl, fileID("c.warc.gz"), time.Now(), true); err != nil {
		t.Fatal(err)
	}
	check("all listed", map[string][]byte{"en": sum("en", "a.warc.gz", "b.warc.gz", "c.warc.gz"), "de": sum("de", "d.warc.gz")})
	for _, n := range []string{"a.warc.gz", "d.warc.gz"} {
		if err := MarkRemoved(ctx, tbl, n, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	check("a and d removed", map[string][]byte{"en": sum("en", "b.warc.gz", "c.warc.gz")})
	st, err := PurgeRemoved(ctx, tbl)
	if err != nil || st.DictionaryRows < 3 {
		t.Errorf("purge: %+v, %v; want the rows of a (2 chunks or more) and d", st, err)
	}
	check("after the purge", map[string][]byte{"en": sum("en", "b.warc.gz", "c.warc.gz")})
}

// TestFileListState: a table without a file list has no state; listing
// the same file again (a later indexing time) keeps the state; another
// file, a removal, a purge and another min_df each change it.
func TestFileListState(t *testing.T) {
	_, tbl := newTable(t)
	ctx := context.Background()
	state := func() string {
		t.Helper()
		var b bytes.Buffer
		known, err := WriteFileListState(ctx, tbl, &b)
		if err != nil {
			t.Fatal(err)
		}
		if !known {
			return ""
		}
		return b.String()
	}
	if s := state(); s != "" {
		t.Errorf("a table without a file list has the state %q", s)
	}
	at := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	if err := ListFile(ctx, tbl, fileID("a.warc.gz"), at, true); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	step := func(what string) {
		t.Helper()
		s := state()
		if s == "" {
			t.Fatalf("%s: no state", what)
		}
		if before, ok := seen[s]; ok {
			t.Errorf("%s: the state of %s again:\n%s", what, before, s)
		}
		seen[s] = what
	}
	step("one file")
	one := state()
	if err := ListFile(ctx, tbl, fileID("a.warc.gz"), at.Add(24*time.Hour), true); err != nil {
		t.Fatal(err)
	}
	if s := state(); s != one {
		t.Errorf("listing the same file again changed the state:\n%s\n%s", one, s)
	}
	if err := ListFile(ctx, tbl, fileID("b.warc.gz"), at, true); err != nil {
		t.Fatal(err)
	}
	step("two files")
	if err := MarkRemoved(ctx, tbl, "b.warc.gz", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	step("b removed")
	if _, err := PurgeRemoved(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if s := state(); s != one {
		t.Errorf("after b's purge the state is not that of a alone:\n%s\n%s", one, s)
	}
	if err := WriteDictionaryMinDF(ctx, tbl, 3); err != nil {
		t.Fatal(err)
	}
	step("min_df 3")
}
