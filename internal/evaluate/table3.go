package evaluate

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Overrides change a specification for one extraction of the Table 3
// experiments. The zero value changes nothing.
type Overrides struct {
	// Strategy replaces the spec's strategy ("" keeps it).
	Strategy string
	// FixedHalfLife, when positive, replaces both lead_time and
	// cooldown_time by this one half-life: the paper's "exponential decay
	// function with a fixed decay" (§7.2).
	FixedHalfLife time.Duration
	// NoKeywords drops the spec's keywords, keeping the reference
	// documents (§7.3).
	NoKeywords bool
	// Variant names a FocusVariant of the options comparison whose Apply
	// changes the spec ("" for none).
	Variant string
	// TargetSize, when positive, replaces the target size.
	TargetSize int
	// Refresh continues the extraction in the output directory
	// (recrawl extract --refresh), with the labels of LabelsFile when
	// not "" (--labels).
	Refresh    bool
	LabelsFile string
}

// String names the overrides for directory names and logs.
func (o Overrides) String() string {
	var parts []string
	if o.Strategy != "" {
		parts = append(parts, o.Strategy)
	}
	if o.FixedHalfLife > 0 {
		parts = append(parts, "fixed-decay")
	}
	if o.NoKeywords {
		parts = append(parts, "no-keywords")
	}
	if o.Variant != "" {
		parts = append(parts, o.Variant)
	}
	if o.TargetSize > 0 {
		parts = append(parts, fmt.Sprintf("target-%d", o.TargetSize))
	}
	if o.Refresh {
		parts = append(parts, "refresh")
	}
	if o.LabelsFile != "" {
		parts = append(parts, "labels")
	}
	if len(parts) == 0 {
		return "as-specified"
	}
	return strings.Join(parts, "-")
}

// Extractor runs one extraction of the specification at specPath with the
// overrides applied and writes its output directory (documents.jsonl,
// run.json, …) to outDir. The caller of EvalCommand provides it; this
// package never runs an extraction itself.
type Extractor func(ctx context.Context, specPath string, overrides Overrides, outDir string) error

// Comparison is the effect of one parameter: the accumulated relevance of
// a run with it against a run without it, everything else equal.
type Comparison struct {
	Factor   string // "time" or "keywords"
	Strategy string
	// With and Without are the final accumulated relevance of the two
	// runs; Ratio = With / Without, the paper's improvement ratio (each
	// crawl runs to its target size or an empty frontier, §7.1).
	With, Without float64
	Ratio         float64
	// CommonN is the smaller of the two runs' document counts and
	// RatioCommon the ratio of accumulated relevance after CommonN
	// documents, which discounts a run that merely ran longer.
	CommonN     int
	RatioCommon float64
	WithDocs    int
	WithoutDocs int
	// Note explains a missing ratio (NaN), e.g. a spec without keywords.
	Note string
}

