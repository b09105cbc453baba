package index

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

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
	byLang := beam.ParDo(s, &pruneDocFreqFn{MinDF: minDF}, entries)
	return beam.ParDo(s, &writeDocFreqFn{Dir: dir}, beam.GroupByKey(s, byLang))
}

// WriteDocumentFrequencyCounts writes the counts of
// CountDocumentFrequencies, no term left out, as dir/dfcounts-LANG.tsv
// (lookup.DocFreqCountsFileName; the format of df-LANG.tsv): an index
// built with --add keeps them beside df-LANG.tsv so that the counts of its
// parts add up to those of one index of all the files. Returns the paths
// written.
func WriteDocumentFrequencyCounts(s beam.Scope, entries beam.PCollection, dir string) beam.PCollection {
	s = s.Scope("WriteDocumentFrequencyCounts")
	byLang := beam.ParDo(s, &pruneDocFreqFn{MinDF: 1}, entries)
	return beam.ParDo(s, &writeDocFreqFn{Dir: dir, Counts: true}, beam.GroupByKey(s, byLang))
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
	// Counts: the unpruned counts file (dfcounts-LANG.tsv), not counted
	// in dictionary/terms.
	Counts bool

	terms beam.Counter
}

func (f *writeDocFreqFn) Setup() {
	f.terms = beam.NewCounter(CounterNamespaceDictionary, CounterDictionaryTerms)
}

func (f *writeDocFreqFn) ProcessElement(ctx context.Context, lang string, entries func(*DocFreqEntry) bool, emit func(string)) error {
	c := scoring.NewDocFreq(lang)
	var e DocFreqEntry
	for entries(&e) {
		if e.Term == "" {
			c.AddCounts("", 0, e.DF)
		} else {
			c.AddCounts(e.Term, e.DF, 0)
		}
	}
	name := scoring.DocFreqFileName(lang)
	if f.Counts {
		name = lookup.DocFreqCountsFileName(lang)
	}
	p := storage.Join(f.Dir, name)
	w, err := storage.Create(ctx, p)
	if err != nil {
		return fmt.Errorf("dictionary of %q: %w", lang, err)
	}
	if _, err := c.WriteTo(w); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	if f.Counts {
		emit(p)
		return nil
	}
	f.terms.Inc(ctx, int64(c.Len()))
	slog.Info("wrote document frequencies", "file", p, "lang", lang, "docs", c.Docs(), "terms", c.Len())
	emit(p)
	return nil
}
