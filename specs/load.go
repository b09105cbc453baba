package specs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A Problem is one thing wrong with a specification.
type Problem struct {
	// Line is the 1-based line in the file, 0 if unknown.
	Line int
	// Field is the path of the field, e.g. "alpha", "event.start",
	// "reference_documents[2].url" ("" for the whole specification).
	Field string
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

// MaxFileBytes is the largest specification file Load reads (the largest of
// the original authors' is 0.1 MB).
const MaxFileBytes = 16 << 20

// Load reads the specification at path. The format is chosen by the
// extension (.yaml/.yml or .json), else by the content (JSON starts with
// '{'); a JSON or YAML document whose top level has the original's camelCase
// fields (seedUrls, referenceDocuments, referenceTime, referenceVectors,
// defaultLanguage, correctionFactors) is read as the original format (see
// LoadOriginal). Relative paths in the specification (reference document
// files, dictionary) are taken relative to the specification's directory
// and made absolute; those files must exist and, symbolic links resolved,
// lie inside the specification's directory or one of allowDirs. All
// problems are reported together in an *Error naming the file.
func Load(path string, allowDirs ...string) (*Spec, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parse(data, path, formatOf(path, data), false)
	if err != nil {
		return nil, err
	}
	s.Path = path
	if err := s.resolvePaths(allowDirs); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadOriginal reads a specification in the original authors' JSON format,
// whatever the file's extension; Load detects it on its own.
func LoadOriginal(path string) (*Spec, error) {
	data, err := readFile(path)
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

// readFile reads a specification file of at most MaxFileBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: path, Problems: []Problem{{Msg: fmt.Sprintf("larger than %d bytes; a specification is a few kilobytes", MaxFileBytes)}}}
	}
	return data, nil
}

// Parse parses a specification in this package's format, YAML or JSON
// (JSON is YAML to the parser, so one schema serves both), or in the
// original format, detected by its fields. name is used in errors. Relative
// paths are left as they are.
func Parse(data []byte, name string) (*Spec, error) {
	return parse(data, name, formatOf(name, data), false)
}

// Check is Validate as an error: nil, or an *Error listing the problems
// under the specification's file name.
func (s *Spec) Check() error {
	probs := s.Validate()
	if len(probs) == 0 {
		return nil
	}
	name := s.Path
	if name == "" {
		name = "<input>"
	}
	return &Error{File: name, Problems: probs}
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

// LoadToScore reads a specification to score single pages with (extract
// explain) as Load does, but accepts one without seeds: scoring a page
// needs nothing to start a crawl from.
func LoadToScore(path string, allowDirs ...string) (*Spec, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parseFor(data, path, formatOf(path, data), false, false)
	if err != nil {
		return nil, err
	}
	s.Path = path
	if err := s.resolvePaths(allowDirs); err != nil {
		return nil, err
	}
	return s, nil
}

func parse(data []byte, name string, syntax Format, original bool) (*Spec, error) {
	return parseFor(data, name, syntax, original, true)
}

// parseFor is parse; with needSeeds false, the problem "no seeds" is not one.
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
	d := newDecoder(root)
	var s *Spec
	var problems []Problem
	if original {
		s = d.original(root)
		problems = originalProblems(s.Validate())
		syntax = FormatOriginal
	} else {
		v := Defaults()
		d.decode(root, reflect.ValueOf(&v).Elem(), "")
		s = &v
		s.complete(d.given)
		problems = s.Validate()
	}
	if !needSeeds {
		problems = slices.DeleteFunc(problems, func(p Problem) bool {
			return (p.Field == "seeds" || p.Field == "seedUrls") && strings.Contains(p.Msg, "none given")
		})
	}
	if all := d.locate(problems); len(all) > 0 {
		return nil, &Error{File: name, Problems: all}
	}
	s.Format = syntax
	return s, nil
}

// given reports whether field was written (not as null).
func (d *decoder) given(field string) bool {
	w, ok := d.at[field]
	return ok && !isNull(w.value)
}

// complete fills in what is derived from other fields and normalises what
// has several spellings, after decoding and before Validate: the focus
// preset sets the fields it covers that are not given, event.end
// defaults to event.start, default_language is derived when not given,
// languages lose duplicates, allow/deny entries are lower-cased without a
// trailing dot, and locale keys (de_DE) become language tags (de-DE).
func (s *Spec) complete(given func(field string) bool) {
	if s.Event.End.IsZero() {
		s.Event.End = s.Event.Start
	}
	if len(s.Languages) > 0 {
		var uniq []string
		for _, l := range s.Languages {
			if !slices.Contains(uniq, l) {
				uniq = append(uniq, l)
			}
		}
		s.Languages = uniq
	}
	for _, hosts := range [][]string{s.Allow, s.Deny} {
		for i, h := range hosts {
			if n, err := parseHostEntry(h); err == nil {
				hosts[i] = n
			}
		}
	}
	s.ReferenceVectors = localeKeys(s.ReferenceVectors)
	s.CorrectionFactors = localeKeys(s.CorrectionFactors)
	if s.Focus.Preset != Defaults().Focus.Preset {
		s.UsePreset(s.Focus.Preset, given)
	}
	if !given("default_language") {
		s.DefaultLanguage = defaultLanguage(s)
	}
}

// localeKeys turns Java locale keys (de_DE) into language tags (de-DE).
func localeKeys[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[normalizeLocale(k)] = v
	}
	return out
}

