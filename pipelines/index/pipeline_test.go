package index

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/bigtable"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/vet"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
	"github.com/recrawl/recrawl/internal/zipnum"
	"github.com/recrawl/recrawl/runners"
)

// TestCDXJConformance indexes every pywb conformance WARC and ARC file:
// index.cdxj must hold exactly the lines cdxj.IndexFile gives for each file,
// sorted, byte for byte, whatever the number of shards, and the summary must
// count the records the indexer skips (the malformed ARC lengths of bad.arc,
// the stray bytes in example.warc), whether files are read whole or in
// parts of 200 bytes, several at once.
func TestCDXJConformance(t *testing.T) {
	files := conformanceFiles(t)
	d := indexDirectly(t, files)
	want, wantSkips := d.lines, d.skips
	if !reflect.DeepEqual(d.skipFiles, []string{"bad.arc", "example.warc"}) || len(d.unreadable) != 0 {
		t.Errorf("files with skipped records = %v, unreadable %v; want bad.arc and example.warc, none", d.skipFiles, d.unreadable)
	}
	var first []byte
	// Whole files one at a time, the default parts, and parts of 200 bytes
	// three at a time: the same bytes.
	for _, c := range []struct {
		shards, parallelism int
		rangeBytes          int64
	}{{1, 1, -1}, {3, 0, 0}, {1, 3, 200}} {
		shards := c.shards
		dir := t.TempDir()
		sum := runIndex(t, Config{Files: files, OutputDir: dir, Format: "cdxj", Shards: shards, RangeBytes: c.rangeBytes, Parallelism: c.parallelism})
		got := readFile(t, filepath.Join(dir, "index.cdxj"))
		if !bytes.Equal(got, joinLines(want)) {
			t.Errorf("--shards=%d: index.cdxj (%d bytes) differs from the sorted cdxj.IndexFile lines (%d lines, %d bytes)",
				shards, len(got), len(want), len(joinLines(want)))
			diffLines(t, string(got), string(joinLines(want)))
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Errorf("%+v gives another index.cdxj than whole files on one core", c)
		}
		if sum.Files != int64(len(files)) || sum.FilesUnreadable != 0 || sum.Captures != int64(len(want)) {
			t.Errorf("--shards=%d: summary %+v, want %d files, 0 unreadable, %d captures", shards, sum, len(files), len(want))
		}
		if !reflect.DeepEqual(sum.Skipped, wantSkips) {
			t.Errorf("--shards=%d: skipped %v, want %v", shards, sum.Skipped, wantSkips)
		}
		var out bytes.Buffer
		sum.Print(&out)
		for _, s := range []string{"indexed 2 records in spite of a problem: bad-content-length", "skipped 1 records: garbage"} {
			if !strings.Contains(out.String(), s) {
				t.Errorf("summary does not say %q:\n%s", s, out.String())
			}
		}
	}
}

// diffLines reports the first line where got and want differ.
func diffLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("first difference at line %d:\n got  %q\n want %q", i+1, gl, wl)
			return
		}
	}
}

