package evaluate

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/recrawl/recrawl/internal/collection"
)

// Curve is a value after each extracted document: c[i] is the value after
// i+1 documents.
type Curve []float64

// At returns the value after n documents: 0 for n <= 0, the last value for
// n beyond the curve (a run that stopped early keeps what it had).
func (c Curve) At(n int) float64 {
	if n <= 0 || len(c) == 0 {
		return 0
	}
	if n > len(c) {
		n = len(c)
	}
	return c[n-1]
}

// Final returns the value after the last document (0 for an empty curve).
func (c Curve) Final() float64 { return c.At(len(c)) }

// AreaAt returns the area under the first n documents of the curve, the
// sum of its values after 1..n documents (a step function, one unit wide
// per document); beyond its end the curve stays at its final value. A run
// that finds relevant documents early has a larger area than one that finds
// the same ones late.
func (c Curve) AreaAt(n int) float64 {
	a := 0.0
	for i := 1; i <= n; i++ {
		a += c.At(i)
	}
	return a
}

// Area returns AreaAt(len(c)).
func (c Curve) Area() float64 { return c.AreaAt(len(c)) }

// AccumulatedRelevance returns the paper's Figure 1 curve: the running sum
// of topic_r, the C-F relevance of each extracted document computed on the
// document itself, in collection order. topic_r, not the run's own
// relevance, is summed so that runs of every strategy are measured on one
// scale (§7.1: "The relevance of the extracted documents is computed with
// the C-F relevance function").
func AccumulatedRelevance(docs []collection.Document) Curve {
	c := make(Curve, len(docs))
	sum := 0.0
	for i := range docs {
		sum += docs[i].TopicR
		c[i] = sum
	}
	return c
}

// Cutoffs are the n of precision and recall at n; R (the number of relevant
// URLs) is added by LabelMetrics.
var Cutoffs = []int{10, 20, 50, 100, 200, 500}

// AtN is precision, recall and nDCG after the first N documents.
type AtN struct {
	Label string // "10", …, or "R=123"
	N     int
	// Found is the number of distinct relevant labels among the first N.
	Found int
	// Precision is Found / N (harvest rate). As in trec_eval, a run with
	// fewer than N documents counts the absent ones as not relevant.
	Precision float64
	// Recall is Found / R.
	Recall float64
	// NDCG is the normalised discounted cumulative gain with the grade as
	// gain (log2 discount), against the ideal ranking of all labels.
	NDCG float64
	// Short is set when the run has fewer than N documents.
	Short bool
}

// LabelMetrics are a run's scores against labelled data.
type LabelMetrics struct {
	R int // relevant labels (grade > 0)
	// Found[i] is the number of distinct relevant labels among the first
	// i+1 documents: the relevant-found curve.
	Found Curve
	// Gain[i] is the cumulative grade of those labels.
	Gain Curve
	// Labelled is the number of documents that have a label at all (any
	// grade), to tell "judged not relevant" from "not judged".
	Labelled int
	At       []AtN
}

// ScoreLabels computes precision, recall and nDCG at the Cutoffs and at R,
// and the relevant-found curve. A label found twice (its URL and its alias)
// counts once.
func ScoreLabels(docs []collection.Document, l *Labels) LabelMetrics {
	m := LabelMetrics{R: l.Relevant(), Found: make(Curve, len(docs)), Gain: make(Curve, len(docs))}
	seen := map[int]bool{}
	found, gain := 0, 0.0
	dcg := make([]float64, len(docs)) // cumulative DCG
	d := 0.0
	for i := range docs {
		idx, g := l.Lookup(&docs[i])
		if idx >= 0 {
			m.Labelled++
		}
		if idx >= 0 && g > 0 && !seen[idx] {
			seen[idx] = true
			found++
			gain += g
			d += g / math.Log2(float64(i)+2)
		}
		m.Found[i] = float64(found)
		m.Gain[i] = gain
		dcg[i] = d
	}
	ideal := l.IdealGains()
	idcg := func(n int) float64 {
		s := 0.0
		for i := 0; i < n && i < len(ideal); i++ {
			s += ideal[i] / math.Log2(float64(i)+2)
		}
		return s
	}
	ns := append([]int(nil), Cutoffs...)
	labels := make([]string, 0, len(ns)+1)
	for _, n := range ns {
		labels = append(labels, strconv.Itoa(n))
	}
	if m.R > 0 {
		ns = append(ns, m.R)
		labels = append(labels, fmt.Sprintf("R=%d", m.R))
	}
	for j, n := range ns {
		a := AtN{Label: labels[j], N: n, Short: len(docs) < n}
		a.Found = int(m.Found.At(n))
		a.Precision = float64(a.Found) / float64(n)
		if m.R > 0 {
			a.Recall = float64(a.Found) / float64(m.R)
		}
		if id := idcg(n); id > 0 && len(docs) > 0 {
			k := min(n, len(docs))
			a.NDCG = dcg[k-1] / id
		}
		m.At = append(m.At, a)
	}
	return m
}

// ReasonCount is the number of missing URLs with one reason code.
type ReasonCount struct {
	Code  string
	Count int
}

