package evaluate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Link is one line of links.tsv.
type Link struct {
	Source, Target, Anchor string
	InCollection           bool
	Line                   int // in links.tsv
}

// ReadLinks reads links.tsv: source<TAB>target<TAB>anchor<TAB>in_collection
// with an optional header line. An anchor containing tabs is rejoined.
func ReadLinks(path string) ([]Link, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open links: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Link
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if line == 1 && strings.EqualFold(fields[0], "source") {
			continue
		}
		if len(fields) < 4 {
			return nil, fmt.Errorf("%s:%d: %d fields, want source, target, anchor, in_collection", path, line, len(fields))
		}
		last := fields[len(fields)-1]
		in, err := strconv.ParseBool(last)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: field in_collection: %q is not true or false", path, line, last)
		}
		l := Link{Source: fields[0], Target: fields[1], Anchor: strings.Join(fields[2:len(fields)-1], "\t"), InCollection: in, Line: line}
		if l.Source == "" || l.Target == "" {
			return nil, fmt.Errorf("%s:%d: field source or target: empty", path, line)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}
