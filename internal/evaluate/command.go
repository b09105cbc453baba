package evaluate

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/replay"
	"github.com/recrawl/recrawl/internal/report"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/specs"
)

// Output files of the eval command in the report directory.
const (
	ReportFile        = "report.html"
	SummaryFile       = "evaluation.json"
	AccumulatedPlot   = "accumulated_relevance" // .svg and .png
	FoundPlot         = "relevant_found"        // .svg and .png
	Table3Dir         = "table3"
	defaultFixedDecay = "P30D"
)

// Options are the eval command's settings.
type Options struct {
	Runs          []string // directories, each optionally "name=dir"
	Labels        string
	Event         string
	ReportDir     string
	Table3        bool
	Specs         []string
	FixedHalfLife time.Duration
	Top           int // documents per run in the report
	TopMissing    int // missing URLs per run in the report
	Generated     string
	// ReplayBase links each document of the report to its capture in a
	// wayback service (pywb's BASE/TIMESTAMP/URL); "" for no links.
	ReplayBase string
	// Options runs the options comparison (FocusVariants; "all" or names)
	// on the one spec of Specs; nil: not run.
	Options []string
}

// EvalCommand implements
//
//	eval --runs OUT_ctf,OUT_cf,OUT_tf,OUT_unfocused [--labels FILE] [--event NAME]
//	     --report DIR [--table3 --spec SPEC[,SPEC…]] [--fixed_half_life P30D]
//
// It reads the runs, computes their metrics, writes the plots (SVG and PNG),
// evaluation.json and report.html to DIR, and with --table3 first runs the
// Table 3 extractions through extractor into DIR/table3. A run may be given
// as NAME=DIR to name it; by default it is named by the strategy in its
// run.json (else its directory's base name), and a repeated name gets the
// directory appended.
func EvalCommand(ctx context.Context, args []string, extractor Extractor) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	options := DefineFlags(fs)
	if err := fs.Parse(args); err != nil {
		var usage strings.Builder
		fs.SetOutput(&usage)
		fs.PrintDefaults()
		return fmt.Errorf("eval: %w\nusage: %s\n%s", err, Usage, usage.String())
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("eval: unexpected argument %q", fs.Arg(0))
	}
	o, err := options(extractor)
	if err != nil {
		return err
	}
	return Execute(ctx, o, extractor)
}

// Usage is the eval command's synopsis.
const Usage = "eval --runs DIR[,DIR…] --report DIR [--labels FILE --event NAME] [--table3 | --options VARIANTS] [flags]"

