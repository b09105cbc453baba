package extract

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
)

func acap(archive, ts, status, mime, digest, file string, off int64) cdxj.Capture {
	c := cap(ts, status, mime, digest, off)
	c.Archive, c.Filename = archive, file
	return c
}

// TestSelectSnapshotArchives: captures of all archives compete; the same
// capture (same time) in two archives goes to the archive named first,
// whatever the input order or the archives' and files' names; a revisit
// resolves only within its own archive.
func TestSelectSnapshotArchives(t *testing.T) {
	iv := Interval{Start: day("2009-09-27"), End: day("2009-09-29")}
	order := []string{"national", "special"}
	natl := acap("national", "20090927100000", "200", "text/html", "A", "z.warc.gz", 900)
	spec := acap("special", "20090927100000", "200", "text/html", "A", "a.warc.gz", 1)
	for _, in := range [][]cdxj.Capture{{natl, spec}, {spec, natl}} {
		got := SelectSnapshotIn(in, iv, order)
		if got.Kind != UseSnapshot || got.Capture.Archive != "national" || got.Payload.Archive != "national" {
			t.Errorf("tie, order %v, input %s first: chose %q (payload %q), want the first-named national",
				order, in[0].Archive, got.Capture.Archive, got.Payload.Archive)
		}
		got = SelectSnapshotIn(in, iv, []string{"special", "national"})
		if got.Capture.Archive != "special" {
			t.Errorf("tie, special named first, input %s first: chose %q, want special", in[0].Archive, got.Capture.Archive)
		}
	}

	// Competition: a closer capture of the second archive beats an
	// earlier one of the first, as within one archive.
	early := acap("national", "20090901000000", "200", "text/html", "B", "n.warc.gz", 1)
	inside := acap("special", "20090928000000", "200", "text/html", "C", "s.warc.gz", 2)
	if got := SelectSnapshotIn([]cdxj.Capture{early, inside}, iv, order); got.Capture.Archive != "special" {
		t.Errorf("the capture inside the event is special's, chose %q's", got.Capture.Archive)
	}

	// A revisit resolves within its own archive only.
	orig := acap("national", "20080101000000", "200", "text/html", "D", "n.warc.gz", 10)
	rev := acap("special", "20090927100000", "", "warc/revisit", "D", "s.warc.gz", 11)
	got := SelectSnapshotIn([]cdxj.Capture{orig, rev}, iv, order)
	if got.Kind != UseSnapshot || got.Capture != orig {
		t.Errorf("special's revisit of national's record: chose %+v; want national's original (the revisit is unresolved)", got.Capture)
	}
	if got := SelectSnapshotIn([]cdxj.Capture{rev}, iv, order); got.Kind != NoSnapshot || got.Reason != "no usable capture: 1× unresolved revisit" {
		t.Errorf("a revisit alone: %v %q, want unresolved", got.Kind, got.Reason)
	}
	own := acap("special", "20080101000000", "200", "text/html", "D", "s.warc.gz", 5)
	got = SelectSnapshotIn([]cdxj.Capture{orig, own, rev}, iv, order)
	if got.Capture != rev || got.Payload != own {
		t.Errorf("revisit with an original in both archives: capture %+v payload %+v; want the revisit with special's original", got.Capture, got.Payload)
	}
}

