package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/archive"
	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/index"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/scoring/document"
)

// Counters of CountDocumentFrequencies and WriteDocumentFrequencies
// (namespace "dictionary"). Every capture of the index ends in exactly one
// of: documents, sampled_out, or skipped_<reason>.
const (
	CounterNamespaceDictionary = "dictionary"
	CounterDictionaryDocs      = "documents"   // documents counted
	CounterDictionarySampled   = "sampled_out" // usable captures left out by --dictionary_sample
	CounterDictionaryPruned    = "terms_pruned"
	CounterDictionaryTerms     = "terms_written"
	// CounterDictionaryTruncated counts the captures whose body was cut at
	// document.DefaultMaxBytes (read through that limit at every layer, so
	// a compressed bomb costs the limit, not its inflated size); they are
	// counted or skipped like any other, from the bytes kept.
	CounterDictionaryTruncated = "truncated"
	// CounterDictionarySkipPrefix + a index.Skip* reason counts skipped captures.
	CounterDictionarySkipPrefix = "skipped_"
)

// DocFreqEntry is one count of a per-language document-frequency table:
// DF documents of language Lang contain Term. The entry with Term "" holds
// N, the number of documents of the language.
type DocFreqEntry struct {
	File string // the archive file counted, for CountDocumentFrequenciesByFile; else ""
	Lang string
	Term string
	DF   int64
}

// CountDocumentFrequencies counts, per language, in how many documents of
// the archive each term occurs: the document-frequency dictionary that gives
// idf = ln(N / df) (method.md §2). lines are the CDXJ lines of the archive
// (the output of IndexArchives); the records are read from the files of the
// same names in archiveLocations (directories or gs:// prefixes).
//
// A document is an HTTP 200 HTML response record (text/html or
// application/xhtml+xml, and HTML when parsed); revisits are left out, as
// their payload is counted at the record they revisit, and so are
// redirects, errors and every other media type. sampleRate in (0, 1] keeps
// that share of the documents, chosen by a hash of the SURT key and
// timestamp, so a rerun (or another runner) counts the same documents. Each
// document is parsed (scoring/document), its language decides the analyzer
// exactly as scoring chooses it (a language without an analyzer counts as
// defaultLanguage), and the distinct unigrams and bigrams of its title and
// main text (scoring.Bag: the same terms scoring weighs) are counted once
// each. The counts are summed per bundle in the DoFn, then per (language,
// term) by a combiner, so only distinct terms are shuffled.
//
// Every capture not counted increments dictionary/skipped_<reason> (see the
// index.Skip* reasons) or dictionary/sampled_out. The result is one
// DocFreqEntry per (language, term), plus one per language with Term "" and
// the document count.
func CountDocumentFrequencies(s beam.Scope, lines beam.PCollection, archiveLocations []string, sampleRate float64, defaultLanguage string) beam.PCollection {
	s = s.Scope("CountDocumentFrequencies")
	sums := countTerms(s, lines, archiveLocations, sampleRate, defaultLanguage, false)
	return beam.ParDo(s, toDocFreqEntry, sums)
}

// CountDocumentFrequenciesByFile counts as CountDocumentFrequencies, per
// archive file: one DocFreqEntry per (file, language, term), with File the
// file name of the capture, plus one per (file, language) with Term "" and
// the document count. The counts of the files add up to those of
// CountDocumentFrequencies (SumFiles).
func CountDocumentFrequenciesByFile(s beam.Scope, lines beam.PCollection, archiveLocations []string, sampleRate float64, defaultLanguage string) beam.PCollection {
	s = s.Scope("CountDocumentFrequenciesByFile")
	sums := countTerms(s, lines, archiveLocations, sampleRate, defaultLanguage, true)
	return beam.ParDo(s, toFileDocFreqEntry, sums)
}

// SumFiles sums the per-file counts of CountDocumentFrequenciesByFile into
// those of CountDocumentFrequencies.
func SumFiles(s beam.Scope, entries beam.PCollection) beam.PCollection {
	s = s.Scope("SumFiles")
	keyed := beam.ParDo(s, dropFile, entries)
	return beam.ParDo(s, toDocFreqEntry, beam.CombinePerKey(s, sumDocFreq, keyed))
}

