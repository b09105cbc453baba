package replay

// The researcher's labels: report.html's "relevant" and "not relevant"
// buttons post each mark to /labels, and the server keeps them in a labels
// file in the format evaluate.ReadLabels reads (eval --labels):
//
//	url<TAB>event<TAB>grade
//	http://example.com/a<TAB>-<TAB>1
//
// The file is the researcher's too:
//   - An existing file is read at start and its lines are kept as they are:
//     comments, blank lines, other columns and the labels of other events.
//     Its first line must be a header naming its columns (url and grade at
//     least), as ReadLabels reads it.
//   - A mark replaces the grade of the line of the same page (URLs compared
//     by SURT key, as ReadLabels compares them) and the same event, or is
//     appended: the file lists its labels in the order they were first
//     made, one line per page and event. Clearing a mark removes its line.
//   - Every change rewrites the whole file through a temporary file in the
//     same folder and a rename, so a reader never sees half a file.
//
// GET /labels answers JSON {"file", "event", "labels": {URL: grade}}: the
// marks of the served event on the collections' documents, which the page
// shows on load. POST /labels takes JSON {"url": URL, "grade": 1, 0 or
// null (clear)} and answers {"file", "url", "grade"}. A POST is refused
// unless it comes from the server's own pages: its Origin header must be
// the server's own origin ("http://" and the request's Host, which the
// server checked to be a loopback name), or, without an Origin, its
// Sec-Fetch-Site must be same-origin. A page of another site cannot write
// labels (cross-site request forgery), and a form cannot post JSON.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/recrawl/recrawl/internal/surt"
)

// MaxLabelBody bounds the body of a POST /labels.
const MaxLabelBody = 64 << 10

// NoEvent is the event column of a label that names no event (ReadLabels
// reads "-" as none).
const NoEvent = "-"

// LabelsOptions configure the labels file the server keeps.
type LabelsOptions struct {
	// Path is the labels file; it need not exist.
	Path string
	// Event is written in the event column of new labels ("": NoEvent);
	// the marks the page shows and changes are those of this event.
	Event string
	// Documents are the URLs that may be labelled: the served collections'
	// documents.
	Documents []string
}

// labelsFile is the labels file held in memory and written on each change.
type labelsFile struct {
	path, event string
	urlCol      int
	eventCol    int // -1: the file has no event column
	gradeCol    int
	width       int                 // columns of the header
	docs        map[string]string   // document URL -> its SURT key
	docsOfKey   map[string][]string // SURT key -> the document URLs with it

	mu     sync.Mutex
	header string // the first line, as read
	lines  []labelLine
}

// labelLine is one line after the header.
type labelLine struct {
	text   string   // the line as read or written
	fields []string // nil for a comment or blank line
	key    string   // SURT key of the url field ("": not a label)
}

