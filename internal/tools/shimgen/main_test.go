package main

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// moduleRoot is the directory of the module's go.mod.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0) // REPO/internal/tools/shimgen/main_test.go
	return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
}

// walkGoFiles calls fn with the path of every .go file below repo, leaving
// out hidden directories and testdata.
func walkGoFiles(repo string, fn func(p string) error) error {
	return filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && p != repo {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		return fn(p)
	})
}

// directive is one //go:generate line that runs shimgen.
type directive struct {
	dir, output string
	ids         []string
	pkg         string // dir relative to the module root
}

// directives finds every //go:generate line of the module that runs
// shimgen, with its package directory, -output and -identifiers.
func directives(t *testing.T) []directive {
	t.Helper()
	repo := moduleRoot()
	var out []directive
	err := walkGoFiles(repo, func(p string) error {
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "//go:generate ")
			if !ok || !strings.Contains(line, "internal/tools/shimgen") {
				continue
			}
			d := directive{dir: filepath.Dir(p)}
			if d.pkg, err = filepath.Rel(repo, d.dir); err != nil {
				return err
			}
			for _, arg := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(arg, "-output="); ok {
					d.output = v
				}
				if v, ok := strings.CutPrefix(arg, "-identifiers="); ok {
					d.ids = strings.Split(v, ",")
				}
			}
			if d.output == "" || len(d.ids) == 0 {
				t.Errorf("%s: a shimgen directive without -output= and -identifiers=: %s", p, line)
				continue
			}
			out = append(out, d)
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShimsUpToDate regenerates every package's shims and compares them with
// the committed file: a DoFn whose signature changed without `go generate`
// fails here, not on a runner.
func TestShimsUpToDate(t *testing.T) {
	ds := directives(t)
	if len(ds) < 2 {
		t.Fatalf("found %d shimgen directives, want those of transforms/index and transforms/round", len(ds))
	}
	for _, d := range ds {
		rel := filepath.Join(d.pkg, d.output)
		committed, err := os.ReadFile(filepath.Join(d.dir, d.output))
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := generate(d.dir, d.ids, d.output)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if !bytes.Equal(fresh, committed) {
			t.Errorf("%s is out of date: run `go generate ./%s` (first differing line %d)", rel, d.pkg, firstDiff(fresh, committed))
		}
		// The control: one identifier fewer gives other shims, so the
		// comparison does look at what the identifiers register.
		less, err := generate(d.dir, d.ids[1:], d.output)
		if err != nil {
			t.Fatalf("%s without %s: %v", rel, d.ids[0], err)
		}
		if bytes.Equal(less, committed) {
			t.Errorf("%s: the shims without %s are the same bytes", rel, d.ids[0])
		}
	}
}

// firstDiff is the number of the first line where a and b differ.
func firstDiff(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// generatedHeader is Go's mark of a generated file (go help generate).
var generatedHeader = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// TestGeneratedFilesMarked: every Go file of the module that carries the
// generated-code header is marked linguist-generated in the root
// .gitattributes, so that GitHub folds it in diffs.
func TestGeneratedFilesMarked(t *testing.T) {
	repo := moduleRoot()
	attrs, err := os.ReadFile(filepath.Join(repo, ".gitattributes"))
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	err = walkGoFiles(repo, func(p string) error {
		if yes, err := hasGeneratedHeader(p); err != nil || !yes {
			return err
		}
		rel, err := filepath.Rel(repo, p)
		generated = append(generated, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(generated) < 2 {
		t.Fatalf("found %d generated files, want at least the shims of transforms/index and transforms/round", len(generated))
	}
	for _, rel := range generated {
		if !markedGenerated(string(attrs), rel) {
			t.Errorf(".gitattributes: %s has the generated-code header but no linguist-generated line", rel)
		}
	}
}

// hasGeneratedHeader reports whether a line before the package clause of
// the Go file at p is the generated-code header.
func hasGeneratedHeader(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "package ") {
		if generatedHeader.MatchString(sc.Text()) {
			return true, nil
		}
	}
	return false, sc.Err()
}

// markedGenerated reports whether a line of .gitattributes names rel (by
// its path from the root, or a pattern without a slash that matches its
// base name) with the attribute linguist-generated set.
func markedGenerated(attrs, rel string) bool {
	for line := range strings.Lines(attrs) {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name := rel
		if !strings.Contains(fields[0], "/") {
			name = path.Base(rel)
		}
		if ok, _ := path.Match(strings.TrimPrefix(fields[0], "/"), name); !ok {
			continue
		}
		for _, a := range fields[1:] {
			if a == "linguist-generated" || a == "linguist-generated=true" {
				return true
			}
		}
	}
	return false
}
