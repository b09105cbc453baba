package docstest

// This test builds ./cmd/recrawl, the one command with the subcommands
// index, extract, explain, eval and serve, and asks each for its --help.

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/specs"
)

// docFlag matches a --flag named in prose or code: two hyphens after a
// space, a quote, a bracket or the line's start.
var docFlag = regexp.MustCompile("(?:^|[\\s`'\"(\\[|=])--([a-z][a-z0-9_-]*[a-z0-9])(?:[^a-z0-9_*-]|$)")

// helpFlag matches a flag in a Go flag package's --help output ("  -name
// type"), in either spelling.
var helpFlag = regexp.MustCompile(`(?m)^\s+--?([a-z][a-z0-9_.-]*)`)

// foreignFlags are flags of other programs that the docs name where they
// describe them.
var foreignFlags = map[string]string{
	"help":      "every command",
	"cdxj":      "pywb's cdx-indexer --cdxj",
	"streaming": "Beam's Java option, in docs/scaling.md",
}

// TestDocumentedFlagsExist: every --flag that README.md and docs/*.md name
// is a flag of `recrawl SUB --help` for some subcommand, of genarchive, of
// a script in scripts/ that takes it, or a field of the Collection
// Specification (docs/specification.md names fields, which a few commands
// also take as flags).
func TestDocumentedFlagsExist(t *testing.T) {
	root := repoRoot(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/recrawl", "./cmd/genarchive")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/recrawl ./cmd/genarchive: %v\n%s", err, out)
	}

	known := map[string]string{}
	for name, where := range foreignFlags {
		known[name] = where
	}
	for _, sub := range []string{"index", "extract", "explain", "eval", "serve"} {
		help := helpOf(t, filepath.Join(bin, "recrawl"), sub, "--help")
		for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
			known[m[1]] = "recrawl " + sub
		}
	}
	for _, m := range helpFlag.FindAllStringSubmatch(helpOf(t, filepath.Join(bin, "genarchive"), "--help"), -1) {
		known[m[1]] = "genarchive"
	}
	for _, field := range specFields(reflect.TypeOf(specs.Spec{})) {
		if _, ok := known[field]; !ok {
			known[field] = "a specification field"
		}
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "scripts", "*.sh"))
	for _, script := range scripts {
		for _, m := range docFlag.FindAllStringSubmatch(readFile(t, script), -1) {
			if _, ok := known[m[1]]; !ok {
				known[m[1]] = filepath.Base(script)
			}
		}
	}

	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	named := 0
	for _, doc := range docs {
		rel, _ := filepath.Rel(root, doc)
		for i, line := range strings.Split(readFile(t, doc), "\n") {
			for _, m := range docFlag.FindAllStringSubmatch(line, -1) {
				named++
				if _, ok := known[m[1]]; !ok {
					t.Errorf("%s:%d: --%s is no flag of recrawl, genarchive or the scripts, and no specification field", rel, i+1, m[1])
				}
			}
		}
	}
	if named < 50 {
		t.Errorf("only %d flags found in the docs: the pattern no longer matches them", named)
	}
}

// helpOf runs a program with args and returns what it printed; --help may
// exit non-zero, and a usage quoted inside a logged error ("…\n  -addr
// string\n…") is read as lines too.
func helpOf(t *testing.T, program string, args ...string) string {
	t.Helper()
	raw, _ := exec.Command(program, args...).CombinedOutput()
	out := []byte(strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(string(raw)))
	if !helpFlag.Match(out) {
		t.Fatalf("%s %s printed no flags:\n%s", filepath.Base(program), strings.Join(args, " "), out)
	}
	return string(out)
}

// specFields returns the YAML names of a specification type's fields,
// with the fields of inline structs.
func specFields(typ reflect.Type) []string {
	var names []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			names = append(names, specFields(f.Type)...)
			continue
		}
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
