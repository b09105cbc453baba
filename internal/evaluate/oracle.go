package evaluate

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/surt"
	"github.com/recrawl/recrawl/specs"
)

// The label oracle is the ceiling of the options comparison: the collection
// a crawler would extract if it knew the labels before fetching a page. It
// runs Algorithm 1's rounds (K URLs per round, seeds first) on the link
// graph of an unfocused crawl that follows every link, with the priority
// "relevant (by grade) > listing page > anything else". Listing pages are
// followed but not counted, as with count_listing_pages: false. (The graph
// crawl counts them, so that their links are in links.tsv; documents.jsonl
// marks them.)
//
// Precision at R stays below 1 even for the oracle: some relevant pages are
// reachable only through irrelevant ones, some not at all from the seeds,
// and a round takes K URLs at once. The oracle is greedy, not an optimum;
// it shows how much of the remaining gap any priority function could close
// on this link graph.
const OracleVariant = "oracle"

// OracleGraphFactor bounds the oracle's graph crawl at this many times the
// target size (the whole archive, for the demo), so that --options all stays
// affordable on a large archive: the oracle then sees the part of the graph
// an unfocused crawl reaches first.
const OracleGraphFactor = 20

// oracleGraph is the change of the specification for the graph crawl
// (strategy unfocused, set by the variant).
func oracleGraph(s *specs.Spec) {
	s.Outlinks = specs.OutlinksAll
	s.Focus.CountListingPages = true
	s.TargetSize *= OracleGraphFactor
	s.BatchSize = max(s.BatchSize, 500)
	s.MaxRounds = 0
}

// LabelOracle reads the graph crawl in dir (documents.jsonl, links.tsv) and returns the collection the oracle extracts with k URLs per
// round up to target documents, in collection order, and the number of
// listing pages it followed. Its seeds are the graph crawl's depth-0 pages,
// the seeds every variant resolved.
func LabelOracle(dir string, labels *Labels, k, target int) ([]collection.Document, int, error) {
	graph, err := ReadRun(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("oracle: %w", err)
	}
	return labelOracleRun(graph, labels, k, target)
}

// labelOracleRun is LabelOracle on the graph crawl's run, already read.
func labelOracleRun(graph *Run, labels *Labels, k, target int) ([]collection.Document, int, error) {
	if k <= 0 || target <= 0 {
		return nil, 0, fmt.Errorf("oracle: batch size %d and target size %d must be positive", k, target)
	}
	links, err := collection.ReadLinks(filepath.Join(graph.Dir, collection.LinksFile))
	if err != nil {
		return nil, 0, fmt.Errorf("oracle: %w", err)
	}
	docs, followed := labelOracle(graph.Documents, links, labels, k, target)
	return docs, followed, nil
}

// oracleNode is one fetched page of the graph crawl.
type oracleNode struct {
	doc      *collection.Document
	listing  bool
	priority float64 // 1 + grade for relevant pages, 0.5 for listing pages, 0
	out      []string
}

// labelOracle runs the oracle's rounds on the documents of the graph crawl
// (the nodes, by SURT key; listing pages marked) and links (the edges). A page the graph crawl
// reached through a redirect is also reached through the redirecting URL
// (its parent), and so is a canonical URL through its copy. Ties keep discovery order, so the result is deterministic.
func labelOracle(docs []collection.Document, links []collection.Link, labels *Labels, k, target int) ([]collection.Document, int) {
	nodes := map[string]*oracleNode{}
	alias := map[string]string{}
	var seeds []string
	for i := range docs {
		d := &docs[i]
		key := d.SURT
		if key == "" {
			key = keyOf(d.URL)
		}
		if key == "" {
			continue
		}
		n := &oracleNode{doc: d, listing: d.Listing}
		if _, grade := labels.Lookup(d); grade > 0 {
			n.priority = 1 + grade
		} else if d.Listing {
			n.priority = 0.5
		}
		nodes[key] = n
		if (strings.HasSuffix(d.Path, "R") || strings.HasSuffix(d.Path, extract.PathCanonical)) && d.Parent != "" {
			if from := keyOf(d.Parent); from != "" {
				alias[from] = key
			}
		}
		if d.Depth == 0 {
			seeds = append(seeds, key)
		}
	}
	resolved := map[string]string{} // URL → node key, "" for none
	resolve := func(u string) string {
		if key, ok := resolved[u]; ok {
			return key
		}
		key := keyOf(u)
		for range 8 { // redirect chains
			to, ok := alias[key]
			if !ok {
				break
			}
			key = to
		}
		if _, ok := nodes[key]; !ok {
			key = ""
		}
		resolved[u] = key
		return key
	}
	for _, l := range links {
		if src, dst := resolve(l.Source), resolve(l.Target); src != "" && dst != "" && dst != src {
			nodes[src].out = append(nodes[src].out, dst)
		}
	}
	slices.Sort(seeds) // the graph crawl's order of its seeds is its own
	type entry struct {
		key   string
		order int
	}
	var frontier []entry
	queued := map[string]bool{}
	enqueue := func(key string) {
		if !queued[key] {
			queued[key] = true
			frontier = append(frontier, entry{key, len(queued)})
		}
	}
	for _, s := range seeds {
		enqueue(s)
	}
	var out []collection.Document
	followed := 0
	for len(frontier) > 0 && len(out) < target {
		slices.SortStableFunc(frontier, func(a, b entry) int {
			if c := cmp.Compare(nodes[b.key].priority, nodes[a.key].priority); c != 0 {
				return c
			}
			return cmp.Compare(a.order, b.order)
		})
		n := min(k, len(frontier))
		batch := slices.Clone(frontier[:n])
		frontier = frontier[n:]
		for _, e := range batch {
			node := nodes[e.key]
			switch {
			case node.listing:
				followed++
			case len(out) < target:
				out = append(out, *node.doc)
			}
			for _, to := range node.out {
				enqueue(to)
			}
		}
	}
	return out, followed
}

// keyOf is the SURT key of u, or "" when it has none.
func keyOf(u string) string {
	k, err := surt.Key(u)
	if err != nil {
		return ""
	}
	return k
}
