package round

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
)

func init() {
	beam.RegisterFunction(returnedEntries)
}

// returnedEntries renders the discoveries that put a candidate back into
// the frontier: "key scored own_score".
func returnedEntries(key string, d Discovery, emit func(string)) {
	if d.HasEntry && d.Entry.Scored {
		emit(fmt.Sprintf("%s %t %.6f", key, d.Entry.Scored, d.Entry.OwnScore))
	}
}

// TestLookAheadRound: a round with look-ahead reads every candidate of its
// batch and keeps the K documents of highest own relevance (and the
// candidates that are not documents): those are the round's results, ranked
// anew in candidate order and otherwise the sequential engine's steps'
// results; the other documents are not taken and go back to the frontier
// with their own relevance as their score.
func TestLookAheadRound(t *testing.T) {
	const roundNo, k = 1, 3
	ctx := context.Background()
	job, batch := roundJob(t, "lookup")
	jobJSON, err := job.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := job.OpenIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	proc, err := job.NewProcessor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Fetcher.Close()
	// Every candidate's result, by the sequential engine's steps.
	all := make([]extract.Result, len(batch))
	type doc struct {
		rank  int
		score float64
	}
	var docs []doc
	for rank, e := range batch {
		found, err := idx.Lookup(ctx, []string{e.Key})
		if err != nil {
			t.Fatal(err)
		}
		if all[rank], err = proc.Process(ctx, e, found[e.Key], roundNo, rank); err != nil {
			t.Fatal(err)
		}
		if all[rank].Outcome == extract.OutcomeCollected {
			docs = append(docs, doc{rank, all[rank].Document.Relevance})
		}
	}
	if len(docs) <= k || len(docs) == len(batch) {
		t.Fatalf("%d documents among %d candidates: want more than K = %d and some other outcomes", len(docs), len(batch), k)
	}
	// The K best by own score (ties: the earlier candidate) are kept; the
	// link priorities are all equal here, so a round without look-ahead
	// would keep the first K instead.
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].score > docs[j].score })
	dropped := map[int]bool{}
	var wantReturned []any
	for _, d := range docs[k:] {
		dropped[d.rank] = true
		wantReturned = append(wantReturned, fmt.Sprintf("%s true %.6f", batch[d.rank].Key, d.score))
	}
	var want []extract.Result
	var wantTaken []any
	for rank, r := range all {
		if !dropped[rank] {
			r.Rank = len(want)
			want = append(want, r)
			wantTaken = append(wantTaken, r.Entry.Key)
		}
	}

	out := filepath.Join(t.TempDir(), "state-00002")
	cfg := Config{JobJSON: jobJSON, Round: roundNo, K: k, OutDir: out, JoinMode: "lookup", Sources: job.IndexSources(), LookAhead: 4}
	p, s := beam.NewPipelineWithRoot()
	selected := SelectSnapshot(s, ResolveSnapshots(s, beam.Create(s, batch), cfg), jobJSON, roundNo)
	discovered, parts := LookAhead(s, selected, cfg)
	passert.Equals(s, beam.ParDo(s, takenKeys, discovered), wantTaken...)
	passert.Equals(s, beam.ParDo(s, returnedEntries, discovered), wantReturned...)
	WriteManifest(s, out, parts)
	ptest.RunAndValidate(t, p)

	m, err := roundstate.ReadManifest(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := roundstate.ReadResults(ctx, out, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d results kept, want %d (%d candidates, K = %d)", len(got), len(want), len(batch), k)
	}
	for i := range want {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Errorf("kept result %d (%s):\n got %s\nwant %s", i, want[i].Entry.URL, g, w)
		}
	}
}