// countTerms gives ("lang\tterm", df) and ("lang\t", N) sums; byFile puts
// the capture's file name and a tab in front of each key.
func countTerms(s beam.Scope, lines beam.PCollection, archiveLocations []string, sampleRate float64, defaultLanguage string, byFile bool) beam.PCollection {
	// Keep the captures of HTML documents in the sample; count the others.
	docs := beam.ParDo(s, &selectDictionaryCapturesFn{SampleRate: sampleRate}, lines)
	// Reading and parsing is the heavy step: spread the captures over workers.
	docs = beam.Reshuffle(s, docs)
	// Each document gives ("lang\tterm", 1) per distinct term and ("lang\t", 1).
	terms := beam.ParDo(s, &documentTermsFn{Locations: archiveLocations, DefaultLanguage: defaultLanguage, ByFile: byFile}, docs)
	// Sum per key with a combiner: partial sums before the shuffle.
	return beam.CombinePerKey(s, sumDocFreq, terms)
}

func dictionarySkipCounter(reason string) beam.Counter {
	return beam.NewCounter(CounterNamespaceDictionary, CounterDictionarySkipPrefix+reason)
}

// IsDictionarySkipCounter reports whether a counter name of namespace
// "dictionary" counts skipped captures, and returns the reason.
func IsDictionarySkipCounter(name string) (reason string, ok bool) {
	return strings.CutPrefix(name, CounterDictionarySkipPrefix)
}

type selectDictionaryCapturesFn struct {
	SampleRate float64

	sampledOut beam.Counter
	skipped    map[string]beam.Counter
}

func (f *selectDictionaryCapturesFn) Setup() {
	f.sampledOut = beam.NewCounter(CounterNamespaceDictionary, CounterDictionarySampled)
	f.skipped = map[string]beam.Counter{}
	for _, r := range []string{index.SkipBadLine, index.SkipRevisit, index.SkipNotOK, index.SkipNotHTML} {
		f.skipped[r] = dictionarySkipCounter(r)
	}
}

func (f *selectDictionaryCapturesFn) ProcessElement(ctx context.Context, line string, emit func(string)) {
	c, err := cdxj.Parse(line)
	if err != nil {
		f.skipped[index.SkipBadLine].Inc(ctx, 1)
		slog.Warn("dictionary: skipped an index line", "err", err)
		return
	}
	if ok, reason := index.CountedInDictionary(c); !ok {
		f.skipped[reason].Inc(ctx, 1)
		return
	}
	if !index.InDictionarySample(c.Key, c.Timestamp, f.SampleRate) {
		f.sampledOut.Inc(ctx, 1)
		return
	}
	emit(line)
}

// documentTermsFn reads, parses and analyses one document and emits its
// distinct terms keyed "lang\tterm", and "lang\t" for the document itself.
type documentTermsFn struct {
	Locations       []string
	DefaultLanguage string
	// ByFile keys the counts "file\tlang\tterm" (the partial maps below
	// then hold "file\tlang" where they say lang).
	ByFile bool

	fetcher   *archive.Fetcher
	analyzers *scoring.Analyzers
	bag       *scoring.Bag
	tokens    []scoring.Token
	docs      beam.Counter
	truncated beam.Counter
	skipped   map[string]beam.Counter

	// Counts of the bundle so far, emitted at its end or when partialTerms
	// reaches maxPartialTerms. Summing in the DoFn first cuts the elements
	// handed on from one per term per document to one per distinct term per
	// bundle; measured on 3,791 synthetic pages (prism, 2 shared cores), the
	// peak RSS of the run fell from 663 MB to 320 MB.
	partialDF    map[string]map[string]int64 // lang → term → documents
	partialDocs  map[string]int64            // lang → documents
	partialTerms int
}

// maxPartialTerms bounds the memory of a bundle's partial counts (about
// 100 bytes per term).
const maxPartialTerms = 1 << 20

func (f *documentTermsFn) Setup() error {
	var err error
	if f.analyzers, err = scoring.NewAnalyzers(f.DefaultLanguage); err != nil {
		return fmt.Errorf("dictionary: %w", err)
	}
	f.fetcher = archive.NewFetcher(f.Locations)
	f.bag = scoring.NewBag()
	f.docs = beam.NewCounter(CounterNamespaceDictionary, CounterDictionaryDocs)
	f.truncated = beam.NewCounter(CounterNamespaceDictionary, CounterDictionaryTruncated)
	f.skipped = map[string]beam.Counter{}
	for _, r := range []string{index.SkipBadLine, index.SkipNotHTML, index.SkipFetchFailed, index.SkipParseFailed, index.SkipNoText} {
		f.skipped[r] = dictionarySkipCounter(r)
	}
	return nil
}

