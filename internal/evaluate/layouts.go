package evaluate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// The layout summary puts the options comparisons of several events and
// archive layouts (families: the demo archive with and without its site
// templates) into one table: per variant the mean precision at R and
// recall at 200, its ratio to the label oracle, and per template and event
// the cells with the checks the default must pass (at least 2× the
// unfocused crawl, never below the paper's ctf). The 2× check is made
// against the row "unfocused" (the specification as given, breadth-first:
// listing pages left out, like the default) and, when it was run, also
// against "unfocused+listings" (the unfocused crawl with the listing pages
// counted). scripts/eval-layouts.sh prints it
// (cmd/evalsummary).

// LayoutRun is one event's options comparison (evaluation.json's
// "options") in one archive family.
type LayoutRun struct {
	Family, Event string
	Rows          []optRowJSON
	R             int
}

// ReadLayoutRun reads the options comparison of an evaluation.json.
func ReadLayoutRun(family, path string) (LayoutRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return LayoutRun{}, fmt.Errorf("layout summary: %w", err)
	}
	var ev struct {
		Options *optSummary `json:"options"`
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return LayoutRun{}, fmt.Errorf("layout summary: %s: %w", path, err)
	}
	if ev.Options == nil || len(ev.Options.Rows) == 0 {
		return LayoutRun{}, fmt.Errorf("layout summary: %s: no options comparison (run extract eval --options)", path)
	}
	return LayoutRun{Family: family, Event: ev.Options.Spec, Rows: ev.Options.Rows, R: ev.Options.R}, nil
}

// MinCellR is the smallest number of relevant labels a template×event cell
// needs to count in the means over cells: below it one page moves P@R by
// 0.1 or more.
const MinCellR = 10

// Baseline variants: the checks compare every other variant against them.
const (
	paperVariant     = "ctf"
	unfocusedVariant = "unfocused"
)

// LayoutSummary is the summary of several LayoutRuns.
type LayoutSummary struct {
	Families []FamilySummary
}

// FamilySummary is one archive family's part of the summary.
type FamilySummary struct {
	Family   string
	Events   []string
	Variants []VariantSummary
	// Listings reports whether the unfocused+listings baseline was run.
	Listings bool
	// Templates are the site templates of the labels (none for an archive
	// without templates).
	Templates []string
	// Cells are the template×event cells, by template then event.
	Cells []LayoutCell
}

// VariantSummary is one variant's scores in one family.
type VariantSummary struct {
	Name string
	// PrecisionAtR and RecallAtN per event (in Events' order).
	PrecisionAtR, RecallAtN []float64
	MeanP, MeanR            float64
	// VsOracle is MeanP over the oracle's MeanP (0 without an oracle row).
	VsOracle float64
	// CellsVsOracle is the mean over the cells with R ≥ MinCellR of the
	// cell's P@R over the oracle's (0 without templates or oracle).
	CellsVsOracle float64
	// EventsBelowPaper: events whose P@R is below ctf's.
	EventsBelowPaper []string
	// CellsBelowPaper, CellsBelow2xUnfocused: template×event cells that
	// fail the checks ("template/event").
	CellsBelowPaper, CellsBelow2xUnfocused []string
	// CellsBelow2xUnfocusedListings: the cells below 2× the
	// unfocused+listings row (nil when that row was not run).
	CellsBelow2xUnfocusedListings []string
	// RankedP, RankedR: the ranked view's precision at R and recall per
	// event (OptionRow), their means and the mean P@R over the oracle's.
	RankedP, RankedR         []float64
	RankedMeanP, RankedMeanR float64
	RankedVsOracle           float64
	// VsDefault is MeanP over the default's (0 without a default row);
	// EventsBelowDefault: events whose P@R is below the default's by
	// more than LabelNoise (the simulated researcher's check).
	VsDefault          float64
	EventsBelowDefault []string
}

// LabelNoise is the difference of P@R to the default that a variant's
// event may fall short by and still count as not below it: one relevant
// page in 50 (R is 40 to 130 on the demo archive's events).
const LabelNoise = 0.02

