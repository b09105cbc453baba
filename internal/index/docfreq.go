// This file decides which captures of an archive the document-frequency
// dictionary counts (the index pipeline's --dictionary step,
// transforms/index.CountDocumentFrequencies): plain Go, the same choice on
// every runner and in every test. The files' names are scoring's
// (scoring.DocFreqFileName).

package index

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/recrawl/recrawl/internal/cdxj"
)

// Reasons a capture is not counted as a document of the dictionary.
const (
	SkipBadLine     = "bad-line"     // the CDXJ line does not parse
	SkipRevisit     = "revisit"      // a revisit: its payload is counted at the record it revisits
	SkipNotOK       = "not-200"      // HTTP status other than 200 (redirects, errors, none)
	SkipNotHTML     = "not-html"     // media type, or the sniffed payload, is not HTML
	SkipFetchFailed = "fetch-failed" // the record could not be read at its offset
	SkipParseFailed = "parse-failed" // the payload could not be parsed
	SkipNoText      = "no-text"      // an HTML page without main text or without terms
)

// InDictionarySample reports whether the capture with this SURT key and timestamp is
// in a sample of the given rate. The choice depends on nothing else, so
// every run makes the same one.
func InDictionarySample(key, timestamp string, rate float64) bool {
	if rate >= 1 {
		return true
	}
	if rate <= 0 {
		return false
	}
	return float64(captureHash(key, timestamp)>>11)/(1<<53) < rate
}

// captureHash is the FNV-1a hash of "key timestamp": where a capture falls
// in every sample of the dictionary.
func captureHash(key, timestamp string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	h.Write([]byte{' '})
	h.Write([]byte(timestamp))
	return h.Sum64()
}

// Levels is the number of sample levels: a capture's level is the number
// of leading zero bits of its hash, 0 to 64.
const Levels = 65

// DictionaryLevel is the sample level of the capture with this SURT key
// and timestamp: the leading zero bits of its hash. Half the captures
// have level 0, a quarter level 1, and so on; the captures of level L and
// above are a sample of rate 2^-L, and each such sample holds the next.
func DictionaryLevel(key, timestamp string) int {
	return bits.LeadingZeros64(captureHash(key, timestamp))
}

// DefaultDictionaryDocs is the default bound of the documents the
// dictionary parses (--dictionary_docs).
const DefaultDictionaryDocs = 20000

// DictionarySample is the bounded sample of the dictionary: the captures
// it may count (those that pass CountedInDictionary and the --dictionary_sample
// rate) by level, the bound, and the level chosen from them. The captures
// counted are those of level Level and above: the smallest level whose
// captures number at most MaxDocs (every capture when MaxDocs is 0). The
// level depends on the counts alone, and counts add up over archive
// files, so the parts of an index built with --add, summed, choose the
// level of one full build of all their files.
type DictionarySample struct {
	MaxDocs    int64         // the bound; 0: no bound
	Rate       float64       // --dictionary_sample
	Candidates [Levels]int64 // captures the dictionary may count, by level
}

// AddCandidates adds the candidate counts of o (another part of the same
// archive).
func (s *DictionarySample) AddCandidates(o DictionarySample) {
	for i, n := range o.Candidates {
		s.Candidates[i] += n
	}
}

// Level returns the smallest level whose captures (that level and above)
// number at most MaxDocs; 0 when MaxDocs is 0.
func (s DictionarySample) Level() int {
	if s.MaxDocs <= 0 {
		return 0
	}
	var above int64 // candidates of level > l
	for l := Levels - 1; l >= 0; l-- {
		if above+s.Candidates[l] > s.MaxDocs {
			return l + 1
		}
		above += s.Candidates[l]
	}
	return 0
}

// Chosen returns the number of candidates of level Level and above: the
// captures the dictionary reads and parses.
func (s DictionarySample) Chosen() int64 {
	var n int64
	for l := s.Level(); l < Levels; l++ {
		n += s.Candidates[l]
	}
	return n
}

