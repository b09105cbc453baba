package dags

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// The nights: a generated archive of nightFiles WARC files, the first
// night1Files of them in the archive folder on night 1, all on night 2.
const (
	nightPages  = 200
	nightFile   = 300 << 10
	night1Files = 3
	nightEvent  = "hrafnfell-eruption-2010"
	dagID       = "recrawl_nightly"
)

// airflowProgram returns the airflow command that scripts/install-airflow-deps.sh
// installs (RECRAWL_AIRFLOW overrides it), or "" when there is none.
func airflowProgram(t *testing.T) string {
	if p := os.Getenv("RECRAWL_AIRFLOW"); p != "" {
		return p
	}
	req, err := os.ReadFile(filepath.Join(sharedtest.Repo(), "scripts", "airflow-requirements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^apache-airflow==(\S+)$`).FindSubmatch(req)
	if m == nil {
		t.Fatal("scripts/airflow-requirements.txt pins no apache-airflow==VERSION")
	}
	cache := os.Getenv("RECRAWL_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "recrawl")
	}
	p := filepath.Join(cache, "airflow-"+string(m[1]), "bin", "airflow")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// nightly is one Airflow home with the DAG's folders.
type nightly struct {
	airflow string
	env     []string
	root    string
	conf    map[string]any
}

// dagsTest runs `airflow dags test recrawl_nightly DATE` with the test's
// parameters and conf overriding some; it returns the output and the error.
func (n *nightly) dagsTest(t *testing.T, date string, override map[string]any) (string, error) {
	t.Helper()
	conf := map[string]any{}
	for k, v := range n.conf {
		conf[k] = v
	}
	for k, v := range override {
		conf[k] = v
	}
	js, err := json.Marshal(conf)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := n.run(t, "dags", "test", dagID, date, "-c", string(js))
	t.Logf("airflow dags test %s %s: %.1fs", dagID, date, time.Since(start).Seconds())
	return out, err
}

func (n *nightly) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.airflow, args...)
	cmd.Env = n.env
	cmd.Dir = n.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (n *nightly) mustDagsTest(t *testing.T, date string, override map[string]any) string {
	t.Helper()
	out, err := n.dagsTest(t, date, override)
	if err != nil {
		t.Fatalf("airflow dags test %s %s: %v\n%s", dagID, date, err, tail(out, 8000))
	}
	if !strings.Contains(out, "state=success") {
		t.Fatalf("airflow dags test %s %s: the DAG run did not succeed\n%s", dagID, date, tail(out, 8000))
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestNightly runs the nightly DAG for real with `airflow dags test` on prism:
// night 1 builds the index and the collection from local folders and
// publishes its WACZ and report into a local folder; night 2 reads its
// archive and specs folders from gs:// (the GCS emulator), where the archive
// holds more WARC files, adds a segment to the index, which is on gs:// too
// (night 1's, uploaded), refreshes the collection against it, which keeps
// every document of night 1, and publishes into a gs:// folder; a rerun of
// night 2 changes no file and rewrites no object; a night whose command
// fails fails the DAG run with the command's one-line error and changes
// nothing.
//
// It runs 6 `airflow` commands, and Airflow's own start-up dominates: of
// each `airflow dags test`, recrawl's commands take under 10 CPU-seconds.
// Measured in all, builds included: 148 CPU-seconds, and 432 s of wall time
// on a 2-core machine with a load average of 10 to 13 (other builds and
// tests); the gs:// folders add eight `recrawl files` commands, about 0.5
// CPU-seconds each. The nights are 3 and 8 WARC files of a 200-page
// archive, so that recrawl's share stays small.
func TestNightly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Airflow and recrawl: skipped with -short")
	}
	airflow := airflowProgram(t)
	if airflow == "" {
		testservers.CannotStart(t, "no Apache Airflow: run scripts/install-airflow-deps.sh (or set RECRAWL_AIRFLOW to an airflow command)")
	}
	start := time.Now()
	root := t.TempDir()
	bin, err := extracttest.BuildBinary(root, "./cmd/recrawl")
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(root, "generated")
	if _, err := archivegen.Generate(context.Background(), archivegen.Config{OutDir: gen, Seed: 11, Pages: nightPages, MaxFileSize: nightFile,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
	warcs, err := filepath.Glob(filepath.Join(gen, "*.warc.gz"))
	if err != nil || len(warcs) <= night1Files {
		t.Fatalf("the generator wrote %d WARC files (%v); the test needs more than %d", len(warcs), err, night1Files)
	}
	slices.SortFunc(warcs, func(a, b string) int { return strings.Compare(fileNumber(a), fileNumber(b)) })

	dirs := map[string]string{}
	for _, d := range []string{"archive", "index", "specs", "output", "publish", "home", "tmp"} {
		dirs[d] = filepath.Join(root, d)
		if err := os.MkdirAll(dirs[d], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The collection's target is above what the archive holds, so each night
	// collects what the index has, and night 2's files give it more.
	spec, err := os.ReadFile(filepath.Join(gen, archivegen.SpecsDir, nightEvent+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec = regexp.MustCompile(`(?m)^target_size: \d+$`).ReplaceAll(spec, []byte("target_size: 1000"))
	if err := os.WriteFile(filepath.Join(dirs["specs"], nightEvent+".yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, warcs[:night1Files], dirs["archive"])

	// Night 2's folders: gs://nightly/{archive,specs,index,publish} on the GCS
	// emulator; the index is night 1's, uploaded after it.
	gcsHost := testservers.GCS(t)
	bucket := newBucket(t, gcsHost, "nightly")
	uploadFiles(t, bucket, "archive", warcs)
	uploadFiles(t, bucket, "specs", []string{filepath.Join(dirs["specs"], nightEvent+".yaml")})
	gcsFolders := map[string]any{"archive": "gs://nightly/archive", "specs": "gs://nightly/specs",
		"index": "gs://nightly/index", "publish": "gs://nightly/publish"}

	home := dirs["home"]
	n := &nightly{airflow: airflow, root: root, env: append(os.Environ(),
		"STORAGE_EMULATOR_HOST="+gcsHost,
		"AIRFLOW_HOME="+home,
		"AIRFLOW__CORE__DAGS_FOLDER="+filepath.Join(sharedtest.Repo(), "dags"),
		"AIRFLOW__CORE__LOAD_EXAMPLES=false",
		"AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=sqlite:///"+filepath.Join(home, "airflow.db"),
		"TMPDIR="+dirs["tmp"],
	), conf: map[string]any{
		"archive": dirs["archive"], "index": dirs["index"], "specs": dirs["specs"],
		"output": dirs["output"], "publish": dirs["publish"], "recrawl": bin,
		"runner": "prism", "index_format": "cdxj",
	}}
	t.Logf("recrawl built and %d WARC files generated in %.1fs", len(warcs), time.Since(start).Seconds())
	if out, err := n.run(t, "db", "migrate"); err != nil {
		t.Fatalf("airflow db migrate: %v\n%s", err, tail(out, 4000))
	}
	t.Logf("airflow db migrate: done at %.1fs", time.Since(start).Seconds())

	collection := filepath.Join(dirs["output"], nightEvent)
	published := filepath.Join(dirs["publish"], nightEvent)

	// Night 1: the index's base, a first extraction, the published files.
	n.mustDagsTest(t, "2026-11-01", nil)
	checkPublished(t, collection, published)
	docs1 := readFile(t, filepath.Join(collection, "documents.jsonl"))
	if len(docs1) == 0 {
		t.Fatal("night 1 collected no document")
	}
	if segs := segments(t, dirs["index"]); len(segs) != 0 {
		t.Fatalf("night 1 wrote segments %v; the first night builds the base", segs)
	}
	wacz1 := readFile(t, filepath.Join(published, "collection.wacz"))
	indexed, err := filepath.Glob(filepath.Join(dirs["index"], "*"))
	if err != nil {
		t.Fatal(err)
	}
	uploadFiles(t, bucket, "index", indexed) // the base's files (no segment yet)

	// Night 2, on gs:// folders: the archive holds new files; one segment of
	// the gs:// index (its index.files rewritten whole), a refresh that reads
	// the index there, keeps night 1's documents in place and adds some.
	n.mustDagsTest(t, "2026-11-02", gcsFolders)
	if segs := objectSegments(t, bucket, "index"); len(segs) != 1 {
		t.Fatalf("after night 2 the index gs://nightly/index has segments %v, want 1", segs)
	}
	held := indexFiles(t, readObject(t, bucket, "index/index.files"))
	for _, w := range warcs {
		if !held[filepath.Base(w)] {
			t.Errorf("after night 2 gs://nightly/index/index.files does not hold %s", filepath.Base(w))
		}
	}
	docs2 := readFile(t, filepath.Join(collection, "documents.jsonl"))
	if !bytes.HasPrefix(docs2, docs1) {
		t.Errorf("night 2's documents.jsonl does not start with night 1's (%d and %d bytes)", len(docs1), len(docs2))
	}
	if len(docs2) == len(docs1) {
		t.Errorf("night 2's refresh added no document (%d bytes of documents.jsonl both nights)", len(docs1))
	}
	wacz2 := checkPublishedGCS(t, bucket, collection, "publish/"+nightEvent)
	if bytes.Equal(wacz1, wacz2) {
		t.Error("night 2 published the same collection.wacz as night 1")
	}

	// A rerun of night 2: no file changes, no object is rewritten.
	before := snapshot(t, root, dirs["index"], dirs["output"], dirs["publish"])
	maps.Copy(before, objectSnapshot(t, bucket))
	after := func() map[string]string {
		s := snapshot(t, root, dirs["index"], dirs["output"], dirs["publish"])
		maps.Copy(s, objectSnapshot(t, bucket))
		return s
	}
	n.mustDagsTest(t, "2026-11-02", gcsFolders) // a new run of the same night
	if diff := diffSnapshots(before, after()); len(diff) > 0 {
		t.Errorf("a rerun of night 2 changed files:\n%s", strings.Join(diff, "\n"))
	}

	// A failing night: index --add refuses another format; the DAG run fails
	// with that one line, and nothing changes.
	out, err := n.dagsTest(t, "2026-11-03", map[string]any{"index_format": "zipnum", "index": gcsFolders["index"]})
	if err == nil && strings.Contains(out, "state=success") {
		t.Fatalf("a night whose index --add fails succeeded\n%s", tail(out, 4000))
	}
	if !strings.Contains(out, "the index was built with") || strings.Contains(out, "task_id=refresh map_index=0 [") {
		t.Errorf("the failed night's output lacks index --add's error or ran a refresh\n%s", tail(out, 6000))
	}
	if diff := diffSnapshots(before, after()); len(diff) > 0 {
		t.Errorf("a failed night changed files:\n%s", strings.Join(diff, "\n"))
	}

	// Flink and Spark: the same nights' commands through scripts/run-RUNNER.sh,
	// which checks them with recrawl --check and prints what it would run.
	for _, runner := range []string{"flink", "spark"} {
		checkClusterCommands(t, n, runner)
	}
	t.Logf("total %.1fs", time.Since(start).Seconds())
}

// checkClusterCommands runs testdata/cluster_commands.py: the DAG's index
// and refresh commands for runner, through its cluster script with
// PRINT_ONLY=1 and a LOOPBACK job server address that is never dialled.
func checkClusterCommands(t *testing.T, n *nightly, runner string) {
	t.Helper()
	conf := map[string]any{"shards": 1, "dictionary": true, "index_flags": "--index_parallelism=1", "extract_flags": "--rounds_per_job=3"}
	for k, v := range n.conf {
		conf[k] = v
	}
	conf["runner"] = runner
	conf["cluster_env"] = map[string]string{strings.ToUpper(runner) + "_JOB_ENDPOINT": "localhost:1",
		"ENVIRONMENT_TYPE": "LOOPBACK", "PRINT_ONLY": "1"}
	js, err := json.Marshal(conf)
	if err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(filepath.Dir(n.airflow), "python")
	cmd := exec.Command(python, filepath.Join("testdata", "cluster_commands.py"), filepath.Join(sharedtest.Repo(), "dags", "recrawl_nightly.py"), string(js))
	cmd.Env = n.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the DAG's %s commands: %v\n%s", runner, err, tail(string(out), 4000))
	}
	for _, want := range []string{"index --runner=" + runner, "--add --dictionary --index_parallelism=1",
		"extract --runner=" + runner, "--refresh --quiet --rounds_per_job=3"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the DAG's %s commands do not print %q:\n%s", runner, want, tail(string(out), 4000))
		}
	}
}

// fileNumber is the serial number of a generated WARC file's name
// (PREFIX-TIMESTAMP-NNNNN.warc.gz): the order the generator wrote them in.
func fileNumber(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".warc.gz")
	return name[strings.LastIndexByte(name, '-')+1:]
}

func copyFiles(t *testing.T, files []string, dir string) {
	t.Helper()
	for _, f := range files {
		data := readFile(t, f)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkPublished checks that the published WACZ is the collection's and
// that the report was published beside it.
func checkPublished(t *testing.T, collection, published string) {
	t.Helper()
	if !bytes.Equal(readFile(t, filepath.Join(collection, "collection.wacz")), readFile(t, filepath.Join(published, "collection.wacz"))) {
		t.Errorf("%s/collection.wacz is not the collection's", published)
	}
	for _, f := range []string{"report.html", "evaluation.json"} {
		if fi, err := os.Stat(filepath.Join(published, "report", f)); err != nil || fi.Size() == 0 {
			t.Errorf("report/%s not published: %v", f, err)
		}
	}
	var ev map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(published, "report", "evaluation.json")), &ev); err != nil {
		t.Errorf("report/evaluation.json: %v", err)
	}
}

// newBucket creates a bucket on the GCS emulator at host.
func newBucket(t *testing.T, host, name string) *gcs.BucketHandle {
	t.Helper()
	t.Setenv("STORAGE_EMULATOR_HOST", host) // read by NewClient
	ctx := context.Background()
	c, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Bucket(name).Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return c.Bucket(name)
}

// uploadFiles writes each file to PREFIX/BASENAME in the bucket.
func uploadFiles(t *testing.T, b *gcs.BucketHandle, prefix string, files []string) {
	t.Helper()
	for _, f := range files {
		w := b.Object(prefix + "/" + filepath.Base(f)).NewWriter(context.Background())
		if _, err := w.Write(readFile(t, f)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("upload %s: %v", f, err)
		}
	}
}

func readObject(t *testing.T, b *gcs.BucketHandle, name string) []byte {
	t.Helper()
	r, err := b.Object(name).NewReader(context.Background())
	if err != nil {
		t.Fatalf("read gs object %s: %v", name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read gs object %s: %v", name, err)
	}
	return data
}

// checkPublishedGCS is checkPublished for a gs:// publish folder (the
// objects below prefix); it returns the published WACZ.
func checkPublishedGCS(t *testing.T, b *gcs.BucketHandle, collection, prefix string) []byte {
	t.Helper()
	wacz := readObject(t, b, prefix+"/collection.wacz")
	if !bytes.Equal(readFile(t, filepath.Join(collection, "collection.wacz")), wacz) {
		t.Errorf("%s/collection.wacz is not the collection's", prefix)
	}
	if len(readObject(t, b, prefix+"/report/report.html")) == 0 {
		t.Errorf("%s/report/report.html is empty", prefix)
	}
	var ev map[string]any
	if err := json.Unmarshal(readObject(t, b, prefix+"/report/evaluation.json"), &ev); err != nil {
		t.Errorf("%s/report/evaluation.json: %v", prefix, err)
	}
	return wacz
}

// objectSnapshot maps each object of the bucket to its generation and
// MD5: a rewrite with the same bytes changes the generation.
func objectSnapshot(t *testing.T, b *gcs.BucketHandle) map[string]string {
	t.Helper()
	objects := map[string]string{}
	it := b.Objects(context.Background(), nil)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return objects
		}
		if err != nil {
			t.Fatal(err)
		}
		objects["gs://"+a.Bucket+"/"+a.Name] = fmt.Sprintf("generation %d md5 %x", a.Generation, a.MD5)
	}
}

// segments lists the index's segment folders.
func segments(t *testing.T, index string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(index, "segments"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// objectSegments lists the segment folders of the index at PREFIX in the bucket.
func objectSegments(t *testing.T, b *gcs.BucketHandle, prefix string) []string {
	t.Helper()
	seen := map[string]bool{}
	it := b.Objects(context.Background(), &gcs.Query{Prefix: prefix + "/segments/"})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[strings.SplitN(strings.TrimPrefix(a.Name, prefix+"/segments/"), "/", 2)[0]] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// indexFiles returns the names of the files the index.files content list
// records, not removed.
func indexFiles(t *testing.T, list []byte) map[string]bool {
	t.Helper()
	held := map[string]bool{}
	lines := strings.Split(strings.TrimSpace(string(list)), "\n")
	for i, l := range lines[1:] { // the first line is the header
		var f struct {
			Name    string `json:"name"`
			Removed bool   `json:"removed"`
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("index.files line %d: %v", i+2, err)
		}
		held[f.Name] = !f.Removed
	}
	return held
}

// snapshot maps each file below dirs (relative to root) to its SHA-256.
func snapshot(t *testing.T, root string, dirs ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			rel, _ := filepath.Rel(root, p)
			files[rel] = hex.EncodeToString(sum[:])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func diffSnapshots(before, after map[string]string) []string {
	var diff []string
	for p, h := range before {
		switch a, ok := after[p]; {
		case !ok:
			diff = append(diff, "removed: "+p)
		case a != h:
			diff = append(diff, "changed: "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diff = append(diff, "added: "+p)
		}
	}
	slices.Sort(diff)
	return diff
}
