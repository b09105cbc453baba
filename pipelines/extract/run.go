package extract

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/recrawl/recrawl/internal/buildinfo"
	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/linkgraph"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/storage"
	"github.com/recrawl/recrawl/internal/wacz"
	"github.com/recrawl/recrawl/internal/worklock"
	"github.com/recrawl/recrawl/pipelines/extract/engine"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

// productFlags are the extraction's own flags; main defines them on the
// command line too, beside Beam's (the help lists them first).
var productFlags = flag.NewFlagSet("extract", flag.ExitOnError)

var (
	specFlag     = productFlags.String("spec", "", "Collection Specification: YAML, JSON or the original authors' JSON format (required)")
	outputFlag   = productFlags.String("output", "", "output directory, local or gs:// (required)")
	workFlag     = productFlags.String("work", "", "state directory for resuming (default OUTPUT/.work)")
	engineFlag   = productFlags.String("engine", "beam", "beam (rounds as Beam pipelines) or sequential (the reference implementation, one URL at a time)")
	joinFlag     = productFlags.String("join", "lookup", "how a round resolves its URLs: lookup (batched index look-ups) or cogroup (CoGroupByKey join with the whole index)")
	dictFlag     = productFlags.String("dictionary", "", "IDF dictionary (term<TAB>idf) or document-frequency file for the default language, or a directory of df-LANG.tsv files for all languages (default: the spec's, else df-*.tsv next to the index)")
	strategyFlag = productFlags.String("strategy", "", "override the spec's strategy: ctf, cf, tf or unfocused")
	focusFlag    = productFlags.String("focus", "", "override the spec's focus preset: default or paper (the paper's CT-F: main-content links, each with its parent's relevance); sets outlinks and the focus options")
	targetFlag   = productFlags.Int("target_size", 0, "override the spec's target_size")
	batchFlag    = productFlags.Int("batch_size", 0, "override the spec's batch_size K (URLs per round)")
	alphaFlag    = productFlags.Float64("alpha", -1, "override the spec's alpha in [0, 1]")
	roundsFlag   = productFlags.Int("max_rounds", -1, "override the spec's max_rounds (0: no limit)")
	quietFlag    = productFlags.Bool("quiet", false, "no progress lines")
	missingFlag  = productFlags.String("on_missing_archive_file", extract.OnMissingFileStop, "when the index names a file that is in no --archive location: stop (the default: a wrong --archive shows at once) or count (the URL goes to missing.jsonl as archive-file-missing, with the file name, and the run goes on)")
	perJobFlag   = productFlags.Int("rounds_per_job", 1, "with --engine=beam: run this many consecutive rounds as one pipeline, so a runner pays one job start per N rounds (any N gives the same outputs; an interrupted run resumes from the last complete job)")
	checkFlag    = productFlags.Bool("check", false, cli.CheckUsage)
	refreshFlag  = productFlags.Bool("refresh", false, "continue the finished or interrupted extraction in --output (its --work) against the index as it is now: the frontier and the missing URLs are resolved again and the rounds go on to target_size (which may be raised); documents already collected are kept; exit 0 with nothing written when neither the index nor the settings changed")
	labelsFlag   = productFlags.String("labels_file", "", "with --refresh: the researcher's labels of documents of the collection, a TSV file of url[<TAB>event]<TAB>grade lines (grade > 0 relevant, 0 not relevant): they move the reference that ranks the links towards the relevant documents and away from the others, train the link model (learn_links) with their grades, and the frontier is ranked again with them; documents already collected keep their place and scores")

	indexFlag, archiveFlag, specRootFlag listFlag
)

func init() {
	productFlags.Var(&indexFlag, "index", "snapshot index: cdxj:FILE, zipnum:DIR or bigtable:PROJECT/INSTANCE/TABLE (required); for several archives, repeat it as NAME=SPEC, one per archive")
	productFlags.Var(&specRootFlag, "spec_root", "a folder the spec's reference document files and dictionary may be in besides the spec's own folder (repeatable)")
	productFlags.Var(&archiveFlag, "archive", "where the index's filenames are found: comma-separated local directories and gs:// prefixes, searched in order (required); for several archives, repeat it as NAME=LOCATIONS, one per --index NAME=SPEC")
}

