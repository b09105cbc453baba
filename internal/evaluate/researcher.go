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
	"github.com/recrawl/recrawl/internal/storage"
)

// A simulated researcher (the options comparison's labels-L@N rows): the
// default runs to N documents; the researcher looks at L of them, picked by
// relevance score (ties: the earlier in the collection first) — its L
// documents of highest score (labels-L@N), of lowest score
// (labels-low-L@N: the ones the scorer is most likely to have wrong), or L
// spread evenly over the ranking (labels-spread-L@N) — and marks each with
// its true label, taken from the evaluation's labels (grade > 0
// relevant; a page with another event's label or none is not relevant);
// the extraction is refreshed with those labels (recrawl extract
// --refresh --labels_file) to the target size of the other rows. Its first N
// documents are the default's; the labels steer the rest.

// Researcher is a simulated researcher's effort: Labels labels after
// After documents, on the documents Pick selects, of a run of the variant
// Base ("": the default).
type Researcher struct {
	After, Labels int
	Pick          ResearcherPick
	Base          string
}

// base is the variant the researcher's runs use.
func (r Researcher) base() string {
	if r.Base == "" {
		return DefaultVariant
	}
	return r.Base
}

// ResearcherPick is which of the first documents a simulated researcher
// labels, by their rank in relevance score.
type ResearcherPick string

// The simulated researcher's selections.
const (
	// PickTop labels the documents of highest relevance score.
	PickTop ResearcherPick = ""
	// PickLow labels the documents of lowest relevance score: those
	// nearest the scorer's decision boundary.
	PickLow ResearcherPick = "low"
	// PickSpread labels documents evenly spaced over the ranking: the
	// middle one of each of Labels equal slices of it.
	PickSpread ResearcherPick = "spread"
)

// describe says which documents p selects.
func (p ResearcherPick) describe() string {
	switch p {
	case PickLow:
		return "of lowest relevance"
	case PickSpread:
		return "spread evenly over its ranking by relevance"
	default:
		return "of highest relevance"
	}
}

// researcherVariant is the options row of r: labels-L@N, or
// labels-PICK-L@N for another selection than the top, followed by
// "+VARIANT" for a Base other than the default (labels-20@100+look-ahead-2
// runs default+look-ahead-2).
func researcherVariant(r Researcher) FocusVariant {
	name := fmt.Sprintf("labels-%d@%d", r.Labels, r.After)
	if r.Pick != PickTop {
		name = fmt.Sprintf("labels-%s-%d@%d", r.Pick, r.Labels, r.After)
	}
	run := "the default"
	if r.Base != "" {
		name += "+" + strings.TrimPrefix(r.Base, DefaultVariant+"+")
		run = r.Base
	}
	return FocusVariant{
		Name: name,
		Description: fmt.Sprintf("%s to %d documents, then refreshed with the true labels of its %d documents %s (a simulated researcher; recrawl extract --refresh --labels_file)",
			run, r.After, r.Labels, r.Pick.describe()),
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
	path := filepath.Join(out, ResearcherLabelsFile)
	// The labels file is written whole once the first run is done: with
	// it, the run to N is over and the refresh, which resumes from the
	// work directory, is what is left.
	if _, err := os.Stat(path); err == nil {
		slog.Info("simulated researcher: the run to N documents is done, the refresh goes on", "variant", v.Name, "labels", path)
	} else {
		if err := extract(ctx, specPath, Overrides{Variant: r.base(), TargetSize: r.After}, out); err != nil {
			return fmt.Errorf("%s to %d documents: %w", r.base(), r.After, err)
		}
		first, err := ReadRun(out)
		if err != nil {
			return err
		}
		pos, neg, err := writeResearcherLabels(ctx, path, researcherPicks(first.Documents, r.Pick, r.Labels), labels)
		if err != nil {
			return err
		}
		slog.Info("simulated researcher", "variant", v.Name, "labels", path, "relevant", pos, "not_relevant", neg)
	}
	if err := extract(ctx, specPath, Overrides{Variant: r.base(), Refresh: true, LabelsFile: path}, out); err != nil {
		return fmt.Errorf("the refresh with %s: %w", path, err)
	}
	return nil
}

// researcherPicks returns the n documents of docs that pick selects, in
// decreasing relevance (all of them when docs has no more than n).
func researcherPicks(docs []collection.Document, pick ResearcherPick, n int) []collection.Document {
	ranked := RankedByRelevance(docs)
	if n >= len(ranked) {
		return ranked
	}
	switch pick {
	case PickLow:
		return ranked[len(ranked)-n:]
	case PickSpread:
		out := make([]collection.Document, n)
		for i := range out {
			out[i] = ranked[(2*i+1)*len(ranked)/(2*n)]
		}
		return out
	default:
		return ranked[:n]
	}
}

// writeResearcherLabels writes the true labels of docs to path
// (url<TAB>grade lines) and returns how many are relevant and not.
func writeResearcherLabels(ctx context.Context, path string, docs []collection.Document, labels *Labels) (pos, neg int, err error) {
	var b strings.Builder
	b.WriteString("url\tgrade\n")
	for _, d := range docs {
		_, grade := labels.Lookup(&d)
		if grade > 0 {
			pos++
		} else {
			neg++
		}
		fmt.Fprintf(&b, "%s\t%g\n", d.URL, grade)
	}
	// Whole or not at all: its presence tells a rerun that the first run is done.
	if err := storage.WriteFile(ctx, path, []byte(b.String())); err != nil {
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
