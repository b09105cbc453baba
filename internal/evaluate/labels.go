package evaluate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/collection"
	"github.com/recrawl/recrawl/internal/surt"
)

// Label is one labelled URL.
type Label struct {
	URL   string
	Key   string // SURT key of URL
	Event string // "" when the file has no event column
	Grade float64
	Alias string // another URL of the same page (a redirecting old URL), or ""
	// Template is the site template of the page's host (the "template"
	// column of a generated archive's labels; "" without one).
	Template string
}

// Labels is a set of graded relevance judgements, keyed by SURT.
type Labels struct {
	Path  string
	Event string // the --event filter, "" for none
	// Items are the labels kept after the event filter, in file order.
	Items []Label
	byKey map[string]int
}

// ReadLabels reads a labels TSV file. Accepted layouts, one URL per line:
//
//	url                      every listed URL is relevant, grade 1
//	url<TAB>grade
//	url<TAB>event<TAB>grade[<TAB>more columns]
//
// A first line starting with '#' (or naming "url" as its first column) is a
// header; when it names its columns, "url", "grade", "event" and "alias" are
// looked up by name, so the synthetic archive's labels.tsv
// (internal/corpus/archivegen.LabelsHeader: url, event, grade, alias, published, …)
// is read with its redirecting aliases. Lines starting with '#' after the
// first are comments.
//
// With event != "" and an event column, only lines of that event keep their
// grade; lines of other events are kept with grade 0 (they are judged, and
// not relevant to this event). A URL listed twice keeps its highest grade.
// URLs are compared by SURT key, so http/https, www. and query-order
// variants match.
func ReadLabels(path, event string) (*Labels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open labels: %w", err)
	}
	defer f.Close()
	l := &Labels{Path: path, Event: event, byKey: map[string]int{}}
	cols := map[string]int{}
	hasHeader := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	sawEvent := false
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if line == 1 && (strings.HasPrefix(text, "#") || strings.EqualFold(strings.SplitN(text, "\t", 2)[0], "url")) {
			hasHeader = true
			for i, name := range strings.Split(strings.TrimPrefix(text, "#"), "\t") {
				cols[strings.ToLower(strings.TrimSpace(name))] = i
			}
			if _, ok := cols["url"]; !ok {
				return nil, fmt.Errorf("%s:1: header has no url column", path)
			}
			continue
		}
		if strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if !hasHeader {
			// Positional layouts, decided per line by the column count.
			switch len(fields) {
			case 1:
				cols = map[string]int{"url": 0}
			case 2:
				cols = map[string]int{"url": 0, "grade": 1}
			default:
				cols = map[string]int{"url": 0, "event": 1, "grade": 2}
			}
		}
		get := func(name string) (string, bool) {
			i, ok := cols[name]
			if !ok {
				return "", false
			}
			if i >= len(fields) {
				return "", true
			}
			return strings.TrimSpace(fields[i]), true
		}
		lab := Label{Grade: 1}
		lab.URL, _ = get("url")
		if lab.URL == "" {
			return nil, fmt.Errorf("%s:%d: field url: empty", path, line)
		}
		if lab.Key, err = surt.Key(lab.URL); err != nil {
			return nil, fmt.Errorf("%s:%d: field url: %q has no SURT key: %w", path, line, lab.URL, err)
		}
		if g, ok := get("grade"); ok {
			if lab.Grade, err = strconv.ParseFloat(g, 64); err != nil || lab.Grade < 0 {
				return nil, fmt.Errorf("%s:%d: field grade: %q is not a non-negative number", path, line, g)
			}
		}
		if ev, ok := get("event"); ok {
			sawEvent = true
			if ev != "-" {
				lab.Event = ev
			}
			if event != "" && lab.Event != event {
				lab.Grade = 0
			}
		}
		if a, ok := get("alias"); ok && a != "" && a != "-" {
			lab.Alias = a
		}
		lab.Template, _ = get("template")
		l.add(lab)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read labels %s: %w", path, err)
	}
	if event != "" && !sawEvent {
		return nil, fmt.Errorf("%s: --event %q given but the labels have no event column", path, event)
	}
	if event != "" && l.Relevant() == 0 {
		return nil, fmt.Errorf("%s: no relevant label for event %q", path, event)
	}
	return l, nil
}

// NewLabels builds a label set in memory (for tests and callers with their
// own judgements).
func NewLabels(items []Label) (*Labels, error) {
	l := &Labels{byKey: map[string]int{}}
	for i, lab := range items {
		if lab.Key == "" {
			k, err := surt.Key(lab.URL)
			if err != nil {
				return nil, fmt.Errorf("label %d: url %q: %w", i, lab.URL, err)
			}
			lab.Key = k
		}
		l.add(lab)
	}
	return l, nil
}

func (l *Labels) add(lab Label) {
	if i, ok := l.byKey[lab.Key]; ok {
		if lab.Grade > l.Items[i].Grade {
			l.Items[i].Grade = lab.Grade
		}
		return
	}
	l.Items = append(l.Items, lab)
	i := len(l.Items) - 1
	l.byKey[lab.Key] = i
	if lab.Alias != "" {
		if k, err := surt.Key(lab.Alias); err == nil {
			if _, dup := l.byKey[k]; !dup {
				l.byKey[k] = i
			}
		}
	}
}

// Relevant returns R, the number of labelled URLs with grade > 0.
func (l *Labels) Relevant() int {
	n := 0
	for _, lab := range l.Items {
		if lab.Grade > 0 {
			n++
		}
	}
	return n
}

// Lookup returns the index of the label of a document (by its SURT field,
// else the SURT key of its URL) and its grade; -1 and 0 when unlabelled.
func (l *Labels) Lookup(d *collection.Document) (int, float64) {
	keys := []string{d.SURT}
	if k, err := surt.Key(d.URL); err == nil && k != d.SURT {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if i, ok := l.byKey[k]; ok && k != "" {
			return i, l.Items[i].Grade
		}
	}
	return -1, 0
}

// IdealGains returns the grades of the relevant labels, highest first (the
// ideal ranking for nDCG).
func (l *Labels) IdealGains() []float64 {
	var g []float64
	for _, lab := range l.Items {
		if lab.Grade > 0 {
			g = append(g, lab.Grade)
		}
	}
	sortDesc(g)
	return g
}
