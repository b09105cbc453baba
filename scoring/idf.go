package scoring

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Dictionary maps terms to their inverse document frequency. Terms missing
// from it get the largest idf in it: a term too rare to be counted is at
// least as specific as the rarest counted one. An empty (or nil) Dictionary
// gives every term idf 1, so weights are then the keyword-boosted tf alone.
// A Dictionary is immutable and safe for concurrent use.
type Dictionary struct {
	idf map[string]float64
	max float64
}

// NewDictionary returns the dictionary of the given idf values, which must
// be finite and not negative.
func NewDictionary(idf map[string]float64) (*Dictionary, error) {
	d := &Dictionary{idf: make(map[string]float64, len(idf))}
	for term, v := range idf {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("scoring: idf of %q is %v", term, v)
		}
		d.idf[term] = v
	}
	d.setMax()
	return d, nil
}

func (d *Dictionary) setMax() {
	d.max = 0
	for _, v := range d.idf {
		d.max = max(d.max, v)
	}
	if len(d.idf) == 0 {
		d.max = 1
	}
}

// IDF returns the idf of term, the largest idf for a missing term.
func (d *Dictionary) IDF(term string) float64 {
	if d == nil {
		return 1
	}
	if v, ok := d.idf[term]; ok {
		return v
	}
	return d.max
}

// Max returns the idf given to missing terms.
func (d *Dictionary) Max() float64 {
	if d == nil {
		return 1
	}
	return d.max
}

// Len returns the number of terms.
func (d *Dictionary) Len() int {
	if d == nil {
		return 0
	}
	return len(d.idf)
}

// LoadDictionary reads a dictionary file; see ReadDictionary.
func LoadDictionary(path string) (*Dictionary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDictionary(f, path)
}