// normalizeLocale turns a Java Locale string (de, de_DE) into a language tag
// (de, de-DE).
func normalizeLocale(s string) string {
	return strings.ReplaceAll(s, "_", "-")
}

// defaultLanguage derives default_language when it is not given.
func defaultLanguage(s *Spec) string {
	if len(s.Languages) > 0 {
		return s.Languages[0]
	}
	for _, r := range s.ReferenceDocuments {
		if r.Language != "" {
			return r.Language
		}
	}
	var langs []string
	for l := range s.Keywords {
		if l != AllLanguages {
			langs = append(langs, l)
		}
	}
	for l := range s.ReferenceVectors {
		langs = append(langs, l)
	}
	if len(langs) > 0 {
		slices.Sort(langs)
		return langs[0]
	}
	return FallbackLanguage
}

// resolvePaths makes relative file paths absolute against the directory of
// s.Path and checks that each is a regular file that lies inside that
// directory or one of allowDirs, symbolic links resolved: a specification
// cannot make the extraction read (and explain print) a file elsewhere, nor
// wait on a FIFO. Each file is opened once and the opened file is checked
// (openInside); a reference document's bytes are read from it into Data,
// so that what is used is what was checked.
func (s *Spec) resolvePaths(allowDirs []string) error {
	dir, err := filepath.Abs(filepath.Dir(s.Path))
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	roots := []string{dir}
	for _, a := range allowDirs {
		if a == "" {
			continue
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return fmt.Errorf("allowed folder %s: %w", a, err)
		}
		roots = append(roots, abs)
	}
	// The roots as written and with links resolved: a path is checked as
	// written first, so that nothing outside is even looked at.
	var realRoots []string
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			realRoots = append(realRoots, rr)
		}
	}
	var probs []Problem
	// check opens the file named by *p and returns it open when it is a
	// regular file inside the roots (nil after recording a problem).
	check := func(p *string, field string) *os.File {
		if *p == "" {
			return nil
		}
		bad := func(format string, args ...any) {
			probs = append(probs, Problem{Field: field, Msg: join(field, fmt.Sprintf(format, args...))})
		}
		written, abs := *p, *p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, abs)
		}
		abs = filepath.Clean(abs)
		if !insideAny(abs, roots) {
			bad("%s is outside the specification's folder %s%s", written, dir, allowedHint(roots[1:]))
			return nil
		}
		f, real, err := openInside(abs, realRoots)
		switch {
		case err == errOutside:
			bad("%s is a link to %s, outside the specification's folder %s%s", written, real, dir, allowedHint(roots[1:]))
			return nil
		case err != nil:
			bad("%v", err)
			return nil
		}
		*p = abs
		return f
	}
	for i := range s.ReferenceDocuments {
		rd := &s.ReferenceDocuments[i]
		field := fmt.Sprintf("reference_documents[%d].file", i)
		f := check(&rd.File, field)
		if f == nil {
			continue
		}
		data, err := readAtMost(f, s.MaxDocumentBytes)
		f.Close()
		if err != nil {
			probs = append(probs, Problem{Field: field, Msg: join(field, err.Error())})
			continue
		}
		rd.Data = data
	}
	if f := check(&s.Dictionary, "dictionary"); f != nil {
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			probs = append(probs, Problem{Field: "dictionary", Msg: join("dictionary", fmt.Sprintf("read %s: %v", s.Dictionary, err))})
		} else {
			s.DictionaryData = data
		}
	}
	if len(probs) > 0 {
		return &Error{File: s.Path, Problems: probs}
	}
	return nil
}

// insideAny reports whether the clean absolute path p is one of dirs or
// below one of them.
func insideAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

func allowedHint(extra []string) string {
	if len(extra) == 0 {
		return " (allow another folder with --spec_root)"
	}
	return " or the allowed folders " + strings.Join(extra, ", ")
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}