// LayoutCell is one template and event: each variant's P@R on the
// template's hosts (R_t relevant labels).
type LayoutCell struct {
	Template, Event string
	R               int
	PrecisionAtR    map[string]float64
}

// SummarizeLayouts builds the summary; the variants are those of the
// first run of each family, in its order.
func SummarizeLayouts(runs []LayoutRun) (*LayoutSummary, error) {
	var s LayoutSummary
	byFamily := map[string][]LayoutRun{}
	var families []string
	for _, r := range runs {
		if _, ok := byFamily[r.Family]; !ok {
			families = append(families, r.Family)
		}
		byFamily[r.Family] = append(byFamily[r.Family], r)
	}
	for _, f := range families {
		fs, err := summarizeFamily(f, byFamily[f])
		if err != nil {
			return nil, err
		}
		s.Families = append(s.Families, fs)
	}
	return &s, nil
}

func summarizeFamily(family string, runs []LayoutRun) (FamilySummary, error) {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b LayoutRun) int { return cmp.Compare(a.Event, b.Event) })
	fs := FamilySummary{Family: family}
	var names []string
	for _, row := range runs[0].Rows {
		names = append(names, row.Name)
	}
	type key struct{ template, event string }
	cells := map[key]*LayoutCell{}
	templates := map[string]bool{}
	rows := make([]map[string]optRowJSON, len(runs))
	for i, r := range runs {
		fs.Events = append(fs.Events, r.Event)
		rows[i] = map[string]optRowJSON{}
		for _, row := range r.Rows {
			rows[i][row.Name] = row
			for _, ts := range row.ByTemplate {
				templates[ts.Template] = true
				k := key{ts.Template, r.Event}
				c := cells[k]
				if c == nil {
					c = &LayoutCell{Template: ts.Template, Event: r.Event, R: ts.R, PrecisionAtR: map[string]float64{}}
					cells[k] = c
				}
				c.PrecisionAtR[row.Name] = ts.PrecisionAtR
			}
		}
		for _, n := range names {
			if _, ok := rows[i][n]; !ok {
				return fs, fmt.Errorf("layout summary: %s/%s has no row %q (every event needs the same --options)", family, r.Event, n)
			}
		}
	}
	for t := range templates {
		fs.Templates = append(fs.Templates, t)
	}
	slices.Sort(fs.Templates)
	for _, t := range fs.Templates {
		for _, e := range fs.Events {
			if c := cells[key{t, e}]; c != nil {
				fs.Cells = append(fs.Cells, *c)
			}
		}
	}
	oracle := -1
	fs.Listings = slices.Contains(names, UnfocusedListingsVariant)
	for _, n := range names {
		v := VariantSummary{Name: n}
		for i := range runs {
			row := rows[i][n]
			v.PrecisionAtR = append(v.PrecisionAtR, row.PrecisionAtR)
			v.RecallAtN = append(v.RecallAtN, row.RecallAtN)
			v.RankedP = append(v.RankedP, row.RankedPrecisionAtR)
			v.RankedR = append(v.RankedR, row.RankedRecallAtN)
			if def, ok := rows[i][DefaultVariant]; ok && n != DefaultVariant && row.PrecisionAtR < def.PrecisionAtR-LabelNoise {
				v.EventsBelowDefault = append(v.EventsBelowDefault, runs[i].Event)
			}
			if n != paperVariant && row.PrecisionAtR < rows[i][paperVariant].PrecisionAtR {
				v.EventsBelowPaper = append(v.EventsBelowPaper, runs[i].Event)
			}
		}
		v.MeanP, v.MeanR = mean(v.PrecisionAtR), mean(v.RecallAtN)
		v.RankedMeanP, v.RankedMeanR = mean(v.RankedP), mean(v.RankedR)
		if n == OracleVariant {
			oracle = len(fs.Variants)
		}
		fs.Variants = append(fs.Variants, v)
	}
	for i := range fs.Variants {
		v := &fs.Variants[i]
		baseline := isBaseline(v.Name)
		var ratios []float64
		for _, c := range fs.Cells {
			p := c.PrecisionAtR[v.Name]
			if o, ok := c.PrecisionAtR[OracleVariant]; ok && c.R >= MinCellR && o > 0 {
				ratios = append(ratios, p/o)
			}
			if baseline {
				continue
			}
			where := c.Template + "/" + c.Event
			if p < c.PrecisionAtR[paperVariant] {
				v.CellsBelowPaper = append(v.CellsBelowPaper, where)
			}
			if p < 2*c.PrecisionAtR[unfocusedVariant] {
				v.CellsBelow2xUnfocused = append(v.CellsBelow2xUnfocused, where)
			}
			if fs.Listings && p < 2*c.PrecisionAtR[UnfocusedListingsVariant] {
				v.CellsBelow2xUnfocusedListings = append(v.CellsBelow2xUnfocusedListings, where)
			}
		}
		if len(ratios) > 0 {
			v.CellsVsOracle = mean(ratios)
		}
		if oracle >= 0 && fs.Variants[oracle].MeanP > 0 {
			v.VsOracle = v.MeanP / fs.Variants[oracle].MeanP
			v.RankedVsOracle = v.RankedMeanP / fs.Variants[oracle].MeanP
		}
		for _, d := range fs.Variants {
			if d.Name == DefaultVariant && d.MeanP > 0 {
				v.VsDefault = v.MeanP / d.MeanP
			}
		}
	}
	return fs, nil
}