// ReadDictionary reads the original system's dictionary format: one
// "term<TAB>idf" per line. The term is everything before the last tab (or,
// for lines without a tab, the last run of spaces), so bigram terms
// "stem1 stem2" are allowed. Blank lines and lines starting with '#' are
// ignored. A term listed twice keeps its smaller idf. name is used in
// errors ("idf-de.tsv:12: ...").
func ReadDictionary(r io.Reader, name string) (*Dictionary, error) {
	d := &Dictionary{idf: make(map[string]float64)}
	err := readLines(r, name, func(line string) error {
		term, value, err := splitTermValue(line)
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("idf %q of %q is not a non-negative number", value, term)
		}
		if old, ok := d.idf[term]; !ok || v < old {
			d.idf[term] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.setMax()
	return d, nil
}

// WriteTo writes the dictionary in the format ReadDictionary reads,
// sorted by term.
func (d *Dictionary) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	for _, term := range slices.Sorted(maps.Keys(d.idf)) {
		k, err := fmt.Fprintf(bw, "%s\t%s\n", term, strconv.FormatFloat(d.idf[term], 'g', -1, 64))
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// Restem returns the dictionary with its terms run through a, for
// dictionaries of plain words (such as n-gram counts) rather than stems.
// A term that analyses to one token, or to two adjacent tokens, is kept
// under that stem or bigram; others (stop words, longer phrases) are
// dropped. Terms that meet keep the smaller idf, as in the original.
func (d *Dictionary) Restem(a *Analyzer) *Dictionary {
	out := &Dictionary{idf: make(map[string]float64, len(d.idf))}
	var tokens []Token
	for _, term := range slices.Sorted(maps.Keys(d.idf)) {
		var key string
		if key, tokens = restemTerm(a, term, tokens); key == "" {
			continue
		}
		v := d.idf[term]
		if old, ok := out.idf[key]; !ok || v < old {
			out.idf[key] = v
		}
	}
	out.setMax()
	return out
}

// restemTerm analyses a dictionary or vector term, one word or two words
// separated by white space, and returns its term in a's analysis: the stem,
// or the bigram of two adjacent stems. It returns "" when the words do not
// all become adjacent tokens (stop words, single letters, longer phrases).
// tokens is scratch memory, returned for reuse.
func restemTerm(a *Analyzer, term string, tokens []Token) (string, []Token) {
	words := strings.Fields(term)
	tokens = a.AppendTokens(tokens[:0], term)
	switch {
	case len(words) == 1 && len(tokens) == 1:
		return tokens[0].Term, tokens
	case len(words) <= 2 && len(tokens) == 2 && tokens[0].Pos == 0 && tokens[1].Pos == 1:
		return tokens[0].Term + " " + tokens[1].Term, tokens
	}
	return "", tokens
}

// DocFreq counts in how many documents each term occurs, to build a
// Dictionary with idf = ln(N / df). The index pipeline counts per language
// and per worker and merges the partial counts (Merge); counts are exact
// integers, so merging in any order gives the same result. Not safe for
// concurrent use.
type DocFreq struct {
	// Lang is the language of the counted documents, "" if not recorded.
	Lang string
	docs int64
	df   map[string]int64
}

// NewDocFreq returns empty counts for a language.
func NewDocFreq(lang string) *DocFreq {
	return &DocFreq{Lang: lang, df: make(map[string]int64)}
}

// AddDocument counts one document with the terms of its bag.
func (c *DocFreq) AddDocument(b *Bag) {
	c.docs++
	for _, term := range b.terms {
		c.df[term]++
	}
}

// AddCounts adds docs documents and df documents containing term; a term
// of "" adds documents only. It is the step of a combiner that sums counts
// term by term.
func (c *DocFreq) AddCounts(term string, df, docs int64) {
	c.docs += docs
	if term != "" && df != 0 {
		c.df[term] += df
	}
}

// Merge adds the counts of o.
func (c *DocFreq) Merge(o *DocFreq) error {
	if c.Lang != o.Lang && c.Lang != "" && o.Lang != "" {
		return fmt.Errorf("scoring: cannot merge document frequencies of %q into %q", o.Lang, c.Lang)
	}
	if c.Lang == "" {
		c.Lang = o.Lang
	}
	c.docs += o.docs
	for term, n := range o.df {
		c.df[term] += n
	}
	return nil
}

// Docs returns N, the number of documents counted.
func (c *DocFreq) Docs() int64 { return c.docs }

// DF returns the number of documents containing term.
func (c *DocFreq) DF(term string) int64 { return c.df[term] }

// Len returns the number of distinct terms.
func (c *DocFreq) Len() int { return len(c.df) }

// Prune drops the terms found in fewer than minDF documents. Most terms of
// a web archive, and most bigrams, occur once; dropping them shrinks the
// dictionary a lot and changes little, as missing terms get the largest
// idf, ln(N / minDF).
func (c *DocFreq) Prune(minDF int64) {
	for term, n := range c.df {
		if n < minDF {
			delete(c.df, term)
		}
	}
}

// Dictionary returns the idf dictionary ln(N / df). A df above N (counts
// from inconsistent sources) gives idf 0.
func (c *DocFreq) Dictionary() *Dictionary {
	d := &Dictionary{idf: make(map[string]float64, len(c.df))}
	for term, n := range c.df {
		if n <= 0 {
			continue
		}
		d.idf[term] = math.Max(0, math.Log(float64(c.docs)/float64(n)))
	}
	d.setMax()
	return d
}

// Document-frequency file format. The first lines are headers:
//
//	#docs<TAB>N          required: number of documents counted
//	#lang<TAB>de         optional: language of the documents
//
// then one "term<TAB>df" per line, sorted by term. Other lines starting
// with '#' and blank lines are comments. Bigram terms contain a space.
const (
	dfDocsHeader = "#docs\t"
	dfLangHeader = "#lang\t"
)

// The index pipeline writes the document frequencies of each language to
// a file named df-LANG.tsv beside the index (DocFreqFileName); the
// extraction finds them there (DocFreqFileGlob, DocFreqLanguage).
const docFreqPrefix, docFreqSuffix = "df-", ".tsv"

// DocFreqFileGlob matches the name of every document-frequency file.
const DocFreqFileGlob = docFreqPrefix + "*" + docFreqSuffix

// DocFreqFileName is the name of the document-frequency file of a
// language: df-LANG.tsv.
func DocFreqFileName(lang string) string { return docFreqPrefix + lang + docFreqSuffix }

// DocFreqLanguage returns the language of a document-frequency file's base
// name (df-LANG.tsv), and whether the name is one.
func DocFreqLanguage(base string) (lang string, ok bool) {
	rest, ok := strings.CutPrefix(base, docFreqPrefix)
	if !ok {
		return "", false
	}
	lang, ok = strings.CutSuffix(rest, docFreqSuffix)
	return lang, ok && lang != ""
}

// LoadDocFreq reads a document-frequency file; see ReadDocFreq.
func LoadDocFreq(path string) (*DocFreq, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDocFreq(f, path)
}

// ReadDocFreq reads the document-frequency format that WriteTo writes.
// name is used in errors.
func ReadDocFreq(r io.Reader, name string) (*DocFreq, error) {
	c := NewDocFreq("")
	haveDocs, haveTerms := false, false
	err := readLinesRaw(r, name, func(line string) error {
		switch {
		case strings.HasPrefix(line, dfDocsHeader):
			if haveDocs || haveTerms {
				return fmt.Errorf("header %q must come once, before the terms", strings.TrimSpace(dfDocsHeader))
			}
			n, err := strconv.ParseInt(strings.TrimSpace(line[len(dfDocsHeader):]), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("document count %q is not a non-negative integer", line[len(dfDocsHeader):])
			}
			c.docs, haveDocs = n, true
		case strings.HasPrefix(line, dfLangHeader):
			if haveTerms {
				return fmt.Errorf("header %q must come before the terms", strings.TrimSpace(dfLangHeader))
			}
			c.Lang = strings.TrimSpace(line[len(dfLangHeader):])
		case strings.TrimSpace(line) == "" || line[0] == '#':
		default:
			if !haveDocs {
				return fmt.Errorf("missing header %q before the first term", "#docs<TAB>N")
			}
			haveTerms = true
			term, value, err := splitTermValue(line)
			if err != nil {
				return err
			}
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("document frequency %q of %q is not a non-negative integer", value, term)
			}
			c.df[term] += n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !haveDocs {
		return nil, fmt.Errorf("%s: missing header %q", name, "#docs<TAB>N")
	}
	return c, nil
}

// WriteTo writes the counts in the document-frequency format, terms
// sorted, so equal counts give byte-identical files.
func (c *DocFreq) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	write := func(format string, args ...any) error {
		k, err := fmt.Fprintf(bw, format, args...)
		n += int64(k)
		return err
	}
	if err := write("%s%d\n", dfDocsHeader, c.docs); err != nil {
		return n, err
	}
	if c.Lang != "" {
		if err := write("%s%s\n", dfLangHeader, c.Lang); err != nil {
			return n, err
		}
	}
	for _, term := range slices.Sorted(maps.Keys(c.df)) {
		if err := write("%s\t%d\n", term, c.df[term]); err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// readLines calls fn for every line that is not blank or a '#' comment,
// prefixing its errors with name and line number.
func readLines(r io.Reader, name string, fn func(line string) error) error {
	return readLinesRaw(r, name, func(line string) error {
		if strings.TrimSpace(line) == "" || line[0] == '#' {
			return nil
		}
		return fn(line)
	})
}

// readLinesRaw calls fn for every line, without its line ending.
func readLinesRaw(r io.Reader, name string, fn func(line string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// splitTermValue splits "term<TAB>value" at the last tab, or at the last
// run of spaces when there is no tab.
func splitTermValue(line string) (term, value string, err error) {
	i := strings.LastIndexByte(line, '\t')
	if i < 0 {
		i = strings.LastIndexAny(strings.TrimRight(line, " "), " ")
	}
	if i < 0 {
		return "", "", fmt.Errorf("%q is not \"term<TAB>value\"", line)
	}
	term = strings.TrimSpace(line[:i])
	value = strings.TrimSpace(line[i+1:])
	if term == "" || value == "" {
		return "", "", fmt.Errorf("%q is not \"term<TAB>value\"", line)
	}
	return term, value, nil
}
