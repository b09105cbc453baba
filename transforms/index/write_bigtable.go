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
	project, instance, table, err := ParseBigtableSpec(f.Spec)
	if err != nil {
		return err
	}
	f.client, err = bigtable.NewClient(ctx, project, instance)
	if err != nil {
		return fmt.Errorf("bigtable client for %s/%s: %w", project, instance, err)
	}
	f.writer = btindex.NewWriter(f.client.Open(table), 0)
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