// openLabels reads the labels file at o.Path, if there is one.
func openLabels(o LabelsOptions) (*labelsFile, error) {
	l := &labelsFile{path: o.Path, event: o.Event, docs: map[string]string{}, docsOfKey: map[string][]string{}}
	if l.event == "" {
		l.event = NoEvent
	}
	if strings.ContainsAny(l.event, "\t\r\n") {
		return nil, fmt.Errorf("labels event %q: contains a tab or line break", l.event)
	}
	for _, u := range o.Documents {
		k, err := surt.Key(u)
		if err != nil {
			continue // a document URL without a key cannot be labelled
		}
		if _, dup := l.docs[u]; !dup {
			l.docs[u] = k
			l.docsOfKey[k] = append(l.docsOfKey[k], u)
		}
	}
	data, err := os.ReadFile(o.Path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && strings.TrimSpace(string(data)) == "") {
		l.header = "url\tevent\tgrade"
		l.urlCol, l.eventCol, l.gradeCol, l.width = 0, 1, 2, 3
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("labels file: %w", err)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if err := l.readHeader(lines[0]); err != nil {
		return nil, err
	}
	for _, line := range lines[1:] {
		l.lines = append(l.lines, l.parseLine(line))
	}
	return l, nil
}

// readHeader takes the columns from the file's first line.
func (l *labelsFile) readHeader(first string) error {
	names := strings.Split(strings.TrimPrefix(first, "#"), "\t")
	if !strings.HasPrefix(first, "#") && !strings.EqualFold(strings.TrimSpace(names[0]), "url") {
		return fmt.Errorf("%s:1: not a header line naming the columns (url<TAB>event<TAB>grade): the file's lines are kept, so its columns must be named", l.path)
	}
	cols := map[string]int{}
	for i, n := range names {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			if _, dup := cols[n]; !dup {
				cols[n] = i
			}
		}
	}
	var ok bool
	if l.urlCol, ok = cols["url"]; !ok {
		return fmt.Errorf("%s:1: header has no url column", l.path)
	}
	if l.gradeCol, ok = cols["grade"]; !ok {
		return fmt.Errorf("%s:1: header has no grade column, where the marks are written", l.path)
	}
	if l.eventCol, ok = cols["event"]; !ok {
		l.eventCol = -1
	}
	l.header, l.width = first, len(names)
	return nil
}

// parseLine reads one line after the header.
func (l *labelsFile) parseLine(text string) labelLine {
	if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
		return labelLine{text: text}
	}
	fields := strings.Split(text, "\t")
	ln := labelLine{text: text, fields: fields}
	if l.urlCol < len(fields) {
		ln.key, _ = surt.Key(strings.TrimSpace(fields[l.urlCol]))
	}
	return ln
}

// field returns column i of a label line ("" when the line is shorter).
func (ln labelLine) field(i int) string {
	if i < 0 || i >= len(ln.fields) {
		return ""
	}
	return strings.TrimSpace(ln.fields[i])
}

// ofEvent reports whether a label line is of the served event (every line
// is, in a file without an event column).
func (l *labelsFile) ofEvent(ln labelLine) bool {
	if l.eventCol < 0 {
		return true
	}
	ev := ln.field(l.eventCol)
	if ev == "" {
		ev = NoEvent
	}
	return ev == l.event
}

// marks returns the grades of the served event's labels by document URL:
// every document URL of a label's page (SURT key) has its grade, and a page
// listed twice keeps its highest grade, as ReadLabels does.
func (l *labelsFile) marks() map[string]float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]float64{}
	for _, ln := range l.lines {
		if ln.key == "" || !l.ofEvent(ln) {
			continue
		}
		g, err := strconv.ParseFloat(ln.field(l.gradeCol), 64)
		if err != nil || g < 0 {
			continue // not a grade ReadLabels reads: left to the researcher
		}
		for _, doc := range l.docsOfKey[ln.key] {
			if old, seen := out[doc]; !seen || g > old {
				out[doc] = g
			}
		}
	}
	return out
}

// set gives the document url the grade (nil: clears its mark) and writes
// the file. The file in memory changes only if the write succeeded.
func (l *labelsFile) set(url string, grade *int) error {
	key := l.docs[url]
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := make([]labelLine, 0, len(l.lines)+1)
	done := false
	for _, ln := range l.lines {
		if ln.key != key || !l.ofEvent(ln) {
			lines = append(lines, ln)
			continue
		}
		if grade == nil || done {
			continue // the mark is cleared, or a second line of the page
		}
		fields := append([]string(nil), ln.fields...)
		for len(fields) <= l.gradeCol {
			fields = append(fields, "")
		}
		fields[l.gradeCol] = strconv.Itoa(*grade)
		lines = append(lines, labelLine{text: strings.Join(fields, "\t"), fields: fields, key: key})
		done = true
	}
	if grade != nil && !done {
		fields := make([]string, l.width)
		fields[l.urlCol] = url
		fields[l.gradeCol] = strconv.Itoa(*grade)
		if l.eventCol >= 0 {
			fields[l.eventCol] = l.event
		}
		lines = append(lines, labelLine{text: strings.Join(fields, "\t"), fields: fields, key: key})
	}
	if err := l.write(lines); err != nil {
		return err
	}
	l.lines = lines
	return nil
}

