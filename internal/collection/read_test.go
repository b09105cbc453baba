package collection_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEachDocumentStreams: documents come one by one with their line
// numbers (blank lines skipped), and fn's error stops the reading with the
// file and line.
func TestEachDocumentStreams(t *testing.T) {
	p := writeFile(t, t.TempDir(), collection.DocumentsFile,
		`{"url":"http://a.example/","timestamp":"20100101000000"}`+"\n\n"+`{"url":"http://b.example/","timestamp":"20100102000000"}`+"\n")
	var lines []int
	err := collection.EachDocument(p, func(line int, d *collection.Document) error {
		lines = append(lines, line)
		if d.URL == "http://b.example/" {
			return errors.New("stop here")
		}
		return nil
	})
	if len(lines) != 2 || lines[0] != 1 || lines[1] != 3 {
		t.Errorf("lines %v, want [1 3]", lines)
	}
	if err == nil || err.Error() != p+":3: stop here" {
		t.Errorf("err %v, want %s:3: stop here", err, p)
	}
}

// TestReadErrorsNameFileAndLine: bad input is an error naming the file, the
// line and the field.
func TestReadErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text, want string
		read             func(string) error
	}{
		{collection.DocumentsFile, `{"url":"http://a.example/","timestamp":"20100101000000"}` + "\n" + `{"url":"http://b.example/","timestamp":"2010"}`,
			":2: field timestamp: \"2010\" is not 14 digits", func(p string) error { _, err := collection.ReadDocuments(p); return err }},
		{collection.DocumentsFile, `{"url":"","timestamp":"20100101000000"}`, ":1: field url: empty",
			func(p string) error { _, err := collection.ReadDocuments(p); return err }},
		{collection.DocumentsFile, `{"url":"http://a.example/","topic_r":"high"}`, ":1: field topic_r: string value cannot be a float64",
			func(p string) error { _, err := collection.ReadDocuments(p); return err }},
		{collection.MissingFile, `{"url":"http://a.example/"}` + "\n" + `{"url":`, ":2: invalid JSON",
			func(p string) error { _, err := collection.ReadMissing(p); return err }},
		{collection.RoundsFile, `{"round":"one"}`, ":1: field round: string value cannot be a int",
			func(p string) error { _, err := collection.ReadRounds(p); return err }},
		{collection.LinksFile, collection.LinksHeader + "\nhttp://a/\thttp://b/\tB\tmaybe\n", ":2: field in_collection: \"maybe\" is not true or false",
			func(p string) error { _, err := collection.ReadLinks(p); return err }},
		{collection.LinksFile, "http://a/\thttp://b/\n", ":1: 2 fields, want source, target, anchor, in_collection",
			func(p string) error { _, err := collection.ReadLinks(p); return err }},
		{collection.LinksFile, "\thttp://b/\tB\ttrue\n", ":1: field source or target: empty",
			func(p string) error { _, err := collection.ReadLinks(p); return err }},
	}
	for _, c := range cases {
		p := writeFile(t, dir, c.name, c.text)
		err := c.read(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+c.want) {
			t.Errorf("%s %q: %v, want %s%s", c.name, c.text, err, p, c.want)
		}
	}
}

// TestLongLine: a line over MaxLineBytes is an error naming the file and
// line, not an unbounded read.
func TestLongLine(t *testing.T) {
	long := `{"url":"http://a.example/","timestamp":"20100101000000","title":"` + strings.Repeat("x", collection.MaxLineBytes) + `"}`
	p := writeFile(t, t.TempDir(), collection.DocumentsFile, `{"url":"http://a.example/","timestamp":"20100101000000"}`+"\n"+long+"\n")
	_, err := collection.ReadDocuments(p)
	if err == nil || !strings.HasPrefix(err.Error(), p+":2: line longer than") {
		t.Errorf("err %v, want %s:2: line longer than …", err, p)
	}
}

// TestReadLinks: the header is skipped, an anchor with tabs is rejoined, and
// each link knows its line.
func TestReadLinks(t *testing.T) {
	p := writeFile(t, t.TempDir(), collection.LinksFile, collection.LinksHeader+"\nhttp://a/\thttp://b/\tone\ttwo\ttrue\r\n\nhttp://a/\thttp://c/\t\tfalse\n")
	links, err := collection.ReadLinks(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []collection.Link{
		{Source: "http://a/", Target: "http://b/", Anchor: "one\ttwo", InCollection: true, Line: 2},
		{Source: "http://a/", Target: "http://c/", Line: 4},
	}
	if len(links) != len(want) || links[0] != want[0] || links[1] != want[1] {
		t.Errorf("links %+v, want %+v", links, want)
	}
}

// TestReadMissingFile: a file that is not there is fs.ErrNotExist (a run
// cut short may lack missing.jsonl and rounds.jsonl).
func TestReadMissingFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := collection.ReadRounds(filepath.Join(dir, collection.RoundsFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRounds: %v, want fs.ErrNotExist", err)
	}
	if _, err := collection.ReadRunInfo(filepath.Join(dir, collection.RunFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRunInfo: %v, want fs.ErrNotExist", err)
	}
}

// TestRoundTrip: what the writers write, the readers read back.
func TestRoundTrip(t *testing.T) {
	ctx := t.Context()
	out := t.TempDir()
	w, err := collection.Create(ctx, out, false)
	must(t, err)
	doc := collection.Document{URL: "http://a.example/", SURT: "example,a)/", Timestamp: "20100101000000", Title: "A\ttitle", TopicR: 0.5, Round: 1}
	miss := collection.Missing{URL: "http://b.example/", Depth: 2, Parent: "http://a.example/", ReasonCode: "not-html"}
	must(t, w.WriteDocument(&doc))
	must(t, w.WriteMissing(&miss))
	must(t, w.WriteLink(collection.Link{Source: doc.URL, Target: miss.URL, Anchor: "b", InCollection: false}))
	must(t, w.Close())
	run := collection.RunInfo{Strategy: "ctf", Flags: map[string]string{"x": "y"}, Archives: []collection.ArchiveUse{{Name: "a", Documents: 1}},
		Totals: collection.Totals{Collected: 1, Links: collection.LinkStats{Links: 1, NotFollowed: map[string]int{"denied": 1}}}}
	must(t, collection.WriteRunInfo(ctx, out, run))
	docs, err := collection.ReadDocuments(filepath.Join(out, collection.DocumentsFile))
	if err != nil || len(docs) != 1 || docs[0] != doc {
		t.Errorf("documents %+v, %v", docs, err)
	}
	missing, err := collection.ReadMissing(filepath.Join(out, collection.MissingFile))
	if err != nil || len(missing) != 1 || missing[0] != miss {
		t.Errorf("missing %+v, %v", missing, err)
	}
	links, err := collection.ReadLinks(filepath.Join(out, collection.LinksFile))
	if err != nil || len(links) != 1 || links[0].Target != miss.URL || links[0].Line != 2 {
		t.Errorf("links %+v, %v", links, err)
	}
	info, err := collection.ReadRunInfo(filepath.Join(out, collection.RunFile))
	if err != nil || info.Strategy != "ctf" || info.Flags["x"] != "y" || info.Archives[0].Name != "a" || info.Totals.Links.NotFollowed["denied"] != 1 {
		t.Errorf("run.json %+v, %v", info, err)
	}
}
