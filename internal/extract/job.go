package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

// Job is everything a worker needs to run steps of one extraction: the
// resolved specification (overrides applied), where the index and the
// archive files are, the reference texts (resolved once by the driver), and
// the dictionaries. It travels to Beam workers as JSON and is turned into a
// Processor in a DoFn's Setup.
//
// The archives it reads are Sources (sources.go): several named archives,
// or one unnamed archive, a source named "".
type Job struct {
	Spec       *specs.Spec             `json:"spec"`
	Sources    []Source                `json:"sources"` // the archives, in the order given
	References []scoring.ReferenceText `json:"references"`
	// Dictionaries: language → file. A file named *.idf or *.tsv with
	// term<TAB>idf lines is a dictionary; a df-LANG.tsv file written by
	// the index pipeline holds document frequencies.
	Dictionaries map[string]string `json:"dictionaries,omitempty"`
	// SummedDictionaries: language → the df-LANG.tsv files of several
	// named archives' indexes, summed into one dictionary
	// (LoadDictionaries). A language in Dictionaries ignores them.
	SummedDictionaries map[string][]string `json:"summed_dictionaries,omitempty"`
	// DictionaryData: language → the content of its file in Dictionaries
	// as the specification's Load read it (specs.Spec.DictionaryData, see
	// UseSpecDictionary); such a file is never read again, so a file
	// swapped after the specification was checked is not read.
	DictionaryData map[string][]byte `json:"dictionary_data,omitempty"`
	JoinMode       string            `json:"join_mode"` // lookup or cogroup
	// OnMissingFile is what a capture whose archive file is in no location
	// does: OnMissingFileStop (also "") or OnMissingFileCount.
	OnMissingFile string `json:"on_missing_archive_file,omitempty"`
	// Gate is the calibrated follow_threshold (specs follow_threshold:
	// auto), computed once by the driver (CalibrateGate).
	Gate *scoring.Calibration `json:"gate,omitempty"`
}

// What a missing archive file does (--on_missing_archive_file).
const (
	OnMissingFileStop  = "stop"  // the run stops (a wrong --archive shows at once)
	OnMissingFileCount = "count" // the URL is missing (archive-file-missing) and the run goes on
)

// Strategy returns the job's strategy.
func (j *Job) Strategy() (scoring.Strategy, error) {
	return scoring.ParseStrategy(string(j.Spec.Strategy))
}

// LookAhead is the job's look-ahead factor (specs look_ahead; lookahead.go):
// 1 without look-ahead, and always under the unfocused strategy, which
// ranks by discovery order alone.
func (j *Job) LookAhead() int {
	if s, err := j.Strategy(); err != nil || s == scoring.Unfocused {
		return 1
	}
	return max(j.Spec.Focus.LookAhead, 1)
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

// TimeScope is the spec's temporal scope, as the scorer wants it: the
// event's end is its inclusive last instant.
func (j *Job) TimeScope() scoring.TimeScope {
	start, end := j.Spec.EventInterval()
	return scoring.TimeScope{Start: start, End: end.Add(-1), Lead: j.Spec.LeadTime.Duration(), Cooldown: j.Spec.CooldownTime.Duration()}
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
		Archives:         j.ArchiveNames(),
		Focus:            j.Focus(),
	}
}

// Focus resolves the spec's focusing options for a step.
func (j *Job) Focus() Focus {
	f := j.Spec.Focus
	out := Focus{
		Links:            scoring.LinkWeights{Parent: f.LinkPriority.Parent, Anchor: f.LinkPriority.Anchor, Context: f.LinkPriority.Context},
		LinkDates:        f.LinkDates,
		Intent:           f.TemporalIntent,
		MaxDepth:         f.MaxDepth,
		SkipListings:     !f.CountListingPages,
		FollowCanonical:  f.FollowCanonical,
		FollowPagination: f.FollowPagination,
		TemplateLinks:    f.DiscountTemplateLinks,
		LearnLinks:       f.LearnLinks,
	}
	// The date discounts change no order under the unfocused strategy.
	if strategy, err := j.Strategy(); err == nil && strategy != scoring.Unfocused {
		if f.DiscountPreEventLinks {
			out.PreEvent = j.preEventRule()
		}
		if f.DiscountPostEventLinks {
			out.PostEventAfter = j.TimeScope().End.Add(PostEventHalfLives * j.Spec.CooldownTime.Duration())
		}
	}
	if fb := f.Feedback; !fb.IsZero() {
		out.Feedback = scoring.FeedbackConfig{Documents: fb.Documents, Beta: fb.Beta, Gamma: fb.Gamma, Parent: fb.Parent}
	}
	switch f.Combine {
	case specs.CombineAverage:
		out.Combine = CombineAverage
	case specs.CombineLast:
		out.Combine = CombineLast
	}
	switch {
	case f.FollowThreshold.Auto && j.Gate != nil:
		out.FollowThreshold = j.Gate.Threshold
	case !f.FollowThreshold.Auto:
		out.FollowThreshold = f.FollowThreshold.Value
	}
	return out
}

