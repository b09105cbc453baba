package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// viewerDir writes stand-ins for ui.js and sw.js: the server only serves
// these files (the real viewer runs in internal/testkit/replaytest).
func viewerDir(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"ui.js", "sw.js"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("// "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func get(t *testing.T, url, rng string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// writeReport makes a report folder holding report.html in a new
// temporary folder and returns both.
func writeReport(t *testing.T) (dir, rep string) {
	t.Helper()
	dir = t.TempDir()
	rep = filepath.Join(dir, "report")
	if err := os.MkdirAll(rep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rep, "report.html"), []byte("<p>report</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, rep
}

// serve starts a Server with opts and the stand-in viewer of viewerDir;
// it is closed when the test ends.
func serve(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.ViewerDir = viewerDir(t)
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// request sends method path with body to s, with the given headers
// ("Host" sets the request's host), and returns the status and body of
// the answer.
func request(t *testing.T, s *Server, method, path, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServer(t *testing.T) {
	dir, rep := writeReport(t)
	w := filepath.Join(dir, "run.wacz")
	if err := os.WriteFile(w, []byte("0123456789abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Start(Options{ViewerDir: viewerDir(t), ReportDir: rep, WACZ: map[string]string{"a b.wacz": w}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// Byte ranges of the WACZ, counted.
	code, h, body := get(t, s.URL+"/wacz/a%20b.wacz", "bytes=4-7")
	if code != http.StatusPartialContent || body != "4567" || h.Get("Content-Type") != "application/wacz" {
		t.Errorf("range: %d %q %v", code, body, h)
	}
	if code, _, body = get(t, s.URL+"/wacz/a%20b.wacz", "bytes=-3"); code != http.StatusPartialContent || body != "def" {
		t.Errorf("suffix range: %d %q", code, body)
	}
	if st := s.Stats("a b.wacz"); st.Requests != 2 || st.Bytes != 7 {
		t.Errorf("stats %+v", st)
	}
	if code, _, _ = get(t, s.URL+"/wacz/other.wacz", ""); code != http.StatusNotFound {
		t.Errorf("an unserved WACZ: %d", code)
	}
	// The view page embeds the viewer for the named collection only.
	link := ViewLink("a b.wacz", "20130601000000", "http://example.com/?q=1&r=2")
	if !strings.HasPrefix(link, "view?") {
		t.Errorf("ViewLink %q is not relative", link)
	}
	code, _, body = get(t, s.URL+"/"+link, "")
	if code != 200 || !strings.Contains(body, `source="/wacz/a%20b.wacz"`) || !strings.Contains(body, `url="http://example.com/?q=1&amp;r=2"`) ||
		!strings.Contains(body, `ts="20130601000000"`) || !strings.Contains(body, `<script src="/ui.js">`) {
		t.Errorf("view page %d:\n%s", code, body)
	}
	if code, _, _ = get(t, s.URL+"/"+ViewLink("nope.wacz", "1", "x"), ""); code != http.StatusNotFound {
		t.Errorf("view of an unserved collection: %d", code)
	}
	// The viewer's files and its own page; the report at "/".
	for path, want := range map[string]string{"/ui.js": "// ui.js", "/replay/ui.js": "// ui.js", "/replay/sw.js": "// sw.js",
		"/replay/": "<replay-app-main>", "/": "<p>report</p>"} {
		if code, _, body := get(t, s.URL+path, ""); code != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %q", path, code, body)
		}
	}
}

func TestStartRefuses(t *testing.T) {
	v := viewerDir(t)
	if _, err := Start(Options{Addr: "0.0.0.0:0", ViewerDir: v}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a non-loopback address: %v", err)
	}
	if _, err := Start(Options{ViewerDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "install-replay-deps") {
		t.Errorf("no viewer: %v", err)
	}
	if _, err := Start(Options{ViewerDir: v, WACZ: map[string]string{"x.wacz": "/nonexistent/x.wacz"}}); err == nil {
		t.Error("a missing WACZ was accepted")
	}
}

func TestReportCollections(t *testing.T) {
	dir := t.TempDir()
	withWACZ, without := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.MkdirAll(withWACZ, 0o755)
	os.MkdirAll(without, 0o755)
	os.WriteFile(filepath.Join(withWACZ, CollectionFile), []byte("x"), 0o644)
	rep := filepath.Join(dir, "report")
	os.MkdirAll(rep, 0o755)
	sum, _ := json.Marshal(map[string]any{"runs": []map[string]string{{"name": "ctf", "dir": withWACZ}, {"name": "cf", "dir": without}}})
	os.WriteFile(filepath.Join(rep, "evaluation.json"), sum, 0o644)
	got, err := ReportCollections(rep)
	if err != nil || len(got) != 1 || got["ctf.wacz"] != filepath.Join(withWACZ, CollectionFile) {
		t.Errorf("ReportCollections = %v, %v", got, err)
	}
	os.Remove(filepath.Join(withWACZ, CollectionFile))
	if _, err := ReportCollections(rep); err == nil || !strings.Contains(err.Error(), "no run has a collection.wacz") {
		t.Errorf("no collections: %v", err)
	}
	if _, err := ReportCollections(dir); err == nil {
		t.Error("a folder without evaluation.json was accepted")
	}
}

// TestCommand runs "serve" as the command line does: it prints the
// report's address, serves it and the runs' collections until its context
// ends; bad flags are errors naming the flag.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "out")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, CollectionFile), []byte("wacz bytes"), 0o644)
	os.WriteFile(filepath.Join(run, "documents.jsonl"), []byte(`{"url":"http://a.example/1","timestamp":"20130601000000"}`+"\n"), 0o644)
	rep := filepath.Join(dir, "report")
	os.MkdirAll(rep, 0o755)
	os.WriteFile(filepath.Join(rep, "report.html"), []byte("<p>report</p>"), 0o644)
	sum, _ := json.Marshal(map[string]any{"runs": []map[string]string{{"name": "ctf", "dir": run}}})
	os.WriteFile(filepath.Join(rep, "evaluation.json"), sum, 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Command(ctx, []string{"--report", rep, "--addr", "127.0.0.1:0", "--viewer", viewerDir(t)}, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url, labels string
	for sc.Scan() {
		if l, ok := strings.CutPrefix(sc.Text(), "marks on the report go to "); ok {
			labels = l
		}
		if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
			url, _, _ = strings.Cut(u, " ")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		cancel()
		t.Fatalf("no address printed: %v", <-done)
	}
	if code, _, body := get(t, url, ""); code != 200 || body != "<p>report</p>" {
		t.Errorf("%s: %d %q", url, code, body)
	}
	if code, _, body := get(t, strings.TrimSuffix(url, "/report.html")+"/wacz/ctf.wacz", ""); code != 200 || body != "wacz bytes" {
		t.Errorf("the run's collection: %d %q", code, body)
	}
	// The marks of the report go to labels.tsv in the report folder.
	if labels != filepath.Join(rep, "labels.tsv") {
		t.Errorf("labels file %q printed, want %q", labels, filepath.Join(rep, "labels.tsv"))
	}
	if code, _, body := get(t, strings.TrimSuffix(url, "/report.html")+"/labels", ""); code != 200 ||
		!strings.Contains(body, `"labels":{}`) || !strings.Contains(body, `"event":"-"`) {
		t.Errorf("GET /labels: %d %q", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A run's documents.jsonl that cannot be read stops serve, naming it.
	os.WriteFile(filepath.Join(run, "documents.jsonl"), []byte("{\n"), 0o644)
	if err := Command(context.Background(), []string{"--report", rep, "--addr", "127.0.0.1:0", "--viewer", viewerDir(t)}, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "documents.jsonl:1") {
		t.Errorf("a bad documents.jsonl: %v", err)
	}
	for _, args := range [][]string{{}, {"--report", dir}, {"--report", rep, "extra"}} {
		if err := Command(context.Background(), append(args, "--viewer", viewerDir(t)), io.Discard); err == nil {
			t.Errorf("serve %v: no error", args)
		}
	}
	if err := Command(context.Background(), []string{"--report", dir, "--viewer", viewerDir(t)}, io.Discard); err == nil || !strings.Contains(err.Error(), "--report") {
		t.Errorf("a report folder without evaluation.json: %v", err)
	}
}
