package hostile_test

// The hostile-input suite, run by scripts/hostile.sh: every kind
// of hostile input in one test, and one summary line of counts.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/corpus/archivegen"
	"github.com/recrawl/recrawl/internal/records"
	"github.com/recrawl/recrawl/internal/testkit/extracttest"
	"github.com/recrawl/recrawl/internal/testkit/hostile"
	"github.com/recrawl/recrawl/internal/testkit/sharedtest"
	"github.com/recrawl/recrawl/specs"
)

// SuiteEnv turns the suite on; scripts/hostile.sh sets it (and SeedEnv, to
// replay a run with another seed).
const (
	SuiteEnv = "RECRAWL_HOSTILE_SUITE"
	SeedEnv  = "RECRAWL_HOSTILE_SEED"
)

// Bounds the summary is held to.
const (
	bombSize   = 1 << 30   // what each bomb inflates to
	maxBombRSS = 300 << 20 // more peak RSS a run with the bombs may take
	killPoints = 3         // random SIGKILLs of the extraction (and 2 of the index)
)

// tally is what the summary line reports.
type tally struct {
	inputs, crashes     int
	lost, wrong         int // records lost / records indexed that a clean copy does not have
	resumeDiffs         int // output files of a killed-and-resumed run that differ
	unexpected          int // other expectations that did not hold
	outsideOpens        int // opens of files outside the allowed folders
	outsideBytes        int64
	peakRSS, bombExcess int64
	kinds               map[string]int // inputs tried per kind of hostile input
	problems            []string
}

// tried counts one input of a kind; the summary line lists every kind with
// its count.
func (tl *tally) tried(kind string) {
	tl.inputs++
	if tl.kinds == nil {
		tl.kinds = map[string]int{}
	}
	tl.kinds[kind]++
}

// kindList is "kind N, kind N, …" in name order.
func (tl *tally) kindList() string {
	names := make([]string, 0, len(tl.kinds))
	for k := range tl.kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, tl.kinds[k])
	}
	return strings.Join(parts, ", ")
}

func (tl *tally) problem(counter *int, format string, args ...any) {
	*counter++
	if len(tl.problems) < 40 {
		tl.problems = append(tl.problems, fmt.Sprintf(format, args...))
	}
}

// TestHostileSuite feeds recrawl every kind of hostile input and prints one
// summary line: inputs tried, crashes, records lost, bytes read outside the
// allowed folders, peak RSS. It fails when any count is wrong.
func TestHostileSuite(t *testing.T) {
	if os.Getenv(SuiteEnv) == "" {
		t.Skipf("the hostile-input suite runs from scripts/hostile.sh (%s=1)", SuiteEnv)
	}
	seed := uint64(20261124)
	if s := os.Getenv(SeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", SeedEnv, s, err)
		}
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Now()
	tl := &tally{}
	s := newSetup(t)

	damagedArchives(t, tl, rng)
	malformedSpecs(t, tl, s, rng)
	escapes(t, tl, s)
	specLimits(t, tl, s)
	bombs(t, tl, s)
	arcArchives(t, tl, s)
	indexFiles(t, tl, s)
	killAndResume(t, tl, s, rng)

	line := fmt.Sprintf("hostile suite (seed %d, %v): inputs %d, crashes %d, records lost %d, records wrong %d, resume diffs %d, "+
		"unexpected %d, bytes read outside allowed folders %d (%d opens), peak RSS %d MiB (bombs %+d MiB, limit +%d MiB)",
		seed, time.Since(start).Round(time.Second), tl.inputs, tl.crashes, tl.lost, tl.wrong, tl.resumeDiffs,
		tl.unexpected, tl.outsideBytes, tl.outsideOpens, tl.peakRSS>>20, tl.bombExcess>>20, maxBombRSS>>20)
	fmt.Println(line)
	if len(tl.kinds) > 0 {
		fmt.Printf("hostile suite kinds: %s\n", tl.kindList())
	}
	for _, p := range tl.problems {
		t.Log(p)
	}
	if tl.crashes+tl.lost+tl.wrong+tl.resumeDiffs+tl.unexpected+tl.outsideOpens > 0 || tl.outsideBytes > 0 || tl.bombExcess > maxBombRSS {
		t.Errorf("FAIL %s", line)
	}
}

