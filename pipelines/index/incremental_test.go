package index

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/extract"
	iindex "github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/testkit/proctest"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// incrementalConfig is the configuration of the index runs of the tests.
func incrementalConfig(format string, files []string, dir string, dictionary bool) Config {
	cfg := Config{Files: files, OutputDir: dir, Format: format, Shards: 2, LinesPerBlock: 7}
	if dictionary {
		cfg.Dictionary, cfg.DictionarySample, cfg.DictionaryMinDF, cfg.DefaultLanguage = true, 1, 2, "en"
	}
	return cfg
}

// addNight runs Add and fails the test on an error.
func addNight(t *testing.T, cfg Config) *AddResult {
	t.Helper()
	res, err := Add(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Add(%v): %v", cfg.Files, err)
	}
	return res
}

// snapshot returns every file below dir (but the lock) with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".recrawl.lock" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(readFile(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// allKeys returns the SURT key of every line of a full build's index.
func allKeys(t *testing.T, format, dir string) []string {
	t.Helper()
	var lines []string
	if format == "zipnum" {
		r, err := zipnum.Open(dir, zipnum.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for l, err := range r.Range("", "\xff") {
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
	} else {
		lines = strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(dir, "index.cdxj")))), "\n")
	}
	seen := map[string]bool{}
	var keys []string
	for _, l := range lines {
		k, _, _ := strings.Cut(l, " ")
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return append(keys, "com,missing)/nothing")
}

// checkSameLookups: every key of the full build in dir want gets the same
// captures from the index in dir got, through the spec of each.
func checkSameLookups(t *testing.T, format, got, want string) {
	t.Helper()
	spec := func(dir string) string {
		if format == "zipnum" {
			return "zipnum:" + dir
		}
		return "cdxj:" + filepath.Join(dir, "index.cdxj")
	}
	keys := allKeys(t, format, want)
	answers := make([]any, 2)
	for i, dir := range []string{got, want} {
		idx, err := lookup.Open(context.Background(), spec(dir))
		if err != nil {
			t.Fatal(err)
		}
		m, err := idx.Lookup(context.Background(), keys)
		idx.Close()
		if err != nil {
			t.Fatal(err)
		}
		answers[i] = m
	}
	if !reflect.DeepEqual(answers[0], answers[1]) {
		t.Errorf("look-ups of %d keys in %s differ from those of the full build", len(keys), got)
	}
}

// checkSameDictionaries: the extraction's dictionaries of the index in got
// are the df-LANG.tsv files of the full build in want, byte for byte.
func checkSameDictionaries(t *testing.T, got, want string) {
	t.Helper()
	d, err := extract.DictionariesIn(context.Background(), got)
	if err != nil {
		t.Fatal(err)
	}
	wantFiles, _ := filepath.Glob(filepath.Join(want, "df-*.tsv"))
	if len(d) != len(wantFiles) || len(d) == 0 {
		t.Fatalf("dictionaries of %s: %v; want one per file of %v", got, d, wantFiles)
	}
	for _, f := range wantFiles {
		lang := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "df-"), ".tsv")
		data, err := lookup.ReadSegmentedDictionary(context.Background(), d[lang])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, readFile(t, f)) {
			t.Errorf("dictionary %s (%d bytes) differs from %s (%d bytes)", d[lang], len(data), f, len(readFile(t, f)))
		}
		if _, err := extract.LoadDictionary(context.Background(), d[lang]); err != nil {
			t.Errorf("the extraction cannot load %s: %v", d[lang], err)
		}
	}
}