// TestZipNum writes a ZipNum index in three shards with small blocks: every
// key of the archive must come back with exactly its captures through
// internal/lookup, the decompressed shards in order must be index.cdxj, and
// a second run must write the same bytes.
func TestZipNum(t *testing.T) {
	files := conformanceFiles(t)
	want := indexDirectly(t, files).lines
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		runIndex(t, Config{Files: files, OutputDir: dir, Format: "zipnum", Shards: 3, LinesPerBlock: 7})
	}
	dir := dirs[0]

	var concat []byte
	for i := range 3 {
		p := filepath.Join(dir, zipnum.ShardName(i))
		zr, err := gzip.NewReader(bytes.NewReader(readFile(t, p))) // multistream: all blocks
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(b) == 0 {
			t.Errorf("shard %s is empty", p)
		}
		concat = append(concat, b...)
	}
	if _, err := os.Stat(filepath.Join(dir, zipnum.ShardName(3))); err == nil {
		t.Errorf("--shards=3 wrote a fourth shard")
	}
	if !bytes.Equal(concat, joinLines(want)) {
		t.Errorf("decompressed shards (%d bytes) differ from the sorted index (%d bytes)", len(concat), len(joinLines(want)))
		diffLines(t, string(concat), string(joinLines(want)))
	}
	blocks := bytes.Count(readFile(t, filepath.Join(dir, "cluster.idx")), []byte("\n"))
	if min := len(want) / 7; blocks < min {
		t.Errorf("cluster.idx has %d blocks, want at least %d for %d lines of 7 per block", blocks, min, len(want))
	}

	ctx := context.Background()
	idx, err := lookup.Open(ctx, "zipnum:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	wantByKey := capturesByKey(t, want)
	keys := keysOf(wantByKey)
	got, err := idx.Lookup(ctx, append(keys, "com,example)/no-such-page", "zz,nothing)/"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(wantByKey) {
		t.Errorf("look-up of %d keys (and 2 absent ones) found %d keys", len(keys), len(got))
	}
	for _, k := range keys {
		if !reflect.DeepEqual(got[k], wantByKey[k]) {
			t.Errorf("key %q: got %d captures %+v, want %d %+v", k, len(got[k]), got[k], len(wantByKey[k]), wantByKey[k])
		}
	}

	// Determinism: the second run wrote the same files, byte for byte.
	names, err := filepath.Glob(filepath.Join(dirs[0], "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range names {
		if fi, _ := os.Stat(p); fi.IsDir() {
			continue
		}
		q := filepath.Join(dirs[1], filepath.Base(p))
		if !bytes.Equal(readFile(t, p), readFile(t, q)) {
			t.Errorf("%s differs between two runs", filepath.Base(p))
		}
	}
	if len(names) < 5 { // 3 shards, cluster.idx, cluster.loc
		t.Errorf("zipnum output: %v", names)
	}
}

// TestDeterministicCDXJ runs the cdxj format twice with several shards on
// files whose captures of one URL share a second (dupes.warc.gz): the
// outputs must be byte-identical.
func TestDeterministicCDXJ(t *testing.T) {
	files := conformanceFiles(t)
	var outs [][]byte
	for range 2 {
		dir := t.TempDir()
		runIndex(t, Config{Files: files, OutputDir: dir, Format: "cdxj", Shards: 4})
		outs = append(outs, readFile(t, filepath.Join(dir, "index.cdxj")))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two runs wrote different index.cdxj files")
	}
}

// TestBigtable loads the conformance archive into the standalone Bigtable
// emulator (testservers.Bigtable) twice: the second load must not
// change the row count, and every key must read back with exactly its
// captures through lookup.Open("bigtable:...").
func TestBigtable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Bigtable emulator")
	}
	files := conformanceFiles(t)
	want := indexDirectly(t, files).lines
	t.Setenv("BIGTABLE_EMULATOR_HOST", testservers.Bigtable(t))
	ctx := context.Background()
	const spec = "p/i/t"

	client, err := bigtable.NewClient(ctx, "p", "i")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	countRows := func() int {
		n := 0
		// The capture rows: those before the reserved "~" prefixes.
		err := client.Open("t").ReadRows(ctx, bigtable.NewRange("", "~"), func(bigtable.Row) bool {
			n++
			return true
		}, bigtable.RowFilter(bigtable.StripValueFilter()))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for run := 1; run <= 2; run++ {
		sum := runIndex(t, Config{Files: files, Bigtable: spec, Format: "cdxj", Shards: 1})
		if sum.Captures != int64(len(want)) {
			t.Errorf("run %d: %d captures, want %d", run, sum.Captures, len(want))
		}
		if n := countRows(); n != len(want) {
			t.Errorf("after run %d the table has %d rows, want %d (one per capture)", run, n, len(want))
		}
	}

	idx, err := lookup.Open(ctx, "bigtable:"+spec)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	wantByKey := capturesByKey(t, want)
	got, err := idx.Lookup(ctx, keysOf(wantByKey))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, wantByKey) {
		t.Errorf("look-up through Bigtable: %d keys, want %d (or captures differ)", len(got), len(wantByKey))
		for _, k := range keysOf(wantByKey) {
			if !reflect.DeepEqual(got[k], wantByKey[k]) {
				t.Errorf("first differing key %q:\n got  %+v\n want %+v", k, got[k], wantByKey[k])
				break
			}
		}
	}

	// With --dictionary the document frequencies go into the table as well
	// (rows under btindex.DictionaryPrefix), and the extraction finds them
	// there by itself, byte for byte the files written to --output.
	out := t.TempDir()
	runIndex(t, Config{Files: files, Bigtable: spec, OutputDir: out, Dictionary: true,
		DictionarySample: 1, DictionaryMinDF: 1, DefaultLanguage: "en"})
	local, err := extract.DictionariesIn(ctx, out)
	if err != nil || len(local) == 0 {
		t.Fatalf("--dictionary wrote no df-LANG.tsv to --output: %v, %v", local, err)
	}
	stored, err := extract.FindDictionaries(ctx, "bigtable:"+spec)
	if err != nil || len(stored) != len(local) {
		t.Fatalf("dictionaries found in the table: %v, %v; want the languages of %v", stored, err, local)
	}
	for lang, f := range local {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := btindex.ReadDictionaryPath(ctx, stored[lang])
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes from the table (%v), want the %d bytes of %s", lang, len(got), err, len(want), f)
		}
	}
	if got, err := idx.Lookup(ctx, keysOf(wantByKey)); err != nil || !reflect.DeepEqual(got, wantByKey) {
		t.Errorf("look-up after the dictionary was stored: %d keys (%v), want %d", len(got), err, len(wantByKey))
	}
}