// Rule describes the sample in one line, for the header of the
// dictionary files (df-LANG.tsv "#sample").
func (s DictionarySample) Rule() string {
	return fmt.Sprintf("level>=%d max_docs=%d rate=%s candidates=%d chosen=%d",
		s.Level(), s.MaxDocs, strconv.FormatFloat(s.Rate, 'g', -1, 64), s.total(), s.Chosen())
}

// HeaderLine is the "#sample<TAB>RULE" line of the df-LANG.tsv files
// (after their headers, AddHeaderLine) of a sample that left documents out, "" for a full count. Readers
// of the files take it for a comment; their "#docs" is the number of
// documents counted, the N of the idf.
func (s DictionarySample) HeaderLine() string {
	if s.Level() == 0 && s.Rate >= 1 {
		return ""
	}
	return "#sample\t" + s.Rule() + "\n"
}

// AddHeaderLine inserts HeaderLine into the content of a df-LANG.tsv file
// after its "#docs" and "#lang" headers: the first line stays "#docs",
// which is how readers tell document frequencies from an idf dictionary.
func (s DictionarySample) AddHeaderLine(df []byte) []byte {
	line := s.HeaderLine()
	if line == "" {
		return df
	}
	at := 0
	for _, h := range []string{"#docs\t", "#lang\t"} {
		if !bytes.HasPrefix(df[at:], []byte(h)) {
			break
		}
		if i := bytes.IndexByte(df[at:], '\n'); i >= 0 {
			at += i + 1
		} else {
			at = len(df)
		}
	}
	out := make([]byte, 0, len(df)+len(line))
	return append(append(append(out, df[:at]...), line...), df[at:]...)
}

func (s DictionarySample) total() int64 {
	var n int64
	for _, c := range s.Candidates {
		n += c
	}
	return n
}

// DictionarySampleFile is the file, beside the df-LANG.tsv files, that
// records the dictionary's sample (WriteTo).
const DictionarySampleFile = "dfsample.tsv"

// WriteTo writes the sample: "#max_docs", "#rate" and "#level" headers,
// then "LEVEL<TAB>CANDIDATES" for every level with candidates.
func (s DictionarySample) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#max_docs\t%d\n#rate\t%s\n#level\t%d\n", s.MaxDocs, strconv.FormatFloat(s.Rate, 'g', -1, 64), s.Level())
	for l, n := range s.Candidates {
		if n > 0 {
			fmt.Fprintf(&b, "%d\t%d\n", l, n)
		}
	}
	return b.WriteTo(w)
}

// ReadDictionarySample reads what DictionarySample.WriteTo writes; name is
// used in errors.
func ReadDictionarySample(r io.Reader, name string) (DictionarySample, error) {
	var s DictionarySample
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		k, v, ok := strings.Cut(line, "\t")
		if !ok {
			return s, fmt.Errorf("%s line %d: %q is not KEY<TAB>VALUE", name, n, line)
		}
		var err error
		switch k {
		case "#max_docs":
			s.MaxDocs, err = strconv.ParseInt(v, 10, 64)
		case "#rate":
			s.Rate, err = strconv.ParseFloat(v, 64)
		case "#level": // derived from the counts
		default:
			var l int
			if l, err = strconv.Atoi(k); err == nil && (l < 0 || l >= Levels) {
				err = fmt.Errorf("level %d out of 0..%d", l, Levels-1)
			}
			if err == nil {
				s.Candidates[l], err = strconv.ParseInt(v, 10, 64)
			}
		}
		if err != nil {
			return s, fmt.Errorf("%s line %d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// CountedInDictionary says whether a capture is a document the dictionary counts, and
// if not, the Skip* reason.
func CountedInDictionary(c cdxj.Capture) (ok bool, reason string) {
	switch {
	case c.IsRevisit():
		return false, SkipRevisit
	case c.Status != "200":
		return false, SkipNotOK
	case !cdxj.IsHTML(c.Mime):
		return false, SkipNotHTML
	}
	return true, ""
}