// DefineFlags defines the eval command's flags in fs (their old spellings
// --fixed-half-life and --top-missing as hidden aliases) and returns the
// function that, after fs is parsed, checks their values and turns them into
// Options; extractor is the one the options will run with (nil: none).
func DefineFlags(fs *flag.FlagSet) func(extractor Extractor) (Options, error) {
	runs := fs.String("runs", "", "comma-separated run output directories (each optionally NAME=DIR)")
	labels := fs.String("labels", "", "labels TSV file (url[, event], grade)")
	event := fs.String("event", "", "only labels of this event are relevant")
	reportDir := fs.String("report", "", "directory for report.html, plots and evaluation.json")
	table3 := fs.Bool("table3", false, "run and report the Table 3 experiments (needs --spec)")
	spec := fs.String("spec", "", "comma-separated specification files for --table3 or --options")
	fixed := fs.String("fixed_half_life", defaultFixedDecay, "the fixed decay half-life for --table3 (ISO-8601, e.g. P30D)")
	top := fs.Int("top", 20, "documents per run in the report: its N of highest topic_r and its N of highest relevance score")
	topMissing := fs.Int("top_missing", 50, "missing URLs per run in the report")
	replayBase := fs.String("replay_base", "", "link each document in report.html to its capture in this wayback service (pywb URL scheme BASE/TIMESTAMP/URL, e.g. http://localhost:8080/coll/); default: to ReplayWeb.page as \"extract serve --report DIR\" serves each run's collection.wacz")
	generated := fs.String("generated", "", "generation time to print in the report (default: none, for reproducible output)")
	options := fs.String("options", "", "run the focusing options comparison on --spec: all, or comma-separated variants ("+variantNames()+")")
	cli.Alias(fs, "fixed-half-life", "fixed_half_life")
	cli.Alias(fs, "top-missing", "top_missing")
	return func(extractor Extractor) (Options, error) {
		o := Options{Labels: *labels, Event: *event, ReportDir: *reportDir, Table3: *table3,
			Top: *top, TopMissing: *topMissing, Generated: *generated, ReplayBase: *replayBase}
		o.Runs = storage.SplitList(*runs)
		o.Specs = storage.SplitList(*spec)
		if *options != "" {
			o.Options = storage.SplitList(*options)
			if _, err := selectVariants(o.Options); err != nil {
				return o, fmt.Errorf("eval: flag --options: %w", err)
			}
		}
		switch {
		case o.Options != nil && len(o.Specs) != 1:
			return o, fmt.Errorf("eval: flag --options: needs exactly one --spec")
		case o.Options != nil && (o.Labels == "" || o.Event == ""):
			return o, fmt.Errorf("eval: flag --options: needs --labels and --event (precision and recall need them)")
		case o.Options != nil && extractor == nil:
			return o, fmt.Errorf("eval: flag --options: no extractor available")
		case len(o.Runs) == 0 && o.Options == nil:
			return o, fmt.Errorf("eval: flag --runs: at least one run directory is required (or --options)")
		case o.ReportDir == "":
			return o, fmt.Errorf("eval: flag --report: a report directory is required")
		case o.Event != "" && o.Labels == "":
			return o, fmt.Errorf("eval: flag --event: needs --labels")
		case o.Table3 && len(o.Specs) == 0:
			return o, fmt.Errorf("eval: flag --table3: needs --spec")
		case !o.Table3 && o.Options == nil && len(o.Specs) > 0:
			return o, fmt.Errorf("eval: flag --spec: only used with --table3 or --options")
		case o.Top < 0:
			return o, fmt.Errorf("eval: flag --top: %d is negative", o.Top)
		case o.TopMissing < 0:
			return o, fmt.Errorf("eval: flag --top_missing: %d is negative", o.TopMissing)
		}
		if o.Table3 {
			d, err := specs.ParseDuration(*fixed)
			if err != nil {
				return o, fmt.Errorf("eval: flag --fixed_half_life: %w", err)
			}
			if o.FixedHalfLife = d.Duration(); o.FixedHalfLife <= 0 {
				return o, fmt.Errorf("eval: flag --fixed_half_life: %q is not positive", *fixed)
			}
			if extractor == nil {
				return o, fmt.Errorf("eval: flag --table3: no extractor available")
			}
		}
		return o, nil
	}
}

// Execute carries out the eval command with parsed options.
func Execute(ctx context.Context, o Options, extractor Extractor) error {
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return fmt.Errorf("eval: flag --report: %w", err)
	}
	var labels *Labels
	var err error
	if o.Labels != "" {
		if labels, err = ReadLabels(o.Labels, o.Event); err != nil {
			return fmt.Errorf("eval: flag --labels: %w", err)
		}
	}
	var opts *OptionsTable
	if o.Options != nil {
		if opts, err = RunOptions(ctx, extractor, o.Specs[0], labels, filepath.Join(o.ReportDir, OptionsDir), o.Options); err != nil {
			return err
		}
		if len(o.Runs) == 0 { // the report's runs are the variants' (the oracle's graph crawl is no collection)
			for _, r := range opts.Rows {
				if r.Name != OracleVariant {
					o.Runs = append(o.Runs, filepath.Join(o.ReportDir, OptionsDir, r.Name))
				}
			}
		}
	}
	runs, err := readRuns(o.Runs)
	if err != nil {
		return err
	}
	ev, err := Evaluate(runs, labels)
	if err != nil {
		return err
	}
	var t3 *Table3
	if o.Table3 {
		if t3, err = RunTable3(ctx, extractor, o.Specs, filepath.Join(o.ReportDir, Table3Dir), o.FixedHalfLife); err != nil {
			return err
		}
	}
	title := "Collection evaluation"
	if n := runs[0].Spec.Name; n != "" {
		title = "Collection evaluation: " + n
	}
	var plots []report.Plot
	fig1 := ev.AccumulatedChart("Accumulated relevance")
	svg, err := fig1.WriteFiles(o.ReportDir, AccumulatedPlot)
	if err != nil {
		return err
	}
	plots = append(plots, report.Plot{Title: fig1.Title, SVG: svg,
		Caption: "Accumulated relevance (running sum of topic_r, the C-F relevance of each document) against the number of documents extracted, one curve per run (the paper's Figure 1).",
		Files:   []string{AccumulatedPlot + ".svg", AccumulatedPlot + ".png"}})
	if fc, ok := ev.FoundChart("Relevant URLs found"); ok {
		svg, err := fc.WriteFiles(o.ReportDir, FoundPlot)
		if err != nil {
			return err
		}
		plots = append(plots, report.Plot{Title: fc.Title, SVG: svg,
			Caption: "Distinct labelled-relevant URLs (grade > 0) among the documents extracted so far.",
			Files:   []string{FoundPlot + ".svg", FoundPlot + ".png"}})
	}
	page := BuildPage(ev, t3, plots, o)
	page.Options = optionsSection(opts)
	page.Title = title
	if err := report.WriteFile(filepath.Join(o.ReportDir, ReportFile), page); err != nil {
		return err
	}
	if err := writeSummary(filepath.Join(o.ReportDir, SummaryFile), ev, t3, opts); err != nil {
		return err
	}
	for _, m := range ev.Metrics {
		slog.Info("run evaluated", "run", m.Name, "documents", m.Documents, "accumulated_relevance", m.Total,
			"urls_considered", m.URLsConsidered, "missing", m.Missing)
	}
	slog.Info("report written", "path", filepath.Join(o.ReportDir, ReportFile))
	return nil
}