// options are the settings of one extraction run: the command-line flags,
// or what `recrawl eval` asks for when it re-runs an extraction.
type options struct {
	spec, output, work                 string
	indexes, archives                  []string // --index and --archive values (sourcesFromFlags)
	engine, join, dictionary, strategy string
	focus                              string // --focus: a preset
	onMissingFile                      string // extract.OnMissingFile*
	targetSize, batchSize, maxRounds   int
	roundsPerJob                       int
	alpha                              float64
	quiet                              bool
	refresh                            bool   // --refresh
	labels                             string // --labels_file
	// beamLabels is the value of --labels, Beam's Dataflow job labels (a
	// JSON object), checked not to be a labels file given by mistake.
	beamLabels string
	flags      map[string]string // recorded in run.json
	// adjust changes the loaded spec (eval's Table 3 variants); may be nil.
	adjust func(*specs.Spec)
}

// optionsFromFlags reads the command line.
func optionsFromFlags() options {
	o := options{
		spec: *specFlag, indexes: indexFlag, archives: archiveFlag, output: *outputFlag, work: *workFlag,
		engine: *engineFlag, join: *joinFlag, dictionary: *dictFlag, strategy: *strategyFlag, focus: *focusFlag,
		onMissingFile: *missingFlag,
		targetSize:    *targetFlag, batchSize: *batchFlag, maxRounds: *roundsFlag, roundsPerJob: *perJobFlag, alpha: *alphaFlag, quiet: *quietFlag,
		refresh: *refreshFlag, labels: *labelsFlag, beamLabels: beamFlagValue("labels"),
		flags: map[string]string{},
	}
	flag.Visit(func(f *flag.Flag) { o.flags[f.Name] = f.Value.String() })
	return o
}

