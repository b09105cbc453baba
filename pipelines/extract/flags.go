package extract

import (
	"errors"
	"fmt"
	"strings"

	"github.com/recrawl/recrawl/internal/btindex"
	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/runners"
	"github.com/recrawl/recrawl/scoring"
	"github.com/recrawl/recrawl/specs"
)

// checkOptions checks every flag value of an extraction that can be checked
// without reading the spec: numbers, names, paths and flags that exclude
// each other. It runs before anything else, so a wrong value fails with one
// line naming the flag, before a lock, a log line or a pipeline.
func checkOptions(o options) error {
	checks := []error{
		cli.CheckAtLeast("--rounds_per_job", int64(o.roundsPerJob), 1),
		cli.CheckOneOf("--engine", o.engine, "beam", "sequential"),
		cli.CheckOneOf("--join", o.join, "lookup", "cogroup"),
		cli.CheckAtLeast("--target_size", int64(o.targetSize), 0),
		cli.CheckAtLeast("--batch_size", int64(o.batchSize), 0),
	}
	if o.onMissingFile != "" {
		checks = append(checks, cli.CheckOneOf("--on_missing_archive_file", o.onMissingFile, extract.OnMissingFileStop, extract.OnMissingFileCount))
	}
	if o.batchSize > extract.MaxBatchSize {
		checks = append(checks, fmt.Errorf("--batch_size=%d: at most %d", o.batchSize, extract.MaxBatchSize))
	}
	if o.alpha != -1 && (o.alpha < 0 || o.alpha > 1) {
		checks = append(checks, fmt.Errorf("--alpha=%g: must be in [0, 1]", o.alpha))
	}
	if o.maxRounds < -1 {
		checks = append(checks, fmt.Errorf("--max_rounds=%d: must be 0 (no limit) or more", o.maxRounds))
	}
	if o.strategy != "" {
		if _, err := scoring.ParseStrategy(o.strategy); err != nil {
			checks = append(checks, fmt.Errorf("--strategy=%s: %w", o.strategy, err))
		}
	}
	if o.focus != "" {
		if _, _, ok := specs.PresetValues(specs.Preset(o.focus)); !ok {
			checks = append(checks, fmt.Errorf("--focus=%s: not one of %s, %s", o.focus, specs.PresetDefault, specs.PresetPaper))
		}
	}
	if o.refresh && o.engine == "sequential" {
		checks = append(checks, errors.New("--refresh: only with --engine=beam (the sequential engine keeps no state to continue)"))
	}
	if o.labels != "" && !o.refresh {
		checks = append(checks, errors.New("--labels_file: only with --refresh (the labels are of a collection's documents: they steer the extraction's continuation)"))
	}
	if o.labels != "" {
		checks = append(checks, cli.CheckFile("--labels_file", o.labels))
	}
	if v := strings.TrimSpace(o.beamLabels); v != "" && !strings.HasPrefix(v, "{") {
		checks = append(checks, fmt.Errorf("--labels=%s: --labels is Beam's Dataflow job labels, a JSON object; a file of the researcher's labels is --labels_file", o.beamLabels))
	}
	if o.engine == "sequential" && o.roundsPerJob > 1 {
		checks = append(checks, fmt.Errorf("--rounds_per_job=%d: only with --engine=beam (the sequential engine runs no jobs)", o.roundsPerJob))
	}
	checks = append(checks,
		cli.CheckFile("--spec", o.spec),
		cli.CheckFileOrDir("--dictionary", o.dictionary),
		cli.CheckOutputDir("--output", o.output),
		cli.CheckOutputDir("--work", o.work))
	if _, err := runners.FromFlags(); err != nil { // --runner and the Beam flags it reads
		checks = append(checks, err)
	}
	for _, root := range specRootFlag {
		checks = append(checks, cli.CheckDir("--spec_root", root))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkArchives checks the job's indexes and archive locations as far as
// can be done without reading them: each index's form and local file, and
// that each local archive location is a directory.
func checkArchives(job *extract.Job) error {
	for _, s := range job.Sources {
		if s.Index != "" {
			if err := lookup.CheckSpec(s.Index); err != nil {
				return fmt.Errorf("--index: %w", err)
			}
		}
		for _, loc := range s.Archives {
			if err := cli.CheckDir("--archive", loc); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDictionaries checks that the job's local dictionary files exist,
// naming where each came from (the flag or the spec's dictionary field).
// Dictionaries stored in a Bigtable index or summed over the segments of an
// index built with --add (found by extract.FindDictionaries) are not files.
func checkDictionaries(job *extract.Job, flagValue string) error {
	from := "--dictionary"
	if flagValue == "" {
		from = "dictionary (the spec's field)"
	}
	for _, p := range job.Dictionaries {
		if btindex.IsDictionaryPath(p) || lookup.IsSegmentedDictionaryPath(p) { // stored in the Bigtable index, or summed over an index's segments
			continue
		}
		if err := cli.CheckFile(from, p); err != nil {
			return err
		}
	}
	return nil
}

// checkExplainFlags checks the flags of recrawl explain that can be checked
// before the spec is read.
func checkExplainFlags(args []string, spec, html, dictionary string, terms int, specRoots []string) error {
	checks := []error{
		cli.CheckNoArgs(args),
		cli.CheckFile("--spec", spec),
		cli.CheckFileOrDir("--dictionary", dictionary),
		cli.CheckAtLeast("--terms", int64(terms), 0),
	}
	if html != "-" {
		checks = append(checks, cli.CheckFile("--html", html))
	}
	for _, root := range specRoots {
		checks = append(checks, cli.CheckDir("--spec_root", root))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}
