package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

// Job is everything a worker needs to run steps of one extraction: the
// resolved specification (overrides applied), where the index and the
// archive files are, the reference texts (resolved once by the driver), and
// the dictionaries. It travels to Beam workers as JSON and is turned into a
// Processor in a DoFn's Setup.
type Job struct {
	Spec       *specs.Spec             `json:"spec"`
	Index      string                  `json:"index"`    // cdxj:FILE, zipnum:DIR or bigtable:P/I/T
	Archives   []string                `json:"archives"` // archive locations, searched in order
	References []scoring.ReferenceText `json:"references"`
	// Dictionaries: language → file. A file named *.idf or *.tsv with
	// term<TAB>idf lines is a dictionary; a df-LANG.tsv file written by
	// the index pipeline holds document frequencies.
	Dictionaries map[string]string `json:"dictionaries,omitempty"`
	JoinMode     string            `json:"join_mode"` // lookup or cogroup
}

// Strategy returns the job's strategy.
func (j *Job) Strategy() (scoring.Strategy, error) {
	return scoring.ParseStrategy(string(j.Spec.Strategy))
}

// Marshal encodes the job for a DoFn field.
func (j *Job) Marshal() (string, error) {
	b, err := json.Marshal(j)
	if err != nil {
		return "", fmt.Errorf("encode job: %w", err)
	}
	return string(b), nil
}

// UnmarshalJob decodes a job encoded by Marshal.
func UnmarshalJob(s string) (*Job, error) {
	var j Job
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, fmt.Errorf("decode job: %w", err)
	}
	return &j, nil
}

// Interval is the spec's event interval.
func (j *Job) Interval() Interval {
	start, end := j.Spec.EventInterval()
	return Interval{Start: start, End: end}
}

// Settings are the step settings of the job.
func (j *Job) Settings() Settings {
	s := j.Spec
	return Settings{
		Interval:         j.Interval(),
		AllOutlinks:      s.Outlinks == specs.OutlinksAll,
		MaxDocumentBytes: int(s.MaxDocumentBytes),
		DefaultLanguage:  s.DefaultLanguage,
		URLAllowed:       s.URLAllowed,
	}
}

// ScorerConfig turns the job into the scorer's configuration.
func (j *Job) ScorerConfig(ctx context.Context) (scoring.Config, error) {
	s := j.Spec
	strategy, err := j.Strategy()
	if err != nil {
		return scoring.Config{}, fmt.Errorf("strategy: %w", err)
	}
	start, end := s.EventInterval()
	kw := map[string][]string{}
	for lang, words := range s.Keywords {
		if lang == specs.AllLanguages {
			lang = ""
		}
		kw[lang] = append(kw[lang], words...)
	}
	dicts := map[string]*scoring.Dictionary{}
	langs := make([]string, 0, len(j.Dictionaries))
	for l := range j.Dictionaries {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, lang := range langs {
		d, err := LoadDictionary(ctx, j.Dictionaries[lang])
		if err != nil {
			return scoring.Config{}, err
		}
		dicts[lang] = d
	}
	return scoring.Config{
		DefaultLanguage:  s.DefaultLanguage,
		References:       j.References,
		ReferenceVectors: s.ReferenceVectors,
		Keywords:         kw,
		Dictionaries:     dicts,
		TopN:             s.ReferenceVectorSize,
		RawCosine:        !s.Normalize,
		// The scorer wants the inclusive last instant of the event.
		Time:     scoring.TimeScope{Start: start, End: end.Add(-1), Lead: s.LeadTime.Duration(), Cooldown: s.CooldownTime.Duration()},
		Alpha:    s.Alpha,
		Strategy: strategy,
	}, nil
}

// NewScorer builds the job's scorer (the heavy part of a worker's setup).
func (j *Job) NewScorer(ctx context.Context) (*scoring.Scorer, error) {
	cfg, err := j.ScorerConfig(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := scoring.NewScorer(cfg)
	if err != nil {
		return nil, fmt.Errorf("scorer for spec %s: %w", j.Spec.Name, err)
	}
	return sc, nil
}

// NewProcessor builds the step processor of the job.
func (j *Job) NewProcessor(ctx context.Context) (*Processor, error) {
	sc, err := j.NewScorer(ctx)
	if err != nil {
		return nil, err
	}
	return &Processor{Settings: j.Settings(), Scorer: sc, Fetcher: NewFetcher(j.Archives)}, nil
}

// LoadDictionary reads an idf dictionary (term<TAB>idf) or a document
// frequency file of the index pipeline (first line "#docs<TAB>N"), local or
// gs://.
func LoadDictionary(ctx context.Context, p string) (*scoring.Dictionary, error) {
	data, err := storage.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("dictionary: %w", err)
	}
	if strings.HasPrefix(string(data), "#docs\t") {
		df, err := scoring.ReadDocFreq(strings.NewReader(string(data)), p)
		if err != nil {
			return nil, err
		}
		return df.Dictionary(), nil
	}
	return scoring.ReadDictionary(strings.NewReader(string(data)), p)
}

// FindDictionaries returns the document-frequency files the index pipeline
// wrote next to an index (df-LANG.tsv), by language.
func FindDictionaries(ctx context.Context, index string) (map[string]string, error) {
	kind, arg, _ := strings.Cut(index, ":")
	var dir string
	switch kind {
	case "cdxj":
		if storage.IsGCS(arg) {
			// Not path.Dir: it would clean gs:// into gs:/.
			dir = arg[:strings.LastIndexByte(arg, '/')]
		} else {
			dir = filepath.Dir(arg)
		}
	case "zipnum":
		dir = arg
		if strings.HasSuffix(arg, ".idx") {
			dir = filepath.Dir(arg)
		}
	default:
		return nil, nil
	}
	files, err := storage.Glob(ctx, storage.Join(dir, "df-*.tsv"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range files {
		lang := strings.TrimSuffix(strings.TrimPrefix(storage.Base(f), "df-"), ".tsv")
		out[lang] = f
	}
	return out, nil
}