// checkSameFiles: the index files in got are those of the full build in
// want, byte for byte (dfcounts-LANG.tsv, kept by --add, aside).
func checkSameFiles(t *testing.T, got, want string) {
	t.Helper()
	m, err := lookup.ReadManifest(context.Background(), want)
	if err != nil || m == nil {
		t.Fatalf("manifest of %s: %v", want, err)
	}
	gm, err := lookup.ReadManifest(context.Background(), got)
	if err != nil || gm == nil {
		t.Fatalf("manifest of %s: %v", got, err)
	}
	var listed []string
	for _, name := range gm.Files {
		if !strings.HasPrefix(name, lookup.DocFreqCountsPrefix) {
			listed = append(listed, name)
		}
	}
	if !reflect.DeepEqual(listed, m.Files) || !gm.Complete {
		t.Errorf("the manifest of %s lists %v (complete %v); want %v and dfcounts files", got, gm.Files, gm.Complete, m.Files)
	}
	for _, name := range m.Files {
		if !bytes.Equal(readFile(t, filepath.Join(got, name)), readFile(t, filepath.Join(want, name))) {
			t.Errorf("%s differs from the full build's", filepath.Join(got, name))
		}
	}
	if _, err := os.Stat(filepath.Join(got, lookup.SegmentsDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the compacted index still has %s (%v)", lookup.SegmentsDir, err)
	}
}

// TestIncremental indexes a generated archive night by night with --add
// (three nights), in CDXJ with document frequencies and in ZipNum: the
// look-ups of every key and the summed dictionaries equal those of a full
// build, a rerun of a night writes nothing, the compacted index is the
// full build byte for byte, and after a file is removed, the look-ups and
// the next compaction equal a full build without it. About 15 pipeline
// runs of a few hundred captures: ~20 s.
func TestIncremental(t *testing.T) {
	files := dictionaryArchive(t)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	if len(files) < 4 {
		t.Fatalf("%d archive files, want at least 4 for three nights", len(files))
	}
	third := len(files) / 3
	nights := [][]string{files[:third], files[third : 2*third], files[2*third:]}
	removed := files[third] // indexed on night 2
	var rest []string
	for _, f := range files {
		if f != removed {
			rest = append(rest, f)
		}
	}
	for _, c := range []struct {
		format     string
		dictionary bool
	}{{"cdxj", true}, {"zipnum", false}} {
		t.Run(c.format, func(t *testing.T) {
			full := t.TempDir()
			runIndex(t, incrementalConfig(c.format, files, full, c.dictionary))
			inc := t.TempDir()
			var seen []string
			for i, night := range nights {
				seen = append(seen, night...)
				res := addNight(t, incrementalConfig(c.format, seen, inc, c.dictionary))
				if len(res.Added) != len(night) || len(res.Skipped) != len(seen)-len(night) {
					t.Fatalf("night %d: added %d, skipped %d; want %d, %d", i+1, len(res.Added), len(res.Skipped), len(night), len(seen)-len(night))
				}
			}
			before := snapshot(t, inc)
			if res := addNight(t, incrementalConfig(c.format, files, inc, c.dictionary)); len(res.Added) != 0 {
				t.Errorf("a rerun added %v", res.Added)
			}
			if after := snapshot(t, inc); !reflect.DeepEqual(before, after) {
				t.Errorf("a rerun of a night changed the index folder")
			}
			checkSameLookups(t, c.format, inc, full)
			if c.dictionary {
				checkSameDictionaries(t, inc, full)
			}
			checkAddErrors(t, incrementalConfig(c.format, files, inc, c.dictionary), full)

			if err := Remove(context.Background(), inc, []string{filepath.Base(removed)}); err != nil {
				t.Fatal(err)
			}
			fullRest := t.TempDir()
			runIndex(t, incrementalConfig(c.format, rest, fullRest, c.dictionary))
			checkSameLookups(t, c.format, inc, fullRest)
			if done, err := Compact(context.Background(), inc, nil); err != nil || !done {
				t.Fatalf("compact: %v, %v", done, err)
			}
			checkSameFiles(t, inc, fullRest)
			checkSameLookups(t, c.format, inc, fullRest)
			if c.dictionary {
				checkSameDictionaries(t, inc, fullRest)
			}
			l, err := lookup.ReadFileList(context.Background(), inc)
			if err != nil || len(l.Files) != len(rest) || len(l.Segments()) != 0 {
				t.Fatalf("index.files after compact: %+v, %v; want %d files, all in the base", l, err, len(rest))
			}

			// The removed file comes back as a night of its own, then a
			// compaction of base and segment: the full build of all files.
			addNight(t, incrementalConfig(c.format, []string{removed}, inc, c.dictionary))
			checkSameLookups(t, c.format, inc, full)
			if done, err := Compact(context.Background(), inc, nil); err != nil || !done {
				t.Fatalf("compact: %v, %v", done, err)
			}
			checkSameFiles(t, inc, full)
			if c.dictionary {
				checkSameDictionaries(t, inc, full)
			}
			if done, err := Compact(context.Background(), inc, nil); err != nil || done {
				t.Errorf("a second compact: %v, %v; want nothing to do", done, err)
			}
		})
	}
}

// killWhenSeen starts `recrawl index ARGS` and kills it (SIGKILL) as soon
// as the file or folder seen exists; it fails the test if the command ends
// first.
func killWhenSeen(t *testing.T, seen string, args ...string) {
	t.Helper()
	cmd := exec.Command(indexCommand(t), append([]string{"index"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	run := proctest.Start(t, cmd)
	run.WaitForFile(t, seen, 2*time.Minute)
	run.Kill(t)
}

// TestKilledAdd: an --add killed (SIGKILL) while it writes its segment, and
// a compact killed while it writes the merged index, leave index.files and
// the look-ups as they were; the next run of each finishes the work, and
// the index is then a full build's, byte for byte. The recrawl command is
// built once per test process (shared with TestKilledRunTempDir): about a
// minute on a cold cache, a few seconds of runs after it.
func TestKilledAdd(t *testing.T) {
	files := dictionaryArchive(t)
	half := len(files) / 2
	full := t.TempDir()
	runIndex(t, incrementalConfig("cdxj", files, full, false))
	inc := filepath.Join(t.TempDir(), "index")
	addNight(t, incrementalConfig("cdxj", files[:half], inc, false))
	list := string(readFile(t, filepath.Join(inc, lookup.FileListFile)))
	night1 := t.TempDir()
	runIndex(t, incrementalConfig("cdxj", files[:half], night1, false))

	args := []string{"--add", "--input=" + strings.Join(files, ","), "--output=" + inc, "--shards=2", "--lines_per_block=7"}
	killWhenSeen(t, filepath.Join(inc, lookup.SegmentsDir, "000001", lookup.ManifestFile), args...)
	if got := string(readFile(t, filepath.Join(inc, lookup.FileListFile))); got != list {
		t.Errorf("the killed --add changed %s:\n%s", lookup.FileListFile, got)
	}
	checkSameLookups(t, "cdxj", inc, night1)
	res := addNight(t, incrementalConfig("cdxj", files, inc, false))
	if res.Segment != "000001" || len(res.Added) != len(files)-half {
		t.Errorf("the next --add: segment %q, %d files added; want 000001, %d", res.Segment, len(res.Added), len(files)-half)
	}
	checkSameLookups(t, "cdxj", inc, full)

	killWhenSeen(t, filepath.Join(inc, lookup.SegmentsDir, "000002", lookup.ManifestFile), "compact", "--output="+inc)
	checkSameLookups(t, "cdxj", inc, full)
	if done, err := Compact(context.Background(), inc, nil); err != nil || !done {
		t.Fatalf("compact after a killed one: %v, %v", done, err)
	}
	checkSameFiles(t, inc, full)
}

// checkAddErrors: another file under a name the index holds, and a name
// it does not hold given to remove, are errors naming the file, which
// change nothing; --add into a full build's folder is refused.
func checkAddErrors(t *testing.T, cfg Config, fullDir string) {
	t.Helper()
	before := snapshot(t, cfg.OutputDir)
	changed := filepath.Join(t.TempDir(), filepath.Base(cfg.Files[0]))
	if err := os.WriteFile(changed, append(readFile(t, cfg.Files[0]), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Files = []string{changed}
	if _, err := Add(context.Background(), other); err == nil || !strings.Contains(err.Error(), changed) || !strings.Contains(err.Error(), "recrawl index remove") {
		t.Errorf("--add of another file under a held name: %v; want an error naming it and index remove", err)
	}
	if err := Remove(context.Background(), cfg.OutputDir, []string{"nope.warc.gz"}); err == nil || !strings.Contains(err.Error(), "nope.warc.gz") {
		t.Errorf("remove of a name the index does not hold: %v; want an error naming it", err)
	}
	if after := snapshot(t, cfg.OutputDir); !reflect.DeepEqual(before, after) {
		t.Errorf("a refused --add or remove changed the index folder")
	}
	full := cfg
	full.OutputDir = fullDir
	if _, err := Add(context.Background(), full); err == nil || !strings.Contains(err.Error(), "without --add") {
		t.Errorf("--add into a full build's folder: %v; want it refused", err)
	}
}

// TestIncrementalBoundedSample adds three nights to an index whose
// dictionary parses a bounded sample (--dictionary_docs at a third of the
// candidates): the nights' parts choose lower sample levels than all the
// files do, and still the summed dictionaries, and the compacted index,
// are those of a full build, byte for byte. Seven pipeline runs of a few
// hundred captures.
func TestIncrementalBoundedSample(t *testing.T) {
	files := dictionaryArchive(t)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	// A large first night, then two small ones: a small night's own
	// counts choose a lower level than the index it is added to.
	third := len(files) / 3
	nights := [][]string{files[:2*third], files[2*third : len(files)-1], files[len(files)-1:]}
	bound := candidatesDirectly(t, files).Chosen() / 3
	config := func(files []string, dir string) Config {
		cfg := incrementalConfig("cdxj", files, dir, true)
		cfg.DictionaryDocs = bound
		return cfg
	}
	full := t.TempDir()
	runIndex(t, config(files, full))
	fullLevel := readSampleLevel(t, full)
	inc := t.TempDir()
	var seen []string
	lower := false
	minLevels := map[string]int{}  // the lowest level a night's part counted, by segment
	indexLevel := map[string]int{} // the index's level before that night
	for _, night := range nights {
		seen = append(seen, night...)
		before := 0
		if len(seen) > len(night) {
			sample, _, err := lookup.SumDictionarySamples(context.Background(), inc)
			if err != nil {
				t.Fatal(err)
			}
			before = sample.Level()
		}
		res := addNight(t, config(seen, inc))
		part := lookup.SegmentDir(inc, res.Segment)
		lower = lower || readSampleLevel(t, part) < fullLevel
		minLevels[res.Segment], indexLevel[res.Segment] = lowestCountedLevel(t, part), before
	}
	// A night reads only the documents the sum can keep: none below the
	// level of the index it is added to.
	raised := false
	for seg, lv := range minLevels {
		if lv < indexLevel[seg] {
			t.Errorf("segment %q counted documents of level %d, below the index's level %d before it", seg, lv, indexLevel[seg])
		}
		raised = raised || indexLevel[seg] > 0
	}
	if !raised {
		t.Fatalf("no night added to an index of level > 0: the test would not see a night leave out documents")
	}
	if fullLevel == 0 || !lower {
		t.Fatalf("bound %d: level %d of all files, and no night's part at a lower level: the test would not see the sum choose the level", bound, fullLevel)
	}
	checkSameDictionaries(t, inc, full)
	cfg := config(files, inc)
	cfg.DictionaryDocs++
	if _, err := Add(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--dictionary_docs") {
		t.Errorf("an --add with another --dictionary_docs: %v; want an error naming the flag", err)
	}
	checkAddReadsSamplesOnly(t, config(files, inc))
	if done, err := Compact(context.Background(), inc, nil); err != nil || !done {
		t.Fatalf("compact: %v, %v", done, err)
	}
	checkSameFiles(t, inc, full)
	checkSameDictionaries(t, inc, full)
}

// checkAddReadsSamplesOnly: an --add checks its --dictionary_docs against
// the parts' samples (dfsample.tsv) without reading their counts, which
// grow with every night: a night that adds nothing succeeds while every
// dfcounts-LANG.tsv of the index is one it could not parse. The files are
// restored after.
func checkAddReadsSamplesOnly(t *testing.T, cfg Config) {
	t.Helper()
	counts, err := filepath.Glob(filepath.Join(cfg.OutputDir, "*", "*", "dfcounts-*.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := filepath.Glob(filepath.Join(cfg.OutputDir, "dfcounts-*.tsv"))
	counts = append(counts, base...)
	if len(counts) == 0 {
		t.Fatalf("no dfcounts-LANG.tsv in %s", cfg.OutputDir)
	}
	saved := map[string][]byte{}
	for _, f := range counts {
		saved[f] = readFile(t, f)
		if err := os.WriteFile(f, []byte("#level\tnot a level\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := Add(context.Background(), cfg); err != nil {
		t.Errorf("an --add that adds nothing, with counts it cannot parse: %v; want no error", err)
	} else if len(res.Added) != 0 {
		t.Errorf("an --add of files the index holds added %v", res.Added)
	}
	for f, data := range saved {
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lowestCountedLevel returns the lowest sample level of the documents
// counted in the dfcounts-LANG.tsv files of the index part in dir.
func lowestCountedLevel(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, lookup.DocFreqCountsPrefix+"*.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s*.tsv in %s: %v", lookup.DocFreqCountsPrefix, dir, err)
	}
	lowest := iindex.Levels
	for _, f := range files {
		byLevel, err := lookup.ReadDocFreqLevels(readFile(t, f), f)
		if err != nil {
			t.Fatal(err)
		}
		for lv := range byLevel {
			lowest = min(lowest, lv)
		}
	}
	return lowest
}

// readSampleLevel returns the sample level the dictionary of the index part
// in dir chose (dfsample.tsv).
func readSampleLevel(t *testing.T, dir string) int {
	t.Helper()
	s, err := iindex.ReadDictionarySample(bytes.NewReader(readFile(t, filepath.Join(dir, iindex.DictionarySampleFile))), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s.Level()
}
