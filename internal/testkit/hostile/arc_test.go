package hostile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/specs"
)

// --- archives of ARC files only ---------------------------------------------

// arcArchives runs the index and the extraction over archives that hold
// nothing but ARC files (pywb's example.arc.gz and example.arc, the UKWA
// blackbook ARC), with a seed that is in them: the extraction writes its
// collection (the ARC captures as WARC records), run.json and the WACZ, and
// a second run into the same output succeeds too. Then a seed that is in
// none of them: an empty collection, written as such.
func arcArchives(t *testing.T, tl *tally, s *setup) {
	root := filepath.Join(s.root, "arc")
	base, err := specs.Load(s.spec)
	if err != nil {
		t.Fatal(err)
	}
	for i, rel := range []string{"conformance/pywb/example.arc.gz", "conformance/pywb/example.arc", "conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz"} {
		tl.tried("arc-only-archive")
		src := sharedtest.Path(t, rel)
		dir := filepath.Join(root, strings.ReplaceAll(filepath.Base(src), ".", "-"))
		archive := filepath.Join(dir, "archive")
		os.MkdirAll(archive, 0o755)
		copyFile(t, src, filepath.Join(archive, filepath.Base(src)))
		seed, day := arcSeed(t, filepath.Join(archive, filepath.Base(src)))
		if seed == "" {
			tl.problem(&tl.unexpected, "%s: no HTML capture to seed from", rel)
			continue
		}
		r := s.exec(tl, s.index, 0, "--input", filepath.Join(archive, filepath.Base(src)), "--output", filepath.Join(dir, "index"))
		if r.err != nil {
			tl.problem(&tl.unexpected, "index %s: %v\n%s", rel, r.err, tail(r.stderr))
			continue
		}
		spec := writeSeedSpec(t, s, base, "arc-"+string(rune('a'+i)), seed, day)
		out := filepath.Join(dir, "out")
		for _, pass := range []string{"first run", "rerun"} {
			r := s.exec(tl, s.extract, 0, "--spec", spec, "--index", "cdxj:"+filepath.Join(dir, "index", "index.cdxj"),
				"--archive", archive, "--output", out, "--quiet", "--batch_size=20", "--max_rounds=2")
			if r.err != nil {
				tl.problem(&tl.unexpected, "extract over %s only, %s: %v\n%s", rel, pass, r.err, tail(r.stderr))
				continue
			}
			cdx, _ := os.ReadFile(filepath.Join(out, "collection.cdxj"))
			_, runErr := os.Stat(filepath.Join(out, "run.json"))
			_, waczErr := os.Stat(filepath.Join(out, "collection.wacz"))
			if !strings.Contains(string(cdx), `"url": "`+seed+`"`) || runErr != nil || waczErr != nil {
				tl.problem(&tl.unexpected, "extract over %s only, %s: collection.cdxj without the seed %s (%d bytes), run.json: %v, collection.wacz: %v",
					rel, pass, seed, len(cdx), runErr, waczErr)
			}
		}
	}

	// A seed in none of the files: no document, an empty collection.
	tl.tried("empty-collection")
	dir := filepath.Join(root, "example-arc-gz")
	spec := writeSeedSpec(t, s, base, "arc-empty", "http://absent.example/", "2014-02-16")
	out := filepath.Join(dir, "out-empty")
	r := s.exec(tl, s.extract, 0, "--spec", spec, "--index", "cdxj:"+filepath.Join(dir, "index", "index.cdxj"),
		"--archive", filepath.Join(dir, "archive"), "--output", out, "--quiet", "--batch_size=20", "--max_rounds=2")
	warc, werr := os.ReadFile(filepath.Join(out, "collection.warc.gz"))
	cdx, cerr := os.ReadFile(filepath.Join(out, "collection.cdxj"))
	_, runErr := os.Stat(filepath.Join(out, "run.json"))
	if r.err != nil || werr != nil || cerr != nil || len(warc) != 0 || len(cdx) != 0 || runErr != nil {
		tl.problem(&tl.unexpected, "extract with a seed in no file: %v (collection.warc.gz %d bytes %v, collection.cdxj %d bytes %v, run.json %v)\n%s",
			r.err, len(warc), werr, len(cdx), cerr, runErr, tail(r.stderr))
	}
}

// arcSeed is the URL and day of the first HTML capture with status 200 of
// an ARC file, from its index.
func arcSeed(t *testing.T, path string) (url, day string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cdxj.IndexFile(bytes.NewReader(data), filepath.Base(path), cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		if url == "" && c.Status == "200" && c.Mime == "text/html" && strings.HasPrefix(c.URL, "http") {
			url, day = c.URL, c.Timestamp[:4]+"-"+c.Timestamp[4:6]+"-"+c.Timestamp[6:8]
		}
		return nil
	})
	return url, day
}

// writeSeedSpec writes the fixture's spec with one seed and a one-day event
// next to it (its reference documents are relative to its folder).
func writeSeedSpec(t *testing.T, s *setup, base *specs.Spec, name, seed, day string) string {
	sp := *base
	sp.Seeds = []string{seed}
	b, err := specs.ParseBound(day)
	if err != nil {
		t.Fatal(err)
	}
	sp.Event.Start, sp.Event.End = b, b
	var buf bytes.Buffer
	if err := sp.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.a.SpecsDir, name+".yaml")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