// beamFlagValue is the value of a flag of the command line that recrawl
// does not define (Beam's), "" when it is not defined.
func beamFlagValue(name string) string {
	if f := flag.CommandLine.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// applyOverrides sets the spec values given as flags and checks them.
func applyOverrides(s *specs.Spec, o options) error {
	if o.strategy != "" {
		if _, err := scoring.ParseStrategy(o.strategy); err != nil {
			return fmt.Errorf("--strategy: %w", err)
		}
		s.Strategy = specs.Strategy(o.strategy)
	}
	if o.focus != "" {
		if _, _, ok := specs.PresetValues(specs.Preset(o.focus)); !ok {
			return fmt.Errorf("--focus=%s: not one of %s, %s", o.focus, specs.PresetDefault, specs.PresetPaper)
		}
		s.UsePreset(specs.Preset(o.focus), nil)
	}
	if o.targetSize < 0 || o.batchSize < 0 {
		return errors.New("--target_size and --batch_size must be positive")
	}
	if o.targetSize > 0 {
		s.TargetSize = o.targetSize
	}
	if o.batchSize > 0 {
		if o.batchSize > extract.MaxBatchSize {
			return fmt.Errorf("--batch_size=%d: at most %d", o.batchSize, extract.MaxBatchSize)
		}
		s.BatchSize = o.batchSize
	}
	if o.alpha != -1 {
		if o.alpha < 0 || o.alpha > 1 {
			return fmt.Errorf("--alpha=%g: must be in [0, 1]", o.alpha)
		}
		s.Alpha = o.alpha
	}
	if o.maxRounds != -1 {
		if o.maxRounds < 0 {
			return fmt.Errorf("--max_rounds=%d: must be 0 (no limit) or more", o.maxRounds)
		}
		s.MaxRounds = o.maxRounds
	}
	if o.adjust != nil {
		o.adjust(s)
	}
	if err := s.Check(); err != nil { // before any pipeline: one line per problem, naming the field
		return fmt.Errorf("the specification with the command line's overrides: %w", err)
	}
	return nil
}

// attachDictionaries sets the job's IDF sources: the flag, the spec's
// dictionary, else the index pipeline's df-LANG.tsv files next to the index.
func attachDictionaries(ctx context.Context, job *extract.Job, flagValue string) error {
	switch {
	case flagValue != "":
		d, err := extract.DictionaryFlag(ctx, flagValue, job.Spec.DefaultLanguage)
		if err != nil {
			return err
		}
		job.Dictionaries = d
	case job.Spec.Dictionary != "":
		job.UseSpecDictionary()
	case !job.Named() && job.HasIndex():
		index := job.Sources[0].Index
		d, err := extract.FindDictionaries(ctx, index)
		if err != nil {
			return fmt.Errorf("dictionaries next to %s: %w", index, err)
		}
		job.Dictionaries = d
	case job.Named(): // several archives: their counts summed
		d, err := extract.FindSourceDictionaries(ctx, job.Sources)
		if err != nil {
			return err
		}
		job.SummedDictionaries = d
	}
	if len(job.Dictionaries) == 0 && len(job.SummedDictionaries) == 0 {
		slog.Warn("no IDF dictionary: every term has idf 1 (build one with recrawl index --dictionary)")
	}
	return nil
}

// resolveReferences reads the reference documents into the job.
func resolveReferences(ctx context.Context, job *extract.Job, idx lookup.Index) ([]extract.Reference, error) {
	needIndex := false
	for _, rd := range job.Spec.ReferenceDocuments {
		needIndex = needIndex || rd.URL != ""
	}
	if needIndex && idx == nil {
		return nil, errors.New("the spec has reference documents given by URL: --index and --archive are needed to read them")
	}
	f := job.NewFetcher()
	defer f.Close()
	refs, err := extract.ResolveReferences(ctx, job, idx, f)
	if err != nil {
		return nil, err
	}
	job.References = nil
	for _, r := range refs {
		job.References = append(job.References, r.Text)
	}
	return refs, nil
}

func run(ctx context.Context) error {
	if err := cli.CheckNoArgs(flag.Args()); err != nil {
		return err
	}
	if *checkFlag {
		return checkCommandLine(optionsFromFlags())
	}
	return extractRun(ctx, optionsFromFlags())
}

// checkCommandLine is --check: the checks extractRun makes before it takes
// its lock and, for the Beam engine, that every worker can reach every
// path. It reads the spec and nothing else: no index, archive or state.
func checkCommandLine(o options) error {
	job, err := newJob(o)
	if err != nil || o.engine == "sequential" {
		return err
	}
	rc, err := runners.FromFlags()
	if err != nil {
		return err
	}
	defer rc.Close()
	return rc.Validate(workerPaths(job, o))
}

// newJob checks the options, reads the spec with the command line's
// overrides and names the job's indexes and archives: all that is checked
// before a run takes its lock.
func newJob(o options) (*extract.Job, error) {
	for name, v := range map[string]string{"--spec": o.spec, "--index": strings.Join(o.indexes, ""), "--archive": strings.Join(o.archives, ""), "--output": o.output} {
		if v == "" {
			return nil, fmt.Errorf("%s is required (see recrawl extract --help)", name)
		}
	}
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	spec, err := specs.Load(o.spec, specRootFlag...)
	if err != nil {
		return nil, err
	}
	if err := applyOverrides(spec, o); err != nil {
		return nil, err
	}
	job := &extract.Job{Spec: spec, JoinMode: o.join, OnMissingFile: o.onMissingFile}
	if job.Sources, err = sourcesFromFlags(o.indexes, o.archives); err != nil {
		return nil, err
	}
	if err := checkArchives(job); err != nil {
		return nil, err
	}
	return job, nil
}

// workDir is the Beam engine's state directory: --work, else OUT/.work.
func (o options) workDir() string {
	if o.work == "" {
		return storage.Join(o.output, ".work")
	}
	return o.work
}

// workerPaths are the paths every worker of the Beam engine reads or
// writes, by flag, for runners.Config.Validate.
func workerPaths(job *extract.Job, o options) map[string]string {
	indexPaths, locations := archivePaths(job)
	return map[string]string{"--index": indexPaths, "--archive": locations, "--output": o.output, "--work": o.workDir()}
}

// extractRun runs one extraction and writes its outputs.
func extractRun(ctx context.Context, o options) error {
	started := time.Now()
	job, err := newJob(o)
	if err != nil {
		return err
	}
	// A job server that is not running fails here, before any state exists.
	var rc runners.Config
	if o.engine != "sequential" {
		if rc, err = runners.FromFlags(); err != nil {
			return err
		}
		if err := rc.CheckEndpoint(ctx); err != nil {
			return err
		}
	}
	// One run per output and work directory (the lock also refuses a file).
	// Taken once the spec and the flags are known to be valid, so that a
	// run refused for them writes nothing.
	release, err := worklock.Hold(ctx, os.Stderr, o.output, o.work)
	if err != nil {
		return fmt.Errorf("--output/--work: %w", err)
	}
	defer release()
	if err := attachDictionaries(ctx, job, o.dictionary); err != nil {
		return err
	}
	if err := checkDictionaries(job, o.dictionary); err != nil {
		return err
	}
	idx, err := job.OpenIndex(ctx)
	if err != nil {
		return err
	}
	defer idx.Close()
	var seeds []extract.Entry
	if o.refresh { // the seeds, references and gate are the extraction's
		if job, err = refreshedJob(ctx, job, o.workDir()); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "refreshing %s: target %d, index %s\n", job.Spec.Name, job.Spec.TargetSize, strings.Join(o.indexes, " "))
	} else {
		var refs []extract.Reference
		if seeds, refs, err = seedsAndReferences(ctx, job, idx); err != nil {
			return err
		}
		announce(job, o, len(seeds), len(refs))
	}
	eng, closeEngine, err := newEngine(ctx, job, o, idx, rc)
	if err != nil {
		return err
	}
	defer closeEngine()
	st, err := eng.Extract(ctx, job, seeds)
	switch {
	case errors.Is(err, engine.ErrAlreadyFinished):
		fmt.Printf("already finished: the outputs in %s are those of this run (state in %s); nothing to do\n", o.output, eng.(*engine.Beam).Work)
		return nil
	case errors.Is(err, engine.ErrNothingNew):
		fmt.Printf("refresh: nothing new: the index and the settings are those of the last run or refresh of %s; nothing written\n", o.output)
		return nil
	case errors.Is(err, engine.ErrDryRun):
		return nil
	case err != nil:
		return err
	}
	return finishRun(ctx, job, o, eng, st, time.Since(started))
}

