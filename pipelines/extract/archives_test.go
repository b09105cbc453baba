package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/zipnum"
)

// Several archives at once: the fixture's WARC files are split into two
// directories ("national", the older files, and "special"), each indexed
// on its own, and extracted as two named archives. Captures of the same
// URL in both compete exactly as in one index, so the collection must be
// that of the run on the whole archive, each document naming the archive
// whose directory holds its file.

// splitArchive is the fixture split into two named archives.
type splitArchive struct {
	names   [2]string
	warcs   [2]string         // the --archive directories
	indexes [2]string         // the --index specs (CDXJ files)
	zipnums [2]string         // the same indexes as ZipNum (--index zipnum:DIR)
	archive map[string]string // WARC file name → the archive holding it
}

var (
	splitOnce sync.Once
	splitErr  error
	split     *splitArchive
)

// splitFixture splits the fixture's WARC files into two archives, once.
// A revisit resolves only within its own archive, so files linked by a
// revisit and its original stay together (the generator writes a URL's
// captures close together; the test archive has one such pair across
// files). Each half's index directory gets the whole archive's
// df-LANG.tsv: summed over the two archives (N and every df doubled),
// they give exactly the IDF of the combined index, so the scores must be
// equal too.
func splitFixture(t *testing.T, a *extracttest.Archive) *splitArchive {
	t.Helper()
	splitOnce.Do(func() { split, splitErr = buildSplit(a) })
	if splitErr != nil {
		t.Fatalf("split the test archive: %v", splitErr)
	}
	return split
}

func buildSplit(a *extracttest.Archive) (*splitArchive, error) {
	files := make([]string, len(a.WARCs))
	for i, w := range a.WARCs {
		files[i] = filepath.Base(w)
	}
	// Union the files of every revisit and its possible originals.
	group := make([]int, len(files))
	for i := range group {
		group[i] = i
	}
	find := func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	byKey := map[string][]cdxj.Capture{}
	for _, l := range a.Lines {
		c, err := cdxj.Parse(l)
		if err != nil {
			return nil, err
		}
		byKey[c.Key] = append(byKey[c.Key], c)
	}
	for _, cs := range byKey {
		for _, r := range cs {
			if !r.IsRevisit() {
				continue
			}
			for _, o := range cs {
				if !o.IsRevisit() && o.Digest == r.Digest {
					x, y := find(slices.Index(files, r.Filename)), find(slices.Index(files, o.Filename))
					group[max(x, y)] = min(x, y)
				}
			}
		}
	}
	// The first groups (in file order) up to half of the files are
	// national's, the rest special's.
	s := &splitArchive{names: [2]string{"national", "special"}, archive: map[string]string{}}
	half := map[int]int{}
	n0 := 0
	for i := range files {
		g := find(i)
		if _, ok := half[g]; !ok {
			half[g] = 1
			if n0 < len(files)/2 {
				half[g] = 0
			}
		}
		if half[g] == 0 {
			n0++
		}
		s.archive[files[i]] = s.names[half[g]]
	}
	if n0 == 0 || n0 == len(files) {
		return nil, os.ErrInvalid
	}
	root := filepath.Join(testRoot, "split")
	var lines [2][]string
	for _, l := range a.Lines {
		c, _ := cdxj.Parse(l)
		h := slices.Index(s.names[:], s.archive[c.Filename])
		lines[h] = append(lines[h], l)
	}
	dfs, _ := filepath.Glob(filepath.Join(filepath.Dir(a.CDXJ), "df-*.tsv"))
	for h, name := range s.names {
		s.warcs[h] = filepath.Join(root, name+"-warcs")
		if err := os.MkdirAll(s.warcs[h], 0o755); err != nil {
			return nil, err
		}
		for _, w := range a.WARCs {
			if s.archive[filepath.Base(w)] == name {
				if err := linkFile(w, filepath.Join(s.warcs[h], filepath.Base(w))); err != nil {
					return nil, err
				}
			}
		}
		idx := filepath.Join(root, name+"-index", "index.cdxj")
		if err := extracttest.WriteLines(idx, lines[h]); err != nil { // a subset of sorted lines is sorted
			return nil, err
		}
		for _, df := range dfs {
			data, err := os.ReadFile(df)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(idx), filepath.Base(df)), data, 0o644); err != nil {
				return nil, err
			}
		}
		s.indexes[h] = "cdxj:" + idx
		zdir := filepath.Join(root, name+"-zipnum")
		// Small blocks, so that look-ups cross block boundaries.
		seq := func(yield func(string, error) bool) {
			for _, l := range lines[h] {
				if !yield(l, nil) {
					return
				}
			}
		}
		if err := zipnum.Build(zdir, seq, 0, 40); err != nil {
			return nil, err
		}
		for _, df := range dfs {
			if err := os.Link(filepath.Join(filepath.Dir(idx), filepath.Base(df)), filepath.Join(zdir, filepath.Base(df))); err != nil {
				return nil, err
			}
		}
		s.zipnums[h] = "zipnum:" + zdir
	}
	return s, nil
}

