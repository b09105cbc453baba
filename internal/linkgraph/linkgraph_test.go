package linkgraph_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/linkgraph"
)

type graphML struct {
	XMLName xml.Name `xml:"graphml"`
	Keys    []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
	} `xml:"key"`
	Graph struct {
		EdgeDefault string `xml:"edgedefault,attr"`
		Nodes       []struct {
			ID   string  `xml:"id,attr"`
			Data []datum `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			ID     string  `xml:"id,attr"`
			Source string  `xml:"source,attr"`
			Target string  `xml:"target,attr"`
			Data   []datum `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

type datum struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

func get(ds []datum, key string) (string, bool) {
	for _, d := range ds {
		if d.Key == key {
			return d.Value, true
		}
	}
	return "", false
}

func parse(t *testing.T, path string) *graphML {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g graphML
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	if err := dec.Decode(&g); err != nil {
		t.Fatalf("invalid XML: %v", err)
	}
	return &g
}

func TestWriteGraphML(t *testing.T) {
	dir := t.TempDir()
	docs := evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 20, Pool: 40, URLsConsidered: 60})
	// A link written as an https/no-www variant of a collected document
	// must reach that document; an anchor with a tab and XML specials must
	// survive.
	f, _ := os.OpenFile(filepath.Join(dir, "links.tsv"), os.O_APPEND|os.O_WRONLY, 0)
	variant := strings.Replace(docs[5].URL, "http://www.", "https://", 1)
	f.WriteString(docs[0].URL + "\t" + variant + "\ta <b>&\tc\tfalse\n")
	f.Close()
	links, err := collection.ReadLinks(filepath.Join(dir, collection.LinksFile))
	if err != nil {
		t.Fatal(err)
	}
	// Expected counts, computed independently of the package.
	inColl := map[string]bool{}
	for _, d := range docs {
		inColl[strings.Replace(d.URL, "http://www.", "", 1)] = true
	}
	norm := func(u string) string {
		return strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(u, "http://www."), "https://"), "http://")
	}
	internal, externalTargets := 0, map[string]bool{}
	for _, l := range links {
		if inColl[norm(l.Target)] {
			internal++
		} else {
			externalTargets[norm(l.Target)] = true
		}
	}

	if err := linkgraph.WriteGraphML(dir, false); err != nil {
		t.Fatal(err)
	}
	g := parse(t, filepath.Join(dir, linkgraph.FileName))
	if g.Graph.EdgeDefault != "directed" || len(g.Keys) != 12 {
		t.Errorf("edgedefault %q, %d keys", g.Graph.EdgeDefault, len(g.Keys))
	}
	if len(g.Graph.Nodes) != len(docs) || len(g.Graph.Edges) != internal {
		t.Errorf("collection graph: %d nodes, %d edges; want %d, %d", len(g.Graph.Nodes), len(g.Graph.Edges), len(docs), internal)
	}
	n0 := g.Graph.Nodes[0]
	if u, _ := get(n0.Data, "url"); u != docs[0].URL {
		t.Errorf("node 0 url %q", u)
	}
	if v, _ := get(n0.Data, "title"); v != docs[0].Title {
		t.Errorf("node 0 title %q, want %q", v, docs[0].Title)
	}
	for _, k := range []string{"topic_r", "temp_r", "ttr", "doc_time", "depth", "round", "in_collection"} {
		if _, ok := get(n0.Data, k); !ok {
			t.Errorf("node 0 lacks %s", k)
		}
	}
	last := g.Graph.Edges[len(g.Graph.Edges)-1]
	if a, _ := get(last.Data, "anchor"); a != "a <b>&\tc" || last.Source != "n0" || last.Target != "n5" {
		t.Errorf("variant link: %+v", last)
	}

	if err := linkgraph.WriteGraphML(dir, true); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, linkgraph.FileName))
	g = parse(t, filepath.Join(dir, linkgraph.FileName))
	if len(g.Graph.Nodes) != len(docs)+len(externalTargets) || len(g.Graph.Edges) != len(links) {
		t.Errorf("with external: %d nodes, %d edges; want %d, %d", len(g.Graph.Nodes), len(g.Graph.Edges), len(docs)+len(externalTargets), len(links))
	}
	ext := g.Graph.Nodes[len(docs)]
	if v, _ := get(ext.Data, "in_collection"); v != "false" {
		t.Errorf("external node in_collection %q", v)
	}
	if _, ok := get(ext.Data, "topic_r"); ok {
		t.Error("external node has scores")
	}
	if err := linkgraph.WriteGraphML(dir, true); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(filepath.Join(dir, linkgraph.FileName))
	if !bytes.Equal(first, second) {
		t.Error("two writes differ")
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 3, URLsConsidered: 5})
	links := filepath.Join(dir, collection.LinksFile)
	for _, tc := range []struct{ content, want string }{
		{"source\ttarget\tanchor\tin_collection\nhttp://a/\thttp://b/\tx\tmaybe\n", "links.tsv:2: field in_collection"},
		{"http://a/\thttp://b/\n", "links.tsv:1: 2 fields"},
		{"http://not-collected.example/\thttp://b/\tx\tfalse\n", "links.tsv:1: field source"},
	} {
		os.WriteFile(links, []byte(tc.content), 0o644)
		if err := linkgraph.WriteGraphML(dir, true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.content, err, tc.want)
		}
	}
}
