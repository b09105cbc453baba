package index

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/bigtable"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cdxj"
)

// ParseBigtableSpec splits PROJECT/INSTANCE/TABLE.
func ParseBigtableSpec(spec string) (project, instance, table string, err error) {
	parts := strings.Split(spec, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", fmt.Errorf("--bigtable=%q: want PROJECT/INSTANCE/TABLE", spec)
	}
	return parts[0], parts[1], parts[2], nil
}

// EnsureBigtable creates the table and its column family if absent; the
// index pipeline calls it before the pipeline starts.
func EnsureBigtable(ctx context.Context, spec string) error {
	project, instance, table, err := ParseBigtableSpec(spec)
	if err != nil {
		return err
	}
	ac, err := bigtable.NewAdminClient(ctx, project, instance)
	if err != nil {
		return fmt.Errorf("bigtable admin client for %s/%s: %w", project, instance, err)
	}
	defer ac.Close()
	return btindex.EnsureTable(ctx, ac, table)
}

// WriteBigtable loads CDXJ lines into a Bigtable table (schema in
// internal/btindex), in batched, idempotent writes: a re-run adds no
// duplicates. Lines that do not parse are counted (bigtable/bad_lines).
// The table must exist (EnsureBigtable).
func WriteBigtable(s beam.Scope, lines beam.PCollection, spec string) {
	s = s.Scope("WriteBigtable")
	beam.ParDo0(s, &writeBigtableFn{Spec: spec}, beam.Reshuffle(s, lines))
}

type writeBigtableFn struct {
	Spec string

	client  *bigtable.Client
	writer  *btindex.Writer
	badLine beam.Counter
	rows    beam.Counter
	counted int64 // rows already added to the counter
}

func (f *writeBigtableFn) Setup(ctx context.Context) error {
	client, tbl, err := openBigtable(ctx, f.Spec)
	if err != nil {
		return err
	}
	f.client = client
	f.writer = btindex.NewWriter(tbl, 0)
	f.badLine = beam.NewCounter("bigtable", "bad_lines")
	f.rows = beam.NewCounter("bigtable", "rows_written")
	return nil
}

func (f *writeBigtableFn) ProcessElement(ctx context.Context, line string) error {
	c, err := cdxj.Parse(line)
	if err != nil {
		f.badLine.Inc(ctx, 1)
		return nil
	}
	return f.writer.Add(ctx, c)
}

func (f *writeBigtableFn) FinishBundle(ctx context.Context) error {
	if err := f.writer.Flush(ctx); err != nil {
		return err
	}
	f.rows.Inc(ctx, f.writer.Written()-f.counted)
	f.counted = f.writer.Written()
	return nil
}

func (f *writeBigtableFn) Teardown() error {
	if f.client != nil {
		return f.client.Close()
	}
	return nil
}

// WriteBigtableDocumentFrequencies stores the per-file counts of
// CountDocumentFrequenciesByFile in the Bigtable index, one set of rows per
// (archive file, language) (internal/btindex, dictionary.go), unpruned: the
// table sums them when it is read. The counts of one file and language
// meet on one worker and are written in chunks as they come, so memory
// holds one chunk. Counted: bigtable/dictionaries_written.
func WriteBigtableDocumentFrequencies(s beam.Scope, entries beam.PCollection, spec string) {
	s = s.Scope("WriteBigtableDocumentFrequencies")
	keyed := beam.ParDo(s, keyByFileLanguage, entries)
	beam.ParDo0(s, &writeBigtableDocFreqFn{Spec: spec}, beam.GroupByKey(s, keyed))
}

// keyByFileLanguage keys an entry "file\tlang".
func keyByFileLanguage(e DocFreqEntry) (string, DocFreqEntry) { return e.File + "\t" + e.Lang, e }

type writeBigtableDocFreqFn struct {
	Spec string

	client  *bigtable.Client
	tbl     *bigtable.Table
	written beam.Counter
}

func (f *writeBigtableDocFreqFn) Setup(ctx context.Context) error {
	var err error
	if f.client, f.tbl, err = openBigtable(ctx, f.Spec); err != nil {
		return err
	}
	f.written = beam.NewCounter("bigtable", "dictionaries_written")
	return nil
}

func (f *writeBigtableDocFreqFn) ProcessElement(ctx context.Context, key string, entries func(*DocFreqEntry) bool) error {
	file, lang, _ := strings.Cut(key, "\t")
	w, err := btindex.NewFileDictionaryWriter(f.tbl, file, lang)
	if err != nil {
		return err
	}
	var e DocFreqEntry
	for entries(&e) {
		if e.Term == "" {
			w.AddDocs(e.DF)
			continue
		}
		if err := w.Add(ctx, e.Term, e.DF); err != nil {
			return err
		}
	}
	if err := w.Close(ctx); err != nil {
		return err
	}
	f.written.Inc(ctx, 1)
	return nil
}

func (f *writeBigtableDocFreqFn) Teardown() error {
	if f.client != nil {
		return f.client.Close()
	}
	return nil
}

// openBigtable connects to the table of a PROJECT/INSTANCE/TABLE spec, for
// the Setup of the DoFns that write to it.
func openBigtable(ctx context.Context, spec string) (*bigtable.Client, *bigtable.Table, error) {
	project, instance, table, err := ParseBigtableSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	client, err := bigtable.NewClient(ctx, project, instance)
	if err != nil {
		return nil, nil, fmt.Errorf("bigtable client for %s/%s: %w", project, instance, err)
	}
	return client, client.Open(table), nil
}