// args is the command line of an extraction from both archives.
func (s *splitArchive) args(a *extracttest.Archive, out string, extra ...string) []string {
	return s.argsWith(s.indexes, a, out, extra...)
}

// argsWith is args with the given --index specs.
func (s *splitArchive) argsWith(indexes [2]string, a *extracttest.Archive, out string, extra ...string) []string {
	args := []string{"--spec", a.Spec(testEvent), "--output", out, "--quiet"}
	for h, name := range s.names {
		args = append(args, "--index", name+"="+indexes[h], "--archive", name+"="+s.warcs[h])
	}
	return append(args, extra...)
}

// sameCollectionAcrossArchives checks that a run on the two archives (got)
// is the run on the whole archive (want): the same documents in the same
// order with the same captures and scores, each naming the archive holding
// its file; the same missing URLs, links, collection WARC, CDXJ, WACZ, link
// graph and rounds; and run.json listing both archives with the documents
// taken from each.
func sameCollectionAcrossArchives(t *testing.T, s *splitArchive, indexes [2]string, want, got string) {
	t.Helper()
	for _, name := range append(append([]string{}, exactOutputs...), timedOutputs...) {
		if name == "documents.jsonl" || name == "run.json" {
			continue
		}
		w, g := readOutput(t, want, name, true), readOutput(t, got, name, true)
		if !bytes.Equal(w, g) {
			t.Errorf("%s differs between the whole archive and two archives:\n%s", name, firstDiff(w, g))
		}
	}
	wantDocs := readJSONL[map[string]any](t, filepath.Join(want, "documents.jsonl"))
	gotDocs := readJSONL[map[string]any](t, filepath.Join(got, "documents.jsonl"))
	if len(wantDocs) == 0 || len(gotDocs) != len(wantDocs) {
		t.Fatalf("%d documents from two archives, %d from the whole archive", len(gotDocs), len(wantDocs))
	}
	counts := map[string]int{}
	for i := range wantDocs {
		w, g := wantDocs[i], gotDocs[i]
		if _, ok := w["archive"]; ok {
			t.Fatalf("the run on one unnamed archive wrote an archive field: %v", w)
		}
		file, _ := g["filename"].(string)
		archive, _ := g["archive"].(string)
		if archive == "" || archive != s.archive[file] {
			t.Errorf("document %d (%v): archive %q, but %s is in %q's directory", i, g["url"], archive, file, s.archive[file])
		}
		if pf, ok := g["payload_filename"].(string); ok && s.archive[pf] != archive {
			t.Errorf("document %d (%v): revisit in %q, its payload %s in %q", i, g["url"], archive, pf, s.archive[pf])
		}
		counts[archive]++
		delete(g, "archive")
		wb, _ := json.Marshal(w)
		gb, _ := json.Marshal(g)
		if !bytes.Equal(wb, gb) {
			t.Errorf("document %d differs:\n  whole archive %s\n  two archives  %s", i, wb, gb)
		}
	}
	for _, name := range s.names {
		if counts[name] == 0 {
			t.Errorf("no document from archive %s (%v): the comparison does not cover two archives", name, counts)
		}
	}
	var info struct {
		Archives []struct {
			Name      string   `json:"name"`
			Index     string   `json:"index"`
			Locations []string `json:"locations"`
			Documents int      `json:"documents"`
		} `json:"archives"`
		Totals runTotals `json:"totals"`
	}
	data, err := os.ReadFile(filepath.Join(got, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Archives) != 2 {
		t.Fatalf("run.json lists %d archives, want 2: %s", len(info.Archives), data)
	}
	for h, a := range info.Archives {
		if a.Name != s.names[h] || a.Index != indexes[h] || len(a.Locations) != 1 || a.Locations[0] != s.warcs[h] || a.Documents != counts[a.Name] {
			t.Errorf("run.json archive %d: %+v; want %s, %s, [%s], %d documents", h, a, s.names[h], indexes[h], s.warcs[h], counts[s.names[h]])
		}
	}
	if wt := readTotals(t, want); !equalTotals(wt, info.Totals) {
		t.Errorf("run.json totals: whole archive %+v, two archives %+v", wt, info.Totals)
	}
}

func equalTotals(a, b runTotals) bool {
	wa, _ := json.Marshal(a)
	wb, _ := json.Marshal(b)
	return bytes.Equal(wa, wb)
}

// TestSeveralArchivesSequential: the sequential engine on two named
// archives extracts the collection it extracts from the whole archive.
func TestSeveralArchivesSequential(t *testing.T) {
	a := fixture(t)
	s := splitFixture(t, a)
	dir := t.TempDir()
	whole, two := sequentialWholeRun(t, a), filepath.Join(dir, "two")
	mustRun(t, nil, s.args(a, two, append([]string{"--engine=sequential"}, referenceFlags...)...)...)
	sameCollectionAcrossArchives(t, s, s.indexes, whole, two)

	// The report shows each archive's share of the run (and no archive
	// section for the run on one unnamed archive).
	rep := filepath.Join(dir, "report")
	mustRun(t, nil, "eval", "--runs", "whole="+whole+",two="+two, "--report", rep)
	html, err := os.ReadFile(filepath.Join(rep, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	section, _, _ := strings.Cut(string(html)[max(0, strings.Index(string(html), `<h2 id="archives">`)):], "</table>")
	counts := map[string]int{}
	for _, d := range readJSONL[struct{ Archive string }](t, filepath.Join(two, "documents.jsonl")) {
		counts[d.Archive]++
	}
	for _, name := range s.names {
		row := fmt.Sprintf(`<td>%s</td><td class="n">%d</td><td class="n">%.1f%%</td>`, name, counts[name], 100*float64(counts[name])/120)
		if !strings.Contains(section, row) {
			t.Errorf("report: archive section lacks %s:\n%s", row, section)
		}
	}
	if !strings.Contains(section, "two (120 documents)") || strings.Contains(section, "whole (") {
		t.Errorf("report: archive section should list run two only:\n%s", section)
	}
}

// sequentialWholeRun is the sequential engine's run on the whole archive
// (it takes one URL per round, so the Beam reference run with K = 25 is not
// its collection).
func sequentialWholeRun(t *testing.T, a *extracttest.Archive) string {
	return cachedRun(t, "reference-sequential", func(out string) []string {
		return extractArgs(a, testEvent, out, append([]string{"--engine=sequential"}, referenceFlags...)...)
	})
}

// TestSeveralArchivesBeam: the Beam rounds (prism, in process) on two named
// archives, with batched look-ups and with the CoGroupByKey join, extract
// the collection of the reference run on the whole archive.
func TestSeveralArchivesBeam(t *testing.T) {
	a := fixture(t)
	s := splitFixture(t, a)
	base := referenceRun(t, a)
	for _, join := range []string{"lookup", "cogroup"} {
		t.Run(join, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "two")
			mustRun(t, nil, s.args(a, out, append([]string{"--join=" + join}, referenceFlags...)...)...)
			sameCollectionAcrossArchives(t, s, s.indexes, base, out)
		})
	}
}

// TestSeveralArchivesMixedIndexes: one archive with a CDXJ index, the other
// with a ZipNum index (small blocks). Captures compete across the two
// backends as within one index, on both engines.
func TestSeveralArchivesMixedIndexes(t *testing.T) {
	a := fixture(t)
	s := splitFixture(t, a)
	mixed := [2]string{s.indexes[0], s.zipnums[1]}
	for engine, base := range map[string]func(*testing.T, *extracttest.Archive) string{"sequential": sequentialWholeRun, "beam": referenceRun} {
		t.Run(engine, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "mixed")
			mustRun(t, nil, s.argsWith(mixed, a, out, append([]string{"--engine=" + engine}, referenceFlags...)...)...)
			sameCollectionAcrossArchives(t, s, mixed, base(t, a), out)
		})
	}
}

