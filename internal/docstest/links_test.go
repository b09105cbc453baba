package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// link matches an inline Markdown link or image: [text](target "title").
var link = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// inlineCode matches a code span, whose contents are not links.
var inlineCode = regexp.MustCompile("`[^`]*`")

var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// anchors returns the anchors GitHub makes for the headings of a Markdown
// text: lower case, punctuation removed, spaces as hyphens, "-1", "-2", …
// for repeated headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range prose(text) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slugify(m[1])
		name := slug
		for n := 1; out[name]; n++ {
			name = fmt.Sprintf("%s-%d", slug, n)
		}
		out[name] = true
	}
	return out
}

func slugify(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlugify(t *testing.T) {
	for title, want := range map[string]string{
		"6. Replay the collection":                                  "6-replay-the-collection",
		"Measured on Flink and Spark clusters: rounds per job":      "measured-on-flink-and-spark-clusters-rounds-per-job",
		"Archive records: offsets and lengths (`internal/records`)": "archive-records-offsets-and-lengths-internalrecords",
	} {
		if got := slugify(title); got != want {
			t.Errorf("slugify(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestMarkdownLinks: every relative link in every Markdown file of the
// repository names a file or directory that exists, and a #anchor names a
// heading of its target (or of the file itself).
func TestMarkdownLinks(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, file := range markdownFiles(t, root) {
		text := readFile(t, filepath.Join(root, file))
		for i, line := range prose(text) {
			line = inlineCode.ReplaceAllString(line, "")
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				if err := checkLink(root, file, text, m[1]); err != nil {
					t.Errorf("%s:%d: link %s: %v", file, i+1, m[1], err)
				}
				checked++
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d links checked: the link pattern no longer matches the docs", checked)
	}
}

func checkLink(root, file, text, target string) error {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return nil
	}
	path, anchor, _ := strings.Cut(target, "#")
	targetText := text
	if path != "" {
		if filepath.IsAbs(path) {
			return fmt.Errorf("an absolute path does not resolve on GitHub or in a clone")
		}
		full := filepath.Join(root, filepath.Dir(file), filepath.FromSlash(path))
		rel, err := filepath.Rel(root, full)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("points outside the repository")
		}
		info, err := os.Stat(full)
		if err != nil {
			return fmt.Errorf("no such file: %s", rel)
		}
		if anchor == "" {
			return nil
		}
		if info.IsDir() || !strings.HasSuffix(full, ".md") {
			return nil // anchors into code or folders are GitHub's line links: not checked
		}
		data, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		targetText = string(data)
	}
	if anchor != "" && !anchors(targetText)[anchor] {
		return fmt.Errorf("no heading with the anchor #%s", anchor)
	}
	return nil
}