// CalibrationSeed is the seed of the first split of an automatic
// follow_threshold; split i uses CalibrationSeed + i (recorded in run.json).
const CalibrationSeed = 1

// CalibrateGate computes an automatic follow_threshold from the resolved
// reference documents (Klein et al.'s 60/40 splits) and stores it in the job;
// it does nothing for other specifications.
func (j *Job) CalibrateGate(ctx context.Context, refs []Reference) error {
	f := j.Spec.Focus
	if !f.FollowThreshold.Auto {
		return nil
	}
	cfg, err := j.ScorerConfig(ctx)
	if err != nil {
		return err
	}
	cfg.References = nil
	times := make([]time.Time, 0, len(refs))
	for _, r := range refs {
		cfg.References = append(cfg.References, r.Text)
		times = append(times, r.Time)
	}
	cal, err := scoring.Calibrate(cfg, times, f.CalibrationSplits, CalibrationSeed)
	if err != nil {
		return fmt.Errorf("spec %s: %w", j.Spec.Name, err)
	}
	j.Gate = &cal
	return nil
}

// ScorerConfig turns the job into the scorer's configuration.
func (j *Job) ScorerConfig(ctx context.Context) (scoring.Config, error) {
	s := j.Spec
	strategy, err := j.Strategy()
	if err != nil {
		return scoring.Config{}, fmt.Errorf("strategy: %w", err)
	}
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
	for l := range j.SummedDictionaries {
		if _, ok := j.Dictionaries[l]; !ok {
			langs = append(langs, l)
		}
	}
	sort.Strings(langs)
	for _, lang := range langs {
		files := j.SummedDictionaries[lang]
		if f, ok := j.Dictionaries[lang]; ok {
			files = []string{f}
		}
		var d *scoring.Dictionary
		if data, ok := j.DictionaryData[lang]; ok {
			d, err = parseDictionary(data, files[0])
		} else {
			d, err = LoadDictionaries(ctx, files)
		}
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
		Time:             j.TimeScope(),
		Alpha:            s.Alpha,
		Strategy:         strategy,
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
	return &Processor{Settings: j.Settings(), Scorer: sc, Fetcher: j.NewFetcher()}, nil
}

// LoadDictionary reads an idf dictionary (term<TAB>idf) or a document
// frequency file of the index pipeline (first line "#docs<TAB>N"), local or
// gs://.
func LoadDictionary(ctx context.Context, p string) (*scoring.Dictionary, error) {
	data, _, err := readDictionaryFile(ctx, p)
	if err != nil {
		return nil, err
	}
	return parseDictionary(data, p)
}

// parseDictionary reads the content of a dictionary file named p, as
// LoadDictionary reads the file: an idf dictionary or a document-frequency
// file.
func parseDictionary(data []byte, p string) (*scoring.Dictionary, error) {
	if !isDocFreqData(data) {
		return scoring.ReadDictionary(bytes.NewReader(data), p)
	}
	df, err := scoring.ReadDocFreq(bytes.NewReader(data), p)
	if err != nil {
		return nil, err
	}
	return df.Dictionary(), nil
}

// UseSpecDictionary makes the specification's dictionary: file the
// dictionary of its default language, read from the bytes Load read from
// the file it checked (specs.Spec.DictionaryData) when there are some.
func (j *Job) UseSpecDictionary() {
	lang := j.Spec.DefaultLanguage
	j.Dictionaries = map[string]string{lang: j.Spec.Dictionary}
	j.DictionaryData = nil
	if j.Spec.DictionaryData != nil {
		j.DictionaryData = map[string][]byte{lang: j.Spec.DictionaryData}
	}
}

// LoadDocFreq reads a document-frequency file of the index pipeline
// (df-LANG.tsv), local or gs://.
func LoadDocFreq(ctx context.Context, p string) (*scoring.DocFreq, error) {
	data, isDocFreq, err := readDictionaryFile(ctx, p)
	if err != nil {
		return nil, err
	}
	if !isDocFreq {
		return nil, fmt.Errorf("dictionary %s: not a document-frequency file (df-LANG.tsv, first line #docs<TAB>N): the dictionaries of several archives are summed from document frequencies", p)
	}
	return scoring.ReadDocFreq(bytes.NewReader(data), p)
}

// readDictionaryFile reads a dictionary file and tells whether it holds
// document frequencies.
func readDictionaryFile(ctx context.Context, p string) (data []byte, isDocFreq bool, err error) {
	switch {
	case btindex.IsDictionaryPath(p):
		data, err = btindex.ReadDictionaryPath(ctx, p)
	case lookup.IsSegmentedDictionaryPath(p):
		data, err = lookup.ReadSegmentedDictionary(ctx, p)
	default:
		data, err = storage.ReadFile(ctx, p)
	}
	if err != nil {
		return nil, false, fmt.Errorf("dictionary: %w", err)
	}
	return data, isDocFreqData(data), nil
}

// isDocFreqData reports whether a dictionary file's content holds document
// frequencies (first line "#docs<TAB>N").
func isDocFreqData(data []byte) bool { return bytes.HasPrefix(data, []byte("#docs\t")) }

// FindDictionaries returns the document-frequency files the index pipeline
// wrote next to an index (df-LANG.tsv), by language; for a Bigtable index,
// those stored in its table (btindex.DictionaryPaths).
func FindDictionaries(ctx context.Context, index string) (map[string]string, error) {
	spec, err := lookup.ParseSpec(index)
	if err != nil {
		return nil, nil // not an index: no dictionaries beside it
	}
	dir := spec.Location
	switch {
	case spec.Kind == lookup.KindBigtable:
		return btindex.DictionaryPaths(ctx, spec.Location)
	case spec.Kind == lookup.KindCDXJ, strings.HasSuffix(dir, ".idx"):
		dir = storage.Dir(dir) // keeps gs:// (path.Dir would clean it into gs:/)
	}
	return DictionariesIn(ctx, dir)
}

// DictionariesIn returns the document-frequency files df-LANG.tsv in dir
// (local or gs://) by language; none is not an error. When an index run
// wrote dir (its lookup.ManifestFile), only the files it listed count, and
// a df file it did not list is an error (lookup.FilesOfRun): another
// run's IDF is never used as this index's. An index built night by night
// (lookup.FileListFile) gives each language the sum of its parts
// (lookup.SegmentedDictionaryPath): the IDF of one full build.
func DictionariesIn(ctx context.Context, dir string) (map[string]string, error) {
	if d, ok, err := lookup.SegmentedDictionaries(ctx, dir); ok || err != nil {
		return d, err
	}
	files, err := lookup.FilesOfRun(ctx, dir, scoring.DocFreqFileGlob)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range files {
		if lang, ok := scoring.DocFreqLanguage(storage.Base(f)); ok {
			out[lang] = f
		}
	}
	return out, nil
}

// DictionaryFlag reads the value of --dictionary: a directory of df-LANG.tsv
// files (the --output of pipelines/index --dictionary, for an index without
// a directory of its own such as Bigtable) gives every language its file;
// a file is the dictionary of defaultLang. A directory is a local directory,
// or a path ending in "/" (gs:// has no directories).
func DictionaryFlag(ctx context.Context, value, defaultLang string) (map[string]string, error) {
	isDir := strings.HasSuffix(value, "/")
	if !storage.IsGCS(value) {
		if fi, err := os.Stat(value); err == nil && fi.IsDir() {
			isDir = true
		}
	}
	if !isDir {
		return map[string]string{defaultLang: value}, nil
	}
	d, err := DictionariesIn(ctx, value)
	if err != nil {
		return nil, fmt.Errorf("--dictionary=%s: %w", value, err)
	}
	if len(d) == 0 {
		return nil, fmt.Errorf("--dictionary=%s: a directory without df-LANG.tsv files", value)
	}
	return d, nil
}

// preEventRule is the pre-event discount of the job's specification
// (discount_pre_event_links on): with pre_event_rule step (the default),
// links first captured more than PreEventHalfLives lead_times before the
// event's start, ranked with PreEventLinkFactor; with tempr, links first
// captured before the start, ranked with the TempR of their first capture.
func (j *Job) preEventRule() PreEventRule {
	iv := j.Interval()
	r := PreEventRule{Before: iv.Start, Scope: j.TimeScope()}
	if j.Spec.Focus.PreEventRule != specs.PreEventTempR {
		r.Step = true
		r.Before = iv.Start.Add(-PreEventHalfLives * j.Spec.LeadTime.Duration())
	}
	return r
}