// TestArchiveFlagErrors: wrong --index/--archive combinations fail before
// anything runs, with an error naming the flag, and write nothing.
func TestArchiveFlagErrors(t *testing.T) {
	a := fixture(t)
	idx := a.IndexSpec()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"duplicate name", []string{"--index", "n=" + idx, "--index", "n=" + idx, "--archive", "n=" + a.WARCDir},
			[]string{"--index", `archive name "n" is given twice`}},
		{"archive name without index", []string{"--index", "n=" + idx, "--archive", "n=" + a.WARCDir, "--archive", "s=" + a.WARCDir},
			[]string{"--archive s=", "no --index s=SPEC"}},
		{"index name without archive", []string{"--index", "n=" + idx, "--index", "s=" + idx, "--archive", "n=" + a.WARCDir},
			[]string{"--index s=", "no --archive s=LOCATIONS"}},
		{"named and unnamed index", []string{"--index", "n=" + idx, "--index", idx, "--archive", "n=" + a.WARCDir},
			[]string{"--index", "is named but", "is not"}},
		{"named index, unnamed archive", []string{"--index", "n=" + idx, "--archive", a.WARCDir},
			[]string{"--archive", "has no name", "--index n="}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r := runBin(t, nil, append([]string{"--spec", a.Spec(testEvent), "--output", out, "--quiet", "--engine=sequential"}, tc.args...)...)
			if r.err == nil {
				t.Fatalf("no error:\n%s", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, tail(r.stderr, 2000))
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run wrote %s", out)
			}
		})
	}
}

