package collection_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
)

// TestWriterFiles: the line files hold exactly the lines written, links.tsv
// after its header with tabs and line breaks in fields made spaces, and
// listings.jsonl only when asked for.
func TestWriterFiles(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	w, err := collection.Create(ctx, out, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteListing(&collection.Document{URL: "http://a.example/"}); err == nil {
		t.Error("WriteListing without listings.jsonl: no error")
	}
	must(t, w.WriteDocument(&collection.Document{URL: "http://a.example/", Timestamp: "20100101000000", Revisit: true}))
	must(t, w.WriteMissing(&collection.Missing{URL: "http://b.example/", ReasonCode: "not-in-index"}))
	must(t, w.WriteLink(collection.Link{Source: "http://a.example/", Target: "http://b.example/", Anchor: "B\tand\nC"}))
	must(t, w.Close())
	want := map[string]string{
		collection.DocumentsFile: `{"url":"http://a.example/","surt":"","timestamp":"20100101000000","filename":"","offset":0,"length":0,"revisit":true,"title":"","doc_time":"","doc_date":"","doc_time_source":"","language":"","topic_r":0,"temp_r":0,"ttr":0,"relevance":0,"priority":0,"round":0,"rank":0,"depth":0,"path":"","outlinks":0}` + "\n",
		collection.MissingFile:   `{"url":"http://b.example/","surt":"","path":"","depth":0,"priority":0,"round":0,"reason_code":"not-in-index","reason":""}` + "\n",
		collection.LinksFile:     "source\ttarget\tanchor\tin_collection\nhttp://a.example/\thttp://b.example/\tB and C\tfalse\n",
	}
	for name, text := range want {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != text {
			t.Errorf("%s = %q, %v; want %q", name, got, err, text)
		}
	}
	if _, err := os.Stat(filepath.Join(out, collection.ListingsFile)); err == nil {
		t.Errorf("%s written without listings", collection.ListingsFile)
	}
}

// TestWriterAbort: an abandoned writer leaves no file behind; one with
// listings writes listings.jsonl even when empty.
func TestWriterAbort(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	w, err := collection.Create(ctx, out, true)
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.WriteDocument(&collection.Document{URL: "http://a.example/"}))
	w.Abort()
	if names, _ := os.ReadDir(out); len(names) != 0 {
		t.Errorf("after Abort: %v", names)
	}
	w, err = collection.Create(ctx, out, true)
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.Close())
	if got, err := os.ReadFile(filepath.Join(out, collection.ListingsFile)); err != nil || len(got) != 0 {
		t.Errorf("%s = %q, %v; want empty", collection.ListingsFile, got, err)
	}
}

// TestWriteRoundsAndRunInfo: rounds.jsonl is one compact line per round,
// run.json indented with a final line break.
func TestWriteRoundsAndRunInfo(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	must(t, collection.WriteRounds(ctx, out, []collection.Round{{Round: 1, Collected: 2}, {Round: 2}}))
	must(t, collection.WriteRunInfo(ctx, out, collection.RunInfo{Strategy: "ctf", Totals: collection.Totals{Collected: 2}}))
	rounds, _ := os.ReadFile(filepath.Join(out, collection.RoundsFile))
	wantRounds := `{"round":1,"frontier_size":0,"selected":0,"collected":2,"missing":0,"redirects":0,"accumulated_relevance":0,"urls_considered":0,"links":{"links":0,"new":0},"seconds":0}` + "\n" +
		`{"round":2,"frontier_size":0,"selected":0,"collected":0,"missing":0,"redirects":0,"accumulated_relevance":0,"urls_considered":0,"links":{"links":0,"new":0},"seconds":0}` + "\n"
	if string(rounds) != wantRounds {
		t.Errorf("rounds.jsonl = %s\nwant %s", rounds, wantRounds)
	}
	run, _ := os.ReadFile(filepath.Join(out, collection.RunFile))
	if len(run) < 3 || string(run[:4]) != "{\n  " || run[len(run)-1] != '\n' {
		t.Errorf("run.json not indented with a final line break: %q", run)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
