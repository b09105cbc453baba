// Package stopwords holds the stop-word lists of the languages recrawl
// analyses, one file per ISO 639-1 code (en.txt, de.txt, ...), embedded in
// the binary.
//
// The lists were written for recrawl from the function words of each
// language: articles, pronouns, prepositions, conjunctions, the forms of the
// auxiliary and modal verbs and a few very frequent adverbs. They are
// deliberately short: a stop word is removed from the term vector and breaks
// bigram adjacency, so a content word on a list costs more than a function
// word missing from it.
//
// File format: UTF-8, one lower-case word per line; blank lines and lines
// starting with '#' are ignored.
package stopwords

import (
	"bufio"
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed *.txt
var files embed.FS

// Languages returns the ISO 639-1 codes that have a list, sorted.
func Languages() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	var langs []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".txt"); ok {
			langs = append(langs, name)
		}
	}
	sort.Strings(langs)
	return langs
}

// Load returns the stop words of lang (an ISO 639-1 code) as a set.
func Load(lang string) (map[string]struct{}, error) {
	name := lang + ".txt"
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("stopwords: no list for language %q", lang)
	}
	set := make(map[string]struct{})
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for line := 1; sc.Scan(); line++ {
		w := strings.TrimSpace(sc.Text())
		if w == "" || w[0] == '#' {
			continue
		}
		if strings.ContainsAny(w, " \t") {
			return nil, fmt.Errorf("stopwords: %s:%d: %q is not a single word", name, line, w)
		}
		if strings.ToLower(w) != w {
			return nil, fmt.Errorf("stopwords: %s:%d: %q is not lower case", name, line, w)
		}
		set[w] = struct{}{}
	}
	return set, sc.Err()
}