// TestBadInput mixes an empty file, random bytes and a truncated .warc.gz
// with a good file: the good file is indexed in full and the damage is
// counted. Without the good file nothing can be read and Run fails, still
// returning the summary.
func TestBadInput(t *testing.T) {
	good := filepath.Join(sharedtest.Path(t, "conformance/pywb"), "example.warc.gz")
	goodLines := indexDirectly(t, []string{good}).lines
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.warc")
	random := filepath.Join(dir, "random.warc.gz")
	truncated := filepath.Join(dir, "truncated.warc.gz")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	if err := os.WriteFile(random, noise, 0o644); err != nil {
		t.Fatal(err)
	}
	whole := readFile(t, good)
	if err := os.WriteFile(truncated, whole[:len(whole)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []string{empty, random, truncated}
	d := indexDirectly(t, bad)
	t.Logf("bad files without Beam: %d captures, unreadable %v, skips by kind %v", len(d.lines), d.unreadable, d.skips)
	if len(d.skips) == 0 || len(d.unreadable) == 0 {
		t.Fatal("the bad files give no skipped records or no unreadable file: the test data is not bad enough")
	}

	out := t.TempDir()
	sum := runIndex(t, Config{Files: append([]string{good}, bad...), OutputDir: out})
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, filepath.Join(out, "index.cdxj"))), "\n"), "\n")
	var fromGood int
	for _, l := range lines {
		if strings.Contains(l, `"filename": "example.warc.gz"`) {
			fromGood++
		}
	}
	if fromGood != len(goodLines) {
		t.Errorf("%d lines of the good file, want %d", fromGood, len(goodLines))
	}
	if want := len(goodLines) + len(d.lines); sum.Files != 4 || sum.Captures != int64(want) || len(lines) != want {
		t.Errorf("summary %+v, %d lines: want 4 files and %d captures", sum, len(lines), want)
	}
	if sum.FilesUnreadable != int64(len(d.unreadable)) {
		t.Errorf("%d unreadable files, want %d (%v)", sum.FilesUnreadable, len(d.unreadable), d.unreadable)
	}
	if !reflect.DeepEqual(sum.Skipped, d.skips) {
		t.Errorf("skipped %v, want %v", sum.Skipped, d.skips)
	}

	// Only unreadable files: nothing to index is an error, with the summary.
	s, err := Run(context.Background(), Config{Files: []string{empty, random}, OutputDir: t.TempDir(), Format: "cdxj", Shards: 1, LinesPerBlock: 10})
	if err == nil {
		t.Fatalf("Run on unreadable files only: no error (summary %+v)", s)
	}
	if s == nil || s.Files != 2 || s.FilesUnreadable != 2 || s.Captures != 0 {
		t.Errorf("Run on unreadable files only: summary %+v, want 2 files, 2 unreadable, 0 captures", s)
	}
	t.Logf("unreadable files only: %v", err)
	// The truncated file alone still has captures: that is a success.
	if s, err := Run(context.Background(), Config{Files: []string{truncated}, OutputDir: t.TempDir(), Format: "cdxj", Shards: 1, LinesPerBlock: 10}); err != nil || s.Captures == 0 {
		t.Errorf("Run on the truncated file: %v (summary %+v)", err, s)
	}
}

