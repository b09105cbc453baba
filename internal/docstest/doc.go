// Package docstest holds the tests of the repository's documentation: the
// Markdown files (README.md, docs/, the packages' READMEs) and what they
// promise about the commands. They live in a package of their own because
// they read the whole repository rather than one package's code;
// `go test ./internal/docstest` runs them alone.
//
//   - links_test.go: every relative link of every Markdown file resolves to
//     an existing file, and every #anchor to a heading of its target.
//   - quickstart_test.go: the README's quickstart commands are the scripts
//     CI and the demo run.
//   - flags_test.go: every --flag that README.md and docs/*.md name exists
//     (it builds cmd/recrawl and asks each subcommand for its --help).
package docstest
