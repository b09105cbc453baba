package replay

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/collection"
)

// ViewerEnv names the environment variable that gives the folder of
// ReplayWeb.page's ui.js and sw.js (the default of --viewer).
const ViewerEnv = "RECRAWL_REPLAYWEBPAGE"

// CacheDir is where scripts/install-replay-deps.sh installs the viewers:
// $RECRAWL_CACHE, else ~/.cache/recrawl.
func CacheDir() string {
	if d := os.Getenv("RECRAWL_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "recrawl")
}

// DefaultViewerDir is $RECRAWL_REPLAYWEBPAGE, else the package folder of
// the newest ReplayWeb.page in CacheDir ("" if none is installed).
func DefaultViewerDir() string {
	if d := os.Getenv(ViewerEnv); d != "" {
		return d
	}
	found, _ := filepath.Glob(filepath.Join(CacheDir(), "replaywebpage-*", "package", "sw.js"))
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found)
	return filepath.Dir(found[len(found)-1])
}

// CollectionFile is a run's WACZ.
const CollectionFile = collection.WACZFile

// WACZName is the name a run's collection is served under.
func WACZName(run string) string { return run + ".wacz" }

// evaluationRun is a run as the report folder's evaluation.json lists it.
type evaluationRun struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
}

// readEvaluation reads a report folder's evaluation.json: its runs and the
// event of its labels (eval --event; "" without).
func readEvaluation(reportDir string) ([]evaluationRun, string, error) {
	path := filepath.Join(reportDir, "evaluation.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var sum struct {
		Runs   []evaluationRun `json:"runs"`
		Labels *struct {
			Event string `json:"event"`
		} `json:"labels"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	event := ""
	if sum.Labels != nil {
		event = sum.Labels.Event
	}
	return sum.Runs, event, nil
}

// ReportCollections reads a report folder's evaluation.json and returns
// the served name (WACZName) and collection.wacz of each run that has one.
// Relative run folders are taken from the current directory, as eval was
// given them.
func ReportCollections(reportDir string) (map[string]string, error) {
	runs, _, err := readEvaluation(reportDir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var missing []string
	for _, r := range runs {
		w := filepath.Join(r.Dir, CollectionFile)
		if _, err := os.Stat(w); err != nil {
			missing = append(missing, r.Name+" ("+w+")")
			continue
		}
		out[WACZName(r.Name)] = w
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no run has a collection.wacz: %s", filepath.Join(reportDir, "evaluation.json"), strings.Join(missing, ", "))
	}
	return out, nil
}

// ReportLabels returns the labels options of a served report folder: the
// URLs of the documents of every run its evaluation.json lists (each run's
// documents.jsonl), the given labels file (default labels.tsv in the
// folder) and event (default the event eval's labels were read for, else
// none).
func ReportLabels(reportDir, path, event string) (*LabelsOptions, error) {
	runs, evalEvent, err := readEvaluation(reportDir)
	if err != nil {
		return nil, err
	}
	o := &LabelsOptions{Path: path, Event: event}
	if o.Path == "" {
		o.Path = filepath.Join(reportDir, "labels.tsv")
	}
	if o.Event == "" {
		o.Event = evalEvent
	}
	seen := map[string]bool{}
	for _, r := range runs {
		path := filepath.Join(r.Dir, collection.DocumentsFile)
		err := collection.EachDocument(path, func(_ int, d *collection.Document) error {
			if !seen[d.URL] {
				seen[d.URL] = true
				o.Documents = append(o.Documents, d.URL)
			}
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			slog.Warn("a run without documents.jsonl: its documents cannot be labelled", "run", r.Name, "path", path)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.Name, err)
		}
	}
	return o, nil
}

// Command implements
//
//	recrawl serve --report DIR [--addr 127.0.0.1:8090] [--viewer DIR] [--labels FILE] [--event NAME]
//
// It serves the report folder written by eval and every run's
// collection.wacz named in its evaluation.json, keeps the marks made on
// the report in the labels file, prints the report's address, and serves
// until ctx ends (Ctrl-C).
func Command(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	report := fs.String("report", "", "the report folder written by eval (report.html, evaluation.json)")
	addr := fs.String("addr", "127.0.0.1:8090", "loopback address to serve on (port 0: any free port)")
	viewer := fs.String("viewer", DefaultViewerDir(), "folder with ReplayWeb.page's ui.js and sw.js (default $"+ViewerEnv+", else the one scripts/install-replay-deps.sh installed)")
	labels := fs.String("labels", "", "the labels file the report's marks are written to, kept in the format eval --labels reads (default DIR/labels.tsv)")
	event := fs.String("event", "", "the event column of the marks (default the --event eval's labels were read for, else none: -)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: recrawl serve --report DIR [flags]\n(serves eval's report; its documents open in ReplayWeb.page)\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.SetOutput(os.Stderr)
	if err := cli.Parse(fs, args); err != nil {
		return err // the flag package printed the error and the usage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if *report == "" {
		return fmt.Errorf("serve: flag --report is required")
	}
	if *viewer == "" {
		return fmt.Errorf("serve: no ReplayWeb.page found in %s: run scripts/install-replay-deps.sh, or give --viewer", CacheDir())
	}
	colls, err := ReportCollections(*report)
	if err != nil {
		return fmt.Errorf("serve: flag --report: %w", err)
	}
	lo, err := ReportLabels(*report, *labels, *event)
	if err != nil {
		return fmt.Errorf("serve: flag --report: %w", err)
	}
	s, err := Start(Options{Addr: *addr, ViewerDir: *viewer, ReportDir: *report, WACZ: colls, Labels: lo})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer s.Close()
	names := make([]string, 0, len(colls))
	for n := range colls {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(stdout, "serving %s and the collections %s\nmarks on the report go to %s\nopen %s/report.html (Ctrl-C stops)\n", *report, strings.Join(names, ", "), lo.Path, s.URL)
	<-ctx.Done()
	return nil
}
