package report

import (
	"cmp"
	"slices"
)

// The documents table of a run lists its documents of highest topic_r and
// those of highest relevance score (evaluate.ReportDocuments) in two
// orders: the
// crawl order (as documents.jsonl lists them: by round, then by rank in the
// round), which the page shows first, and by relevance, which the page's
// toggle switches to. Both orders are computed here, so that the page's
// script only sorts rows by a number and the same Detail gives the same
// bytes.

// TopRow is one row of a run's documents table.
type TopRow struct {
	TopDocument
	// Crawl and Ranked are the row's 1-based positions among the run's
	// listed documents: in crawl order and by relevance.
	Crawl, Ranked int
}

// Rows returns d.Top in crawl order (round, then rank in the round; ties
// keep their order in d.Top), each with its positions in both orders. By
// relevance means the document's relevance score as documents.jsonl
// records it (what the run's strategy scored it), highest first; ties,
// among them every document of a run whose strategy scores nothing
// (unfocused), by topic_r, then in crawl order.
func (d Detail) Rows() []TopRow {
	rows := make([]TopRow, len(d.Top))
	for i, t := range d.Top {
		rows[i] = TopRow{TopDocument: t}
	}
	slices.SortStableFunc(rows, func(a, b TopRow) int {
		if c := cmp.Compare(a.Round, b.Round); c != 0 {
			return c
		}
		return cmp.Compare(a.Rank, b.Rank)
	})
	ranked := make([]int, len(rows))
	for i := range rows {
		rows[i].Crawl = i + 1
		ranked[i] = i
	}
	slices.SortStableFunc(ranked, func(a, b int) int {
		if c := cmp.Compare(rows[b].Relevance, rows[a].Relevance); c != 0 {
			return c
		}
		return cmp.Compare(rows[b].TopicR, rows[a].TopicR)
	})
	for pos, i := range ranked {
		rows[i].Ranked = pos + 1
	}
	return rows
}
