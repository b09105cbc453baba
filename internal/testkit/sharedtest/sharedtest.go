// Package sharedtest finds the third-party test material in ../shared (real
// WARC/ARC files, pywb reference indexes, SURT vectors, the original authors'
// specifications) for tests.
//
// The material is not part of this repository. When it is missing, a test
// skips on a developer's machine but fails when the CI environment variable is
// set, so CI can never pass without having run the conformance tests.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Root returns the absolute path of the shared folder: $RECRAWL_SHARED if set,
// else ../shared next to the repository root.
func Root() string {
	if d := os.Getenv("RECRAWL_SHARED"); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(Repo()), "shared")
}

// Repo returns the repository's root: the nearest folder above this file
// that holds go.mod.
func Repo() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("sharedtest: no go.mod above " + file)
		}
		dir = parent
	}
}

// Path returns the path of rel inside the shared folder. If it does not exist,
// the test fails when $CI is set and is skipped otherwise.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Root(), rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared test material %s is missing (CI is set, so this fails instead of skipping): %v", p, err)
		}
		t.Skipf("shared test material %s is missing: %v", p, err)
	}
	return p
}

// ConformanceArchives returns every WARC and ARC file (plain or gzipped, damaged
// copies included) of the real crawls in conformance/pywb, conformance/ukwa and
// conformance/commoncrawl, with the same rule as Path when they are missing.
func ConformanceArchives(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"conformance/pywb", "conformance/ukwa", "conformance/commoncrawl"} {
		d := Path(t, dir)
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			n := e.Name()
			if strings.Contains(n, ".warc") || strings.Contains(n, ".arc") {
				files = append(files, filepath.Join(d, n))
			}
		}
	}
	return files
}