func (f *documentTermsFn) ProcessElement(ctx context.Context, line string, emit func(string, int64)) error {
	c, err := cdxj.Parse(line)
	if err != nil {
		f.skipped[index.SkipBadLine].Inc(ctx, 1)
		return nil
	}
	lang, reason, err := f.analyse(ctx, c)
	if reason != "" {
		f.skipped[reason].Inc(ctx, 1)
		if err != nil {
			slog.Warn("dictionary: skipped a document", "file", c.Filename, "offset", c.Offset, "url", c.URL, "reason", reason, "err", err)
		}
		return nil
	}
	f.docs.Inc(ctx, 1)
	if f.ByFile {
		lang = c.Filename + "\t" + lang
	}
	if f.partialDF == nil {
		f.partialDF, f.partialDocs = map[string]map[string]int64{}, map[string]int64{}
	}
	f.partialDocs[lang]++
	df := f.partialDF[lang]
	if df == nil {
		df = map[string]int64{}
		f.partialDF[lang] = df
	}
	for i := range f.bag.Len() {
		term, _ := f.bag.At(i)
		if _, ok := df[term]; !ok {
			f.partialTerms++
		}
		df[term]++
	}
	if f.partialTerms >= maxPartialTerms {
		f.flush(emit)
	}
	return nil
}

func (f *documentTermsFn) FinishBundle(_ context.Context, emit func(string, int64)) {
	f.flush(emit)
}

// flush emits the partial counts as ("lang\tterm", df) and ("lang\t", N).
func (f *documentTermsFn) flush(emit func(string, int64)) {
	for lang, n := range f.partialDocs {
		prefix := lang + "\t"
		emit(prefix, n)
		for term, df := range f.partialDF[lang] {
			emit(prefix+term, df)
		}
	}
	f.partialDF, f.partialDocs, f.partialTerms = nil, nil, 0
}

// analyse fills f.bag with the terms of the capture's document and returns
// the language of its analyzer, or the reason it was skipped (and the error
// behind it, if any).
func (f *documentTermsFn) analyse(ctx context.Context, c cdxj.Capture) (lang, reason string, err error) {
	rec, err := f.fetcher.Read(ctx, c)
	if err != nil {
		return "", index.SkipFetchFailed, err
	}
	if rec.BodyTruncated {
		f.truncated.Inc(ctx, 1)
		slog.Warn("dictionary: a body was cut at the size limit; its first bytes are used", "file", c.Filename, "offset", c.Offset, "url", c.URL,
			"limit_bytes", document.DefaultMaxBytes)
	}
	contentType := ""
	if rec.HTTP != nil {
		contentType = rec.HTTP.Header.Get("Content-Type")
	}
	// The text alone: no dates, so the index does not link the date
	// library (scoring/document/datelibrary).
	opts := document.Options{DefaultLanguage: f.analyzers.Default().Language(), NoDates: true}
	doc, err := document.Parse(rec.Body, contentType, c.URL, opts)
	if err != nil {
		if errors.Is(err, document.ErrNotHTML) {
			return "", index.SkipNotHTML, nil
		}
		return "", index.SkipParseFailed, err
	}
	if doc.Reason != "" {
		return "", index.SkipNoText, nil
	}
	a := f.analyzers.For(doc.Language)
	f.tokens = a.AppendTokens(f.tokens[:0], doc.Text()) // the text the scorer weighs
	f.bag.Reset()
	f.bag.AddTokens(f.tokens)
	if f.bag.Len() == 0 {
		return "", index.SkipNoText, nil
	}
	return a.Language(), "", nil
}

func (f *documentTermsFn) Teardown() error {
	if f.fetcher != nil {
		return f.fetcher.Close()
	}
	return nil
}

func sumDocFreq(a, b int64) int64 { return a + b }

func toDocFreqEntry(key string, n int64, emit func(DocFreqEntry)) {
	lang, term, _ := strings.Cut(key, "\t")
	emit(DocFreqEntry{Lang: lang, Term: term, DF: n})
}

func toFileDocFreqEntry(key string, n int64, emit func(DocFreqEntry)) {
	file, rest, _ := strings.Cut(key, "\t")
	lang, term, _ := strings.Cut(rest, "\t")
	emit(DocFreqEntry{File: file, Lang: lang, Term: term, DF: n})
}

func dropFile(e DocFreqEntry) (string, int64) { return e.Lang + "\t" + e.Term, e.DF }
