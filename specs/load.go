package specs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// A Problem is one thing wrong with a specification.
type Problem struct {
	// Line is the 1-based line in the file, 0 if unknown.
	Line int
	// Msg names the field and says why, e.g. `alpha: 1.5 is outside [0, 1]`.
	Msg string
}

// Error lists every problem found in one specification, so a researcher can
// fix them all at once.
type Error struct {
	File     string // the file name, or "<input>"
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
		b.WriteString(p.Msg)
	}
	return b.String()
}

// Load reads the specification at path. The format is chosen by the
// extension (.yaml/.yml or .json), else by the content (JSON starts with
// '{'); a JSON or YAML document whose top level has the original's camelCase
// fields (seedUrls, referenceDocuments, referenceTime, referenceVectors,
// defaultLanguage, correctionFactors) is read as the original format (see
// LoadOriginal). Relative paths in the specification (reference document
// files, dictionary) are taken relative to the specification's directory
// and made absolute, and those files must exist. All problems are reported
// together in an *Error naming the file.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parse(data, path, formatOf(path, data), false)
	if err != nil {
		return nil, err
	}
	s.Path = path
	if err := s.resolvePaths(); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadOriginal reads a specification in the original authors' JSON format,
// whatever the file's extension; Load detects it on its own.
func LoadOriginal(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parse(data, path, FormatJSON, true)
	if err != nil {
		return nil, err
	}
	s.Path = path
	return s, nil
}

// Parse parses a specification in this package's format, YAML or JSON
// (JSON is YAML to the parser, so one schema serves both), or in the
// original format, detected by its fields. name is used in errors. Relative
// paths are left as they are.
func Parse(data []byte, name string) (*Spec, error) {
	return parse(data, name, formatOf(name, data), false)
}

// formatOf guesses the syntax from the name's extension, else the content.
func formatOf(name string, data []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return FormatJSON
	case ".yaml", ".yml":
		return FormatYAML
	}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

// originalFields are top-level fields that only the original format has.
var originalFields = []string{"seedUrls", "referenceDocuments", "referenceTime", "referenceVectors", "defaultLanguage", "correctionFactors"}

func parse(data []byte, name string, syntax Format, original bool) (*Spec, error) {
	return parseFor(data, name, syntax, original, true)
}

// LoadToScore reads a specification to score single pages with (extract
// explain): as Load, but a specification without seeds is accepted, since
// scoring a page needs none.
func LoadToScore(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parseFor(data, path, formatOf(path, data), false, false)
	if err != nil {
		return nil, err
	}
	s.Path = path
	if err := s.resolvePaths(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseFor is parse; needSeeds false drops the requirement of something to
// start a crawl from.
func parseFor(data []byte, name string, syntax Format, original, needSeeds bool) (*Spec, error) {
	if name == "" {
		name = "<input>"
	}
	fail := func(line int, format string, args ...any) error {
		return &Error{File: name, Problems: []Problem{{Line: line, Msg: fmt.Sprintf(format, args...)}}}
	}
	if syntax == FormatJSON {
		// The YAML parser accepts JSON, and some non-JSON too; check first
		// so a .json file is really JSON, with the JSON error position.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, fail(lineAt(data, se.Offset), "invalid JSON: %v", err)
			}
			return nil, fail(0, "invalid JSON: %v", err)
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fail(0, "invalid %s: %v", syntax, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fail(0, "empty specification")
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "the specification must be a mapping of fields, not a %s", kindName(root))
	}
	if !original {
		for i := 0; i < len(root.Content); i += 2 {
			for _, f := range originalFields {
				if root.Content[i].Value == f {
					original = true
				}
			}
		}
	}
	d := &decoder{noSeeds: !needSeeds}
	var s *Spec
	if original {
		s = d.original(root)
		syntax = FormatOriginal
	} else {
		s = d.spec(root)
	}
	if len(d.problems) > 0 {
		return nil, &Error{File: name, Problems: d.problems}
	}
	s.Format = syntax
	s.Warnings = d.warnings
	return s, nil
}

// resolvePaths makes relative file paths absolute against the directory of
// s.Path and checks that the files exist.
func (s *Spec) resolvePaths() error {
	dir := filepath.Dir(s.Path)
	var probs []Problem
	fix := func(p *string, field string) {
		if *p == "" {
			return
		}
		if !filepath.IsAbs(*p) {
			abs, err := filepath.Abs(filepath.Join(dir, *p))
			if err != nil {
				probs = append(probs, Problem{Msg: fmt.Sprintf("%s: %v", field, err)})
				return
			}
			*p = abs
		}
		if st, err := os.Stat(*p); err != nil {
			probs = append(probs, Problem{Msg: fmt.Sprintf("%s: %v", field, err)})
		} else if st.IsDir() {
			probs = append(probs, Problem{Msg: fmt.Sprintf("%s: %s is a directory, not a file", field, *p)})
		}
	}
	for i := range s.ReferenceDocuments {
		fix(&s.ReferenceDocuments[i].File, fmt.Sprintf("reference_documents[%d].file", i))
	}
	fix(&s.Dictionary, "dictionary")
	if len(probs) > 0 {
		return &Error{File: s.Path, Problems: probs}
	}
	return nil
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}