// linkFile makes dst a second name of the file src: a hard link, or a copy
// when the two are on different file systems. Not a symbolic link: an
// --archive location refuses links that resolve outside it
// (storage.CheckInside), and these tests build locations out of the
// fixture's files.
func linkFile(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// TestSourcesFromFlags: the unnamed form (one source named "", the last
// value winning), the named form (the order of --index), and an error
// naming the flag and the value for every inconsistent combination.
func TestSourcesFromFlags(t *testing.T) {
	t.Run("unnamed", func(t *testing.T) {
		var j extract.Job
		var err error
		if j.Sources, err = sourcesFromFlags([]string{"cdxj:/i/index.cdxj"}, []string{"/a, gs://b/w"}); err != nil {
			t.Fatal(err)
		}
		if want := []extract.Source{{Index: "cdxj:/i/index.cdxj", Archives: []string{"/a", "gs://b/w"}}}; !reflect.DeepEqual(j.Sources, want) {
			t.Errorf("got sources %+v, want one unnamed %+v", j.Sources, want)
		}
		if j.Named() {
			t.Error("one source named \"\" is Named")
		}
		// Repeated without names, the last value wins, as it always did.
		if j.Sources, err = sourcesFromFlags([]string{"cdxj:/i/old.cdxj", "zipnum:/z"}, []string{"/a", "/c,/d"}); err != nil {
			t.Fatal(err)
		}
		if want := []extract.Source{{Index: "zipnum:/z", Archives: []string{"/c", "/d"}}}; !reflect.DeepEqual(j.Sources, want) {
			t.Errorf("repeated unnamed flags: sources %+v; want the last values %+v", j.Sources, want)
		}
		if j.ArchiveNames() != nil {
			t.Errorf("names of the unnamed form: %v", j.ArchiveNames())
		}
		// A path with '=' after a '/' or a "kind:" is not a name.
		if j.Sources, err = sourcesFromFlags([]string{"cdxj:/i/a=b.cdxj"}, []string{"/data/x=y"}); err != nil || len(j.Sources) != 1 || j.Sources[0].Name != "" ||
			j.Sources[0].Index != "cdxj:/i/a=b.cdxj" || j.Sources[0].Archives[0] != "/data/x=y" {
			t.Errorf("paths with '=': %v, sources %+v", err, j.Sources)
		}
		// Neither flag: no archive at all (explain without an index).
		if j.Sources, err = sourcesFromFlags(nil, nil); err != nil || j.Sources != nil || j.HasIndex() {
			t.Errorf("no flags: %v, sources %+v", err, j.Sources)
		}
	})
	t.Run("named", func(t *testing.T) {
		var j extract.Job
		var err error
		j.Sources, err = sourcesFromFlags([]string{"national=zipnum:/data/idx", "special=cdxj:/data/sc.cdxj"},
			[]string{"special=/data/sc", "national=/data/warcs,gs://b/warcs"})
		if err != nil {
			t.Fatal(err)
		}
		want := []extract.Source{{Name: "national", Index: "zipnum:/data/idx", Archives: []string{"/data/warcs", "gs://b/warcs"}},
			{Name: "special", Index: "cdxj:/data/sc.cdxj", Archives: []string{"/data/sc"}}}
		if !reflect.DeepEqual(j.Sources, want) || !j.Named() {
			t.Errorf("got sources %+v (named %v)", j.Sources, j.Named())
		}
		if !reflect.DeepEqual(j.ArchiveNames(), []string{"national", "special"}) {
			t.Errorf("names %v: want the order of --index", j.ArchiveNames())
		}
	})
	for _, tc := range []struct {
		name              string
		indexes, archives []string
		want              []string // in the error
	}{
		{"duplicate index name", []string{"a=cdxj:/x", "a=cdxj:/y"}, []string{"a=/w"}, []string{"--index", `"a"`, "twice"}},
		{"duplicate archive name", []string{"a=cdxj:/x"}, []string{"a=/w", "a=/v"}, []string{"--archive", `"a"`, "twice"}},
		{"archive without index", []string{"a=cdxj:/x"}, []string{"a=/w", "b=/v"}, []string{"--archive b=/v", "--index b="}},
		{"index without archive", []string{"a=cdxj:/x", "b=cdxj:/y"}, []string{"a=/w"}, []string{"--index b=cdxj:/y", "--archive b="}},
		{"mixed index", []string{"a=cdxj:/x", "cdxj:/y"}, []string{"a=/w"}, []string{"--index", `"a=cdxj:/x" is named`, `"cdxj:/y" is not`}},
		{"mixed archive", []string{"a=cdxj:/x"}, []string{"a=/w", "/v"}, []string{"--archive", `"/v" is not`}},
		{"named index, unnamed archive", []string{"a=cdxj:/x"}, []string{"/w"}, []string{`--archive "/w" has no name`, "--index a="}},
		{"unnamed index, named archive", []string{"cdxj:/x"}, []string{"a=/w"}, []string{`--index "cdxj:/x" has no name`, "--archive a="}},
		{"empty name", []string{"=cdxj:/x"}, []string{"/w"}, []string{"--index", "empty archive name"}},
		{"nothing after the name", []string{"a="}, []string{"a=/w"}, []string{"--index", "nothing after a="}},
		{"no locations", []string{"a=cdxj:/x"}, []string{"a=,"}, []string{"--archive a=", "no locations"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var j extract.Job
			var err error
			j.Sources, err = sourcesFromFlags(tc.indexes, tc.archives)
			if err == nil {
				t.Fatalf("no error; sources %+v", j.Sources)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
