package extract

// The extraction on the code paths of a cluster, as the index pipeline's
// portable_test.go and dataflow_test.go test it: its rounds submitted to a
// standalone Beam job server (prism, the job API of Flink's and Spark's job
// servers too), translated for Dataflow, and with the archive, the index,
// the outputs and the state on gs:// (a GCS emulator). The servers start
// through the project's scripts (internal/testkit/testservers).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gcs "cloud.google.com/go/storage"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"google.golang.org/api/iterator"

	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// portableFlags is a short extraction: three Beam rounds of K = 10.
var portableFlags = []string{"--batch_size=10", "--max_rounds=3"}

// portableReference is that extraction on in-process prism (the default
// runner) with local files, run once per test process.
func portableReference(t *testing.T, a *extracttest.Archive) string {
	t.Helper()
	out := cachedRun(t, "portable-reference", func(out string) []string {
		return extractArgs(a, testEvent, out, portableFlags...)
	})
	// Three rounds ran, or the comparisons below test little.
	if n := len(readJSONL[map[string]any](t, filepath.Join(out, "rounds.jsonl"))); n != 3 {
		t.Fatalf("the reference run has %d rounds, want 3 (--max_rounds=3)", n)
	}
	if n := len(readDocs(t, out)); n == 0 {
		t.Fatalf("the reference run collected no documents")
	}
	return out
}

// TestPortableRunner submits every round to a standalone prism job server
// (--runner=universal, LOOPBACK) and checks that the outputs are those of
// the in-process run, and that the rounds ran on that server.
func TestPortableRunner(t *testing.T) {
	a := fixture(t)
	endpoint, serverLog := testservers.Prism(t)
	ref := portableReference(t, a)

	out := filepath.Join(t.TempDir(), "universal")
	const job = "recrawl-extract-portable"
	mustRun(t, nil, extractArgs(a, testEvent, out, append([]string{"--runner=universal", "--endpoint=" + endpoint,
		"--environment_type=LOOPBACK", "--job_name=" + job}, portableFlags...)...)...)
	// The rounds ran on the standalone server, not on a prism in the
	// command's process: the server logged one job per round.
	jobIDs := regexp.MustCompile(`(job-\d+)\[` + job + `\]`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ids := map[string]bool{}
		for _, m := range jobIDs.FindAllStringSubmatch(serverLog.String(), -1) {
			ids[m[1]] = true
		}
		if len(ids) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job server logged %d jobs %s, want 3 (one per round):\n%s", len(ids), job, tail(serverLog.String(), 4000))
		}
	}
	// The same outputs; run.json differs in the runner flags only.
	sameOutputs(t, ref, out, true)
}

// gcsFixture starts a GCS emulator and uploads the test archive's WARC files
// to gs://archive/warc/ and its CDXJ index (with the df-*.tsv next to it) to
// gs://archive/index/. It returns the emulator's address and a client.
func gcsFixture(t *testing.T, a *extracttest.Archive) (addr string, c *gcs.Client) {
	t.Helper()
	addr = testservers.GCS(t)
	t.Setenv("STORAGE_EMULATOR_HOST", addr) // read by NewClient only
	ctx := context.Background()
	c, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Bucket("archive").Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	upload := func(dir, prefix string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			w := c.Bucket("archive").Object(prefix + "/" + e.Name()).NewWriter(ctx)
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("upload %s: %v", e.Name(), err)
			}
		}
	}
	upload(a.WARCDir, "warc")
	upload(filepath.Dir(a.CDXJ), "index")
	return addr, c
}

// gcsArgs is the extraction of the test event with everything on the
// emulator except the spec (read by the driver only).
func gcsArgs(a *extracttest.Archive, out, work string, extra ...string) []string {
	return append([]string{"--spec", a.Spec(testEvent), "--archive", "gs://archive/warc",
		"--index", "cdxj:gs://archive/index/" + filepath.Base(a.CDXJ),
		"--output", out, "--work", work, "--quiet"}, extra...)
}

// listObjects returns the names of the objects below prefix.
func listObjects(t *testing.T, c *gcs.Client, bucket, prefix string) []string {
	t.Helper()
	var names []string
	it := c.Bucket(bucket).Objects(context.Background(), &gcs.Query{Prefix: prefix})
	for {
		o, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatalf("list gs://%s/%s: %v", bucket, prefix, err)
		}
		names = append(names, o.Name)
	}
	return names
}

