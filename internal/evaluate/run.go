package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
)

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
	Info      collection.RunInfo
	Spec      SpecSummary
	Documents []collection.Document
	Missing   []collection.Missing
	Rounds    []collection.Round
	// HasMissing and HasRounds tell whether missing.jsonl and rounds.jsonl
	// existed (a run cut short may lack them; the totals of run.json then
	// stand in).
	HasMissing, HasRounds bool
}

// ReadRun reads an extraction's output directory (package collection's
// readers). documents.jsonl and run.json are required; missing.jsonl and
// rounds.jsonl are read when present. Errors name the file and line.
func ReadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	info, err := collection.ReadRunInfo(filepath.Join(dir, collection.RunFile))
	if err != nil {
		return nil, err
	}
	r.Info = *info
	if len(info.Spec) > 0 && string(info.Spec) != "null" {
		if err := json.Unmarshal(info.Spec, &r.Spec); err != nil {
			return nil, fmt.Errorf("%s: field spec: %w", filepath.Join(dir, collection.RunFile), err)
		}
	}
	if r.Documents, err = collection.ReadDocuments(filepath.Join(dir, collection.DocumentsFile)); err != nil {
		return nil, err
	}
	r.Missing, err = collection.ReadMissing(filepath.Join(dir, collection.MissingFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		slog.Warn("run has no missing list; using run.json totals", "dir", dir)
	case err != nil:
		return nil, err
	default:
		r.HasMissing = true
	}
	r.Rounds, err = collection.ReadRounds(filepath.Join(dir, collection.RoundsFile))
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
