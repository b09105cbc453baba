package docstest

import (
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root (the folder of go.mod).
func repoRoot(t *testing.T) string {
	t.Helper()
	return sharedtest.Repo()
}

// markdownFiles lists the Markdown files of the repository, relative to
// root, leaving out hidden directories (.git, .ci's caches) and testdata.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Markdown files found")
	}
	return files
}

var fence = regexp.MustCompile("^\\s*(```|~~~)")

// prose returns the lines of a Markdown text outside fenced code blocks,
// with their 1-based line numbers; code lines get an empty string.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	out := make([]string, len(lines))
	inCode := false
	for i, line := range lines {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if !inCode {
			out[i] = line
		}
	}
	return out
}

// codeLines returns the lines inside fenced code blocks.
func codeLines(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			out = append(out, line)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
