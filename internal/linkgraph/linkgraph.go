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
//
// The graph is written as it is read: nodes while documents.jsonl is read,
// edges while links.tsv is read (twice with includeExternal: first for the
// external nodes, which come before the edges), so memory holds a key per
// node and never the links.
package linkgraph

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/surt"
)

// FileName is the output file in the run directory.
const FileName = collection.GraphMLFile

// nodeIDs maps the nodes' keys to their ids (n0, n1, …) in the order they
// are added: a URL's SURT key, or "url:" and the URL as written when it
// does not parse.
type nodeIDs struct {
	byKey map[string]string
	n     int
}

func newNodeIDs() *nodeIDs { return &nodeIDs{byKey: map[string]string{}} }

func keyOf(u string) string {
	if k, err := surt.Key(u); err == nil {
		return k
	}
	return "url:" + u // unparsable: compare as written
}

// addDocument gives the next id to a collected document, under its SURT
// field and its URL's key (the first node with a key keeps it).
func (ids *nodeIDs) addDocument(d *collection.Document) string {
	id := ids.next()
	for _, k := range []string{d.SURT, keyOf(d.URL)} {
		if _, dup := ids.byKey[k]; k != "" && !dup {
			ids.byKey[k] = id
		}
	}
	return id
}

// addURL gives the next id to a URL of the given key.
func (ids *nodeIDs) addURL(key string) string {
	id := ids.next()
	ids.byKey[key] = id
	return id
}

func (ids *nodeIDs) has(key string) bool {
	_, ok := ids.byKey[key]
	return ok
}

func (ids *nodeIDs) next() string {
	id := "n" + strconv.Itoa(ids.n)
	ids.n++
	return id
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

// writeHeader writes the GraphML up to the graph's first node.
func writeHeader(w io.Writer) {
	io.WriteString(w, xml.Header)
	io.WriteString(w, `<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">`+"\n")
	for _, k := range keys {
		fmt.Fprintf(w, "  <key id=%q for=%q attr.name=%q attr.type=%q/>\n", k.name, k.domain, k.name, k.typ)
	}
	io.WriteString(w, `  <graph id="G" edgedefault="directed">`+"\n")
}

// writeFooter ends the graph and the GraphML.
func writeFooter(w io.Writer) { io.WriteString(w, "  </graph>\n</graphml>\n") }

// writeNode writes one node: a collected document d with its scores, or
// (d nil) a URL outside the collection.
func writeNode(w io.Writer, id, url string, d *collection.Document) {
	fmt.Fprintf(w, "    <node id=%q>", id)
	data := func(key, value string) {
		fmt.Fprintf(w, "<data key=%q>", key)
		xml.EscapeText(w, []byte(value))
		io.WriteString(w, "</data>")
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	data("url", url)
	if d != nil {
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
	io.WriteString(w, "</node>\n")
}

// writeEdge writes edge number i.
func writeEdge(w io.Writer, i int, source, target, anchor string) {
	fmt.Fprintf(w, "    <edge id=\"e%d\" source=%q target=%q><data key=\"anchor\">", i, source, target)
	xml.EscapeText(w, []byte(anchor))
	io.WriteString(w, "</data></edge>\n")
}

// writeGraph writes the graph of documents.jsonl at docsPath and links.tsv
// at linksPath to w, reading both as it goes.
func writeGraph(w io.Writer, docsPath, linksPath string, includeExternal bool) error {
	writeHeader(w)
	ids := newNodeIDs()
	err := collection.EachDocument(docsPath, func(_ int, d *collection.Document) error {
		writeNode(w, ids.addDocument(d), d.URL, d)
		return nil
	})
	if err != nil {
		return err
	}
	sourceID := func(l collection.Link) (string, error) {
		if id, ok := ids.byKey[keyOf(l.Source)]; ok {
			return id, nil
		}
		return "", fmt.Errorf("field source: %s is not a collected document", l.Source)
	}
	if includeExternal {
		// The targets outside the collection, in order of first appearance,
		// are nodes, written before the first edge.
		err := collection.EachLink(linksPath, func(l collection.Link) error {
			if _, err := sourceID(l); err != nil {
				return err
			}
			if tk := keyOf(l.Target); !ids.has(tk) {
				writeNode(w, ids.addURL(tk), l.Target, nil)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	edges, dropped := 0, 0
	err = collection.EachLink(linksPath, func(l collection.Link) error {
		src, err := sourceID(l)
		if err != nil {
			return err
		}
		dst, ok := ids.byKey[keyOf(l.Target)]
		if !ok { // only without includeExternal
			dropped++
			return nil
		}
		writeEdge(w, edges, src, dst, l.Anchor)
		edges++
		return nil
	})
	if err != nil {
		return err
	}
	if dropped > 0 {
		slog.Debug("links to URLs outside the collection left out", "links", dropped)
	}
	writeFooter(w)
	return nil
}

// WriteGraphML reads outDir's documents.jsonl and links.tsv and writes
// outDir/links.graphml; includeExternal adds the link targets outside the
// collection as nodes.
func WriteGraphML(outDir string, includeExternal bool) error {
	tmp := filepath.Join(outDir, "."+FileName+".tmp")
	if err := writeGraphFile(tmp, outDir, includeExternal); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("graphml: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(outDir, FileName)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("graphml: %w", err)
	}
	return nil
}

// writeGraphFile writes the graph of outDir to the file at path. Its
// errors name the file they are about (os errors name theirs).
func writeGraphFile(path, outDir string, includeExternal bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = writeGraph(bw, filepath.Join(outDir, collection.DocumentsFile), filepath.Join(outDir, collection.LinksFile), includeExternal)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