func TestSetArchives(t *testing.T) {
	t.Run("unnamed", func(t *testing.T) {
		var j Job
		if err := j.SetArchives([]string{"cdxj:/i/index.cdxj"}, []string{"/a, gs://b/w"}); err != nil {
			t.Fatal(err)
		}
		if want := []Source{{Index: "cdxj:/i/index.cdxj", Archives: []string{"/a", "gs://b/w"}}}; !reflect.DeepEqual(j.Sources, want) {
			t.Errorf("got sources %+v, want one unnamed %+v", j.Sources, want)
		}
		if j.Named() {
			t.Error("one source named \"\" is Named")
		}
		// Repeated without names, the last value wins, as it always did.
		if err := j.SetArchives([]string{"cdxj:/i/old.cdxj", "zipnum:/z"}, []string{"/a", "/c,/d"}); err != nil {
			t.Fatal(err)
		}
		if want := []Source{{Index: "zipnum:/z", Archives: []string{"/c", "/d"}}}; !reflect.DeepEqual(j.Sources, want) {
			t.Errorf("repeated unnamed flags: sources %+v; want the last values %+v", j.Sources, want)
		}
		if j.ArchiveNames() != nil {
			t.Errorf("names of the unnamed form: %v", j.ArchiveNames())
		}
		// A path with '=' after a '/' or a "kind:" is not a name.
		if err := j.SetArchives([]string{"cdxj:/i/a=b.cdxj"}, []string{"/data/x=y"}); err != nil || len(j.Sources) != 1 || j.Sources[0].Name != "" ||
			j.Sources[0].Index != "cdxj:/i/a=b.cdxj" || j.Sources[0].Archives[0] != "/data/x=y" {
			t.Errorf("paths with '=': %v, sources %+v", err, j.Sources)
		}
		// Neither flag: no archive at all (explain without an index).
		if err := j.SetArchives(nil, nil); err != nil || j.Sources != nil || j.HasIndex() {
			t.Errorf("no flags: %v, sources %+v", err, j.Sources)
		}
	})
	t.Run("named", func(t *testing.T) {
		var j Job
		err := j.SetArchives([]string{"national=zipnum:/data/idx", "special=cdxj:/data/sc.cdxj"},
			[]string{"special=/data/sc", "national=/data/warcs,gs://b/warcs"})
		if err != nil {
			t.Fatal(err)
		}
		want := []Source{{Name: "national", Index: "zipnum:/data/idx", Archives: []string{"/data/warcs", "gs://b/warcs"}},
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
			var j Job
			err := j.SetArchives(tc.indexes, tc.archives)
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

// TestLoadDictionariesSums: the df files of several archives are summed
// (ln(ΣN/Σdf)), not taken from one of them.
func TestLoadDictionariesSums(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "df-en.tsv"), filepath.Join(dir, "b", "df-en.tsv")
	for p, data := range map[string]string{
		a: "#docs\t10\n#lang\ten\nflood\t5\nriver\t1\n",
		b: "#docs\t30\n#lang\ten\nflood\t1\nvolcano\t3\n",
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := LoadDictionaries(context.Background(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for term, want := range map[string]float64{"flood": math.Log(40.0 / 6), "river": math.Log(40.0 / 1), "volcano": math.Log(40.0 / 3)} {
		if got := d.IDF(term); math.Abs(got-want) > 1e-12 {
			t.Errorf("idf(%s) = %g, want %g", term, got, want)
		}
	}
	idf := filepath.Join(dir, "terms.idf")
	os.WriteFile(idf, []byte("flood\t1.5\n"), 0o644)
	if _, err := LoadDictionaries(context.Background(), []string{a, idf}); err == nil || !strings.Contains(err.Error(), idf) {
		t.Errorf("summing an idf dictionary: error %v, want one naming %s", err, idf)
	}
}

// TestJobFetcherCountsMissingFiles: Job.OnMissingFile=count reaches the
// fetcher (archive.Fetcher.CountMissingFiles).
func TestJobFetcherCountsMissingFiles(t *testing.T) {
	j := &Job{Sources: []Source{{Archives: []string{t.TempDir()}}}, OnMissingFile: OnMissingFileCount}
	if !j.NewFetcher().CountMissingFiles {
		t.Error("Job.OnMissingFile=count does not reach the fetcher")
	}
	if j.OnMissingFile = OnMissingFileStop; j.NewFetcher().CountMissingFiles {
		t.Error("Job.OnMissingFile=stop counts missing files")
	}
}