// readRuns reads the --runs directories and gives them unique names.
func readRuns(list []string) ([]*Run, error) {
	var runs []*Run
	used := map[string]bool{}
	for _, item := range list {
		name, dir := "", item
		if i := strings.Index(item, "="); i > 0 {
			if _, err := os.Stat(item); err != nil { // a directory may contain '='
				name, dir = item[:i], item[i+1:]
			}
		}
		r, err := ReadRun(dir)
		if err != nil {
			return nil, fmt.Errorf("eval: flag --runs: %w", err)
		}
		if name != "" {
			r.Name = name
		}
		if used[r.Name] {
			if name != "" {
				return nil, fmt.Errorf("eval: flag --runs: name %q given twice", name)
			}
			r.Name = r.Name + " (" + filepath.Base(filepath.Clean(dir)) + ")"
			for k := 2; used[r.Name]; k++ {
				r.Name = fmt.Sprintf("%s (%s #%d)", r.Info.Strategy, filepath.Base(filepath.Clean(dir)), k)
			}
		}
		used[r.Name] = true
		runs = append(runs, r)
	}
	return runs, nil
}

// BuildPage turns an evaluation into the report's display values. The
// specification shown is the first run's (the runs are meant to share it);
// the strategies listed are every run's.
func BuildPage(ev *Evaluation, t3 *Table3, plots []report.Plot, o Options) *report.Page {
	p := &report.Page{Title: "Collection evaluation", Generated: o.Generated, CommonN: ev.CommonN, Plots: plots}
	p.Archives = ArchiveShares(ev.Runs)
	s := ev.Runs[0].Spec
	p.Spec = report.Spec{Name: s.Name, Description: s.Description, EventStart: s.Event.Start, EventEnd: s.Event.End,
		LeadTime: s.LeadTime, Cooldown: s.CooldownTime, Keywords: s.KeywordList(), Seeds: len(s.Seeds),
		SeedsFromReferences: len(s.Seeds) == 0, References: len(s.References), Alpha: s.Alpha,
		TargetSize: s.TargetSize, BatchSize: s.BatchSize}
	seenStrategy := map[string]bool{}
	for _, r := range ev.Runs {
		if st := r.Info.Strategy; st != "" && !seenStrategy[st] {
			seenStrategy[st] = true
			p.Spec.Strategies = append(p.Spec.Strategies, st)
		}
	}
	if ev.Labels != nil {
		desc := fmt.Sprintf("Labels from %s: %d labelled URLs, R = %d relevant (grade > 0)", filepath.Base(ev.Labels.Path), len(ev.Labels.Items), ev.Labels.Relevant())
		if ev.Labels.Path == "" {
			desc = fmt.Sprintf("%d labelled URLs, R = %d relevant (grade > 0)", len(ev.Labels.Items), ev.Labels.Relevant())
		}
		if ev.Labels.Event != "" {
			desc += ", event " + ev.Labels.Event
		}
		p.Labels = desc + "."
		if len(ev.Metrics) > 0 {
			for _, a := range ev.Metrics[0].Labels.At {
				p.Cutoffs = append(p.Cutoffs, a.Label)
			}
		}
	}
	for i, m := range ev.Metrics {
		r := ev.Runs[i]
		row := report.Run{Name: m.Name, Strategy: m.Strategy, Dir: r.Dir, Documents: m.Documents, Total: m.Total,
			Mean: m.Mean, Area: m.Area, AreaCommon: m.AreaCommon, URLsConsidered: m.URLsConsidered,
			RatioVsUnfocused: m.RatioVsUnfocused, Missing: m.Missing, Rounds: m.Rounds,
			Starvation: r.Info.Totals.Starvation}
		if m.Labels != nil {
			for _, a := range m.Labels.At {
				row.At = append(row.At, report.AtN{Precision: a.Precision, Recall: a.Recall, NDCG: a.NDCG, Short: a.Short})
			}
		}
		p.Runs = append(p.Runs, row)
		d := report.Detail{Name: m.Name, TopN: o.Top, MissingTotal: m.Missing}
		// Without a wayback service, a run with a collection.wacz links
		// its documents to ReplayWeb.page as "extract serve" serves it.
		_, werr := os.Stat(filepath.Join(r.Dir, replay.CollectionFile))
		viewLinks := o.ReplayBase == "" && werr == nil
		if viewLinks {
			// The note names no path: the same runs give the same report
			// bytes wherever the report is written.
			p.ReplayNote = "Each linked URL opens the archived page in ReplayWeb.page when this report is served by " +
				"\"extract serve --report DIR\", DIR being this report's folder (the links are relative: they do not open " +
				"from the file itself)."
		}
		for _, doc := range ReportDocuments(r.Documents, o.Top) {
			replayURL := report.WaybackURL(o.ReplayBase, doc.Timestamp, doc.URL)
			if viewLinks {
				replayURL = replay.ViewLink(replay.WACZName(m.Name), doc.Timestamp, doc.URL)
			}
			row := report.TopDocument{Document: doc, ReplayURL: replayURL}
			if ev.Labels != nil {
				row.Grade = "–"
				if idx, g := ev.Labels.Lookup(&doc); idx >= 0 {
					row.Grade = strconv.FormatFloat(g, 'f', -1, 64)
				}
			}
			d.Top = append(d.Top, row)
		}
		d.Missing = TopMissing(r.Missing, o.TopMissing)
		for _, rc := range m.MissingByReason {
			d.Reasons = append(d.Reasons, report.ReasonCount{Code: rc.Code, Count: rc.Count})
		}
		p.Details = append(p.Details, d)
	}
	if t3 != nil {
		rt := &report.Table3{FixedHalfLife: formatHalfLife(t3.FixedHalfLife), Average: t3.Average}
		for _, c := range Table3Columns {
			rt.Columns = append(rt.Columns, fmt.Sprintf("%s, %s", c.Factor, strings.ToUpper(c.Strategy)))
		}
		for _, row := range t3.Rows {
			rr := report.Table3Row{Event: row.Event}
			for _, c := range row.Cells {
				rr.Cells = append(rr.Cells, report.Table3Cell{Ratio: c.Ratio, RatioCommon: c.RatioCommon, With: c.With,
					Without: c.Without, WithDocs: c.WithDocs, WoDocs: c.WithoutDocs, Note: c.Note})
			}
			rt.Rows = append(rt.Rows, rr)
		}
		p.Table3 = rt
	}
	return p
}

