package round

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/extract"
	"github.com/recrawl/recrawl/internal/extract/roundstate"
	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/specs"
)

func init() {
	beam.RegisterFunction(resolvedLines)
	beam.RegisterFunction(takenKeys)
}

// resolvedLines renders a chunk of ResolveSnapshots' output for passert:
// one line per URL, its rank, key and captures in order.
func resolvedLines(chunk []Resolved, emit func(string)) {
	for _, r := range chunk {
		emit(renderResolved(r.Ranked.Rank, r.Ranked.Entry.Key, r.Captures))
	}
}

func renderResolved(rank int, key string, caps []cdxj.Capture) string {
	lines := make([]string, len(caps))
	for i, c := range caps {
		lines[i] = c.Archive + "|" + c.Line()
	}
	return fmt.Sprintf("%d %s [%s]", rank, key, strings.Join(lines, " ; "))
}

// takenKeys keeps the keys FetchAndScore reports as taken from the frontier.
func takenKeys(key string, d Discovery, emit func(string)) {
	if d.Taken {
		emit(key)
	}
}

// roundJob is a job on a small generated archive (CDXJ index, its
// dictionaries, references resolved) and a batch of its URLs: every
// 7th URL of the index, whatever it is (pages, redirects, 404s, images),
// and one URL the archive does not hold.
func roundJob(t *testing.T, join string) (*extract.Job, []extract.Entry) {
	t.Helper()
	ctx := context.Background()
	a, err := extracttest.Build(ctx, t.TempDir(), archivegen.Config{Seed: 5, Pages: 120})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := specs.Load(a.Spec(a.Summary.Events[0].Slug))
	if err != nil {
		t.Fatal(err)
	}
	job := &extract.Job{Spec: spec, JoinMode: join,
		Sources: []extract.Source{{Index: a.IndexSpec(), Archives: []string{a.WARCDir}}}}
	if job.Dictionaries, err = extract.FindDictionaries(ctx, a.IndexSpec()); err != nil {
		t.Fatal(err)
	}
	idx, err := job.OpenIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	f := job.NewFetcher()
	defer f.Close()
	refs, err := extract.ResolveReferences(ctx, job, idx, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		job.References = append(job.References, r.Text)
	}
	var urls []string
	seen := map[string]bool{}
	for _, l := range a.Lines {
		c, err := cdxj.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[c.URL] {
			seen[c.URL] = true
			urls = append(urls, c.URL)
		}
	}
	var batch []extract.Entry
	for i := 0; i < len(urls); i += 7 {
		e, err := extract.NewEntry(urls[i], 0.5, 1, "SL", "", extract.DiscoveryOrder(1, 0, len(batch)))
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, e)
	}
	gone, err := extract.NewEntry("http://not-archived.example/page", 0.5, 1, "SL", "", extract.DiscoveryOrder(1, 0, len(batch)))
	if err != nil {
		t.Fatal(err)
	}
	return job, append(batch, gone)
}

// lookedUpBatch is a roundJob, its JSON, and the captures the index holds
// of each URL of its batch, looked up one key at a time as the sequential
// engine looks them up.
type lookedUpBatch struct {
	job      *extract.Job
	jobJSON  string
	batch    []extract.Entry
	captures [][]cdxj.Capture // of batch[rank]
}

// lookUpRoundBatch builds roundJob(t, join) and looks up its batch.
func lookUpRoundBatch(t *testing.T, join string) lookedUpBatch {
	t.Helper()
	ctx := context.Background()
	job, batch := roundJob(t, join)
	jobJSON, err := job.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lookup.OpenSources(ctx, job.IndexSources())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	lb := lookedUpBatch{job: job, jobJSON: jobJSON, batch: batch, captures: make([][]cdxj.Capture, len(batch))}
	for rank, e := range batch {
		found, err := idx.Lookup(ctx, []string{e.Key})
		if err != nil {
			t.Fatal(err)
		}
		lb.captures[rank] = found[e.Key]
	}
	return lb
}

