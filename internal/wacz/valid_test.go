package wacz_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/recrawl/recrawl/internal/evaluate/evaltest"
	"github.com/recrawl/recrawl/internal/testkit/replaytest"
	"github.com/recrawl/recrawl/internal/wacz"
)

// resourceNamePattern is the Data Package schema's pattern for a
// resource's name.
var resourceNamePattern = regexp.MustCompile(`^([-a-z0-9._/])+$`)

// TestLargeCollectionValidates packages a collection of more documents
// than pages.jsonl lists by default, so that it has pages/extraPages.jsonl,
// and checks it with webrecorder's validator (py-wacz `wacz validate`):
// every resource name matches the Data Package pattern, and the package
// as a whole passes.
func TestLargeCollectionValidates(t *testing.T) {
	validator := replaytest.WACZValidator(t)
	dir := t.TempDir()
	n := wacz.DefaultMaxPages + 100
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: n, WARC: true, URLsConsidered: n + 50})
	if err := wacz.Package(dir, wacz.Options{Title: "large", Created: created}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, wacz.FileName)
	_, files := readZip(t, path)
	if files[wacz.ExtraEntry] == nil {
		t.Fatalf("%d documents: no %s", n, wacz.ExtraEntry)
	}
	var dp wacz.DataPackage
	if err := json.Unmarshal(files[wacz.PackageEntry], &dp); err != nil {
		t.Fatal(err)
	}
	for _, r := range dp.Resources {
		if !resourceNamePattern.MatchString(r.Name) {
			t.Errorf("resource %s: name %q does not match %s", r.Path, r.Name, resourceNamePattern)
		}
	}
	if out, err := exec.Command(validator, "validate", "-f", path).CombinedOutput(); err != nil {
		t.Errorf("wacz validate -f %s: %v\n%s", path, err, out)
	}
}

// TestPackageFileMode: collection.wacz is readable by all (0644), like
// the run's other outputs.
func TestPackageFileMode(t *testing.T) {
	dir := t.TempDir()
	evaltest.WriteRun(t, dir, evaltest.RunSpec{Strategy: "ctf", Docs: 3, WARC: true, URLsConsidered: 5})
	if err := wacz.Package(dir, wacz.Options{Title: "mode", Created: created}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, wacz.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("%s is %v, want -rw-r--r--", wacz.FileName, st.Mode().Perm())
	}
}