// write replaces the file with the header and lines, through a temporary
// file in its folder and a rename.
func (l *labelsFile) write(lines []labelLine) error {
	var b strings.Builder
	b.WriteString(l.header)
	b.WriteByte('\n')
	for _, ln := range lines {
		b.WriteString(ln.text)
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), "."+filepath.Base(l.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write labels %s: %w", l.path, err)
	}
	_, err = io.WriteString(tmp, b.String())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), l.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write labels %s: %w", l.path, err)
	}
	return nil
}

// labelsAnswer is the answer of GET /labels.
type labelsAnswer struct {
	File   string             `json:"file"`
	Event  string             `json:"event"`
	Labels map[string]float64 `json:"labels"`
}

// markAnswer is the answer of POST /labels.
type markAnswer struct {
	File  string `json:"file"`
	URL   string `json:"url"`
	Grade *int   `json:"grade"` // null: the mark was cleared
}

func (l *labelsFile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, labelsAnswer{File: l.path, Event: l.event, Labels: l.marks()})
	case http.MethodPost:
		l.post(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, fmt.Sprintf("method %s: /labels answers GET and POST", r.Method), http.StatusMethodNotAllowed)
	}
}

// post records one mark; see the file's comment for what it refuses.
func (l *labelsFile) post(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, fmt.Sprintf("Content-Type %q: a mark is posted as application/json", r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxLabelBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		http.Error(w, fmt.Sprintf("body: larger than %d bytes", MaxLabelBody), http.StatusRequestEntityTooLarge)
		return
	}
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	url, grade, err := parseMark(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if _, ok := l.docs[url]; !ok {
		http.Error(w, fmt.Sprintf("field url: %q is not a document of the served collections", url), http.StatusUnprocessableEntity)
		return
	}
	if err := l.set(url, grade); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, markAnswer{File: l.path, URL: url, Grade: grade})
}

// parseMark reads {"url": URL, "grade": 1, 0 or null}.
func parseMark(body []byte) (string, *int, error) {
	var m struct {
		URL   *string         `json:"url"`
		Grade json.RawMessage `json:"grade"`
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return "", nil, fmt.Errorf("body: not a mark {\"url\": URL, \"grade\": 1, 0 or null}: %v", err)
	}
	if dec.More() {
		return "", nil, fmt.Errorf("body: more than one JSON value")
	}
	if m.URL == nil || *m.URL == "" {
		return "", nil, fmt.Errorf("field url: missing")
	}
	switch g := strings.TrimSpace(string(m.Grade)); g {
	case "null":
		return *m.URL, nil, nil
	case "0", "1":
		n := int(g[0] - '0')
		return *m.URL, &n, nil
	case "":
		return "", nil, fmt.Errorf("field grade: missing (1 relevant, 0 not relevant, null clears the mark)")
	default:
		return "", nil, fmt.Errorf("field grade: %s is not 1 (relevant), 0 (not relevant) or null (clear)", g)
	}
}

// sameOrigin accepts a request from the server's own pages: an Origin
// header equal to "http://" and the request's Host, or no Origin and
// Sec-Fetch-Site same-origin.
func sameOrigin(r *http.Request) error {
	own := "http://" + r.Host
	origin := r.Header.Get("Origin")
	switch {
	case origin != "":
		if !strings.EqualFold(origin, own) {
			return fmt.Errorf("origin %q: labels are written only from this server's own pages (%s)", origin, own)
		}
	case r.Header.Get("Sec-Fetch-Site") != "same-origin":
		return fmt.Errorf("no Origin header and Sec-Fetch-Site %q: labels are written only from this server's own pages (%s)", r.Header.Get("Sec-Fetch-Site"), own)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
