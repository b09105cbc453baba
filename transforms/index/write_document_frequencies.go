package index

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/scoring"
)

// WriteDocumentFrequencies writes the counts of CountDocumentFrequencies as
// one file per language, dir/df-<lang>.tsv (scoring.DocFreq.WriteTo: a
// "#docs<TAB>N" and a "#lang" header, then "term<TAB>df" sorted by term),
// each written atomically. Terms found in fewer than minDF documents are
// left out (dictionary/terms_pruned): most terms of a web archive, and most
// bigrams, occur once, and a term missing from the dictionary gets its
// largest idf, ln(N / minDF) at most, which is what a rare term should get.
// Returns the paths written.
//
// All terms of one language meet on one worker, since they end up in one
// sorted file; with pruning, that is the size of the file.
func WriteDocumentFrequencies(s beam.Scope, entries beam.PCollection, dir string, minDF int64) beam.PCollection {
	s = s.Scope("WriteDocumentFrequencies")
	return writeDocFreqs(s, entries, beam.Create(s, []int64{}), &writeDocFreqFn{Dir: dir}, minDF)
}

// WriteSampledDocumentFrequencies writes the df-<lang>.tsv files of
// WriteDocumentFrequencies from counts, and records the sample counted
// (maxDocs and rate: DictionaryOptions): dir/dfsample.tsv
// (index.DictionarySampleFile: the candidates by level), and, when not
// every document was counted, a "#sample" comment line after the
// headers of each df-<lang>.tsv (index.DictionarySample.Rule; its "#docs" is the
// number of documents counted, the N of the idf). With byLevel, the
// counts of counts.ByLevel also go to dir/dfcounts-<lang>.tsv
// (WriteDocumentFrequencyCounts). Returns the paths written.
func WriteSampledDocumentFrequencies(s beam.Scope, counts DictionaryCounts, dir string, minDF, maxDocs int64, rate float64, byLevel bool) beam.PCollection {
	s = s.Scope("WriteDocumentFrequencies")
	paths := []beam.PCollection{
		writeDocFreqs(s, counts.Entries, counts.Candidates, &writeDocFreqFn{Dir: dir, Sampled: true, MaxDocs: maxDocs, Rate: rate}, minDF),
		beam.ParDo(s, &writeDictionarySampleFn{Dir: dir, MaxDocs: maxDocs, Rate: rate}, counts.Candidates),
	}
	if byLevel {
		paths = append(paths, WriteDocumentFrequencyCounts(s, counts.ByLevel, dir))
	}
	return beam.Flatten(s, paths...)
}

func writeDocFreqs(s beam.Scope, entries, candidates beam.PCollection, fn *writeDocFreqFn, minDF int64) beam.PCollection {
	byLang := beam.ParDo(s, &pruneDocFreqFn{MinDF: minDF}, entries)
	return beam.ParDo(s, fn, beam.GroupByKey(s, byLang), beam.SideInput{Input: candidates})
}

// WriteDocumentFrequencyCounts writes the counts of
// CountDocumentFrequencies by sample level (DictionaryCounts.ByLevel), no
// term left out, as dir/dfcounts-LANG.tsv (lookup.DocFreqCountsFileName):
// for each level, a "#level<TAB>L" line, then the counts of the documents
// of that level in the format of df-LANG.tsv. An index built with --add
// keeps them beside df-LANG.tsv so that the counts of its parts add up to
// those of one index of all the files, whatever level the sum chooses.
// Returns the paths written.
func WriteDocumentFrequencyCounts(s beam.Scope, byLevel beam.PCollection, dir string) beam.PCollection {
	s = s.Scope("WriteDocumentFrequencyCounts")
	byLang := beam.ParDo(s, &pruneDocFreqFn{MinDF: 1}, byLevel)
	return beam.ParDo(s, &writeDocFreqCountsFn{Dir: dir}, beam.GroupByKey(s, byLang))
}

