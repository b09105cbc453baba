package docstest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestQuickstartCommands: the README's quickstart gives scripts/demo.sh and
// scripts/test.sh as commands (lines of a code block), CI's entry point
// .ci/run runs scripts/test.sh, and both scripts exist and are executable.
func TestQuickstartCommands(t *testing.T) {
	root := repoRoot(t)
	readme := readFile(t, filepath.Join(root, "README.md"))
	_, quickstart, ok := strings.Cut(readme, "\n## Quickstart\n")
	if !ok {
		t.Fatal("README.md has no section \"## Quickstart\"")
	}
	quickstart, _, _ = strings.Cut(quickstart, "\n## ")
	for _, script := range []string{"scripts/test.sh", "scripts/demo.sh"} {
		if !hasCommand(codeLines(quickstart), script) {
			t.Errorf("README.md's quickstart has no command line starting with %s", script)
		}
		info, err := os.Stat(filepath.Join(root, script))
		if err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("%s is missing or not executable (%v)", script, err)
		}
	}
	ci := readFile(t, filepath.Join(root, ".ci", "run"))
	var ciCommands []string
	for _, line := range strings.Split(ci, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			ciCommands = append(ciCommands, line)
		}
	}
	if !hasCommand(ciCommands, "scripts/test.sh") {
		t.Error(".ci/run does not run scripts/test.sh")
	}
}

// hasCommand reports whether one of lines runs script: the script (or
// "bash script") as the first word of the line, with arguments or a
// comment after it.
func hasCommand(lines []string, script string) bool {
	re := regexp.MustCompile(`^\s*(?:bash\s+|\./)?` + regexp.QuoteMeta(script) + `(\s|$)`)
	for _, line := range lines {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

func TestHasCommand(t *testing.T) {
	lines := []string{"# scripts/test.sh in a comment", "echo scripts/test.sh", "bash scripts/test.sh"}
	if !hasCommand(lines, "scripts/test.sh") || hasCommand(lines[:2], "scripts/test.sh") {
		t.Error("hasCommand does not tell a command from a mention")
	}
}
