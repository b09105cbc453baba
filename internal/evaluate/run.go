package evaluate

import (
	"github.com/recrawl/recrawl/internal/extract"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File names of an extraction's output directory (the extraction's own
// names, internal/extract/outputs.go).
const (
	DocumentsFile = extract.DocumentsFile
	MissingFile   = extract.MissingFile
	RoundsFile    = extract.RoundsFile
	RunFile       = extract.RunFile
	LinksFile     = extract.LinksFile
	ListingsFile  = extract.ListingsFile
	WARCFile      = extract.CollectionWARC
	CDXJFile      = extract.CollectionCDXJ
)

// Document is one line of documents.jsonl: a collected document with its
// scores. The extraction writes it; one type defines the file.
type Document = extract.Document

// Missing is one line of missing.jsonl: a URL the extraction wanted but
// found no usable snapshot for.
type Missing struct {
	URL        string  `json:"url"`
	SURT       string  `json:"surt"`
	Path       string  `json:"path"`
	Priority   float64 `json:"priority"`
	Round      int     `json:"round"`
	ReasonCode string  `json:"reason_code"`
	Reason     string  `json:"reason"`
}

// Round is one line of rounds.jsonl.
type Round struct {
	Round                int     `json:"round"`
	FrontierSize         int     `json:"frontier_size"`
	Selected             int     `json:"selected"`
	Collected            int     `json:"collected"`
	Missing              int     `json:"missing"`
	AccumulatedRelevance float64 `json:"accumulated_relevance"`
	URLsConsidered       int     `json:"urls_considered"`
	Seconds              float64 `json:"seconds"`
}

// Totals are the end-of-run counts of run.json.
type Totals struct {
	Collected      int                `json:"collected"`
	Listings       int                `json:"listings"`
	Missing        int                `json:"missing"`
	URLsConsidered int                `json:"urls_considered"`
	Frontier       int                `json:"frontier"`
	Rounds         int                `json:"rounds"`
	Counters       map[string]float64 `json:"counters"`
	// Starvation explains a run whose frontier emptied before its target.
	Starvation string `json:"starvation"`
}

// RunInfo is run.json. Spec, Flags and Versions are kept raw (the report
// shows them; Spec is also summarised into SpecSummary).
type RunInfo struct {
	Spec     json.RawMessage `json:"spec"`
	Strategy string          `json:"strategy"`
	Flags    json.RawMessage `json:"flags"`
	Versions json.RawMessage `json:"versions"`
	Totals   Totals          `json:"totals"`
	// Archives: the named archives of a run that read several (archives.go).
	Archives []extract.ArchiveUse `json:"archives,omitempty"`
}

// SpecSummary is the part of the resolved specification a report shows.
// It is decoded leniently from run.json's spec (the canonical JSON layout of
// package specs) rather than through specs.Spec, whose decoder validates and
// would reject a run whose reference files have since moved.
type SpecSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Event       struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"event"`
	LeadTime     string          `json:"lead_time"`
	CooldownTime string          `json:"cooldown_time"`
	Keywords     json.RawMessage `json:"keywords"`
	Seeds        []string        `json:"seeds"`
	Strategy     string          `json:"strategy"`
	Alpha        float64         `json:"alpha"`
	TargetSize   int             `json:"target_size"`
	BatchSize    int             `json:"batch_size"`
	MaxRounds    int             `json:"max_rounds"`
	Outlinks     string          `json:"outlinks"`
	References   []struct {
		URL      string `json:"url"`
		File     string `json:"file"`
		Language string `json:"language"`
	} `json:"reference_documents"`
}

// KeywordList returns the keywords as display strings, "lang: a, b" per
// language when they are given per language, in a stable order.
func (s *SpecSummary) KeywordList() []string {
	if len(s.Keywords) == 0 || string(s.Keywords) == "null" {
		return nil
	}
	var list []string
	if json.Unmarshal(s.Keywords, &list) == nil {
		return list
	}
	var per map[string][]string
	if json.Unmarshal(s.Keywords, &per) != nil {
		return []string{string(s.Keywords)}
	}
	for _, lang := range slices.Sorted(maps.Keys(per)) {
		name := lang
		if lang == "*" {
			name = "all languages"
		}
		list = append(list, name+": "+strings.Join(per[lang], ", "))
	}
	return list
}

// Run is one extraction's output directory, read into memory.
type Run struct {
	// Name labels the run in tables and plots: the strategy of run.json,
	// else the directory's base name; made unique by the caller.
	Name      string
	Dir       string
	Info      RunInfo
	Spec      SpecSummary
	Documents []Document
	Missing   []Missing
	Rounds    []Round
	// HasMissing and HasRounds tell whether missing.jsonl and rounds.jsonl
	// existed (a run cut short may lack them; the totals of run.json then
	// stand in).
	HasMissing, HasRounds bool
}

// ReadRun reads an extraction's output directory. documents.jsonl and
// run.json are required; missing.jsonl and rounds.jsonl are read when
// present. Errors name the file and line.
func ReadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	info, err := ReadRunInfo(filepath.Join(dir, RunFile))
	if err != nil {
		return nil, err
	}
	r.Info = *info
	if len(info.Spec) > 0 && string(info.Spec) != "null" {
		if err := json.Unmarshal(info.Spec, &r.Spec); err != nil {
			return nil, fmt.Errorf("%s: field spec: %w", filepath.Join(dir, RunFile), err)
		}
	}
	if r.Documents, err = ReadDocuments(filepath.Join(dir, DocumentsFile)); err != nil {
		return nil, err
	}
	r.Missing, err = ReadMissing(filepath.Join(dir, MissingFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		slog.Warn("run has no missing list; using run.json totals", "dir", dir)
	case err != nil:
		return nil, err
	default:
		r.HasMissing = true
	}
	r.Rounds, err = ReadRounds(filepath.Join(dir, RoundsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		slog.Warn("run has no rounds list", "dir", dir)
	case err != nil:
		return nil, err
	default:
		r.HasRounds = true
	}
	r.Name = info.Strategy
	if r.Name == "" {
		r.Name = filepath.Base(filepath.Clean(dir))
	}
	return r, nil
}

// ReadRunInfo reads run.json.
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

// ReadDocuments reads documents.jsonl in collection order. Every line must
// have a url and a 14-digit timestamp.
func ReadDocuments(path string) ([]Document, error) {
	var docs []Document
	err := readJSONL(path, func(line int, d *Document) error {
		if d.URL == "" {
			return fmt.Errorf("field url: empty")
		}
		if !isTimestamp14(d.Timestamp) {
			return fmt.Errorf("field timestamp: %q is not 14 digits", d.Timestamp)
		}
		docs = append(docs, *d)
		return nil
	})
	return docs, err
}

// ReadMissing reads missing.jsonl. Every line must have a url.
func ReadMissing(path string) ([]Missing, error) {
	var out []Missing
	err := readJSONL(path, func(line int, m *Missing) error {
		if m.URL == "" {
			return fmt.Errorf("field url: empty")
		}
		out = append(out, *m)
		return nil
	})
	return out, err
}

// ReadRounds reads rounds.jsonl.
func ReadRounds(path string) ([]Round, error) {
	var out []Round
	err := readJSONL(path, func(line int, r *Round) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// readJSONL decodes each non-blank line of path into a fresh T and hands it
// to fn; errors carry "path:line:". A missing file yields an error wrapping
// fs.ErrNotExist.
func readJSONL[T any](path string, fn func(line int, v *T) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var v T
			if uerr := json.Unmarshal(b, &v); uerr != nil {
				return fmt.Errorf("%s:%d: %s", path, line, describeJSONError(b, uerr))
			}
			if ferr := fn(line, &v); ferr != nil {
				return fmt.Errorf("%s:%d: %w", path, line, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: read: %w", path, line, err)
		}
	}
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
