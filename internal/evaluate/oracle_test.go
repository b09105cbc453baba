package evaluate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
)

// TestLabelOracleByHand: the oracle takes relevant pages first, follows
// listing pages before other pages without counting them, resolves a
// redirecting link to the page it redirected to, and keeps discovery order
// among equals.
//
//	S (seed, listing) → A, L, B, /go/1
//	L (listing)       → C, D
//	/go/1             ⇒ F (redirect)
//	A                 → E
func TestLabelOracleByHand(t *testing.T) {
	u := func(p string) string { return "http://x.org/" + p }
	doc := func(p, path string, depth int, parent string) collection.Document {
		return collection.Document{URL: u(p), Timestamp: "20100101000000", Path: path, Depth: depth, Parent: parent}
	}
	listing := func(d collection.Document) collection.Document { d.Listing = true; return d }
	docs := []collection.Document{
		listing(doc("", "S", 0, "")), doc("a", "SL", 1, ""), listing(doc("l", "SL", 1, "")), doc("b", "SL", 1, ""),
		doc("c", "SLL", 2, ""), doc("d", "SLL", 2, ""), doc("e", "SLL", 2, ""), doc("f", "SLR", 1, u("go/1")),
	}
	var links []collection.Link
	link := func(from string, to ...string) {
		for _, t := range to {
			links = append(links, collection.Link{Source: u(from), Target: u(t)})
		}
	}
	link("", "a", "l", "b", "go/1", "nowhere")
	link("l", "c", "d")
	link("a", "e")
	labels, err := NewLabels([]Label{{URL: u("b"), Grade: 1}, {URL: u("c"), Grade: 2}, {URL: u("e"), Grade: 1}, {URL: u("f"), Grade: 1}})
	if err != nil {
		t.Fatal(err)
	}
	names := func(ds []collection.Document) string {
		var s []string
		for _, d := range ds {
			s = append(s, strings.TrimPrefix(d.URL, u("")))
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		k, target    int
		want         string
		wantListings int
	}{
		// Round by round: S; B and F (relevant, discovery order); L; C; A (the first of A, D); E.
		{k: 1, target: 4, want: "b,f,c,a", wantListings: 2},
		{k: 1, target: 10, want: "b,f,c,a,e,d", wantListings: 2},
		// K = 2: {S}; {B, F}; {L, A}; {C, E}; {D}.
		{k: 2, target: 10, want: "b,f,a,c,e,d", wantListings: 2},
	} {
		got, listed := labelOracle(docs, links, labels, c.k, c.target)
		if names(got) != c.want || listed != c.wantListings {
			t.Errorf("k=%d target=%d: %s with %d listing pages, want %s with %d", c.k, c.target, names(got), listed, c.want, c.wantListings)
		}
	}
}

// TestLabelOracleFiles: LabelOracle reads a graph crawl's directory and
// names the file it cannot read.
func TestLabelOracleFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(collection.RunFile, `{"strategy":"unfocused"}`)
	write(collection.DocumentsFile, `{"url":"http://x.org/a","timestamp":"20100101000000","depth":0,"path":"S"}`+"\n"+
		`{"url":"http://x.org/b","timestamp":"20100101000000","depth":1,"path":"SL"}`+"\n")
	labels, err := NewLabels([]Label{{URL: "http://x.org/b", Grade: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := LabelOracle(dir, labels, 10, 10); err == nil || !strings.Contains(err.Error(), collection.LinksFile) {
		t.Fatalf("without %s: %v", collection.LinksFile, err)
	}
	write(collection.LinksFile, "source\ttarget\tanchor\tin_collection\nhttp://x.org/a\thttp://x.org/b\tB\ttrue\n")
	docs, _, err := LabelOracle(dir, labels, 10, 10)
	if err != nil || len(docs) != 2 || docs[1].URL != "http://x.org/b" {
		t.Fatalf("oracle: %v %v", docs, err)
	}
	if _, _, err := LabelOracle(dir, labels, 0, 10); err == nil {
		t.Error("batch size 0 accepted")
	}
}
