package linkgraph

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
)

// writeLinks writes links.tsv in dir with perDoc links from every
// document: to collected documents (some as https/no-www variants), to
// pool URLs not collected, to a few external URLs again and again, to an
// unparsable URL, with anchors holding XML specials and tabs.
func writeLinks(t testing.TB, dir string, docs []collection.Document, perDoc int) int {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, collection.LinksFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	w.WriteString("source\ttarget\tanchor\tin_collection\n")
	n := 0
	for i, d := range docs {
		for j := range perDoc {
			var target string
			switch j % 5 {
			case 0:
				target = docs[(i+j)%len(docs)].URL
			case 1:
				target = strings.Replace(docs[(i*7+j)%len(docs)].URL, "http://www.", "https://", 1)
			case 2:
				target = evaltest.URL(len(docs) + (i*13+j)%(3*len(docs)))
			case 3:
				target = "http://external.example.com/x?id=" + strconv.Itoa(j%17)
			case 4:
				target = "http://[not a url/" + strconv.Itoa(j%3)
			}
			fmt.Fprintf(w, "%s\t%s\tlink %d <b>&amp; \"%d\"\tand a tab\tfalse\n", d.URL, target, n, j)
			n++
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return n
}

// inMemoryGraphML is the link graph written from documents and links held
// in memory, as the package wrote it before it streamed: the reference the
// streamed bytes are compared with.
func inMemoryGraphML(t testing.TB, dir string, includeExternal bool) []byte {
	t.Helper()
	docs, err := collection.ReadDocuments(filepath.Join(dir, collection.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	links, err := collection.ReadLinks(filepath.Join(dir, collection.LinksFile))
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		id, url string
		doc     *collection.Document
	}
	type edge struct{ source, target, anchor string }
	var nodes []node
	var edges []edge
	byKey := map[string]string{}
	for i := range docs {
		id := "n" + strconv.Itoa(len(nodes))
		nodes = append(nodes, node{id: id, url: docs[i].URL, doc: &docs[i]})
		for _, k := range []string{docs[i].SURT, keyOf(docs[i].URL)} {
			if _, dup := byKey[k]; k != "" && !dup {
				byKey[k] = id
			}
		}
	}
	for _, l := range links {
		src, ok := byKey[keyOf(l.Source)]
		if !ok {
			t.Fatalf("line %d: source %s is not a collected document", l.Line, l.Source)
		}
		tk := keyOf(l.Target)
		dst, ok := byKey[tk]
		if !ok {
			if !includeExternal {
				continue
			}
			dst = "n" + strconv.Itoa(len(nodes))
			nodes = append(nodes, node{id: dst, url: l.Target})
			byKey[tk] = dst
		}
		edges = append(edges, edge{source: src, target: dst, anchor: l.Anchor})
	}
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	buf.WriteString(`<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n")
	for _, k := range keys {
		fmt.Fprintf(&buf, "  <key id=%q for=%q attr.name=%q attr.type=%q/>\n", k.name, k.domain, k.name, k.typ)
	}
	buf.WriteString(`  <graph id="G" edgedefault="directed">` + "\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, n := range nodes {
		fmt.Fprintf(&buf, "    <node id=%q>", n.id)
		data := func(key, value string) { fmt.Fprintf(&buf, "<data key=%q>%s</data>", key, esc(value)) }
		data("url", n.url)
		if d := n.doc; d != nil {
			data("title", d.Title)
			data("topic_r", f(d.TopicR))
			data("temp_r", f(d.TempR))
			data("ttr", f(d.TTR))
			data("doc_time", d.DocTime)
			data("doc_time_source", d.DocTimeSource)
			data("depth", strconv.Itoa(d.Depth))
			data("round", strconv.Itoa(d.Round))
			data("path", d.Path)
			data("in_collection", "true")
		} else {
			data("in_collection", "false")
		}
		buf.WriteString("</node>\n")
	}
	for i, e := range edges {
		fmt.Fprintf(&buf, "    <edge id=\"e%d\" source=%q target=%q><data key=\"anchor\">%s</data></edge>\n", i, e.source, e.target, esc(e.anchor))
	}
	buf.WriteString("  </graph>\n</graphml>\n")
	return buf.Bytes()
}

// TestStreamedGraphMatchesInMemory: the streamed links.graphml has the
// bytes of the graph built in memory, with and without the external
// nodes, on 300 documents and 12,000 links.
func TestStreamedGraphMatchesInMemory(t *testing.T) {
	dir := t.TempDir()
	docs := evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 300, URLsConsidered: 600})
	writeLinks(t, dir, docs, 40)
	for _, includeExternal := range []bool{false, true} {
		want := inMemoryGraphML(t, dir, includeExternal)
		if err := WriteGraphML(dir, includeExternal); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("includeExternal %v: streamed %d bytes, in memory %d; first difference at byte %d: %q, want %q",
				includeExternal, len(got), len(want), i, got[i:min(len(got), i+80)], want[i:min(len(want), i+80)])
		}
		if edges := bytes.Count(got, []byte("<edge ")); edges < 4000 {
			t.Errorf("includeExternal %v: %d edges, want a fixture with many", includeExternal, edges)
		}
	}
}

// peakHeapGrowth runs fn with the collector at GOGC=10 (so the heap is
// mostly what is live) and returns the largest heap in use, sampled as fn
// runs, above the heap before it.
func peakHeapGrowth(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	fn()
	close(done)
	<-sampled
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// TestGraphMemoryDoesNotGrowWithLinks: ten times the links between the
// same 200 documents leave the peak heap of writing the graph within
// 4 MB of what it was (held in memory, the 45,000 more links and their
// edges come to about 15 MB).
func TestGraphMemoryDoesNotGrowWithLinks(t *testing.T) {
	peak := map[int]uint64{}
	for _, perDoc := range []int{25, 250} {
		dir := t.TempDir()
		docs := evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 200, URLsConsidered: 400})
		n := writeLinks(t, dir, docs, perDoc)
		var err error
		peak[n] = peakHeapGrowth(func() { err = WriteGraphML(dir, true) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d links: peak heap %.1f MB above the start", n, float64(peak[n])/1e6)
	}
	if few, many := peak[5_000], peak[50_000]; many > few+4<<20 {
		t.Errorf("peak heap %d bytes at 50,000 links, %d at 5,000: grows with the links", many, few)
	}
}
