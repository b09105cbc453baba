package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/recrawl/recrawl/internal/lookup"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// These tests run `recrawl index` the way users do, as a separate program
// with flags, on the code paths of a cluster: submitted to a standalone Beam
// job server (prism, the same job API as Flink's and Spark's job servers),
// translated for Dataflow, and with input and output on gs:// (a GCS
// emulator). The servers are started through the project's scripts.

var portableBin struct {
	once sync.Once
	path string
	err  error
}

// indexCommand builds the recrawl command, which runs this package as
// `recrawl index`, once per test process into .cache/test/ of the
// repository (ignored by git; replaced, never accumulated) and returns its
// path.
func indexCommand(t *testing.T) string {
	t.Helper()
	portableBin.once.Do(func() {
		dir, err := filepath.Abs(filepath.Join("..", "..", ".cache", "test"))
		if err != nil {
			portableBin.err = err
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			portableBin.err = err
			return
		}
		tmp, err := os.CreateTemp(dir, ".recrawl-*")
		if err != nil {
			portableBin.err = err
			return
		}
		tmp.Close()
		start := time.Now()
		build := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/recrawl")
		build.Dir = filepath.Dir(filepath.Dir(dir)) // the repository
		out, err := build.CombinedOutput()
		if err != nil {
			os.Remove(tmp.Name())
			portableBin.err = fmt.Errorf("go build ./cmd/recrawl: %v\n%s", err, out)
			return
		}
		portableBin.path = filepath.Join(dir, "recrawl")
		portableBin.err = os.Rename(tmp.Name(), portableBin.path) // atomic against concurrent test processes
		t.Logf("built the recrawl command in %.1fs", time.Since(start).Seconds())
	})
	if portableBin.err != nil {
		t.Fatal(portableBin.err)
	}
	return portableBin.path
}

// runIndexCommand runs `recrawl index ARGS` with extra environment
// variables and returns its combined output; it fails the test if the
// command fails or takes longer than two minutes.
func runIndexCommand(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, indexCommand(t), append([]string{"index"}, args...)...)
	// Its own TMPDIR: Beam leaves a beamloopbackworker-* file per LOOPBACK
	// job in the temporary directory.
	cmd.Env = append(append(os.Environ(), "TMPDIR="+t.TempDir()), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("recrawl index %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("index %s: %.1fs", strings.Join(args, " "), time.Since(start).Seconds())
	return string(out)
}

// portableInputs returns real WARC and ARC files of the conformance material,
// compressed and not, each of a different name.
func portableInputs(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, rel := range []string{
		"conformance/pywb/example.warc.gz",
		"conformance/pywb/example.arc.gz",
		"conformance/pywb/dupes.warc.gz",
		"conformance/pywb/post-test.warc.gz",
		"conformance/pywb/iana.warc.gz",
		"conformance/pywb/example-extra.warc",
		"conformance/ukwa/IAH-20080430204825-00000-blackbook-truncated.arc.gz",
	} {
		files = append(files, sharedtest.Path(t, rel))
	}
	return files
}

// uploadToEmulator creates bucket on the emulator at addr and uploads each
// file to gs://bucket/prefix/BASENAME. It returns a client for reading back.
func uploadToEmulator(t *testing.T, addr, bucket, prefix string, files []string) *gcs.Client {
	t.Helper()
	t.Setenv("STORAGE_EMULATOR_HOST", addr) // read by NewClient only
	ctx := context.Background()
	c, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Bucket(bucket).Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w := c.Bucket(bucket).Object(prefix + "/" + filepath.Base(f)).NewWriter(ctx)
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("upload %s: %v", f, err)
		}
	}
	return c
}

