package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/recrawl/recrawl/internal/evaluate"
	"github.com/recrawl/recrawl/specs"
)

// evalCommand runs `extract eval`: the paper's evaluation of finished runs
// (internal/evaluate). For Table 3 it re-runs extractions; the flags that say
// how to extract (--index, --archive, --engine, --target_size, …) are taken
// out of the arguments here and the rest goes to the evaluation.
func evalCommand(ctx context.Context, args []string) error {
	extractArgs, evalArgs := splitArgs(args, flag.CommandLine)
	if err := flag.CommandLine.Parse(extractArgs); err != nil {
		return err
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
	return evaluate.EvalCommand(ctx, evalArgs, extractor)
}

// evalFlags are the evaluation's own flags; they win over flags of the same
// name elsewhere (Beam defines --labels, the extraction --spec).
var evalFlags = map[string]bool{"runs": true, "labels": true, "event": true, "report": true, "table3": true,
	"spec": true, "fixed-half-life": true, "top": true, "top-missing": true, "generated": true, "options": true}

// splitArgs separates the flags defined in fs (with their values) from the
// evaluation's flags and other arguments.
func splitArgs(args []string, fs *flag.FlagSet) (known, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || name == "" {
			rest = append(rest, a)
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		if f == nil || evalFlags[name] {
			rest = append(rest, a)
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				rest = append(rest, args[i+1])
				i++
			}
			continue
		}
		known = append(known, a)
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && bf.IsBoolFlag()) && i+1 < len(args) {
			known = append(known, args[i+1])
			i++
		}
	}
	return known, rest
}
