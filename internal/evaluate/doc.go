// Package evaluate measures extraction runs as the paper's evaluation does
// (Gossen et al., TPDL 2017, §7; method.md §4) and writes the report.
//
// Input is one or more extraction output directories (documents.jsonl,
// missing.jsonl, rounds.jsonl, run.json), read by ReadRun with errors that
// name the file, the line and the field. Optionally a labels file of graded
// relevance judgements (ReadLabels).
//
// Measures and the choices behind them:
//
//   - Accumulated relevance (Figure 1): the running sum of topic_r over the
//     documents in collection order. topic_r is the C-F relevance computed
//     on the document itself, the same scale for every strategy, as the
//     paper evaluates ("The relevance of the extracted documents is computed
//     with the C-F relevance function"); the run's own relevance (TTR, or
//     TempR under T-F) would favour each strategy on its own measure.
//   - Area under that curve: the sum of the curve after 1..n documents.
//     Reported over each run's own length and over the first CommonN
//     documents (the shortest run), which is what is comparable: a longer
//     run always has more area.
//   - URLs considered (Table 2): run.json's totals.urls_considered, |seen| +
//     |frontier| at the end, and its ratio to the unfocused run's. Missing
//     URLs: the lines of missing.jsonl (run.json's total if the file is
//     absent), counted by reason code.
//   - With labels: precision at n (harvest rate) and recall at n for n in
//     10, 20, 50, 100, 200, 500 and R (the number of relevant labels, grade
//     > 0), with trec_eval's convention that a run shorter than n counts the
//     absent documents as not relevant; nDCG at n with the grade as gain;
//     the relevant-found curve. Documents match labels by SURT key (of the
//     document's surt field and of its URL, and of a label's alias), so URL
//     variants and redirected URLs match; a label found twice counts once.
//   - Table 3: RunTable3 runs, per specification, the as-specified
//     extractions under tf, ctf and cf and the variants with a fixed decay
//     (lead and cool-down both replaced by one half-life, default P30D, the
//     most common cool-down of the original 31 specifications) and without
//     keywords, through an Extractor the caller supplies; the improvement
//     ratio is the final accumulated relevance with the parameter over that
//     without (both crawls run to their target or an empty frontier, as in
//     §7.1), with the ratio at a common document count beside it. The
//     average row is the arithmetic mean of the rows, as in the paper.
//
// Output (EvalCommand, the "eval" subcommand): accumulated_relevance.svg and
// .png, relevant_found.svg and .png (with labels), evaluation.json (the
// numbers for scripts; NaN as null) and report.html (internal/report). All
// output is deterministic: runs in the order given, ties broken by
// collection order or URL, plots without timestamps; a generation time is
// printed only when passed with --generated.
package evaluate
