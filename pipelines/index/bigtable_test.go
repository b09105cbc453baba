package index

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/bigtable"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
	tindex "github.com/recrawl/recrawl/transforms/index"
)

// cell is one cell of a table scan.
type cell struct {
	Column string
	Time   bigtable.Timestamp
	Value  string
}

// scanTable reads every row and every version of every cell of a table.
func scanTable(t *testing.T, client *bigtable.Client, table string) map[string][]cell {
	t.Helper()
	out := map[string][]cell{}
	err := client.Open(table).ReadRows(context.Background(), bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		for _, items := range r {
			for _, it := range items {
				out[r.Key()] = append(out[r.Key()], cell{it.Column, it.Timestamp, string(it.Value)})
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// captureRows keeps the capture rows of a scan: those before the reserved
// "~" prefixes.
func captureRows(scan map[string][]cell) map[string][]cell {
	out := map[string][]cell{}
	for k, v := range scan {
		if !strings.HasPrefix(k, "~") {
			out[k] = v
		}
	}
	return out
}

// tableDictionaries reads the document frequencies of a table, by language.
func tableDictionaries(t *testing.T, client *bigtable.Client, table string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	tbl := client.Open(table)
	langs, err := btindex.DictionaryLanguages(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, l := range langs {
		if out[l], err = btindex.ReadDictionary(ctx, tbl, l); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// lookUpAll looks up every key of lines in a Bigtable index.
func lookUpAll(t *testing.T, spec string, lines []string) map[string][]cdxj.Capture {
	t.Helper()
	ctx := context.Background()
	idx, err := lookup.Open(ctx, "bigtable:"+spec)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	got, err := idx.Lookup(ctx, keysOf(capturesByKey(t, lines)))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// loadHalf leaves the table as an index run killed halfway through a file
// leaves it: half of the file's captures written, and counts of one of its
// languages that are not the file's, none of it listed.
func loadHalf(t *testing.T, tbl *bigtable.Table, file, lang string) {
	t.Helper()
	ctx := context.Background()
	lines := indexDirectly(t, []string{file}).lines
	w := btindex.NewWriter(tbl, 0)
	for _, l := range lines[:len(lines)/2] {
		c, err := cdxj.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := btindex.NewFileDictionaryWriter(tbl, storage.Base(file), lang)
	if err != nil {
		t.Fatal(err)
	}
	d.AddDocs(999)
	if err := d.Add(ctx, "half-written", 5); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestBigtableNights indexes a generated archive night by night into one
// table with --add (--dictionary, min_df 2) and compares it with a table
// built from all the files at once: the same capture rows, the same
// answer for every key, the same document frequencies (byte for byte the
// df-LANG.tsv files of the full build). A run killed halfway through a
// file of night 2 (captures and counts written, the file not listed) is
// made good by the next run. A rerun of a night changes no row or cell.
// The last night brings a copy of a night-1 file under another name, so
// every URL of that file is in two files: removing the copy leaves the
// other file's captures, and the look-ups and the dictionary become those
// of the files without it; compact drops its rows, and adding it again
// gives the full build's table again.
//
// About 13 s on 2 shared cores: six index pipelines (a full build, three
// nights, the rerun, the copy again; 437 captures in all), each a few
// seconds on prism.
func TestBigtableNights(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Bigtable emulator")
	}
	files := dictionaryArchive(t)
	if len(files) < 3 {
		t.Fatalf("the archive has %d files, want 3 nights", len(files))
	}
	dup := filepath.Join(filepath.Dir(files[0]), "copy-"+filepath.Base(files[0]))
	if err := os.WriteFile(dup, readFile(t, files[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(files), dup)
	third := len(files) / 3
	nights := [][]string{files[:third], files[third : 2*third], append(slices.Clone(files[2*third:]), dup)}
	t.Setenv("BIGTABLE_EMULATOR_HOST", testservers.Bigtable(t))
	ctx := context.Background()
	client, err := bigtable.NewClient(ctx, "p", "i")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	cfg := func(table string, files []string, add bool) Config {
		return Config{Files: files, Bigtable: "p/i/" + table, Add: add, Dictionary: true,
			Format: "cdxj", Shards: 1, LinesPerBlock: 3000,
			DictionarySample: 1, DictionaryMinDF: 2, DefaultLanguage: "en"}
	}

	out := t.TempDir()
	full := cfg("full", all, false)
	full.OutputDir = out
	runIndex(t, full)
	fullRows := captureRows(scanTable(t, client, "full"))
	fullDicts := tableDictionaries(t, client, "full")
	if len(fullDicts) < 2 {
		t.Fatalf("the full build stored dictionaries of %d languages, want en and de", len(fullDicts))
	}
	for lang, d := range fullDicts {
		if want := readFile(t, filepath.Join(out, "df-"+lang+".tsv")); !bytes.Equal(d, want) {
			t.Errorf("full build: the table's %s dictionary (%d bytes) is not its df-%s.tsv (%d bytes)", lang, len(d), lang, len(want))
		}
	}
	allLines := indexDirectly(t, all).lines
	if len(fullRows) != len(allLines) {
		t.Fatalf("full build: %d capture rows, want %d", len(fullRows), len(allLines))
	}

	// A table of an earlier recrawl (a whole dictionary, no file list)
	// takes no --add: its counts could not add up.
	legacy := client.Open("legacy")
	if err := tindex.EnsureBigtable(ctx, "p/i/legacy"); err != nil {
		t.Fatal(err)
	}
	if err := btindex.WriteDictionary(ctx, legacy, "en", []byte("#docs\t3\n#lang\ten\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, cfg("legacy", nights[0], true)); err == nil || !strings.Contains(err.Error(), "without a list of its files") {
		t.Errorf("--add into a table with a whole dictionary: %v, want a refusal", err)
	}

	const nightly = "p/i/nights"
	runIndex(t, cfg("nights", nights[0], true))
	halfLang := "en"
	if want, _, _ := dfDirectly(t, nights[1][:1], 1); want["en"] == nil {
		halfLang = "de"
	}
	loadHalf(t, client.Open("nights"), nights[1][0], halfLang)
	for i, night := range nights[1:] {
		if sum := runIndex(t, cfg("nights", night, true)); sum.Files != int64(len(night)) || sum.FilesHeld != 0 {
			t.Errorf("night %d: %d files indexed, %d held; want %d, 0", i+2, sum.Files, sum.FilesHeld, len(night))
		}
	}
	compareTables := func(when string) {
		t.Helper()
		if got := captureRows(scanTable(t, client, "nights")); !reflect.DeepEqual(got, fullRows) {
			t.Errorf("%s: %d capture rows, want the %d of the full build (or rows differ)", when, len(got), len(fullRows))
		}
		if got, want := lookUpAll(t, nightly, allLines), lookUpAll(t, "p/i/full", allLines); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: look-ups answer %d keys, want the %d of the full build (or captures differ)", when, len(got), len(want))
		}
		if got := tableDictionaries(t, client, "nights"); !reflect.DeepEqual(got, fullDicts) {
			t.Errorf("%s: the dictionaries differ from the full build's", when)
			for lang := range fullDicts {
				if !bytes.Equal(got[lang], fullDicts[lang]) {
					t.Logf("%s: %d bytes, want %d", lang, len(got[lang]), len(fullDicts[lang]))
				}
			}
		}
	}
	compareTables("after three nights")

	// A rerun of night 3 indexes nothing and changes no cell.
	before := scanTable(t, client, "nights")
	if sum := runIndex(t, cfg("nights", nights[2], true)); sum.Files != 0 || sum.FilesHeld != int64(len(nights[2])) {
		t.Errorf("rerun of night 3: %d files indexed, %d held; want 0, %d", sum.Files, sum.FilesHeld, len(nights[2]))
	}
	if after := scanTable(t, client, "nights"); !reflect.DeepEqual(after, before) {
		t.Errorf("a rerun of night 3 changed the table: %d rows, %d before", len(after), len(before))
	}

	// Another file under a held name is refused, naming it.
	other := filepath.Join(t.TempDir(), filepath.Base(files[0]))
	if err := os.WriteFile(other, append(readFile(t, files[0]), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, cfg("nights", []string{other}, true)); err == nil || !strings.Contains(err.Error(), filepath.Base(files[0])) {
		t.Errorf("--add of another file under a held name: %v, want an error naming %s", err, filepath.Base(files[0]))
	}

	// Remove the copy: its captures go, the same URLs' captures in the
	// original stay, and the counts are those of the files without it.
	copyName := filepath.Base(dup)
	shared := 0
	for _, cs := range lookUpAll(t, nightly, allLines) {
		names := map[string]bool{}
		for _, c := range cs {
			names[c.Filename] = true
		}
		if names[copyName] && names[filepath.Base(files[0])] {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no URL has captures in the copy and in the original: the test would not see what a removal keeps")
	}
	if err := Main(ctx, []string{"remove", "--bigtable=" + nightly}); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("remove without a file name: %v, want a usage error", err)
	}
	if err := Main(ctx, []string{"remove", "--verbose", "--bigtable=" + nightly, "not-in-the-table.warc.gz"}); err == nil || errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "not-in-the-table.warc.gz") {
		t.Errorf("remove --verbose of a file the table does not hold: %v, want an error naming it (the index flags parsed once, for a folder or a table)", err)
	}
	if err := Main(ctx, []string{"compact", "--output=" + t.TempDir(), "--bigtable=" + nightly}); !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "one of them") {
		t.Errorf("compact of a folder and a table at once: %v, want a usage error", err)
	}
	if err := Main(ctx, []string{"remove", "--bigtable=" + nightly, copyName}); err != nil {
		t.Fatal(err)
	}
	fileLines := indexDirectly(t, files).lines
	if got, want := lookUpAll(t, nightly, allLines), capturesByKey(t, fileLines); !reflect.DeepEqual(got, want) {
		t.Errorf("after removing %s: look-ups answer %d keys, want the %d of the other files (or captures differ)", copyName, len(got), len(want))
	}
	wantDF, _, _ := dfDirectly(t, files, 1)
	wantDicts := map[string][]byte{}
	for lang, df := range wantDF {
		df.Prune(2)
		var buf bytes.Buffer
		if _, err := df.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		wantDicts[lang] = buf.Bytes()
	}
	if got := tableDictionaries(t, client, "nights"); !reflect.DeepEqual(got, wantDicts) {
		t.Errorf("after removing %s: the dictionaries are not those of the other files", copyName)
	}
	if _, err := Run(ctx, cfg("nights", []string{dup}, true)); err == nil || !strings.Contains(err.Error(), "compact") {
		t.Errorf("--add of a removed file before compact: %v, want an error saying to compact", err)
	}

	st, err := CompactBigtable(ctx, nightly)
	if err != nil {
		t.Fatal(err)
	}
	rows := captureRows(scanTable(t, client, "nights"))
	if st.Files != 1 || st.CaptureRows != len(allLines)-len(fileLines) || len(rows) != len(fileLines) {
		t.Errorf("compact: %+v, %d capture rows left; want 1 file, %d rows dropped, %d left", st, len(rows), len(allLines)-len(fileLines), len(fileLines))
	}
	if sum := runIndex(t, cfg("nights", nights[2], true)); sum.Files != 1 || sum.FilesHeld != int64(len(nights[2])-1) {
		t.Errorf("night 3 after the compact: %d files indexed, %d held; want the copy alone", sum.Files, sum.FilesHeld)
	}
	compareTables("after the copy was added again")
}
