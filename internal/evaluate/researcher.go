package evaluate

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
)

// A simulated researcher (the options comparison's labels-L@N rows): the
// default runs to N documents; the researcher looks at its L documents of
// highest relevance score (ties: the earlier in the collection) and marks
// each with its true label, taken from the evaluation's labels (grade > 0
// relevant; a page with another event's label or none is not relevant);
// the extraction is refreshed with those labels (recrawl extract
// --refresh --labels_file) to the target size of the other rows. Its first N
// documents are the default's; the labels steer the rest.

// Researcher is a simulated researcher's effort: Labels labels after
// After documents.
type Researcher struct{ After, Labels int }

// researcherVariant is the options row of r.
func researcherVariant(r Researcher) FocusVariant {
	return FocusVariant{
		Name: fmt.Sprintf("labels-%d@%d", r.Labels, r.After),
		Description: fmt.Sprintf("the default to %d documents, then refreshed with the true labels of its %d documents of highest relevance (a simulated researcher; recrawl extract --refresh --labels_file)",
			r.After, r.Labels),
		Researcher: r,
	}
}

// ResearcherLabelsFile is the labels file a simulated researcher writes in
// the row's output directory.
const ResearcherLabelsFile = "researcher-labels.tsv"

// runResearcher runs variant v (a Researcher row) into out: the default
// to v.Researcher.After documents, the labels file, the refresh.
func runResearcher(ctx context.Context, extract Extractor, specPath string, labels *Labels, out string, v FocusVariant) error {
	r := v.Researcher
	if err := extract(ctx, specPath, Overrides{Variant: DefaultVariant, TargetSize: r.After}, out); err != nil {
		return fmt.Errorf("the default to %d documents: %w", r.After, err)
	}
	first, err := ReadRun(out)
	if err != nil {
		return err
	}
	path := filepath.Join(out, ResearcherLabelsFile)
	pos, neg, err := writeResearcherLabels(path, first.Documents, labels, r.Labels)
	if err != nil {
		return err
	}
	slog.Info("simulated researcher", "variant", v.Name, "labels", path, "relevant", pos, "not_relevant", neg)
	if err := extract(ctx, specPath, Overrides{Variant: DefaultVariant, Refresh: true, LabelsFile: path}, out); err != nil {
		return fmt.Errorf("the refresh with %s: %w", path, err)
	}
	return nil
}

// writeResearcherLabels writes the true labels of the n documents of docs
// of highest relevance to path (url<TAB>grade lines) and returns how many
// are relevant and not.
func writeResearcherLabels(path string, docs []collection.Document, labels *Labels, n int) (pos, neg int, err error) {
	var b strings.Builder
	b.WriteString("url\tgrade\n")
	for _, d := range RankedByRelevance(docs)[:min(n, len(docs))] {
		_, grade := labels.Lookup(&d)
		if grade > 0 {
			pos++
		} else {
			neg++
		}
		fmt.Fprintf(&b, "%s\t%g\n", d.URL, grade)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return 0, 0, fmt.Errorf("simulated researcher: %w", err)
	}
	return pos, neg, nil
}

// RankedByRelevance is the ranked view of a collection: its documents by
// decreasing relevance score, ties in collection order.
func RankedByRelevance(docs []collection.Document) []collection.Document {
	out := slices.Clone(docs)
	slices.SortStableFunc(out, func(a, b collection.Document) int { return cmp.Compare(b.Relevance, a.Relevance) })
	return out
}