// Compare computes the Comparison of two runs.
func Compare(factor string, with, without *Run) Comparison {
	a, b := AccumulatedRelevance(with.Documents), AccumulatedRelevance(without.Documents)
	c := Comparison{Factor: factor, Strategy: with.Info.Strategy, With: a.Final(), Without: b.Final(),
		WithDocs: len(a), WithoutDocs: len(b), CommonN: min(len(a), len(b))}
	c.Ratio = ratio(c.With, c.Without)
	c.RatioCommon = ratio(a.At(c.CommonN), b.At(c.CommonN))
	return c
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// Table3Column is one column of the paper's Table 3.
type Table3Column struct {
	Factor   string
	Strategy string
}

// Table3Columns are the paper's columns: the temporal parameters under T-F
// and CT-F, the keywords under C-F and CT-F.
var Table3Columns = []Table3Column{{"time", "tf"}, {"time", "ctf"}, {"keywords", "cf"}, {"keywords", "ctf"}}

// Table3Row is one event (specification).
type Table3Row struct {
	Event string // the spec's name
	Spec  string // its path
	Cells []Comparison
}

// Table3 is the paper's Table 3: ratios of accumulated relevance with and
// without event-specific temporal parameters and with and without keywords.
type Table3 struct {
	FixedHalfLife time.Duration
	Rows          []Table3Row
	// Average is the mean Ratio per column over the rows that have one
	// (NaN if none), the paper's last line.
	Average []float64
}

// RunTable3 runs the Table 3 extractions for each specification through
// extract, into dir/<spec base name>/<overrides>, and compares them: per
// spec the as-specified runs under tf, ctf and cf, the fixed-decay runs
// under tf and ctf and the no-keyword runs under cf and ctf (seven
// extractions, one after another). A spec without keywords gets no
// keyword runs; its keyword cells are NaN with a note.
func RunTable3(ctx context.Context, extract Extractor, specPaths []string, dir string, fixedHalfLife time.Duration) (*Table3, error) {
	if extract == nil {
		return nil, fmt.Errorf("table 3: no extractor")
	}
	if fixedHalfLife <= 0 {
		return nil, fmt.Errorf("table 3: fixed half-life %v is not positive", fixedHalfLife)
	}
	t := &Table3{FixedHalfLife: fixedHalfLife}
	bases := map[string]string{}
	for _, specPath := range specPaths {
		base := strings.TrimSuffix(filepath.Base(specPath), filepath.Ext(specPath))
		if prev, dup := bases[base]; dup {
			return nil, fmt.Errorf("table 3: specs %s and %s have the same base name %q", prev, specPath, base)
		}
		bases[base] = specPath
		runs := map[string]*Run{}
		get := func(o Overrides) (*Run, error) {
			key := o.String()
			if r, ok := runs[key]; ok {
				return r, nil
			}
			out := filepath.Join(dir, base, key)
			if err := os.MkdirAll(out, 0o755); err != nil {
				return nil, fmt.Errorf("table 3: %w", err)
			}
			slog.Info("table 3 extraction", "spec", specPath, "variant", key, "out", out)
			start := time.Now()
			if err := extract(ctx, specPath, o, out); err != nil {
				return nil, fmt.Errorf("table 3: extract %s (%s): %w", specPath, key, err)
			}
			r, err := ReadRun(out)
			if err != nil {
				return nil, fmt.Errorf("table 3: %w", err)
			}
			slog.Info("table 3 extraction done", "variant", key, "documents", len(r.Documents), "elapsed", time.Since(start).Round(time.Millisecond))
			runs[key] = r
			return r, nil
		}
		row := Table3Row{Event: base, Spec: specPath}
		for _, col := range Table3Columns {
			with, err := get(Overrides{Strategy: col.Strategy})
			if err != nil {
				return nil, err
			}
			if with.Spec.Name != "" {
				row.Event = with.Spec.Name
			}
			o := Overrides{Strategy: col.Strategy}
			if col.Factor == "time" {
				o.FixedHalfLife = fixedHalfLife
			} else {
				if len(with.Spec.KeywordList()) == 0 {
					row.Cells = append(row.Cells, Comparison{Factor: col.Factor, Strategy: col.Strategy,
						Ratio: math.NaN(), RatioCommon: math.NaN(), Note: "the specification has no keywords"})
					continue
				}
				o.NoKeywords = true
			}
			without, err := get(o)
			if err != nil {
				return nil, err
			}
			row.Cells = append(row.Cells, Compare(col.Factor, with, without))
		}
		t.Rows = append(t.Rows, row)
	}
	for j := range Table3Columns {
		sum, n := 0.0, 0
		for _, row := range t.Rows {
			if r := row.Cells[j].Ratio; !math.IsNaN(r) && !math.IsInf(r, 0) {
				sum += r
				n++
			}
		}
		avg := math.NaN()
		if n > 0 {
			avg = sum / float64(n)
		}
		t.Average = append(t.Average, avg)
	}
	return t, nil
}
