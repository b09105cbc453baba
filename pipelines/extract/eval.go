package extract

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/recrawl/recrawl/internal/cli"
	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/specs"
)

// evalCommand runs `recrawl eval`: the paper's evaluation of finished runs
// (internal/evaluate). For Table 3 and --options it re-runs extractions.
// One flag set holds the evaluation's flags and, after them, those that say
// how to extract (--index, --archive, --engine, --target_size, …, and
// Beam's): where both define a name (--spec, --labels) the evaluation's
// wins.
func evalCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	eval := evaluate.DefineFlags(fs)
	own := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) { own.Var(f.Value, f.Name, f.Usage) })
	cli.Own(fs, productFlags)
	cli.Own(fs, flag.CommandLine)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		cli.Print(os.Stderr, "usage: recrawl "+evaluate.Usage, own, fs,
			"Flags of the extractions it runs (--table3, --options), then Beam's:")
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	cli.SetLogLevel(fs, *verbose)
	if fs.NArg() > 0 {
		return fmt.Errorf("eval: unexpected argument %q", fs.Arg(0))
	}
	for _, d := range cli.Deprecated(fs) {
		fmt.Fprintln(os.Stderr, d)
	}
	base := optionsFromFlags()
	if err := checkOptions(base); err != nil { // the extraction flags, before the evaluation starts
		return fmt.Errorf("eval: %w", err)
	}
	extractor := func(ctx context.Context, specPath string, ov evaluate.Overrides, outDir string) error {
		o := base
		o.spec, o.output, o.work = specPath, outDir, ""
		o.quiet = true
		if ov.Strategy != "" {
			o.strategy = ov.Strategy
		}
		if ov.TargetSize > 0 {
			o.targetSize = ov.TargetSize
		}
		o.refresh, o.labels = ov.Refresh, ov.LabelsFile
		o.adjust = func(s *specs.Spec) {
			if ov.FixedHalfLife > 0 {
				s.LeadTime = specs.DurationOf(ov.FixedHalfLife)
				s.CooldownTime = specs.DurationOf(ov.FixedHalfLife)
			}
			if ov.NoKeywords {
				s.Keywords = nil
			}
			if v, ok := evaluate.FocusVariantByName(ov.Variant); ok && v.Apply != nil {
				v.Apply(s)
			}
		}
		o.flags = map[string]string{"eval": ov.String()}
		return extractRun(ctx, o)
	}
	o, err := eval(extractor)
	if err != nil || *checkFlag {
		return err
	}
	return evaluate.Execute(ctx, o, extractor)
}