func readObject(t *testing.T, c *gcs.Client, bucket, name string) []byte {
	t.Helper()
	r, err := c.Bucket(bucket).Object(name).NewReader(context.Background())
	if err != nil {
		t.Fatalf("read gs://%s/%s: %v", bucket, name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read gs://%s/%s: %v", bucket, name, err)
	}
	return b
}

// localReference indexes the inputs on in-process prism (the default runner)
// into a temporary directory and returns index.cdxj.
func localReference(t *testing.T, inputs []string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "local")
	runIndexCommand(t, nil, "--input="+strings.Join(inputs, ","), "--output="+out, "--shards=2")
	ref, err := os.ReadFile(filepath.Join(out, "index.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(ref, []byte("\n")); n < 100 {
		t.Fatalf("the local run indexed only %d lines", n)
	}
	return ref
}

// TestPortableRunners submits the index pipeline to a standalone prism job
// server with --runner=universal, flink and spark (Beam's Flink and Spark
// runners are the universal runner; this is their code path) in LOOPBACK
// mode, and checks that each writes exactly the index.cdxj of an in-process
// run.
func TestPortableRunners(t *testing.T) {
	inputs := portableInputs(t)
	indexCommand(t) // build first, so the timings below are the runs'
	endpoint, serverLog := testservers.Prism(t)
	ref := localReference(t, inputs)
	for _, runner := range []string{"universal", "flink", "spark"} {
		t.Run(runner, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), runner)
			job := "recrawl-portable-" + runner
			log := runIndexCommand(t, nil, "--runner="+runner, "--endpoint="+endpoint, "--environment_type=LOOPBACK",
				"--job_name="+job, "--input="+strings.Join(inputs, ","), "--output="+out, "--shards=2")
			// The job ran on the standalone server, not on a prism in the
			// command's process: the server logged it.
			for deadline := time.Now().Add(5 * time.Second); !strings.Contains(serverLog.String(), "["+job+"]"); {
				if time.Now().After(deadline) {
					t.Fatalf("the job server did not log job %s:\n%s", job, serverLog.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			got, err := os.ReadFile(filepath.Join(out, "index.cdxj"))
			if err != nil {
				t.Fatalf("%v\n%s", err, log)
			}
			if !bytes.Equal(got, ref) {
				t.Errorf("--runner=%s wrote an index.cdxj of %d bytes that differs from the in-process run's (%d bytes)", runner, len(got), len(ref))
			}
			if !strings.Contains(log, "indexed ") {
				t.Errorf("no summary in the output of --runner=%s:\n%s", runner, log)
			}
		})
	}
}

// TestGCSInputOutput indexes archives uploaded to a GCS emulator
// (--input=gs://..., output to gs://...) and checks that gs://.../index.cdxj
// is exactly what a run on the local copies writes.
func TestGCSInputOutput(t *testing.T) {
	inputs := portableInputs(t)
	indexCommand(t)
	addr := testservers.GCS(t)
	c := uploadToEmulator(t, addr, "archives", "crawl", inputs)
	ref := localReference(t, inputs)

	log := runIndexCommand(t, []string{"STORAGE_EMULATOR_HOST=" + addr},
		"--input=gs://archives/crawl/*.warc.gz,gs://archives/crawl/*.arc.gz,gs://archives/crawl/*.warc",
		"--output=gs://archives/index", "--shards=2")
	got := readObject(t, c, "archives", "index/index.cdxj")
	if !bytes.Equal(got, ref) {
		t.Errorf("gs://archives/index/index.cdxj (%d bytes) differs from the local run's index.cdxj (%d bytes)\n%s", len(got), len(ref), log)
	}
}

// TestGCSZipNum writes a ZipNum index to gs:// (the archives on the GCS
// emulator too) and checks that every object is byte for byte the file a
// local run writes, that nothing else was written, and that the index reads
// back through lookup.Open("zipnum:gs://…"), as the extraction's workers
// open it, with every capture of the archive.
//
// The look-up runs in this process, through internal/storage's GCS client,
// which is created on first use of a gs:// path in the process and reads
// STORAGE_EMULATOR_HOST then: no other test of this package uses gs:// in
// process (the others run the index command).
func TestGCSZipNum(t *testing.T) {
	inputs := portableInputs(t)
	indexCommand(t)
	addr := testservers.GCS(t)
	c := uploadToEmulator(t, addr, "archives", "crawl", inputs)
	flags := []string{"--format=zipnum", "--shards=2", "--lines_per_block=20"}

	local := filepath.Join(t.TempDir(), "local")
	runIndexCommand(t, nil, append([]string{"--input=" + strings.Join(inputs, ","), "--output=" + local}, flags...)...)
	log := runIndexCommand(t, []string{"STORAGE_EMULATOR_HOST=" + addr},
		append([]string{"--input=gs://archives/crawl/*", "--output=gs://archives/index-zipnum"}, flags...)...)

	entries, err := os.ReadDir(local)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			want = append(want, e.Name())
		}
	}
	if !slices.Contains(want, "cluster.idx") || !slices.Contains(want, "cdx-00001.gz") {
		t.Fatalf("the local run wrote %v: no ZipNum index of 2 shards", want)
	}
	var got []string
	it := c.Bucket("archives").Objects(context.Background(), &gcs.Query{Prefix: "index-zipnum/"})
	for {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatalf("list gs://archives/index-zipnum/: %v", err)
		}
		got = append(got, strings.TrimPrefix(o.Name, "index-zipnum/"))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("gs://archives/index-zipnum/ holds %v; the local run wrote %v\n%s", got, want, log)
	}
	for _, name := range want {
		if g, w := readObject(t, c, "archives", "index-zipnum/"+name), readFile(t, filepath.Join(local, name)); !bytes.Equal(g, w) {
			t.Errorf("gs://archives/index-zipnum/%s (%d bytes) differs from the local run's (%d bytes)", name, len(g), len(w))
		}
	}

	ctx := context.Background()
	wantByKey := capturesByKey(t, indexDirectly(t, inputs).lines)
	keys := append(keysOf(wantByKey), "com,example)/no-such-page")
	for _, spec := range []string{"zipnum:" + local, "zipnum:gs://archives/index-zipnum"} {
		idx, err := lookup.Open(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		m, err := idx.Lookup(ctx, keys)
		idx.Close()
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if !reflect.DeepEqual(m, wantByKey) {
			t.Errorf("%s: %d keys found, the archive has %d (or their captures differ)", spec, len(m), len(wantByKey))
		}
	}
}

