// Command evalsummary prints one table from the options comparisons
// (`extract eval --options`) of several events and archive layouts: per
// variant the mean precision at R and recall at 200 and the ratio to the
// label oracle, and per site template and event the cells with the checks
// (at least 2× the unfocused crawl, not below the paper's ctf).
// scripts/eval-layouts.sh runs it.
//
// Usage:
//
//	evalsummary FAMILY=EVALUATION.JSON[,EVALUATION.JSON…] …
//
// e.g. evalsummary templates=a/evaluation.json,b/evaluation.json classic=c/evaluation.json
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/recrawl/recrawl/internal/evaluate"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "evalsummary:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: evalsummary FAMILY=EVALUATION.JSON[,EVALUATION.JSON…] …")
	}
	var runs []evaluate.LayoutRun
	for _, a := range args {
		family, files, ok := strings.Cut(a, "=")
		if !ok || family == "" || files == "" {
			return fmt.Errorf("argument %q: want FAMILY=EVALUATION.JSON[,…]", a)
		}
		for _, f := range strings.Split(files, ",") {
			r, err := evaluate.ReadLayoutRun(family, f)
			if err != nil {
				return err
			}
			runs = append(runs, r)
		}
	}
	s, err := evaluate.SummarizeLayouts(runs)
	if err != nil {
		return err
	}
	return s.Write(os.Stdout)
}
