package evaluate

import (
	"math"
	"slices"

	"github.com/recrawl/recrawl/internal/report"
)

// ArchiveShares returns, for each run that read more than one archive,
// the documents it took from each: the report's archive section. The
// archives are those run.json lists, in their order (the order they were
// named in), then any other archive a document names, by name; a run of a
// single archive (named or not) is left out.
func ArchiveShares(runs []*Run) []report.ArchiveShare {
	var out []report.ArchiveShare
	for _, r := range runs {
		counts := map[string]int{}
		for _, d := range r.Documents {
			counts[d.Archive]++
		}
		var names []string
		for _, a := range r.Info.Archives {
			names = append(names, a.Name)
		}
		var others []string
		for name := range counts {
			if !slices.Contains(names, name) {
				others = append(others, name)
			}
		}
		slices.Sort(others)
		names = append(names, others...)
		if len(names) < 2 {
			continue
		}
		share := report.ArchiveShare{Run: r.Name, Documents: len(r.Documents)}
		for _, name := range names {
			pct := math.NaN()
			if len(r.Documents) > 0 {
				pct = 100 * float64(counts[name]) / float64(len(r.Documents))
			}
			label := name
			if label == "" {
				label = "(unnamed)"
			}
			share.Archives = append(share.Archives, report.ArchiveCount{Name: label, Documents: counts[name], Percent: pct})
		}
		out = append(out, share)
	}
	return out
}