// writeDictionarySampleFn writes dir/dfsample.tsv from the candidates.
type writeDictionarySampleFn struct {
	Dir     string
	MaxDocs int64
	Rate    float64
}

func (f *writeDictionarySampleFn) ProcessElement(ctx context.Context, candidates []int64, emit func(string)) error {
	var b bytes.Buffer
	sample := DictionarySampleOf(candidates, f.MaxDocs, f.Rate)
	sample.WriteTo(&b)
	p := storage.Join(f.Dir, index.DictionarySampleFile)
	if err := storage.WriteFile(ctx, p, b.Bytes()); err != nil {
		return fmt.Errorf("dictionary sample: %w", err)
	}
	slog.Info("dictionary sample", "file", p, "rule", sample.Rule())
	emit(p)
	return nil
}

// writeDocFreqCountsFn writes the counts of one language by level.
type writeDocFreqCountsFn struct {
	Dir string
}

func (f *writeDocFreqCountsFn) ProcessElement(ctx context.Context, lang string, entries func(*DocFreqEntry) bool, emit func(string)) error {
	levels := map[int]*scoring.DocFreq{}
	var e DocFreqEntry
	for entries(&e) {
		c := levels[e.Level]
		if c == nil {
			c = scoring.NewDocFreq(lang)
			levels[e.Level] = c
		}
		if e.Term == "" {
			c.AddCounts("", 0, e.DF)
		} else {
			c.AddCounts(e.Term, e.DF, 0)
		}
	}
	var b bytes.Buffer
	if err := lookup.WriteDocFreqLevels(&b, levels); err != nil {
		return err
	}
	p := storage.Join(f.Dir, lookup.DocFreqCountsFileName(lang))
	if err := storage.WriteFile(ctx, p, b.Bytes()); err != nil {
		return fmt.Errorf("document frequency counts of %q: %w", lang, err)
	}
	emit(p)
	return nil
}

// pruneDocFreqFn drops rare terms and keys the rest by language.
type pruneDocFreqFn struct {
	MinDF int64

	pruned beam.Counter
}

func (f *pruneDocFreqFn) Setup() {
	f.pruned = beam.NewCounter(CounterNamespaceDictionary, CounterDictionaryPruned)
}

func (f *pruneDocFreqFn) ProcessElement(ctx context.Context, e DocFreqEntry, emit func(string, DocFreqEntry)) {
	if e.Term != "" && e.DF < f.MinDF {
		f.pruned.Inc(ctx, 1)
		return
	}
	emit(e.Lang, e)
}

// writeDocFreqFn writes the table of one language.
type writeDocFreqFn struct {
	Dir string
	// Sampled: the counts are those of a sample of MaxDocs and Rate
	// (DictionaryOptions), recorded in a "#sample" line when it left
	// documents out.
	Sampled bool
	MaxDocs int64
	Rate    float64

	terms beam.Counter
}

func (f *writeDocFreqFn) Setup() {
	f.terms = beam.NewCounter(CounterNamespaceDictionary, CounterDictionaryTerms)
}

func (f *writeDocFreqFn) ProcessElement(ctx context.Context, lang string, entries func(*DocFreqEntry) bool, candidates []int64, emit func(string)) error {
	c := scoring.NewDocFreq(lang)
	var e DocFreqEntry
	for entries(&e) {
		if e.Term == "" {
			c.AddCounts("", 0, e.DF)
		} else {
			c.AddCounts(e.Term, e.DF, 0)
		}
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	data := b.Bytes()
	if f.Sampled {
		data = DictionarySampleOf(candidates, f.MaxDocs, f.Rate).AddHeaderLine(data)
	}
	p := storage.Join(f.Dir, scoring.DocFreqFileName(lang))
	if err := storage.WriteFile(ctx, p, data); err != nil {
		return fmt.Errorf("dictionary of %q: %w", lang, err)
	}
	f.terms.Inc(ctx, int64(c.Len()))
	slog.Info("wrote document frequencies", "file", p, "lang", lang, "docs", c.Docs(), "terms", c.Len())
	emit(p)
	return nil
}