// setup is the recrawl command and a small generated archive.
type setup struct {
	root, recrawl string
	// extract and index are the subcommands of recrawl that exec runs.
	extract, index string
	a              *extracttest.Archive
	spec           string // an event's spec in the archive
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	root := t.TempDir()
	s := &setup{root: root, extract: "extract", index: "index"}
	var err error
	if s.recrawl, err = extracttest.BuildBinary(root, "./cmd/recrawl"); err != nil {
		t.Fatal(err)
	}
	s.a, err = extracttest.Build(context.Background(), filepath.Join(root, "fixture"), archivegen.Config{
		Seed: 11, Pages: 300, MaxFileSize: 1 << 20, Workers: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(s.a.SpecsDir)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no specs in the fixture: %v", err)
	}
	s.spec = filepath.Join(s.a.SpecsDir, ents[0].Name())
	return s
}

// run is one run of a binary: its exit, output and peak RSS.
type run struct {
	err            error
	stdout, stderr string
	rss            int64
	killed         bool // by our SIGKILL
}

// crashed reports a run that died of a signal we did not send or panicked.
func (r run) crashed() bool {
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && !r.killed {
			return true
		}
	}
	return strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") && strings.Contains(r.stderr, "[running]")
}

// exec runs `recrawl SUB ARGS`; killAfter > 0 sends SIGKILL after that long.
func (s *setup) exec(tl *tally, sub string, killAfter time.Duration, args ...string) run {
	cmd := exec.Command(s.recrawl, append([]string{sub}, args...)...)
	tmp := filepath.Join(s.root, "tmp")
	os.MkdirAll(tmp, 0o755)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := run{}
	if err := cmd.Start(); err != nil {
		r.err = err
		return r
	}
	meter := hostile.MeterRSS(cmd.Process.Pid) // not ru_maxrss: this process is large (see hostile.PeakRSS)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if killAfter > 0 {
		select {
		case r.err = <-done:
		case <-time.After(killAfter):
			cmd.Process.Signal(syscall.SIGKILL)
			r.killed = true
			r.err = <-done
		}
	} else {
		r.err = <-done
	}
	r.stdout, r.stderr, r.rss = stdout.String(), stderr.String(), meter.Stop()
	tl.peakRSS = max(tl.peakRSS, r.rss)
	tl.inputs++
	if r.crashed() {
		tl.problem(&tl.crashes, "recrawl %s %s crashed: %v\n%s", sub, strings.Join(args, " "), r.err, tail(r.stderr))
	}
	return r
}

func tail(s string) string {
	if len(s) > 1500 {
		return "…" + s[len(s)-1500:]
	}
	return s
}

// --- damaged archive files -------------------------------------------------

type span struct{ off, length int64 }

// indexSafe indexes data, a panic counted as a crash.
func indexSafe(data []byte, name string) (lines []string, spans []span, crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			crashed = true
		}
	}()
	cdxj.IndexFile(bytes.NewReader(data), name, cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		lines = append(lines, c.Line())
		spans = append(spans, span{c.Offset, c.Length})
		return nil
	})
	return lines, spans, false
}

// readSafe reads the record at every span, as the extraction does; a panic
// is a crash.
func readSafe(data []byte, name string, spans []span) (crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			crashed = true
		}
	}()
	for _, sp := range spans {
		records.ReadRecordAtLimit(bytes.NewReader(data), sp.off, sp.length, name, 1<<20)
	}
	return false
}

// ident is a record's identity in an index line: the line without its
// key. A POST response's key takes the body of its request record (pywb's
// post-append), so when that record is damaged the response keeps its line
// but under the plain URL's key; what it says about the record is the same.
func ident(line string) string {
	_, rest, _ := strings.Cut(line, " ")
	return rest
}

// perRecord reports whether every record of a clean file starts a member
// of its own (per-record gzip) or the file is plain: then a cut or a flip
// can only cost the records it touches.
func perRecord(data []byte, spans []span) bool {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return true
	}
	for _, sp := range spans {
		if sp.off+2 > int64(len(data)) || data[sp.off] != 0x1f || data[sp.off+1] != 0x8b {
			return false
		}
	}
	return len(spans) > 1
}

