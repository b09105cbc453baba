package linkgraph

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEmptyCollection: 0 documents and no links give a valid, empty graph.
func TestEmptyCollection(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"documents.jsonl", "links.tsv"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	if err := WriteGraphML(dir, false); err != nil {
		t.Fatalf("0 documents: %v", err)
	}
}