// RunMetrics are the numbers of one run.
type RunMetrics struct {
	Name      string
	Strategy  string
	Documents int
	// Accumulated is the Figure 1 curve; Total its final value; Area its
	// area over the run's own documents and AreaCommon over the first
	// Evaluation.CommonN documents (comparable between runs).
	Accumulated      Curve
	Total            float64
	Mean             float64 // Total / Documents
	Area, AreaCommon float64
	// URLsConsidered is |seen| + |frontier| at the end (Table 2) from
	// run.json; RatioVsUnfocused divides it by the unfocused run's (NaN
	// without an unfocused run).
	URLsConsidered   int
	RatioVsUnfocused float64
	Missing          int
	MissingByReason  []ReasonCount // most frequent first, then by code
	Rounds           int
	Labels           *LabelMetrics // nil without labels
}

// Evaluation is the comparison of several runs of one specification.
type Evaluation struct {
	Runs    []*Run
	Metrics []RunMetrics // parallel to Runs
	// CommonN is the smallest number of documents over the runs: curves are
	// compared up to there.
	CommonN int
	// Unfocused is the index of the run whose strategy is "unfocused", -1
	// if none.
	Unfocused int
	Labels    *Labels // nil without labels
}

// Evaluate computes the metrics of runs (labels may be nil). Run names must
// be unique.
func Evaluate(runs []*Run, labels *Labels) (*Evaluation, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("evaluate: no runs")
	}
	ev := &Evaluation{Runs: runs, Unfocused: -1, Labels: labels, CommonN: math.MaxInt}
	names := map[string]string{}
	for i, r := range runs {
		if prev, dup := names[r.Name]; dup {
			return nil, fmt.Errorf("evaluate: runs %s and %s are both named %q", prev, r.Dir, r.Name)
		}
		names[r.Name] = r.Dir
		if r.Info.Strategy == "unfocused" && ev.Unfocused < 0 {
			ev.Unfocused = i
		}
		ev.CommonN = min(ev.CommonN, len(r.Documents))
	}
	for _, r := range runs {
		m := RunMetrics{Name: r.Name, Strategy: r.Info.Strategy, Documents: len(r.Documents)}
		m.Accumulated = AccumulatedRelevance(r.Documents)
		m.Total = m.Accumulated.Final()
		if m.Documents > 0 {
			m.Mean = m.Total / float64(m.Documents)
		}
		m.Area = m.Accumulated.Area()
		m.AreaCommon = m.Accumulated.AreaAt(ev.CommonN)
		m.URLsConsidered = r.Info.Totals.URLsConsidered
		m.RatioVsUnfocused = math.NaN()
		m.Missing = r.Info.Totals.Missing
		if r.HasMissing {
			m.Missing = len(r.Missing)
		}
		m.MissingByReason = countReasons(r.Missing)
		m.Rounds = r.Info.Totals.Rounds
		if r.HasRounds && len(r.Rounds) > 0 {
			m.Rounds = len(r.Rounds)
		}
		if labels != nil {
			lm := ScoreLabels(r.Documents, labels)
			m.Labels = &lm
		}
		ev.Metrics = append(ev.Metrics, m)
	}
	if ev.Unfocused >= 0 {
		base := ev.Metrics[ev.Unfocused].URLsConsidered
		for i := range ev.Metrics {
			if base > 0 {
				ev.Metrics[i].RatioVsUnfocused = float64(ev.Metrics[i].URLsConsidered) / float64(base)
			}
		}
	}
	return ev, nil
}

func countReasons(ms []collection.Missing) []ReasonCount {
	counts := map[string]int{}
	for _, m := range ms {
		code := m.ReasonCode
		if code == "" {
			code = "(none)"
		}
		counts[code]++
	}
	out := make([]ReasonCount, 0, len(counts))
	for _, code := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, ReasonCount{code, counts[code]})
	}
	slices.SortStableFunc(out, func(a, b ReasonCount) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

// TopDocuments returns up to n documents of a run, highest topic_r first
// (ties: collection order).
func TopDocuments(docs []collection.Document, n int) []collection.Document {
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(docs[b].TopicR, docs[a].TopicR) })
	out := make([]collection.Document, 0, min(n, len(docs)))
	for _, i := range idx[:min(n, len(idx))] {
		out = append(out, docs[i])
	}
	return out
}

// ReportDocuments are the documents a run's table in the report lists, in
// collection order: its n of highest topic_r (TopDocuments) and its n of
// highest relevance score in the order of the report's view by relevance
// (report.Detail.Rows: relevance, then topic_r, highest first; then
// collection order). The view by relevance then begins with the run's n
// documents of highest relevance, as pages.jsonl of its collection.wacz
// sorted by relevance does.
func ReportDocuments(docs []collection.Document, n int) []collection.Document {
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(docs[b].Relevance, docs[a].Relevance), cmp.Compare(docs[b].TopicR, docs[a].TopicR))
	})
	listed := make([]bool, len(docs))
	for _, i := range idx[:min(n, len(idx))] {
		listed[i] = true
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(docs[b].TopicR, docs[a].TopicR) })
	for _, i := range idx[:min(n, len(idx))] {
		listed[i] = true
	}
	var out []collection.Document
	for i, d := range docs {
		if listed[i] {
			out = append(out, d)
		}
	}
	return out
}

// TopMissing returns up to n missing URLs, highest priority first (ties:
// earlier round, then URL).
func TopMissing(ms []collection.Missing, n int) []collection.Missing {
	s := slices.Clone(ms)
	slices.SortStableFunc(s, func(a, b collection.Missing) int {
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Round, b.Round); c != 0 {
			return c
		}
		return cmp.Compare(a.URL, b.URL)
	})
	return s[:min(n, len(s))]
}

func sortDesc(x []float64) {
	slices.SortFunc(x, func(a, b float64) int { return cmp.Compare(b, a) })
}
