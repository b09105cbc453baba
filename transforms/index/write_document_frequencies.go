package index

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

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
	p := storage.Join(f.Dir, scoring.DocFreqFileName(lang))
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
	f.terms.Inc(ctx, int64(c.Len()))
	slog.Info("wrote document frequencies", "file", p, "lang", lang, "docs", c.Docs(), "terms", c.Len())
	emit(p)
	return nil
}