// TestVet runs the whole pipeline graph, dictionary and Bigtable branches
// included, through Beam's vet runner, which fails when a DoFn, function or
// type is not registered or would use reflection shims.
func TestVet(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	Build(s, Config{Files: []string{"a.warc.gz"}, OutputDir: t.TempDir(), Format: "zipnum", Shards: 2, LinesPerBlock: 10,
		Bigtable: "p/i/t", Dictionary: true, DictionarySample: 0.5, DictionaryMinDF: 2, DefaultLanguage: "en"})
	p2, s2 := beam.NewPipelineWithRoot()
	Build(s2, Config{Files: []string{"a.warc.gz"}, OutputDir: t.TempDir(), Format: "cdxj", Shards: 2})
	for _, p := range []*beam.Pipeline{p, p2} {
		if _, err := beam.Run(context.Background(), "vet", p); err != nil {
			t.Errorf("vet: %v", err)
		}
	}
	// The control: vet does reject an unregistered function.
	p3, s3 := beam.NewPipelineWithRoot()
	beam.ParDo(s3, strings.ToUpper, beam.Create(s3, "a"))
	if _, err := beam.Run(context.Background(), "vet", p3); err == nil || !strings.Contains(err.Error(), "not performant") {
		t.Errorf("vet accepted an unregistered function: %v", err)
	}
}

// TestValidate checks that every wrong configuration names its flag.
func TestValidate(t *testing.T) {
	ok := Config{Files: []string{"a.warc"}, OutputDir: "out", Format: "cdxj", Shards: 1, LinesPerBlock: 10,
		Dictionary: true, DictionarySample: 1, DictionaryMinDF: 2, DefaultLanguage: "de"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for flag, mod := range map[string]func(*Config){
		"--input":             func(c *Config) { c.Files = nil },
		"--output":            func(c *Config) { c.OutputDir = "" },
		"--format":            func(c *Config) { c.Format = "cdx" },
		"--shards":            func(c *Config) { c.Shards = 0 },
		"--lines_per_block":   func(c *Config) { c.LinesPerBlock = 0 },
		"--dictionary_sample": func(c *Config) { c.DictionarySample = 0 },
		"--dictionary_min_df": func(c *Config) { c.DictionaryMinDF = 0 },
		"--default_language":  func(c *Config) { c.DefaultLanguage = "xx" },
	} {
		c := ok
		mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("config with a bad %s: error %v", flag, err)
		}
	}
	c := ok
	c.DictionarySample = 1.5
	if err := c.Validate(); err == nil {
		t.Error("--dictionary_sample=1.5 accepted")
	}
}

func TestArchiveLocations(t *testing.T) {
	got := ArchiveLocations([]string{"/a/x.warc", "/b/y.warc", "/a/z.warc", "gs://bkt/c/w.warc.gz", "rel.warc", "/top.warc"})
	want := []string{"/a", "/b", "gs://bkt/c", ".", "/"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArchiveLocations = %q, want %q", got, want)
	}
}

// TestOneProcess: only prism in process (no --endpoint) keeps the ranges in
// the bundle that planned them; every runner with workers elsewhere, and a
// runner not known yet, gets the Reshuffle.
func TestOneProcess(t *testing.T) {
	for _, c := range []struct {
		rc   *runners.Config
		want bool
	}{
		{&runners.Config{Runner: runners.Prism}, true},
		{&runners.Config{Runner: runners.Prism, Endpoint: "localhost:8073"}, false},
		{&runners.Config{Runner: runners.Prism, EnvironmentType: runners.Docker}, false},
		{&runners.Config{Runner: runners.Universal, Endpoint: "localhost:8099", EnvironmentType: runners.Loopback}, false},
		{&runners.Config{Runner: runners.Flink, Endpoint: "localhost:8099"}, false},
		{&runners.Config{Runner: runners.Dataflow}, false},
		{nil, false},
	} {
		if got := oneProcess(c.rc); got != c.want {
			t.Errorf("oneProcess(%+v) = %v, want %v", c.rc, got, c.want)
		}
	}
}
