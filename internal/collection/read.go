package collection

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// MaxLineBytes bounds a line of a collection file (a document line holds
// the page's title, at most max_document_bytes, JSON-escaped). A longer
// line is an error naming the file and line.
const MaxLineBytes = 64 << 20

// EachDocument calls fn with every line of documents.jsonl (or
// listings.jsonl) at path, in collection order. Every line must have a url
// and a 14-digit timestamp. Errors carry "path:line:"; a missing file
// yields an error wrapping fs.ErrNotExist.
func EachDocument(path string, fn func(line int, d *Document) error) error {
	return eachJSONLine(path, func(line int, d *Document) error {
		if d.URL == "" {
			return fmt.Errorf("field url: empty")
		}
		if !isTimestamp14(d.Timestamp) {
			return fmt.Errorf("field timestamp: %q is not 14 digits", d.Timestamp)
		}
		return fn(line, d)
	})
}

// ReadDocuments reads documents.jsonl at path into memory (EachDocument).
func ReadDocuments(path string) ([]Document, error) {
	var docs []Document
	err := EachDocument(path, func(_ int, d *Document) error {
		docs = append(docs, *d)
		return nil
	})
	return docs, err
}

// EachMissing calls fn with every line of missing.jsonl at path. Every
// line must have a url.
func EachMissing(path string, fn func(line int, m *Missing) error) error {
	return eachJSONLine(path, func(line int, m *Missing) error {
		if m.URL == "" {
			return fmt.Errorf("field url: empty")
		}
		return fn(line, m)
	})
}

// ReadMissing reads missing.jsonl at path into memory (EachMissing).
func ReadMissing(path string) ([]Missing, error) {
	var out []Missing
	err := EachMissing(path, func(_ int, m *Missing) error {
		out = append(out, *m)
		return nil
	})
	return out, err
}

// ReadRounds reads rounds.jsonl at path (one line per round, so few).
func ReadRounds(path string) ([]Round, error) {
	var out []Round
	err := eachJSONLine(path, func(_ int, r *Round) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// EachLink calls fn with every line of links.tsv at path:
// source<TAB>target<TAB>anchor<TAB>in_collection, after an optional header
// line. An anchor containing tabs is rejoined. Errors carry "path:line:".
func EachLink(path string, fn func(l Link) error) error {
	return eachLine(path, func(line int, text []byte) error {
		fields := strings.Split(strings.TrimRight(string(text), "\r"), "\t")
		if line == 1 && strings.EqualFold(fields[0], "source") {
			return nil
		}
		if len(fields) < 4 {
			return fmt.Errorf("%d fields, want source, target, anchor, in_collection", len(fields))
		}
		last := fields[len(fields)-1]
		in, err := strconv.ParseBool(last)
		if err != nil {
			return fmt.Errorf("field in_collection: %q is not true or false", last)
		}
		l := Link{Source: fields[0], Target: fields[1], Anchor: strings.Join(fields[2:len(fields)-1], "\t"), InCollection: in, Line: line}
		if l.Source == "" || l.Target == "" {
			return fmt.Errorf("field source or target: empty")
		}
		return fn(l)
	})
}

// ReadLinks reads links.tsv at path into memory (EachLink).
func ReadLinks(path string) ([]Link, error) {
	var out []Link
	err := EachLink(path, func(l Link) error {
		out = append(out, l)
		return nil
	})
	return out, err
}

// ReadRunInfo reads run.json at path.
func ReadRunInfo(path string) (*RunInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read run record: %w", err)
	}
	var info RunInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("%s: %s", path, describeJSONError(data, err))
	}
	return &info, nil
}

// eachJSONLine decodes every non-blank line of path into a fresh T and
// hands it to fn.
func eachJSONLine[T any](path string, fn func(line int, v *T) error) error {
	return eachLine(path, func(line int, b []byte) error {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return errors.New(describeJSONError(b, err))
		}
		return fn(line, &v)
	})
}

// eachLine calls fn with every non-blank line of path (without its line
// break), each at most MaxLineBytes long; errors, fn's included, carry
// "path:line:". A missing file yields an error wrapping fs.ErrNotExist.
func eachLine(path string, fn func(line int, text []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err // *fs.PathError: names the file
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(line, sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d bytes", path, line+1, MaxLineBytes)
		}
		return fmt.Errorf("%s:%d: read: %w", path, line+1, err)
	}
	return nil
}

// describeJSONError names the field of a type error and the byte offset of
// a syntax error.
func describeJSONError(data []byte, err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("field %s: %s value cannot be a %s", te.Field, te.Value, te.Type)
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return err.Error()
}

func isTimestamp14(s string) bool {
	if len(s) != 14 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