// TestRunFlinkScript runs scripts/run-flink.sh for real, submitting to a
// standalone prism job server (the job API of Beam's Flink job server) with
// LOOPBACK workers: the command the script prints and runs must index the
// archives exactly as an in-process run does, on that server.
// runners/scripts_test.go checks the commands the scripts print for a
// cluster (job server image and flags, gs:// paths, worker binary).
func TestRunFlinkScript(t *testing.T) {
	inputs := portableInputs(t)
	bin := indexCommand(t)
	endpoint, serverLog := testservers.Prism(t)
	ref := localReference(t, inputs)

	out := filepath.Join(t.TempDir(), "flink-script")
	const job = "recrawl-run-flink-script"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", testservers.ScriptPath("run-flink.sh"))
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "RECRAWL_BIN="+t.TempDir(),
		"FLINK_JOB_ENDPOINT="+endpoint, "ENVIRONMENT_TYPE=LOOPBACK", "JOB_NAME="+job,
		// On linux/amd64 the script runs this binary; elsewhere it builds one.
		"WORKER_BINARY="+bin,
		"INPUT="+strings.Join(inputs, ","), "OUTPUT="+out, "FORMAT=cdxj", "SHARDS=2")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/run-flink.sh: %v\n%s", err, log)
	}
	if !strings.Contains(string(log), "--runner=flink --endpoint="+endpoint+" --environment_type=LOOPBACK") {
		t.Errorf("the script did not print the command it ran:\n%s", log)
	}
	got, err := os.ReadFile(filepath.Join(out, "index.cdxj"))
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if !bytes.Equal(got, ref) {
		t.Errorf("run-flink.sh wrote an index.cdxj of %d bytes that differs from the in-process run's (%d bytes)", len(got), len(ref))
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(serverLog.String(), "["+job+"]"); {
		if time.Now().After(deadline) {
			t.Fatalf("the job server did not log job %s:\n%s", job, serverLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