// summary is evaluation.json: the numbers of the report for scripts. NaN
// becomes null.
type summary struct {
	CommonN int          `json:"common_n"`
	Labels  *labelsInfo  `json:"labels,omitempty"`
	Runs    []runSummary `json:"runs"`
	Table3  *t3Summary   `json:"table3,omitempty"`
	Options *optSummary  `json:"options,omitempty"`
}

type labelsInfo struct {
	Path     string `json:"path"`
	Event    string `json:"event,omitempty"`
	Labelled int    `json:"labelled"`
	Relevant int    `json:"relevant"`
}

type runSummary struct {
	Name             string         `json:"name"`
	Dir              string         `json:"dir"`
	Strategy         string         `json:"strategy"`
	Documents        int            `json:"documents"`
	Accumulated      float64        `json:"accumulated_relevance"`
	Area             float64        `json:"area"`
	AreaCommon       float64        `json:"area_common"`
	URLsConsidered   int            `json:"urls_considered"`
	RatioVsUnfocused *float64       `json:"ratio_vs_unfocused"`
	Missing          int            `json:"missing"`
	MissingByReason  map[string]int `json:"missing_by_reason"`
	AtN              []atNSummary   `json:"at_n,omitempty"`
}

type atNSummary struct {
	N         int     `json:"n"`
	Label     string  `json:"label"`
	Found     int     `json:"found"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	NDCG      float64 `json:"ndcg"`
}

type t3Summary struct {
	FixedHalfLifeHours float64    `json:"fixed_half_life_hours"`
	Columns            []string   `json:"columns"`
	Rows               []t3Row    `json:"rows"`
	Average            []*float64 `json:"average"`
}

type t3Row struct {
	Event string   `json:"event"`
	Spec  string   `json:"spec"`
	Cells []t3Cell `json:"cells"`
}

type t3Cell struct {
	Factor      string   `json:"factor"`
	Strategy    string   `json:"strategy"`
	With        float64  `json:"with"`
	Without     float64  `json:"without"`
	Ratio       *float64 `json:"ratio"`
	RatioCommon *float64 `json:"ratio_common"`
	Note        string   `json:"note,omitempty"`
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func writeSummary(path string, ev *Evaluation, t3 *Table3, opts *OptionsTable) error {
	s := summary{CommonN: ev.CommonN, Options: optionsSummary(opts)}
	if ev.Labels != nil {
		s.Labels = &labelsInfo{Path: ev.Labels.Path, Event: ev.Labels.Event, Labelled: len(ev.Labels.Items), Relevant: ev.Labels.Relevant()}
	}
	for i, m := range ev.Metrics {
		rs := runSummary{Name: m.Name, Dir: ev.Runs[i].Dir, Strategy: m.Strategy, Documents: m.Documents, Accumulated: m.Total,
			Area: m.Area, AreaCommon: m.AreaCommon, URLsConsidered: m.URLsConsidered,
			RatioVsUnfocused: finite(m.RatioVsUnfocused), Missing: m.Missing, MissingByReason: map[string]int{}}
		for _, rc := range m.MissingByReason {
			rs.MissingByReason[rc.Code] = rc.Count
		}
		if m.Labels != nil {
			for _, a := range m.Labels.At {
				rs.AtN = append(rs.AtN, atNSummary{N: a.N, Label: a.Label, Found: a.Found, Precision: a.Precision, Recall: a.Recall, NDCG: a.NDCG})
			}
		}
		s.Runs = append(s.Runs, rs)
	}
	if t3 != nil {
		ts := &t3Summary{FixedHalfLifeHours: t3.FixedHalfLife.Hours()}
		for _, c := range Table3Columns {
			ts.Columns = append(ts.Columns, c.Factor+"/"+c.Strategy)
		}
		for _, row := range t3.Rows {
			r := t3Row{Event: row.Event, Spec: row.Spec}
			for _, c := range row.Cells {
				r.Cells = append(r.Cells, t3Cell{Factor: c.Factor, Strategy: c.Strategy, With: c.With, Without: c.Without,
					Ratio: finite(c.Ratio), RatioCommon: finite(c.RatioCommon), Note: c.Note})
			}
			ts.Rows = append(ts.Rows, r)
		}
		for _, a := range t3.Average {
			ts.Average = append(ts.Average, finite(a))
		}
		s.Table3 = ts
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write evaluation summary: %w", err)
	}
	return nil
}

// formatHalfLife writes a half-life as ISO-8601 days when it is whole days
// (as specifications write it), else as a Go duration.
func formatHalfLife(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("P%dD", d/(24*time.Hour))
	}
	return d.String()
}