// TestResolveSelectFetchScore runs ResolveSnapshots (both joins),
// SelectSnapshot and FetchAndScore on a batch: the captures of each URL are
// the index's, in its order, and the results written (read back through
// WriteManifest's manifest) are exactly those of the sequential engine's
// steps (extract.Processor), whatever each URL's outcome.
func TestResolveSelectFetchScore(t *testing.T) {
	const roundNo = 1
	for _, join := range []string{"lookup", "cogroup"} {
		t.Run(join, func(t *testing.T) {
			ctx := context.Background()
			lb := lookUpRoundBatch(t, join)
			job, jobJSON, batch := lb.job, lb.jobJSON, lb.batch

			// The sequential engine's steps, URL by URL.
			proc, err := job.NewProcessor(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer proc.Fetcher.Close()
			var wantResolved []any
			var wantKeys []any
			want := make([]extract.Result, len(batch))
			outcomes := map[string]int{}
			for rank, e := range batch {
				caps := lb.captures[rank]
				wantResolved = append(wantResolved, renderResolved(rank, e.Key, caps))
				wantKeys = append(wantKeys, e.Key)
				sel, res := proc.SelectSnapshot(e, caps, roundNo, rank)
				if res == nil {
					var fetched extract.Fetched
					if fetched, res, err = proc.FetchRecord(ctx, sel); err != nil {
						t.Fatal(err)
					}
					if res == nil {
						r := proc.Score(fetched)
						res = &r
					}
				}
				want[rank] = *res
				outcomes[res.Outcome+" "+res.ReasonCode]++
			}
			if outcomes[extract.OutcomeCollected+" "] == 0 || len(outcomes) < 3 {
				t.Fatalf("the batch's outcomes %v: want collected documents and at least two other outcomes", outcomes)
			}

			out := filepath.Join(t.TempDir(), "state-00002")
			cfg := Config{JobJSON: jobJSON, Round: roundNo, OutDir: out, JoinMode: join, Sources: job.IndexSources()}
			p, s := beam.NewPipelineWithRoot()
			resolved := ResolveSnapshots(s, beam.Create(s, batch), cfg)
			passert.Equals(s, beam.ParDo(s, resolvedLines, resolved), wantResolved...)
			discovered, parts := FetchAndScore(s, SelectSnapshot(s, resolved, jobJSON, roundNo), cfg)
			passert.Equals(s, beam.ParDo(s, takenKeys, discovered), wantKeys...)
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
				t.Fatalf("%d results written, want %d", len(got), len(want))
			}
			for i := range want {
				g, _ := json.Marshal(got[i])
				w, _ := json.Marshal(want[i])
				if string(g) != string(w) {
					t.Errorf("rank %d (%s):\n got %s\nwant %s", i, want[i].Entry.URL, g, w)
				}
			}
			t.Logf("%d URLs: %v", len(batch), outcomes)
		})
	}
}

// TestFetchAndScoreBundleLeavesNothingOpen: after its bundle the DoFn
// holds no open archive file. The Go SDK harness keeps a DoFn it ran until
// the worker ends and never tears it down, so a file left open stayed open
// for the rest of the job, once per round of a job of several rounds.
func TestFetchAndScoreBundleLeavesNothingOpen(t *testing.T) {
	ctx := context.Background()
	lb := lookUpRoundBatch(t, "lookup")
	fn := &fetchAndScoreFn{JobJSON: lb.jobJSON, Dir: filepath.Join(t.TempDir(), roundstate.ResultsDir)}
	if err := fn.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	var chunk SelectedChunk
	for rank, e := range lb.batch {
		sel, res := fn.proc.SelectSnapshot(e, lb.captures[rank], 1, rank)
		if res != nil {
			chunk.Done = append(chunk.Done, *res)
		} else {
			chunk.Selected = append(chunk.Selected, sel)
		}
	}
	if len(chunk.Selected) == 0 {
		t.Fatal("no URL of the batch has a capture to read")
	}
	var parts []string
	if err := fn.ProcessElement(ctx, chunk, func(string, Discovery) {}, nil); err != nil {
		t.Fatal(err)
	}
	if fn.proc.Fetcher.BytesRead() == 0 {
		t.Fatal("during the bundle the fetcher has no file open: the check below would prove nothing")
	}
	if err := fn.FinishBundle(nil, func(p string) { parts = append(parts, p) }); err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 {
		t.Fatalf("%d results files committed, want 1", len(parts))
	}
	if n := fn.proc.Fetcher.BytesRead(); n != 0 {
		t.Errorf("after FinishBundle the fetcher still has files open (%d bytes read from them)", n)
	}
	if err := fn.Teardown(); err != nil {
		t.Fatal(err)
	}
}
