package round

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
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
	beam.RegisterFunction(entriesAsFound)
}

// entriesAsFound renders the discoveries that enter the frontier as they
// were found (outlinks, and candidates returned unchanged): their keys.
func entriesAsFound(key string, d Discovery, emit func(string)) {
	if d.HasEntry && !d.Entry.Scored {
		emit(key)
	}
}

// returnedEntries renders the discoveries that put a candidate back into
// the frontier: "key scored own_score".
func returnedEntries(key string, d Discovery, emit func(string)) {
	if d.HasEntry && d.Entry.Scored {
		emit(fmt.Sprintf("%s %t %.6f", key, d.Entry.Scored, d.Entry.OwnScore))
	}
}

// TestLookAheadRound: a round with look-ahead reads every candidate of its
// batch and keeps the non-documents among its first K candidates and, for
// the documents among them, as many documents of highest TopicR among all
// candidates: those are the round's results, ranked anew in candidate
// order and otherwise the sequential engine's steps' results; the other
// documents are not taken and go back to the frontier with their TopicR as
// their score. The outlinks of the results kept are discovered, and no
// others: a document not kept is followed when a round keeps it.
func TestLookAheadRound(t *testing.T) {
	const roundNo = 1
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
			docs = append(docs, doc{rank, all[rank].Document.TopicR})
		}
	}
	// K: the shortest head of the batch with a document and a non-document
	// (whatever the generated archive holds), and one more document.
	k, hasDoc, hasOther := 0, 0, false
	for k < len(all) && (hasDoc < 2 || !hasOther) {
		if all[k].Outcome == extract.OutcomeCollected {
			hasDoc++
		} else {
			hasOther = true
		}
		k++
	}
	// The round without look-ahead keeps the first K candidates: the
	// non-documents among them stay, and their documents are replaced by
	// the as many best by own score (ties: the earlier candidate).
	slots := 0
	for _, d := range docs {
		if d.rank < k {
			slots++
		}
	}
	if slots == 0 || len(docs) <= slots || slots == k {
		t.Fatalf("%d documents among %d candidates, %d of them among the first K = %d: want some, and a non-document there", len(docs), len(batch), slots, k)
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].score > docs[j].score })
	kept := map[int]bool{}
	for rank := range batch[:k] {
		kept[rank] = all[rank].Outcome != extract.OutcomeCollected
	}
	for _, d := range docs[:slots] {
		kept[d.rank] = true
	}
	var wantReturned []any
	for _, d := range docs[slots:] {
		wantReturned = append(wantReturned, fmt.Sprintf("%s true %.6f", batch[d.rank].Key, d.score))
	}
	// Found as they were: the outlinks of the results kept, and the
	// non-documents past the first K, which go back unchanged.
	var wantFound []any
	for rank, r := range all {
		switch {
		case kept[rank]:
			for _, e := range r.NewEntries {
				wantFound = append(wantFound, e.Key)
			}
		case r.Outcome != extract.OutcomeCollected:
			wantFound = append(wantFound, r.Entry.Key)
		}
	}
	notKeptLinks := 0
	for _, d := range docs[slots:] {
		notKeptLinks += len(all[d.rank].NewEntries)
	}
	if notKeptLinks == 0 {
		t.Fatalf("the documents not kept have no outlinks: the test does not cover leaving them")
	}
	var want []extract.Result
	var wantTaken []any
	for rank, r := range all {
		if kept[rank] {
			r.Rank = len(want)
			want = append(want, r)
			wantTaken = append(wantTaken, r.Entry.Key)
		}
	}
	if reflect.DeepEqual(want, all[:k]) {
		t.Fatalf("the best documents by own score are the first K candidates': the test does not cover the choice")
	}

	out := filepath.Join(t.TempDir(), "state-00002")
	cfg := Config{JobJSON: jobJSON, Round: roundNo, K: k, OutDir: out, JoinMode: "lookup", Sources: job.IndexSources(), LookAhead: 4}
	p, s := beam.NewPipelineWithRoot()
	selected := SelectSnapshot(s, ResolveSnapshots(s, beam.Create(s, batch), cfg), jobJSON, roundNo)
	discovered, parts := LookAhead(s, selected, cfg, beam.PCollection{})
	passert.Equals(s, beam.ParDo(s, takenKeys, discovered), wantTaken...)
	passert.Equals(s, beam.ParDo(s, returnedEntries, discovered), wantReturned...)
	passert.Equals(s, beam.ParDo(s, entriesAsFound, discovered), wantFound...)
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