// seedsAndReferences reads the reference documents, derives the seeds and
// calibrates the follow threshold (spec follow_threshold: auto).
func seedsAndReferences(ctx context.Context, job *extract.Job, idx lookup.Index) ([]extract.Entry, []extract.Reference, error) {
	refs, err := resolveReferences(ctx, job, idx)
	if err != nil {
		return nil, nil, err
	}
	seeds, err := extract.Seeds(job.Spec, refs)
	if err != nil {
		return nil, nil, err
	}
	if err := job.CalibrateGate(ctx, refs); err != nil {
		return nil, nil, err
	}
	if job.Gate != nil {
		slog.Info("follow_threshold calibrated", "threshold", job.Gate.Threshold, "th_cont", job.Gate.TopicR, "th_temp", job.Gate.TempR, "splits", len(job.Gate.Splits))
	}
	return seeds, refs, nil
}

// announce prints the run's first progress line (and logs it).
func announce(job *extract.Job, o options, seeds, refs int) {
	spec := job.Spec
	if !spec.Focus.IsPaper() {
		slog.Info("focusing beyond the paper", "options", spec.Focus.String())
	}
	fmt.Fprintf(os.Stderr, "extracting %s: engine %s, strategy %s, target %d, batch %d, %d seeds, %d reference documents\n",
		spec.Name, o.engine, spec.Strategy, spec.TargetSize, spec.BatchSize, seeds, refs)
	slog.Debug("extracting", "spec", spec.Name, "engine", o.engine, "strategy", spec.Strategy, "target_size", spec.TargetSize,
		"batch_size", spec.BatchSize, "seeds", seeds, "references", refs)
}

// newEngine picks the engine of --engine: the sequential one on idx, or
// Beam on rc (the runner of the command line), once every worker is known to
// reach every path. closeEngine releases what the engine holds (a worker
// binary built for the run).
func newEngine(ctx context.Context, job *extract.Job, o options, idx lookup.Index, rc runners.Config) (eng engine.Engine, closeEngine func(), err error) {
	if o.engine == "sequential" {
		return &engine.Sequential{Index: idx, Quiet: o.quiet}, func() {}, nil
	}
	// A finished run is not redone as long as its outputs are there.
	outputsInPlace, err := storage.Exists(ctx, storage.Join(o.output, collection.RunFile))
	if err != nil {
		return nil, nil, err
	}
	// Every worker must reach the index, the archive and the state.
	if err := rc.Validate(workerPaths(job, o)); err != nil {
		rc.Close()
		return nil, nil, err
	}
	indexState, err := IndexState(ctx, job.Sources)
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	beamEngine := &engine.Beam{Runner: &rc, Work: o.workDir(), RoundsPerJob: o.roundsPerJob, Quiet: o.quiet, OutputsInPlace: outputsInPlace, IndexState: indexState}
	if o.refresh {
		beamEngine.Refresh = &engine.Refresh{Index: o.indexes, IndexState: indexState, Now: time.Now(), Lookup: idx}
		if o.labels != "" {
			if beamEngine.Refresh.Labels, err = readRefreshLabels(o.labels); err != nil {
				rc.Close()
				return nil, nil, err
			}
		}
	}
	return beamEngine, func() { rc.Close() }, nil
}

