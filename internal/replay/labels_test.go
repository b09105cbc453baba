package replay

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labelServer serves a report folder with a labels file of three
// documents; the file holds initial (nothing when "").
func labelServer(t *testing.T, initial string) (*Server, string) {
	t.Helper()
	_, rep := writeReport(t)
	path := filepath.Join(rep, "labels.tsv")
	if initial != "" {
		if err := os.WriteFile(path, []byte(initial), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return serve(t, Options{ReportDir: rep, Labels: &LabelsOptions{Path: path, Event: "flood",
		Documents: []string{"http://a.example/1", "http://a.example/2", "https://www.b.example/x?q=1", "http://b.example/x?q=1"}}}), path
}

// postMark sends body to /labels with method and the given headers and
// returns the status and body of the answer.
func postMark(t *testing.T, s *Server, method, body string, header map[string]string) (int, string) {
	t.Helper()
	return request(t, s, method, "/labels", body, header)
}

// own are the headers of a fetch from the server's own page.
func own(s *Server) map[string]string {
	return map[string]string{"Origin": s.URL, "Content-Type": "application/json"}
}

// TestLabelsWritten: marks replace the grade of the same page and event in
// place, append new pages in the order they are first marked, and a
// cleared mark removes its line; the hand-written lines, comments and the
// other event's labels stay as they were; GET answers the event's marks.
func TestLabelsWritten(t *testing.T) {
	initial := "url\tevent\tgrade\tnote\n" +
		"# written by hand\n" +
		"http://www.b.example/x?q=1\tflood\t1\tseen on TV\n" +
		"http://a.example/1\tother\t1\t\n" +
		"http://not.in.collection/\tflood\t1\t\n"
	s, path := labelServer(t, initial)
	for _, m := range []string{
		`{"url": "http://a.example/2", "grade": 1}`,
		`{"url": "http://a.example/1", "grade": 1}`,
		`{"url": "https://www.b.example/x?q=1", "grade": 0}`, // the hand-written line of the same page
		`{"url": "http://a.example/2", "grade": 0}`,
		`{"url": "http://a.example/1", "grade": null}`,
		`{"url": "http://a.example/1", "grade": 0}`,
	} {
		if code, body := postMark(t, s, "POST", m, own(s)); code != http.StatusOK {
			t.Fatalf("%s: %d %s", m, code, body)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "url\tevent\tgrade\tnote\n" +
		"# written by hand\n" +
		"http://www.b.example/x?q=1\tflood\t0\tseen on TV\n" +
		"http://a.example/1\tother\t1\t\n" +
		"http://not.in.collection/\tflood\t1\t\n" +
		"http://a.example/2\tflood\t0\t\n" +
		"http://a.example/1\tflood\t0\t\n"
	if string(got) != want {
		t.Errorf("labels file:\n%s\nwant:\n%s", got, want)
	}
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".labels.tsv.tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	code, _, body := get(t, s.URL+"/labels", "")
	var answer labelsAnswer
	if err := json.Unmarshal([]byte(body), &answer); code != http.StatusOK || err != nil {
		t.Fatalf("GET /labels: %d %v %s", code, err, body)
	}
	// Both documents of the page b.example/x?q=1 show its mark.
	wantMarks := map[string]float64{"http://a.example/1": 0, "http://a.example/2": 0, "https://www.b.example/x?q=1": 0, "http://b.example/x?q=1": 0}
	if answer.File != path || answer.Event != "flood" || len(answer.Labels) != len(wantMarks) {
		t.Errorf("GET /labels: %+v", answer)
	}
	for u, g := range wantMarks {
		if got, ok := answer.Labels[u]; !ok || got != g {
			t.Errorf("GET /labels: %s: %v, want %v", u, answer.Labels[u], g)
		}
	}
	// A new server reads the file it wrote and shows the same marks.
	s2, err := Start(Options{ViewerDir: viewerDir(t), Labels: &LabelsOptions{Path: path, Event: "flood", Documents: []string{"http://a.example/2"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, _, body := get(t, s2.URL+"/labels", ""); !strings.Contains(body, `"labels":{"http://a.example/2":0}`) {
		t.Errorf("GET /labels after a restart: %s", body)
	}
}

// TestLabelsNewFile: without a file, the first mark writes the header and
// its line, with event "-" when none is given.
func TestLabelsNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels.tsv")
	s, err := Start(Options{ViewerDir: viewerDir(t), Labels: &LabelsOptions{Path: path, Documents: []string{"http://a.example/1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if code, body := postMark(t, s, "POST", `{"url":"http://a.example/1","grade":1}`, own(s)); code != http.StatusOK ||
		!strings.Contains(body, `"grade":1`) {
		t.Fatalf("POST: %d %s", code, body)
	}
	if got, _ := os.ReadFile(path); string(got) != "url\tevent\tgrade\nhttp://a.example/1\t-\t1\n" {
		t.Errorf("labels file %q", got)
	}
	if code, body := postMark(t, s, "POST", `{"url":"http://a.example/1","grade":null}`, own(s)); code != http.StatusOK ||
		!strings.Contains(body, `"grade":null`) {
		t.Fatalf("POST clear: %d %s", code, body)
	}
	if got, _ := os.ReadFile(path); string(got) != "url\tevent\tgrade\n" {
		t.Errorf("labels file after clearing %q", got)
	}
}

// TestLabelsRefused: each request the server must not take gets its 4xx
// and changes nothing on disk.
func TestLabelsRefused(t *testing.T) {
	s, path := labelServer(t, "")
	good := `{"url": "http://a.example/1", "grade": 1}`
	with := func(h map[string]string) map[string]string {
		out := own(s)
		for k, v := range h {
			if v == "" {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	for _, c := range []struct {
		name, method, body string
		header             map[string]string
		code               int
		says               string
	}{
		{"another site", "POST", good, with(map[string]string{"Origin": "https://evil.example"}), http.StatusForbidden, "own pages"},
		{"another loopback port", "POST", good, with(map[string]string{"Origin": "http://127.0.0.1:1"}), http.StatusForbidden, "own pages"},
		{"a file page", "POST", good, with(map[string]string{"Origin": "null"}), http.StatusForbidden, "own pages"},
		{"no origin", "POST", good, with(map[string]string{"Origin": ""}), http.StatusForbidden, "Sec-Fetch-Site"},
		{"no origin, cross-site", "POST", good, with(map[string]string{"Origin": "", "Sec-Fetch-Site": "cross-site"}), http.StatusForbidden, "Sec-Fetch-Site"},
		{"rebound host", "POST", good, with(map[string]string{"Host": "evil.example", "Origin": "http://evil.example"}), http.StatusForbidden, "not served"},
		{"form post", "POST", "url=http://a.example/1&grade=1", with(map[string]string{"Content-Type": "application/x-www-form-urlencoded"}), http.StatusUnsupportedMediaType, "application/json"},
		{"PUT", "PUT", good, own(s), http.StatusMethodNotAllowed, "GET and POST"},
		{"too large", "POST", `{"url": "http://a.example/1", "grade": 1, "x": "` + strings.Repeat("x", MaxLabelBody) + `"}`, own(s), http.StatusRequestEntityTooLarge, "larger than 65536"},
		{"grade 2", "POST", `{"url": "http://a.example/1", "grade": 2}`, own(s), http.StatusBadRequest, "field grade: 2"},
		{"grade 0.5", "POST", `{"url": "http://a.example/1", "grade": 0.5}`, own(s), http.StatusBadRequest, "field grade: 0.5"},
		{"grade as a string", "POST", `{"url": "http://a.example/1", "grade": "1"}`, own(s), http.StatusBadRequest, `field grade: "1"`},
		{"no grade", "POST", `{"url": "http://a.example/1"}`, own(s), http.StatusBadRequest, "field grade: missing"},
		{"no url", "POST", `{"grade": 1}`, own(s), http.StatusBadRequest, "field url: missing"},
		{"unknown field", "POST", `{"url": "http://a.example/1", "grade": 1, "event": "x"}`, own(s), http.StatusBadRequest, "unknown field"},
		{"two values", "POST", good + good, own(s), http.StatusBadRequest, "more than one"},
		{"not JSON", "POST", "relevant", own(s), http.StatusBadRequest, "not a mark"},
		{"unknown URL", "POST", `{"url": "http://a.example/3", "grade": 1}`, own(s), http.StatusUnprocessableEntity, "not a document"},
	} {
		code, body := postMark(t, s, c.method, c.body, c.header)
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %q, want %d saying %q", c.name, code, strings.TrimSpace(body), c.code, c.says)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused request wrote the labels file: %v", err)
	}
	// The page's own fetch without an Origin (Sec-Fetch-Site same-origin)
	// is taken.
	if code, body := postMark(t, s, "POST", good, with(map[string]string{"Origin": "", "Sec-Fetch-Site": "same-origin"})); code != http.StatusOK {
		t.Errorf("same-origin without Origin: %d %s", code, body)
	}
	// localhost is the same server under another name: its page's origin
	// is its own.
	local := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	if code, body := postMark(t, s, "POST", good, with(map[string]string{"Host": strings.TrimPrefix(local, "http://"), "Origin": local})); code != http.StatusOK {
		t.Errorf("from the page as localhost: %d %s", code, body)
	}
}

// TestLabelsFileRefused: a labels file whose lines serve could not keep
// in the format eval reads stops the server at start, naming the file.
func TestLabelsFileRefused(t *testing.T) {
	for _, c := range []struct{ content, says string }{
		{"http://a.example/1\t1\n", "not a header line"},
		{"#url\tevent\n", "no grade column"},
		{"# labels\tgrade\n", "no url column"},
	} {
		path := filepath.Join(t.TempDir(), "labels.tsv")
		os.WriteFile(path, []byte(c.content), 0o644)
		s, err := Start(Options{ViewerDir: viewerDir(t), Labels: &LabelsOptions{Path: path}})
		if err == nil {
			s.Close()
			t.Errorf("%q: served", c.content)
			continue
		}
		if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want the file and %q", c.content, err, c.says)
		}
	}
}