// isBaseline reports whether a variant is one the others are checked
// against (it is not checked itself).
func isBaseline(name string) bool {
	return name == paperVariant || name == unfocusedVariant || name == UnfocusedListingsVariant || name == OracleVariant
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Write prints the summary as markdown tables.
func (s *LayoutSummary) Write(w io.Writer) error {
	var b strings.Builder
	for _, f := range s.Families {
		fmt.Fprintf(&b, "## %s\n\nPrecision at R (recall at %d), per event; mean; mean P@R over the oracle's:\n\n", f.Family, RecallCutoff)
		b.WriteString("| variant |")
		for _, e := range f.Events {
			fmt.Fprintf(&b, " %s |", e)
		}
		b.WriteString(" mean | vs oracle |\n|---|")
		b.WriteString(strings.Repeat("---|", len(f.Events)+2) + "\n")
		for _, v := range f.Variants {
			fmt.Fprintf(&b, "| %s |", v.Name)
			for i := range f.Events {
				fmt.Fprintf(&b, " %.3f (%.3f) |", v.PrecisionAtR[i], v.RecallAtN[i])
			}
			fmt.Fprintf(&b, " %.3f (%.3f) | %.2f |\n", v.MeanP, v.MeanR, v.VsOracle)
		}
		if f.hasResearcher() {
			f.writeResearcher(&b)
		}
		if len(f.Cells) > 0 {
			checked := "≥ 2× unfocused, ≥ ctf"
			if f.Listings {
				checked = "≥ 2× unfocused, ≥ 2× unfocused+listings (listing pages counted), ≥ ctf"
			}
			fmt.Fprintf(&b, "\nPrecision at R_t per template and event (R_t: the template's relevant labels; checks of each variant in the last columns: %s; `-` marks a failed check):\n\n| template | event | R_t |", checked)
			for _, v := range f.Variants {
				fmt.Fprintf(&b, " %s |", v.Name)
			}
			b.WriteString(" checks |\n|---|---|---|" + strings.Repeat("---|", len(f.Variants)+1) + "\n")
			for _, c := range f.Cells {
				fmt.Fprintf(&b, "| %s | %s | %d |", c.Template, c.Event, c.R)
				var checks []string
				for _, v := range f.Variants {
					p := c.PrecisionAtR[v.Name]
					fmt.Fprintf(&b, " %.3f |", p)
					if isBaseline(v.Name) {
						continue
					}
					mark := func(ok bool) string {
						if ok {
							return "ok"
						}
						return "-"
					}
					marks := []string{mark(p >= 2*c.PrecisionAtR[unfocusedVariant])}
					if f.Listings {
						marks = append(marks, mark(p >= 2*c.PrecisionAtR[UnfocusedListingsVariant]))
					}
					marks = append(marks, mark(p >= c.PrecisionAtR[paperVariant]))
					checks = append(checks, v.Name+" "+strings.Join(marks, "/"))
				}
				fmt.Fprintf(&b, " %s |\n", strings.Join(checks, ", "))
			}
		}
		b.WriteString("\n")
		for _, v := range f.Variants {
			if isBaseline(v.Name) {
				continue
			}
			fmt.Fprintf(&b, "- %s: mean P@R %.3f = %.2f of the oracle", v.Name, v.MeanP, v.VsOracle)
			if len(f.Cells) > 0 {
				fmt.Fprintf(&b, " (%.2f over the cells with R_t ≥ %d); below 2× unfocused in %d of %d cells%s",
					v.CellsVsOracle, MinCellR, len(v.CellsBelow2xUnfocused), len(f.Cells), list(v.CellsBelow2xUnfocused))
				if f.Listings {
					fmt.Fprintf(&b, "; below 2× unfocused+listings in %d of %d cells%s",
						len(v.CellsBelow2xUnfocusedListings), len(f.Cells), list(v.CellsBelow2xUnfocusedListings))
				}
				fmt.Fprintf(&b, "; below ctf in %d cells%s", len(v.CellsBelowPaper), list(v.CellsBelowPaper))
			}
			fmt.Fprintf(&b, "; below ctf on %d of %d events%s\n", len(v.EventsBelowPaper), len(f.Events), list(v.EventsBelowPaper))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func list(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return " (" + strings.Join(xs, ", ") + ")"
}

// hasResearcher reports whether the family has simulated researcher rows.
func (f *FamilySummary) hasResearcher() bool {
	for _, v := range f.Variants {
		if strings.HasPrefix(v.Name, "labels-") {
			return true
		}
	}
	return false
}

// writeResearcher prints the simulated researcher's tables: each row in
// crawl order and in the ranked view, against the default and the oracle.
func (f *FamilySummary) writeResearcher(b *strings.Builder) {
	fmt.Fprintf(b, "\nSimulated researcher (labels-L@N: the default to N documents, then refreshed to the target with the true labels of its L documents of highest relevance; labels-low-L@N: of lowest relevance; labels-spread-L@N: spread evenly over its ranking by relevance). "+
		"Crawl order, then the ranked view (the collection by relevance score; the oracle's in its own order), precision at R (recall at %d) per event; "+
		"mean; over the default's mean P@R; over the oracle's mean P@R (in the ranked view: over the oracle's in crawl order); events below the default by more than %.2f:\n\n", RecallCutoff, LabelNoise)
	b.WriteString("| variant | view |")
	for _, e := range f.Events {
		fmt.Fprintf(b, " %s |", e)
	}
	b.WriteString(" mean | vs default | vs oracle | below default |\n|---|---|")
	b.WriteString(strings.Repeat("---|", len(f.Events)+4) + "\n")
	var def *VariantSummary
	for i := range f.Variants {
		if f.Variants[i].Name == DefaultVariant {
			def = &f.Variants[i]
		}
	}
	for _, v := range f.Variants {
		if v.Name != DefaultVariant && v.Name != OracleVariant && !strings.HasPrefix(v.Name, "labels-") {
			continue
		}
		for _, view := range []string{"crawl", "ranked"} {
			p, r, mp, mr, vo := v.PrecisionAtR, v.RecallAtN, v.MeanP, v.MeanR, v.VsOracle
			vd, below := v.VsDefault, v.EventsBelowDefault
			if view == "ranked" {
				p, r, mp, mr, vo = v.RankedP, v.RankedR, v.RankedMeanP, v.RankedMeanR, v.RankedVsOracle
				vd, below = 0, nil
				if def != nil && def.RankedMeanP > 0 {
					vd = mp / def.RankedMeanP
				}
				for i, e := range f.Events {
					if def != nil && v.Name != DefaultVariant && p[i] < def.RankedP[i]-LabelNoise {
						below = append(below, e)
					}
				}
			}
			fmt.Fprintf(b, "| %s | %s |", v.Name, view)
			for i := range f.Events {
				fmt.Fprintf(b, " %.3f (%.3f) |", p[i], r[i])
			}
			fmt.Fprintf(b, " %.3f (%.3f) | %.2f | %.2f | %s |\n", mp, mr, vd, vo, strings.Join(below, ", "))
		}
	}
}
