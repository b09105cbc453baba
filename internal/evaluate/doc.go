// Package evaluate measures extraction runs as the paper's evaluation does
// (Gossen et al., TPDL 2017, §7; method.md §4) and writes the report.
//
// Input is one or more extraction output directories, read by ReadRun with
// errors that name the file, the line and the field, and optionally a labels
// file of graded relevance judgements (ReadLabels). The measures: accumulated
// relevance (the paper's Figure 1: the running sum of each document's C-F
// relevance, the same scale for every strategy) and the area under it; URLs
// considered and missing (Table 2); with labels, precision, recall and nDCG
// at n; the effect of the temporal parameters and keywords (Table 3,
// RunTable3); and the comparison of the focusing options against the paper's
// method, the unfocused crawls and a label oracle (options.go, oracle.go,
// layouts.go).
//
// EvalCommand (the eval subcommand) writes the plots, evaluation.json and
// report.html (internal/report). All output is deterministic. The choices
// behind each measure are in docs/scoring.md.
package evaluate
