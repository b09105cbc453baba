package wacz_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/wacz"
)

// TestPackageEmptyCollection: an extraction that collected 0 documents
// (empty documents.jsonl, WARC and index) still packages a valid WACZ.
func TestPackageEmptyCollection(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{collection.DocumentsFile, collection.WARCFile, collection.CDXJFile} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := wacz.Package(dir, wacz.Options{Title: "empty"}); err != nil {
		t.Fatalf("0 documents: %v", err)
	}
	validate(t, dir)
	z, err := zip.OpenReader(filepath.Join(dir, wacz.FileName))
	if err != nil {
		t.Fatalf("the WACZ of 0 documents is not a zip: %v", err)
	}
	defer z.Close()
	names := map[string]bool{}
	for _, f := range z.File {
		names[f.Name] = true
	}
	for _, want := range []string{"datapackage.json", wacz.PagesEntry, wacz.WARCEntry} {
		if !names[want] {
			t.Errorf("the WACZ of 0 documents has no %s (has %v)", want, names)
		}
	}
}