// TestDataflowDryRun translates the first round for Dataflow with
// --dry_run, offline, and checks that the printed job holds the round's
// steps and that nothing ran: no results, no outputs.
func TestDataflowDryRun(t *testing.T) {
	a := fixture(t)
	addr, c := gcsFixture(t, a)
	r := mustRun(t, []string{"STORAGE_EMULATOR_HOST=" + addr}, append(gcsArgs(a, "gs://archive/dry-out", "gs://archive/dry-work",
		"--runner=dataflow", "--dry_run", "--project=p", "--region=r", "--staging_location=gs://b/staging",
		"--job_name=recrawl-extract-dry-run"), portableFlags...)...)
	log := r.stdout + r.stderr
	if !strings.Contains(log, "Dry-run: not submitting job!") {
		t.Fatalf("no dry run in the output:\n%s", r)
	}
	if !strings.Contains(r.stdout, "dry run: round 0 translated; nothing was run") {
		t.Errorf("no dry-run message on standard output:\n%s", r)
	}
	if strings.Contains(r.stdout, "collected ") {
		t.Errorf("a dry run printed a summary:\n%s", r)
	}
	// The log quotes what Beam prints; unquote it once.
	log = strings.ReplaceAll(log, `\"`, `"`)
	var names []string
	for _, m := range regexp.MustCompile(`unique_name:"([^"]+)"`).FindAllStringSubmatch(log, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("the printed job has no transforms:\n%s", r)
	}
	for _, step := range []string{"SelectBatch", "ResolveSnapshots", "SelectSnapshot", "FetchAndScore", "MergeFrontier", "WriteManifest"} {
		if !slices.Contains(names, "Round0/"+step) {
			t.Errorf("the Dataflow job has no step Round0/%s; its transforms: %v", step, names)
		}
	}
	for _, want := range []string{`"name": "recrawl-extract-dry-run"`, `"projectId": "p"`,
		`"tempStoragePrefix": "gs://b/staging/tmp"`, `"job_type": "FNAPI_BATCH"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the printed job does not contain %s", want)
		}
	}
	// Nothing ran: no round results, no outputs.
	if objs := listObjects(t, c, "archive", "dry-out/"); len(objs) != 0 {
		t.Errorf("a dry run wrote outputs: %v", objs)
	}
	for _, o := range listObjects(t, c, "archive", "dry-work/") {
		// The initial state: round 0's frontier, the job, and the index
		// state the extraction started from (origin.json, for --refresh).
		if !strings.HasPrefix(o, "dry-work/state-00000/") && o != "dry-work/job.json" && o != "dry-work/origin.json" {
			t.Errorf("a dry run wrote %s beyond the initial state", o)
		}
	}
}

// TestGCSEndToEnd runs the extraction with the archive, the CDXJ index, the
// outputs and the state on the GCS emulator (in-process prism, LOOPBACK)
// and checks that the outputs read back are those of a run on local files.
// collection.wacz and links.graphml are written for local outputs only.
func TestGCSEndToEnd(t *testing.T) {
	a := fixture(t)
	addr, c := gcsFixture(t, a)
	ref := portableReference(t, a)

	mustRun(t, []string{"STORAGE_EMULATOR_HOST=" + addr},
		gcsArgs(a, "gs://archive/out", "gs://archive/work", portableFlags...)...)
	got := filepath.Join(t.TempDir(), "from-gcs")
	if err := os.MkdirAll(got, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(append([]string{}, exactOutputs...), timedOutputs...) {
		if name == "collection.wacz" || name == "links.graphml" {
			continue
		}
		r, err := c.Bucket("archive").Object("out/" + name).NewReader(context.Background())
		if err != nil {
			t.Errorf("read gs://archive/out/%s: %v", name, err)
			continue
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("read gs://archive/out/%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(got, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		// run.json differs in the flags (the gs:// paths) only.
		w, g := readOutput(t, ref, name, true), readOutput(t, got, name, true)
		if !bytes.Equal(w, g) {
			t.Errorf("gs://archive/out/%s differs from the local run's %s:\n%s", name, name, firstDiff(w, g))
		}
	}
	// The state went to gs:// too, and the run is marked finished.
	if objs := listObjects(t, c, "archive", "work/FINISHED"); len(objs) != 1 {
		t.Errorf("no gs://archive/work/FINISHED: %v", objs)
	}
}

// TestPortableEndpointNotRunning: a --endpoint where no job server runs
// fails at once with "connection refused" naming it, and leaves no state:
// no OUT/.work, no "round 0 failed" (nothing ran).
func TestPortableEndpointNotRunning(t *testing.T) {
	a := fixture(t)
	endpoint := fmt.Sprintf("localhost:%d", testservers.FreePort(t))
	out := filepath.Join(t.TempDir(), "out")
	r := runBin(t, nil, extractArgs(a, testEvent, out, append([]string{"--runner=spark", "--endpoint=" + endpoint,
		"--environment_type=LOOPBACK", "--job_name=recrawl-no-server"}, portableFlags...)...)...)
	if r.err == nil {
		t.Fatalf("the extraction succeeded without a job server: %s", r)
	}
	for _, want := range []string{"connection refused", endpoint} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the error output does not say %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "round 0 failed") {
		t.Errorf("the error output says a round failed although none ran:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, ".work")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run created %s/.work (stat: %v)", out, err)
	}
}

// TestPortableInterruptCancelsJob: SIGINT (Ctrl+C) while a round runs on a
// job server cancels that job on the job server and ends the program.
func TestPortableInterruptCancelsJob(t *testing.T) {
	a := fixture(t)
	endpoint, serverLog := testservers.Prism(t)
	out := filepath.Join(t.TempDir(), "out")
	const job = "recrawl-extract-interrupted"
	cmd := command(t, nil, extractArgs(a, testEvent, out, append([]string{"--runner=universal", "--endpoint=" + endpoint,
		"--environment_type=LOOPBACK", "--job_name=" + job}, portableFlags...)...)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Interrupt while the job server runs one of the rounds' jobs.
	for testservers.JobStates(t, endpoint, job)[jobpb.JobState_RUNNING] == 0 {
		select {
		case err := <-done:
			t.Fatalf("the extraction ended before a job ran: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("the interrupted extraction exited 0:\n%s", stderr.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the extraction did not end within 2 minutes of SIGINT:\n%s", stderr.String())
	}
	// The program cancelled the job and waited until the job server ended
	// it, and says so.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("job server log:\n%s", tail(serverLog.String(), 4000))
		}
	})
	states := testservers.JobStates(t, endpoint, job)
	if states[jobpb.JobState_RUNNING] != 0 || states[jobpb.JobState_CANCELLED] != 1 {
		t.Errorf("the job server's jobs %s after SIGINT: %v, want one CANCELLED and none RUNNING", job, states)
	}
	for _, want := range []string{"interrupted", endpoint, "CANCELLED"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the error output does not say %q:\n%s", want, tail(stderr.String(), 3000))
		}
	}
}