// finishRun writes the outputs of a run whose rounds are done (the
// collection, run.json, collection.wacz, links.graphml), records that they
// are written and prints the run's summary.
func finishRun(ctx context.Context, job *extract.Job, o options, eng engine.Engine, st *engine.Run, took time.Duration) error {
	info, err := runInfo(job, st, o, took)
	if err != nil {
		return err
	}
	fetcher := job.NewFetcher()
	defer fetcher.Close()
	if err := writeOutputs(ctx, o.output, st.Results(), st.Rounds(), info, !job.Spec.Focus.CountListingPages, fetcher); err != nil {
		return err
	}
	if err := packageCollection(ctx, o.output, job.Spec); err != nil {
		return err
	}
	if err := eng.Finish(ctx); err != nil {
		return err
	}
	fmt.Println(st.Summary(o.output))
	if rs := st.Refreshes(); o.refresh && len(rs) > 0 {
		r := rs[len(rs)-1]
		fmt.Printf("refresh %d: %d documents added, %d missing URLs resolved again (index state %.12s)\n", r.Number, r.Added, r.ResolvedAgain, r.IndexState)
		if l := r.Labels; l != nil {
			fmt.Printf("refresh %d: labels %s: %d relevant, %d not relevant, %d not in the collection; %d frontier entries ranked again\n",
				r.Number, l.Path, l.Positive, l.Negative, l.NotInCollection, r.Reprioritised)
		}
	}
	if t := info.Totals; t.Starvation != "" {
		slog.Warn("starved: "+t.Starvation, "links", t.Links.Links, "new", t.Links.New, "not_followed", t.Links.NotFollowed)
	}
	return nil
}

// packageCollection writes OUT/collection.wacz (replayable in
// ReplayWeb.page) and OUT/links.graphml (for Gephi). Both need local files.
func packageCollection(ctx context.Context, out string, spec *specs.Spec) error {
	if storage.IsGCS(out) {
		slog.Info("collection.wacz and links.graphml are written for local outputs only", "output", out)
		return nil
	}
	// The creation time is the spec's event start, not the clock, so the
	// same run gives the same bytes.
	start, _ := spec.EventInterval()
	if err := wacz.Package(out, wacz.Options{Title: spec.Name, Description: spec.Description, Created: start}); err != nil {
		return fmt.Errorf("package collection: %w", err)
	}
	if err := linkgraph.WriteGraphML(out, false); err != nil {
		return fmt.Errorf("link graph: %w", err)
	}
	return nil
}

// indexPath is the storage path of an index spec (cdxj:FILE, zipnum:DIR);
// "" for Bigtable, which every worker reaches by its address.
func indexPath(text string) string {
	spec, err := lookup.ParseSpec(text)
	if err != nil {
		return ""
	}
	return spec.Path()
}

// runInfo builds run.json: the resolved spec, the flags given, the build
// (internal/buildinfo: what `recrawl version` prints) and totals.
func runInfo(job *extract.Job, st *engine.Run, o options, took time.Duration) (collection.RunInfo, error) {
	specJSON, err := json.Marshal(job.Spec)
	if err != nil {
		return collection.RunInfo{}, fmt.Errorf("encode spec: %w", err)
	}
	flags := o.flags
	versions := buildinfo.Read().Versions()
	archives, err := job.ArchiveUses(st.Results())
	if err != nil {
		return collection.RunInfo{}, err
	}
	return collection.RunInfo{
		Spec: specJSON, Strategy: string(job.Spec.Strategy), Engine: o.engine, Flags: flags, Versions: versions,
		Archives: archives, Gate: job.Gate,
		Totals: st.Totals(), Seconds: took.Seconds(), Refreshes: st.Refreshes(),
	}, nil
}