// damagedArchives indexes cut and byte-flipped copies of every conformance
// archive in-process (the indexer every pipeline uses), and reads their
// records as the extraction does: no panic, every line a line of the clean
// copy's index, and no record lost that the damage did not touch.
func damagedArchives(t *testing.T, tl *tally, rng *rand.Rand) {
	for _, path := range sharedtest.ConformanceArchives(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		clean, cleanSpans, crashed := indexSafe(data, name)
		if crashed {
			tl.problem(&tl.crashes, "%s: indexing the clean file panicked", name)
			continue
		}
		want := map[string]bool{}
		for _, l := range clean {
			want[ident(l)] = true
		}
		countable := perRecord(data, cleanSpans)
		check := func(what string, copy []byte, untouched func(span) bool) {
			tl.inputs++
			got, spans, crashed := indexSafe(copy, name)
			if crashed || readSafe(copy, name, cleanSpans) || readSafe(copy, name, spans) {
				tl.problem(&tl.crashes, "%s %s: panic", name, what)
				return
			}
			have := map[string]bool{}
			for _, l := range got {
				have[ident(l)] = true
				if !want[ident(l)] {
					tl.problem(&tl.wrong, "%s %s: a line the clean copy does not have: %s", name, what, l)
				}
			}
			if !countable {
				return
			}
			for i, sp := range cleanSpans {
				if untouched(sp) && !have[ident(clean[i])] {
					tl.problem(&tl.lost, "%s %s: lost the untouched record at %d: %s", name, what, sp.off, clean[i])
				}
			}
		}
		for range 8 {
			n := rng.IntN(len(data))
			check(fmt.Sprintf("cut at %d", n), data[:n], func(sp span) bool { return sp.off+sp.length <= int64(n) })
		}
		if data[0] == 0x1f { // a flip is only detectable under a CRC
			for range 8 {
				p := rng.IntN(len(data))
				copy := bytes.Clone(data)
				copy[p] ^= byte(1 + rng.IntN(255))
				check(fmt.Sprintf("byte %d flipped", p), copy, func(sp span) bool { return int64(p) < sp.off || int64(p) >= sp.off+sp.length })
			}
		}
	}
}

// --- malformed specifications ----------------------------------------------

// malformedSpecs loads mutations of a valid specification in-process: lines
// dropped, values replaced by wrong types and extremes, cuts, flipped bytes,
// an alias bomb, deep nesting, a huge value. A load must return (an error
// or a spec) without a panic, within seconds and a bounded allocation.
func malformedSpecs(t *testing.T, tl *tally, s *setup, rng *rand.Rand) {
	base, err := os.ReadFile(s.spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.root, "specs")
	os.MkdirAll(dir, 0o755)
	var inputs [][]byte
	lines := strings.Split(string(base), "\n")
	for i := range lines {
		inputs = append(inputs, []byte(strings.Join(append(append([]string(nil), lines[:i]...), lines[i+1:]...), "\n")))
		key, _, ok := strings.Cut(lines[i], ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(key), "-") || strings.HasPrefix(key, " ") {
			continue
		}
		for _, v := range []string{"5", "-1", "1e308", "-9223372036854775809", `"x"`, "[]", "{}", "~", "!!binary AAAA", "*nowhere", "P-1D", "2009-02-30"} {
			m := append([]string(nil), lines...)
			m[i] = key + ": " + v
			inputs = append(inputs, []byte(strings.Join(m, "\n")))
		}
	}
	for range 10 {
		inputs = append(inputs, base[:rng.IntN(len(base))])
		flip := bytes.Clone(base)
		flip[rng.IntN(len(flip))] ^= byte(1 + rng.IntN(255))
		inputs = append(inputs, flip)
	}
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'k'; i++ {
		laughs += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	inputs = append(inputs, []byte(laughs+"name: *k\n"), []byte(strings.Repeat("[", 100000)), []byte(strings.Repeat("a:\n ", 20000)),
		append(base, []byte("\ndescription: "+strings.Repeat("y", 32<<20)+"\n")...), []byte("\x00\xff\xfe"+string(base)), []byte("{}"), nil,
		[]byte(`{"name": 5, "event": {"start": "2009-09-27"}}`), []byte(`{"topic":"x","start_date":"2009","end_date":[]}`))
	for i, in := range inputs {
		p := filepath.Join(dir, fmt.Sprintf("m%04d.yaml", i))
		if err := os.WriteFile(p, in, 0o644); err != nil {
			t.Fatal(err)
		}
		tl.inputs++
		var before, after runtimeMem
		before.read()
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			specs.Load(p)
		}()
		select {
		case r := <-done:
			if r != nil {
				tl.problem(&tl.crashes, "spec mutation %d: panic: %v", i, r)
			}
		case <-time.After(20 * time.Second):
			tl.problem(&tl.crashes, "spec mutation %d: no answer in 20 s", i)
			continue
		}
		after.read()
		if alloc := after.total - before.total; alloc > 512<<20 {
			tl.problem(&tl.unexpected, "spec mutation %d (%d bytes): loading allocated %d MiB", i, len(in), alloc>>20)
		}
	}
}

