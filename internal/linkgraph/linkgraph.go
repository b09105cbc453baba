// Package linkgraph writes the link graph of an extracted collection as
// GraphML (OUT/links.graphml), for Gephi, Cytoscape, yEd or networkx.
//
// Nodes are the collected documents (documents.jsonl), in collection order,
// with their scores as attributes: url, title, topic_r, temp_r, ttr,
// doc_time, doc_time_source, depth, round, path and in_collection (true).
// Edges are the outlinks of links.tsv, in file order, directed from the
// linking document to the target, with the anchor text as attribute; the
// same pair linked twice gives two edges (GraphML allows parallel edges,
// and the anchors differ).
//
// Targets are identified by SURT key (internal/surt), so a link written as
// https://www.example.org/a reaches the document collected as
// http://example.org/a. A target that is not a collected document is
// either dropped (includeExternal false: the graph of the collection) or
// added as a node with in_collection=false and only its url (includeExternal
// true), after all documents, in order of first appearance. The column
// in_collection of links.tsv is not trusted for this: membership is decided
// by the documents themselves, so the two files cannot disagree in the
// output.
//
// Node ids are n0, n1, … and edge ids e0, e1, …, so the same run gives the
// same bytes. The GraphML keys are typed (string, double, int, boolean)
// and named as the JSON fields of documents.jsonl.
package linkgraph

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/surt"
)

// FileName is the output file in the run directory.
const FileName = collection.GraphMLFile

type node struct {
	id  string
	url string
	doc *collection.Document // nil: not collected
}

type edge struct {
	source, target string
	anchor         string
}

// Graph is the link graph of a run.
type Graph struct {
	nodes []node
	edges []edge
}

// Nodes and Edges return the counts.
func (g *Graph) Nodes() int { return len(g.nodes) }
func (g *Graph) Edges() int { return len(g.edges) }

// Build makes the graph from documents and links.
func Build(docs []collection.Document, links []collection.Link, includeExternal bool, linksPath string) (*Graph, error) {
	g := &Graph{}
	byKey := map[string]string{} // SURT key → node id
	keyOf := func(u string) string {
		if k, err := surt.Key(u); err == nil {
			return k
		}
		return "url:" + u // unparsable: compare as written
	}
	for i := range docs {
		id := "n" + strconv.Itoa(len(g.nodes))
		g.nodes = append(g.nodes, node{id: id, url: docs[i].URL, doc: &docs[i]})
		for _, k := range []string{docs[i].SURT, keyOf(docs[i].URL)} {
			if _, dup := byKey[k]; k != "" && !dup {
				byKey[k] = id
			}
		}
	}
	dropped := 0
	for _, l := range links {
		src, ok := byKey[keyOf(l.Source)]
		if !ok {
			return nil, fmt.Errorf("%s:%d: field source: %s is not a collected document", linksPath, l.Line, l.Source)
		}
		tk := keyOf(l.Target)
		dst, ok := byKey[tk]
		if !ok {
			if !includeExternal {
				dropped++
				continue
			}
			dst = "n" + strconv.Itoa(len(g.nodes))
			g.nodes = append(g.nodes, node{id: dst, url: l.Target})
			byKey[tk] = dst
		}
		g.edges = append(g.edges, edge{source: src, target: dst, anchor: l.Anchor})
	}
	if dropped > 0 {
		slog.Debug("links to URLs outside the collection left out", "links", dropped)
	}
	return g, nil
}

// keys are the GraphML attributes: id (= attr.name), domain, type.
var keys = []struct{ name, domain, typ string }{
	{"url", "node", "string"},
	{"title", "node", "string"},
	{"topic_r", "node", "double"},
	{"temp_r", "node", "double"},
	{"ttr", "node", "double"},
	{"doc_time", "node", "string"},
	{"doc_time_source", "node", "string"},
	{"depth", "node", "int"},
	{"round", "node", "int"},
	{"path", "node", "string"},
	{"in_collection", "node", "boolean"},
	{"anchor", "edge", "string"},
}

// WriteGraphML writes the graph as GraphML.
func (g *Graph) WriteGraphML(buf *bytes.Buffer) {
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	buf.WriteString(xml.Header)
	buf.WriteString(`<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n")
	for _, k := range keys {
		fmt.Fprintf(buf, "  <key id=%q for=%q attr.name=%q attr.type=%q/>\n", k.name, k.domain, k.name, k.typ)
	}
	buf.WriteString(`  <graph id="G" edgedefault="directed">` + "\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, n := range g.nodes {
		fmt.Fprintf(buf, "    <node id=%q>", n.id)
		data := func(key, value string) { fmt.Fprintf(buf, "<data key=%q>%s</data>", key, esc(value)) }
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
	for i, e := range g.edges {
		fmt.Fprintf(buf, "    <edge id=\"e%d\" source=%q target=%q><data key=\"anchor\">%s</data></edge>\n", i, e.source, e.target, esc(e.anchor))
	}
	buf.WriteString("  </graph>\n</graphml>\n")
}

// WriteGraphML reads outDir's documents.jsonl and links.tsv and writes
// outDir/links.graphml; includeExternal adds the link targets outside the
// collection as nodes.
func WriteGraphML(outDir string, includeExternal bool) error {
	docs, err := collection.ReadDocuments(filepath.Join(outDir, collection.DocumentsFile))
	if err != nil {
		return fmt.Errorf("graphml: %w", err)
	}
	linksPath := filepath.Join(outDir, collection.LinksFile)
	links, err := collection.ReadLinks(linksPath)
	if err != nil {
		return fmt.Errorf("graphml: %w", err)
	}
	g, err := Build(docs, links, includeExternal, linksPath)
	if err != nil {
		return fmt.Errorf("graphml: %w", err)
	}
	var buf bytes.Buffer
	g.WriteGraphML(&buf)
	tmp := filepath.Join(outDir, "."+FileName+".tmp")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("graphml: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(outDir, FileName)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("graphml: %w", err)
	}
	return nil
}