// runtimeMem is the bytes this process allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}

// --- escapes: files outside the allowed folders ----------------------------

// escapes tries to make the spec loader, explain and the extraction read
// files outside the folders they may read (absolute and ../ reference
// files and dictionaries, symbolic links out of the spec's folder and out
// of an --archive location, ../ and absolute file names in the index), and
// a second run into a running one's output. A folder of canary files is
// watched (inotify): nothing in it may be opened.
func escapes(t *testing.T, tl *tally, s *setup) {
	root := filepath.Join(s.root, "escape")
	outside := filepath.Join(root, "outside")
	specDir := filepath.Join(root, "spec")
	archive := filepath.Join(root, "archive")
	for _, d := range []string{outside, specDir, archive} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const canary = "zzcanaryword"
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(strings.Repeat(canary+" volcano eruption ash ", 200)), 0o644)
	os.WriteFile(filepath.Join(outside, "secret-df.tsv"), []byte("#\t1000\n"+canary+"\t1\n"), 0o644)
	secretWARC := filepath.Join(outside, "secret.warc.gz")
	copyFile(t, s.a.WARCs[0], secretWARC)
	for _, w := range s.a.WARCs {
		copyFile(t, w, filepath.Join(archive, filepath.Base(w)))
	}
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(specDir, "link.txt"))
	os.Symlink("../outside/secret-df.tsv", filepath.Join(specDir, "link-df.tsv"))
	os.Symlink("../outside/secret.warc.gz", filepath.Join(archive, "evil.warc.gz"))
	os.Symlink("../outside", filepath.Join(archive, "evildir"))
	page := filepath.Join(root, "page.html")
	os.WriteFile(page, []byte("<html><head><title>Ash</title></head><body><p>The volcano erupted and the ash cloud closed the airspace.</p></body></html>"), 0o644)

	w, err := hostile.WatchFolder(outside)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// Specs whose reference document or dictionary lies outside.
	head := "name: escape\nevent: {start: 2010-04-14, end: 2010-05-23}\nlead_time: P10D\ncooldown_time: P10D\n"
	ref := func(file string) string {
		return head + "reference_documents:\n  - file: " + file + "\n    language: en\n"
	}
	dict := func(file string) string {
		return head + "reference_documents:\n  - text: volcano eruption ash cloud airspace\n    language: en\ndictionary: " + file + "\n"
	}
	for i, spec := range []string{
		ref(filepath.Join(outside, "secret.txt")), ref("../outside/secret.txt"), ref("link.txt"), ref("/etc/passwd"),
		dict(filepath.Join(outside, "secret-df.tsv")), dict("../outside/secret-df.tsv"), dict("link-df.tsv"),
	} {
		p := filepath.Join(specDir, fmt.Sprintf("escape-%d.yaml", i))
		os.WriteFile(p, []byte(spec), 0o644)
		r := s.exec(tl, s.extract, 0, "explain", "--spec", p, "--html", page, "--url", "http://a.example/", "--capture_time", "20100420120000")
		if r.err == nil || strings.Contains(r.stdout, canary) {
			tl.problem(&tl.unexpected, "spec %d reading outside its folder was accepted:\n%s\n%s", i, spec, tail(r.stdout))
		}
	}

	// An index whose file names lead outside the archive: the captures of
	// some seeds rewritten to ../, absolute and linked names.
	sp, err := specs.Load(s.spec)
	if err != nil {
		t.Fatal(err)
	}
	var lines, seeds []string
	escapesOf := []string{"../outside/secret.warc.gz", secretWARC, "evil.warc.gz", "evildir/secret.warc.gz"}
	first := filepath.Base(s.a.WARCs[0])
	captures := map[string]int{} // per SURT key: a seed must have only the capture rewritten
	for _, l := range s.a.Lines {
		key, _, _ := strings.Cut(l, " ")
		captures[key]++
	}
	for _, l := range s.a.Lines {
		c, err := cdxj.Parse(l)
		if err != nil || c.Filename != first || c.Status != "200" || !strings.HasPrefix(c.Mime, "text/html") || captures[c.Key] != 1 || len(seeds) == len(escapesOf) {
			lines = append(lines, l)
			continue
		}
		c.Filename = escapesOf[len(seeds)]
		seeds = append(seeds, c.URL)
		lines = append(lines, c.Line())
	}
	sort.Strings(lines)
	idx := filepath.Join(root, "index.cdxj")
	if err := extracttest.WriteLines(idx, lines); err != nil {
		t.Fatal(err)
	}
	sp.Seeds = seeds
	sp.TargetSize, sp.MaxRounds = 10, 1
	specPath := filepath.Join(s.a.SpecsDir, "escape-seeds.yaml")
	var b bytes.Buffer
	if err := sp.Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(specPath, b.Bytes(), 0o644)
	out := filepath.Join(root, "out")
	r := s.exec(tl, s.extract, 0, "--spec", specPath, "--index", "cdxj:"+idx, "--archive", archive, "--output", out, "--quiet")
	docs, _ := os.ReadFile(filepath.Join(out, "documents.jsonl"))
	missing, _ := os.ReadFile(filepath.Join(out, "missing.jsonl"))
	for _, u := range seeds {
		if r.err != nil || bytes.Contains(docs, []byte(strconv.Quote(u))) || !bytes.Contains(missing, []byte(strconv.Quote(u))) {
			tl.problem(&tl.unexpected, "index file name outside the archive: %s collected or not reported missing (%v)\n%s", u, r.err, tail(r.stderr))
		}
	}

	// A second run into the output of a running one is refused. The first
	// takes one URL per round, so it runs for minutes: long after the
	// second has started and given up.
	busy := filepath.Join(root, "busy")
	first1 := exec.Command(s.recrawl, s.extract, "--spec", s.spec, "--index", s.a.IndexSpec(), "--archive", s.a.WARCDir, "--output", busy, "--quiet",
		"--batch_size=1", "--target_size=1000")
	first1.Env = append(os.Environ(), "TMPDIR="+filepath.Join(s.root, "tmp"))
	if err := first1.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(filepath.Join(busy, ".recrawl.lock")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := s.exec(tl, s.extract, 0, "--spec", s.spec, "--index", s.a.IndexSpec(), "--archive", s.a.WARCDir, "--output", busy, "--quiet",
		"--batch_size=1", "--target_size=1000")
	first1.Process.Signal(syscall.SIGKILL)
	first1.Wait()
	if ws, ok := first1.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		tl.problem(&tl.unexpected, "the first run into %s ended before it was killed: the second run's check proves nothing", busy)
	}
	if second.err == nil || !strings.Contains(second.stderr, "is in use by pid") {
		tl.problem(&tl.unexpected, "a second run into a running one's --output was not refused:\n%s", tail(second.stderr))
	}

	if err := w.Collect(); err != nil {
		t.Fatal(err)
	}
	for name, n := range w.Opened {
		tl.outsideOpens += n
		tl.problems = append(tl.problems, fmt.Sprintf("opened outside the allowed folders: %s (%d times)", filepath.Join(outside, name), n))
	}
	for name := range w.Read {
		if fi, err := os.Stat(filepath.Join(outside, name)); err == nil && !fi.IsDir() {
			tl.outsideBytes += fi.Size() // at most the whole file was read
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// --- bombs ------------------------------------------------------------------

// bombs runs index --dictionary and the extraction over the archive with
// and without a file of two bombs (a WARC block and a gzip body that
// inflate to bombSize each, the extraction reaching them as seeds): the
// peak RSS with them stays within maxBombRSS of the run without, and both
// are collected cut, and counted.
func bombs(t *testing.T, tl *tally, s *setup) {
	root := filepath.Join(s.root, "bombs")
	archive := filepath.Join(root, "archive")
	os.MkdirAll(archive, 0o755)
	var plain []string
	for _, w := range s.a.WARCs {
		p := filepath.Join(archive, filepath.Base(w))
		if err := os.Link(w, p); err != nil {
			copyFile(t, w, p)
		}
		plain = append(plain, p)
	}
	sp, err := specs.Load(s.spec)
	if err != nil {
		t.Fatal(err)
	}
	date := sp.Event.Start.First().Add(12 * time.Hour)
	bombList := []hostile.Bomb{
		{URL: "http://bomb.example/block", Date: date, Kind: hostile.BlockBomb, Size: bombSize},
		{URL: "http://bomb.example/body", Date: date, Kind: hostile.BodyBomb, Size: bombSize},
	}
	bombFile := filepath.Join(archive, "bombs.warc.gz")
	if _, err := hostile.WriteBombFile(bombFile, bombList...); err != nil {
		t.Fatal(err)
	}
	index := func(name string, inputs []string) run {
		r := s.exec(tl, s.index, 0, "--input", strings.Join(inputs, ","), "--output", filepath.Join(root, name), "--dictionary")
		if r.err != nil {
			tl.problem(&tl.unexpected, "index %s: %v\n%s", name, r.err, tail(r.stderr))
		}
		return r
	}
	base := index("index-plain", plain)
	with := index("index-bombs", append(plain, bombFile))
	tl.bombExcess = with.rss - base.rss
	fmt.Printf("bombs: index --dictionary peak RSS %d MiB without, %d MiB with 2 x %d MiB bombs\n", base.rss>>20, with.rss>>20, bombSize>>20)
	if !strings.Contains(with.stdout, fmt.Sprintf("dictionary: %d captures had a body over", len(bombList))) {
		tl.problem(&tl.unexpected, "index --dictionary does not count the %d cut bodies:\n%s", len(bombList), tail(with.stdout))
	}
	// The extraction: the archive's index plus the bombs', the bombs as seeds.
	lines := append([]string(nil), s.a.Lines...)
	data, _ := os.ReadFile(bombFile)
	cdxj.IndexFile(bytes.NewReader(data), "bombs.warc.gz", cdxj.IndexOptions{}, func(c cdxj.Capture) error {
		lines = append(lines, c.Line())
		return nil
	})
	sort.Strings(lines)
	idx := filepath.Join(root, "index.cdxj")
	extracttest.WriteLines(idx, lines)
	sp.Seeds = append([]string{bombList[0].URL, bombList[1].URL}, sp.Seeds...)
	specPath := filepath.Join(s.a.SpecsDir, "bomb-seeds.yaml")
	var b bytes.Buffer
	sp.Write(&b)
	os.WriteFile(specPath, b.Bytes(), 0o644)
	extract := func(name, index string) run {
		r := s.exec(tl, s.extract, 0, "--spec", specPath, "--index", "cdxj:"+index, "--archive", archive,
			"--output", filepath.Join(root, name), "--quiet", "--batch_size=20", "--max_rounds=2")
		if r.err != nil {
			tl.problem(&tl.unexpected, "extract %s: %v\n%s", name, r.err, tail(r.stderr))
		}
		return r
	}
	base = extract("extract-plain", s.a.CDXJ)
	with = extract("extract-bombs", idx)
	tl.bombExcess = max(tl.bombExcess, with.rss-base.rss)
	fmt.Printf("bombs: extract peak RSS %d MiB without, %d MiB with the bombs as seeds\n", base.rss>>20, with.rss>>20)
	var runJSON struct {
		Totals struct {
			Counters map[string]int64 `json:"counters"`
		} `json:"totals"`
	}
	data, _ = os.ReadFile(filepath.Join(root, "extract-bombs", "run.json"))
	if json.Unmarshal(data, &runJSON) != nil || runJSON.Totals.Counters["truncated_bodies"] != int64(len(bombList)) {
		tl.problem(&tl.unexpected, "the extraction does not count the %d cut bodies: %s", len(bombList), data)
	}
}

// --- kill -9 and resume ------------------------------------------------------

// killAndResume kills the extraction and the index pipeline with SIGKILL at
// random moments (seeded), each time starting the same command again in the
// same output, then lets it finish: the outputs must be byte for byte those
// of an uninterrupted run.
func killAndResume(t *testing.T, tl *tally, s *setup, rng *rand.Rand) {
	root := filepath.Join(s.root, "kill")
	extractArgs := func(out string) []string {
		return []string{"--spec", s.spec, "--index", s.a.IndexSpec(), "--archive", s.a.WARCDir, "--output", out, "--quiet",
			"--batch_size=10", "--target_size=60"}
	}
	indexArgs := func(out string) []string {
		return []string{"--input", strings.Join(s.a.WARCs, ","), "--output", out, "--dictionary", "--format=zipnum", "--shards=2"}
	}
	for _, job := range []struct {
		name   string
		bin    string
		args   func(string) []string
		kills  int
		outs   []string
		timing []string // outputs compared without their timing fields
	}{
		{"extract", s.extract, extractArgs, killPoints,
			[]string{"documents.jsonl", "missing.jsonl", "links.tsv", "collection.warc.gz", "collection.cdxj", "links.graphml"},
			[]string{"rounds.jsonl"}},
		{"index", s.index, indexArgs, killPoints - 1, nil, nil},
	} {
		ref := filepath.Join(root, job.name+"-reference")
		startRef := time.Now()
		r := s.exec(tl, job.bin, 0, job.args(ref)...)
		took := time.Since(startRef)
		if r.err != nil {
			tl.problem(&tl.unexpected, "%s reference run: %v\n%s", job.name, r.err, tail(r.stderr))
			continue
		}
		out := filepath.Join(root, job.name+"-killed")
		var points []string
		for range job.kills {
			d := time.Duration(float64(took) * (0.1 + 0.8*rng.Float64()))
			r := s.exec(tl, job.bin, d, job.args(out)...)
			points = append(points, d.Round(time.Millisecond).String())
			if !r.killed && r.err != nil {
				tl.problem(&tl.unexpected, "%s killed at %v: the run before failed: %v\n%s", job.name, d, r.err, tail(r.stderr))
			}
		}
		if r := s.exec(tl, job.bin, 0, job.args(out)...); r.err != nil {
			tl.problem(&tl.unexpected, "%s resumed after kills at %v: %v\n%s", job.name, points, r.err, tail(r.stderr))
			continue
		}
		fmt.Printf("%s: uninterrupted %v; killed at %s, then resumed\n", job.name, took.Round(time.Millisecond), strings.Join(points, ", "))
		names := job.outs
		if names == nil { // the index: every file it wrote
			ents, _ := os.ReadDir(ref)
			for _, e := range ents {
				if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
					names = append(names, e.Name())
				}
			}
		}
		for _, n := range append(names, job.timing...) {
			want, err1 := readOutput(filepath.Join(ref, n))
			got, err2 := readOutput(filepath.Join(out, n))
			if err1 != nil || err2 != nil || !bytes.Equal(want, got) {
				tl.problem(&tl.resumeDiffs, "%s killed at %v and resumed: %s differs from the uninterrupted run's (%v %v)", job.name, points, n, err1, err2)
			}
			if n == "documents.jsonl" || strings.HasSuffix(n, ".cdxj") {
				have := map[string]bool{}
				for _, l := range bytes.Split(got, []byte("\n")) {
					have[string(l)] = true
				}
				for _, l := range bytes.Split(want, []byte("\n")) {
					if !have[string(l)] {
						tl.lost++
					}
				}
			}
		}
	}
}

// readOutput is an output file; rounds.jsonl without its seconds.
func readOutput(p string) ([]byte, error) {
	data, err := os.ReadFile(p)
	if err != nil || filepath.Base(p) != "rounds.jsonl" {
		return data, err
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, err
		}
		delete(m, "seconds")
		b, _ := json.Marshal(m)
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}
